#!/bin/sh
# SPDX-License-Identifier: MIT
#
# The documentation claims only what exists:
#  - every name a section-3 man page's NAME line documents is declared by
#    the public headers (a function, inline function, macro or type);
#  - every tool the README names (`*_test`, `bench_*`) is built, every
#    file or directory it names or links exists in the tree, and the
#    number of builds it says CI makes is the one scripts/run-tests.sh makes;
#  - every examples/*.c is built and run by examples/meson.build, as the
#    README says;
#  - no README line or man page calls something planned, next, or not yet
#    there when that thing has a man page or a header.
#
# Usage: docs_claims.sh SOURCE_ROOT BUILD_ROOT CC [CFLAGS...]
# Exit: 0 pass, 1 fail, as the tests do.
set -u

if [ $# -lt 3 ]; then
	echo "usage: $0 SOURCE_ROOT BUILD_ROOT CC [CFLAGS...]" >&2
	exit 1
fi
src=$1 build=$2 cc=$3
shift 3
LC_ALL=C
export LC_ALL

fails=0
fail() {
	echo "FAIL: $*"
	fails=$((fails + 1))
}

tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT HUP INT TERM

# ---- Man page NAME entries exist in the headers --------------------------

names=$(for f in "$src"/docs/man/*.3; do
	awk '/^\.SH NAME/ { getline; print; exit }' "$f"
done | sed 's/ \\-.*//' | tr ',' '\n' | sed 's/^ *//; s/ *$//' | sort -u)
[ -n "$names" ] || fail "no NAME entries found in docs/man"

# One translation unit sees every public header; a name is documented
# truthfully if it is a macro there, or if using it compiles.
cat > "$tmp/all.c" <<'EOC'
#include <pagepool/pagepool.h>
EOC
# shellcheck disable=SC2086
if ! $cc "$@" -E -dM "$tmp/all.c" > "$tmp/macros" 2> "$tmp/err"; then
	cat "$tmp/err"
	fail "the public headers do not preprocess with: $cc $*"
	names=
fi
probe() {
	# A function, an object or a type: one of the two forms compiles.
	pn=$1
	shift
	printf '#include <pagepool/pagepool.h>\nvoid f(void);\nvoid f(void) { (void)sizeof(&%s); }\n' "$pn" > "$tmp/p.c"
	# shellcheck disable=SC2086
	$cc "$@" -fsyntax-only "$tmp/p.c" 2>/dev/null && return 0
	printf '#include <pagepool/pagepool.h>\nvoid f(void);\nvoid f(void) { (void)sizeof(%s); }\n' "$pn" > "$tmp/p.c"
	# shellcheck disable=SC2086
	$cc "$@" -fsyntax-only "$tmp/p.c" 2>/dev/null
}
# All non-macro names in one file first; only on failure one by one.
{
	echo '#include <pagepool/pagepool.h>'
	echo 'void f(void);'
	echo 'void f(void) {'
	for n in $names; do
		grep -q "^#define ${n}[ (]" "$tmp/macros" && continue
		echo "	(void)sizeof(&$n);"
	done
	echo '}'
} > "$tmp/names.c"
checked=$(echo "$names" | grep -c .)
# shellcheck disable=SC2086
if [ -n "$names" ] && ! $cc "$@" -fsyntax-only "$tmp/names.c" 2>/dev/null; then
	for n in $names; do
		grep -q "^#define ${n}[ (]" "$tmp/macros" && continue
		probe "$n" "$@" ||
			fail "man page NAME entry '$n' is not declared by the public headers"
	done
fi

# ---- README: tools, paths, links -----------------------------------------

readme=$src/README.md
# Backquoted tool names: ptr_ring_test, bench_page_pool_simple, ...
for t in $(grep -o '`[a-z_]*`' "$readme" | tr -d '`' | sort -u); do
	case $t in
	*_test | bench_*) ;;
	*) continue ;;
	esac
	if [ -z "$(find "$build" -type f -name "$t" -perm -u+x 2>/dev/null | head -n1)" ]; then
		# Tools are optional (-Dtools=false): then only their sources.
		if [ -z "$(find "$src/tools" "$src/bench" -name "$t.c" 2>/dev/null | head -n1)" ]; then
			fail "README names the tool $t, which is neither built nor in tools/ or bench/"
		fi
	fi
