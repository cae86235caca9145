#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# Checks an installed tree (a meson install --destdir root) as a user
# meets it: headers under include/pagepool, a pkg-config file named
# pagepool, shared and static libraries exporting only versioned API
# symbols and carrying the USDT probes, man pages, the tools; and that the
# examples and the README's usage example compile and run against it with
# pkg-config alone. The
# kernel compat tree (pkg-config pagepool-kernel) likewise: each of its
# headers alone, and the model driver tests/kdriver built and run with
# its flags.
#   tests/install_check.sh DESTDIR SOURCE_DIR
set -eu
dest=$1 src=$2
fail() { echo "install_check: $*" >&2; exit 1; }

pc=$(find "$dest" -name pagepool.pc | head -n1)
[ -n "$pc" ] || fail "no pagepool.pc installed"
export PKG_CONFIG_PATH=$(dirname "$pc") PKG_CONFIG_SYSROOT_DIR=$dest
libdir=$(dirname "$(dirname "$pc")")
[ -f "$dest/usr/include/pagepool/ptr_ring.h" ] || fail "headers not under include/pagepool"
[ -f "$libdir/libpagepool.a" ] || fail "no static library"
so=$(find "$libdir" -name 'libpagepool.so.*' -type f | head -n1)
[ -n "$so" ] || fail "no shared library"
ls "$dest"/usr/share/man/man3/ptr_ring_init.3* >/dev/null 2>&1 || fail "man pages not installed"
[ -x "$dest/usr/bin/ptr_ring_test" ] || fail "ptr_ring_test not installed"
# Installed tools start without LD_LIBRARY_PATH: their rpath is relative.
for t in "$dest"/usr/bin/*; do
	env -u LD_LIBRARY_PATH "$t" --help >/dev/null 2>&1 ||
		fail "$(basename "$t") does not start from the installed tree"
done

# Exactly the version script's symbols are exported: no internal helper
# leaks, and nothing listed is missing.
want=$(sed -n '/global:/,/local:/p' "$src/src/libpagepool.map" |
	grep -E '^[[:space:]]+[A-Za-z_][A-Za-z0-9_]*;' | tr -d ' \t;' | sort)
have=$(nm -D --defined-only "$so" | awk '$2 != "A" {print $3}' |
	sed 's/@.*//' | sort)
diff=$(diff <(echo "$want") <(echo "$have") || true)
[ -z "$diff" ] || fail "exported symbols differ from the version script: $diff"
# The USDT probes (pagepool-usdt(7)) are in the installed libraries
# whenever this machine has <sys/sdt.h>, as the build would have found it.
if echo '#include <sys/sdt.h>' | ${CC:-cc} -E - >/dev/null 2>&1; then
	"$src/tests/usdt_probes.sh" "$so" "$libdir/libpagepool.a" >/dev/null ||
		fail "USDT probes missing: $("$src/tests/usdt_probes.sh" "$so" "$libdir/libpagepool.a" | grep FAIL | head -n3)"
fi
nm -D --defined-only --with-symbol-versions "$so" 2>/dev/null |
	grep -q 'ptr_ring_init@@PAGEPOOL_0.1' || fail "symbols not versioned"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cflags=$(pkg-config --cflags pagepool)
libs=$(pkg-config --libs pagepool)

# Every installed header stands alone, in C and in C++.
for h in "$dest"/usr/include/pagepool/*.h; do
	inc="#include <pagepool/$(basename "$h")>"
	# shellcheck disable=SC2086
	echo "$inc" | cc -std=gnu11 -Wall -Wextra -Werror $cflags -x c -fsyntax-only - ||
		fail "$(basename "$h") does not compile alone as C"
	if command -v g++ >/dev/null 2>&1; then
		# shellcheck disable=SC2086
		echo "$inc" | g++ -std=c++17 -Wall -Wextra -Werror $cflags -x c++ -fsyntax-only - ||
			fail "$(basename "$h") does not compile as C++17"
	fi
done
# The kernel compat tree: kernel code's <linux/...> and <net/...> headers,
# each alone, in C and C++, with pagepool-kernel's flags first.
pkg-config --exists pagepool-kernel || fail "no pagepool-kernel.pc installed"
kcflags=$(pkg-config --cflags pagepool-kernel)
klibs=$(pkg-config --libs pagepool-kernel)
case " $kcflags " in
*/include/pagepool/kernel" "*) ;;
*) fail "pagepool-kernel --cflags does not name the compat tree: $kcflags" ;;
esac
ktree=$dest/usr/include/pagepool/kernel
[ -f "$ktree/net/page_pool/helpers.h" ] || fail "compat tree not under include/pagepool/kernel"
for h in $(cd "$ktree" && find . -name '*.h' | sed 's|^\./||' | sort); do
	inc="#include <$h>"
	# shellcheck disable=SC2086
	echo "$inc" | cc -std=gnu11 -Wall -Wextra -Werror $kcflags -x c -fsyntax-only - ||
		fail "kernel $h does not compile alone as C"
	if command -v g++ >/dev/null 2>&1; then
		# shellcheck disable=SC2086
		echo "$inc" | g++ -std=c++17 -Wall -Wextra -Werror $kcflags -x c++ -fsyntax-only - ||
			fail "kernel $h does not compile as C++17"
	fi
done
# The model driver, kernel code built with nothing but those flags.
# shellcheck disable=SC2086
cc -std=gnu11 -Wall -Wextra -Werror -pthread $kcflags "$src"/tests/kdriver/*.c \
	-o "$work/kdriver" $klibs || fail "the model driver does not build with pagepool-kernel"
LD_LIBRARY_PATH=$libdir "$work/kdriver" >/dev/null || fail "the model driver failed"

# The README's usage examples: every ```c block, one program each.
awk -v dir="$work" '/^```c$/{n++; f=1; next} /^```$/{f=0} f {print > (dir "/readme" n ".c")}' \
	"$src/README.md"
ls "$work"/readme*.c >/dev/null 2>&1 || fail "README has no C example"
for f in "$src"/examples/*.c "$work"/readme*.c; do
	exe=$work/$(basename "$f" .c)
	# An example of another library's API (liburing) takes its flags
	# from that library's pkg-config file too, as its user would.
	xflags='' xlibs=''
	if grep -q '<liburing.h>' "$f"; then
		pkg-config --exists liburing || { echo "install_check: $(basename "$f") skipped: no liburing"; continue; }
		xflags=$(pkg-config --cflags liburing) xlibs=$(pkg-config --libs liburing)
	fi
	# shellcheck disable=SC2086
	cc -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -pthread $cflags $xflags "$f" -o "$exe" $libs $xlibs ||
		fail "$(basename "$f") does not compile against the installed tree"
	LD_LIBRARY_PATH=$libdir "$exe" >/dev/null || fail "$(basename "$f") failed"
	# Static: the archive plus what pkg-config --static says it needs.
	# shellcheck disable=SC2086
	cc -std=c11 -D_GNU_SOURCE -pthread $cflags $xflags "$f" -o "$exe.static" "$libdir/libpagepool.a" \
		$(pkg-config --static --libs pagepool | sed 's/-lpagepool//') $xlibs ||
		fail "$(basename "$f") does not link statically"
	"$exe.static" >/dev/null || fail "$(basename "$f") (static) failed"
done
echo "install_check: ok"
