#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# The test command: installs what the tests need, then builds and runs the
# whole suite three times -
#   plain   gcc, every suite (unit, stress, tools, the spin and GenMC
#           models, lint, and the mutation run: every known fix reverted
#           in turn in a scratch sanitizer build, each caught by a test)
#   asan    gcc, AddressSanitizer + LeakSanitizer + UBSan (halting), and
#           page_pool's debug checks (-Ddebug_checks=true)
#   tsan    clang, ThreadSanitizer
#   fuzz    clang, libFuzzer + ASan + UBSan + debug checks, 20 s per harness
# plain, asan and tsan with the race tests' delay points (-Dtest_hooks=true);
# the install check builds without them, as a user would. All
# with warnings as errors - plus an install check that compiles the
# examples against the installed headers and pkg-config file. Ends with
# "N passed, N failed" and exits non-zero if anything failed.
#   scripts/run-tests.sh [--no-deps] [plain|asan|tsan|install ...]
set -u
cd "$(dirname "$0")/.."
top=$PWD

if [ "${1:-}" = --no-deps ]; then
	shift
else
	# The bench packages too: the peer benchmarks build in every
	# configuration and their smoke test should cover every peer.
	scripts/install-deps.sh bench || { echo "install-deps failed"; echo "0 passed, 1 failed"; exit 1; }
fi
configs=("$@")
[ ${#configs[@]} -gt 0 ] || configs=(plain asan tsan fuzz install)

passed=0 failed=0 skipped=0

# The weak-memory harnesses (tests/genmc, plain build) need GenMC: build it
# from the shared tools once (reused afterwards) unless GENMC names one.
# Without the shared tools the harnesses skip and say so.
if [[ " ${configs[*]} " == *" plain "* ]] && [ -z "${GENMC:-}" ]; then
	genmc_start=$SECONDS
	if genmc=$(scripts/build-genmc.sh); then
		echo "== genmc: ready ($((SECONDS - genmc_start)) s)"
		[ -z "$genmc" ] || export GENMC=$genmc
	else
		echo "== genmc: build FAILED"; failed=$((failed + 1))
	fi
fi

# Add one build's meson test results (from its JSON log) to the totals.
tally() {
	local log=$1 p f s
	read -r p f s < <(python3 - "$log" <<'PY'
import json, sys
p = f = s = 0
try:
    with open(sys.argv[1]) as fh:
        for line in fh:
            r = json.loads(line).get("result")
            if r in ("OK", "EXPECTEDFAIL"):
                p += 1
            elif r == "SKIP":
                s += 1
            else:
                f += 1
except FileNotFoundError:
    f = 1
print(p, f, s)
PY
)
	passed=$((passed + p)) failed=$((failed + f)) skipped=$((skipped + s))
	echo "== $2: $p passed, $f failed, $s skipped ($3 s with the build)"
}

run_build() {
	local name=$1 cc=$2; shift 2
	local dir=build-ci-$name start=$SECONDS
	echo "== $name: configure ($cc $*)"
	rm -rf "$dir"
	# The C++ test programs build with the matching C++ compiler.
	local cxx=g++
	[ "$cc" = clang ] && cxx=clang++
	if ! CC=$cc CXX=$cxx meson setup "$dir" -Dwerror=true "$@" >"$dir.log" 2>&1; then
		cat "$dir.log"; failed=$((failed + 1)); return
	fi
	if ! ninja -C "$dir" >"$dir.log" 2>&1; then
		cat "$dir.log"; echo "== $name: build FAILED"
		failed=$((failed + 1)); return
	fi
	rm -f "$dir.log"
	meson test -C "$dir" --print-errorlogs ${SUITES:-} || true
	tally "$dir/meson-logs/testlog.json" "$name" $((SECONDS - start))
}

# Install into a scratch prefix and build the examples against it with
# nothing but pkg-config, as a user would.
run_install() {
	local dir=build-ci-install dest
	dest=$(mktemp -d)
	echo "== install: meson install into a scratch root"
	rm -rf "$dir"
	if CC=gcc meson setup "$dir" -Dwerror=true -Dprefix=/usr \
		-Dtests=false >/dev/null 2>&1 &&
	   ninja -C "$dir" >/dev/null 2>&1 &&
	   meson install -C "$dir" --destdir "$dest" >/dev/null 2>&1 &&
	   tests/install_check.sh "$dest" "$top"; then
		passed=$((passed + 1)); echo "== install: passed"
	else
		failed=$((failed + 1)); echo "== install: FAILED"
	fi
	rm -rf "$dest"
}

for c in "${configs[@]}"; do
	case $c in
	plain) run_build plain gcc -Dtest_hooks=true ;;
	asan)  SUITES="--no-suite model --no-suite genmc --no-suite lint --no-suite mutation" run_build asan gcc \
		-Db_sanitize=address,undefined -Ddebug_checks=true \
		-Dc_args=-fno-sanitize-recover=all -Dtest_hooks=true ;;
	tsan)  SUITES="--no-suite model --no-suite genmc --no-suite lint --no-suite mutation" run_build tsan clang \
		-Db_sanitize=thread -Db_lundef=false -Dtest_hooks=true ;;
	fuzz)  SUITES="--suite fuzz" run_build fuzz clang \
		-Db_sanitize=address,undefined -Db_lundef=false -Ddebug_checks=true \
		-Dfuzz=true \
		-Dc_args=-fno-sanitize-recover=all ;;
	install) run_install ;;
	*) echo "unknown configuration '$c' (plain, asan, tsan, fuzz, install)"; failed=$((failed + 1)) ;;
	esac
done

[ "$skipped" -eq 0 ] || echo "($skipped skipped)"
echo "($SECONDS s in all)"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