done
# Backquoted paths (a slash, no spaces) and markdown links to the tree.
# bench-results/ is written by the benchmark run, not shipped.
for p in $( (grep -o '`[A-Za-z0-9_./-]*/[A-Za-z0-9_./-]*`' "$readme" | tr -d '`'
	     grep -o '](\([A-Za-z0-9_./-]*\))' "$readme" | sed 's/^](//; s/)$//') |
	    sort -u); do
	case $p in
	http*://* | bench-results/* | /*) continue ;;
	esac
	[ -e "$src/$p" ] && continue
	# A bare "dir/" in the layout table is relative to its row's path.
	case ${p%/} in
	*/*) ;;
	*)
		[ -n "$(find "$src" -maxdepth 4 -type d -name "${p%/}" \
			! -path "$src/build*" ! -path "$src/.git/*" | head -n1)" ] &&
			continue
		;;
	esac
	fail "README names $p, which is not in the tree"
done

# The number of builds the README says CI makes is the number of build
# configurations scripts/run-tests.sh runs by default (the install check
# is not a build of the tests). Checked only while both say it this way.
default=$(sed -n 's/.*|| configs=(\(.*\))$/\1/p' "$src/scripts/run-tests.sh" 2>/dev/null)
if [ -n "$default" ]; then
	nbuild=0
	for c in $default; do
		[ "$c" = install ] || nbuild=$((nbuild + 1))
	done
	for w in $(grep -o 'builds [a-z]* ways' "$readme" | awk '{print $2}'); do
		case $w in
		one) n=1 ;; two) n=2 ;; three) n=3 ;; four) n=4 ;; five) n=5 ;;
		six) n=6 ;; seven) n=7 ;; eight) n=8 ;; *) n=0 ;;
		esac
		[ "$n" -eq "$nbuild" ] ||
			fail "README says the tests build $w ways; scripts/run-tests.sh runs $nbuild builds ($default)"
	done
fi

# ---- Examples are built and run ------------------------------------------

for e in "$src"/examples/*.c; do
	[ -e "$e" ] || continue
	n=$(basename "$e" .c)
	grep -q "'$n'" "$src/examples/meson.build" ||
		fail "examples/$n.c is not built by examples/meson.build"
done

# ---- Nothing that exists is called planned -------------------------------

exists() {
	[ -f "$src/docs/man/$1.3" ] || [ -f "$src/docs/man/$1.7" ] ||
		[ -f "$src/include/pagepool/$1" ] || [ -f "$src/include/pagepool/$1.h" ]
}
# A claim is judged by its sentence: paragraphs (blank-line separated in
# the README, between paragraph macros in a man page) are joined and split
# into sentences. A man page's item often names its subject in the tag
# (".TP" / ".B page_frag_cache" / "Planned."): there a sentence naming
# nothing is judged with its whole item.
claims='planned|not in this release|not yet (available|implemented|supported|there|done)|is next$|will come|future release|once (it|they) exists?'
for f in "$readme" "$src"/docs/man/*.[37]; do
	case $f in
	*.md) man=0 ;;
	*) man=1 ;;
	esac
	awk -v re="$claims" -v man="$man" '
	function flush(   n, i, s, found) {
		if (para == "")
			return
		n = split(para, sent, /\. /)
		for (i = 1; i <= n; i++) {
			s = tolower(sent[i])
			sub(/[ .]+$/, "", s)
			if (s ~ re) {
				found = sent[i]
				if (man && found !~ /[A-Za-z0-9]_[A-Za-z0-9]|\.h/)
					found = para
				print start "\t" found
			}
		}
		para = ""
	}
	/^$/ || /^\.(TP|PP|LP|P|IP|SH|SS)( |$)/ { flush(); next }
	{
		if (para == "")
			start = NR
		line = $0
		sub(/^\.[A-Z]+ /, "", line)	# font macros: keep their text
		para = para " " line
	}
	END { flush() }' "$f" |
	while IFS="	" read -r at text; do
		for w in $(echo "$text" | grep -oE '[A-Za-z_][A-Za-z0-9_]*(\.h)?' | sort -u); do
			case $w in
			*_* | *.h) ;;
			*) continue ;;
			esac
			if exists "$w"; then
				echo "FAIL: ${f#"$src"/}:$at: calls $w planned or missing, but it exists"
			fi
		done
	done
done > "$tmp/planned"
if [ -s "$tmp/planned" ]; then
	cat "$tmp/planned"
	fails=$((fails + $(wc -l < "$tmp/planned")))
fi

echo "$checked man page names, $fails failures"
[ "$fails" -eq 0 ] || exit 1
exit 0
