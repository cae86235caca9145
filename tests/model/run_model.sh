#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# run_model.sh - check one configuration of tests/model/ptr_ring.pml with
# spin and compare the outcome with the expected one.
#
# Usage: run_model.sh [-m MODEL.pml] [-k] EXPECT [NAME=VALUE ...]
#   EXPECT      holds     - exhaustive search, 0 errors, not truncated
#               violated  - spin finds an assertion violation
#   NAME=VALUE  model parameters, passed as spin -DNAME=VALUE. For
#               ptr_ring.pml: SIZE BATCH ITEMS NPROD HEAD_FIRST OBSERVER
#               CHECK GHOST (others are refused, to catch typos); with -m
#               any upper-case NAME is accepted. VALUE is a number.
#   -m MODEL    the model (default: ptr_ring.pml next to this script)
#   -k          keep the temporary directory (model.pml, pan, the trail)
#               for inspection; replay a trail there with
#               spin -DNAME=VALUE... -t -p model.pml
#
# Environment: SPIN (default spin), CC (default gcc, else cc),
#   PAN_CFLAGS (default -O0: every search here takes milliseconds and
#   compiling pan.c dominates the run, -O2 costs 2-4 times as long to
#   compile; use -O2 for large searches),
#   PAN_MEMLIM (MB, default 1024), PAN_DEPTH (pan -m, default 100000),
#   PAN_HASH (pan -w, log2 of the hash table slots, default 20). The
#   defaults fit every configuration in tests/model/meson.build with a wide
#   margin; a search that needs more is reported as incomplete, not as
#   holding.
#
# Exit: 0 outcome as expected, 1 not as expected (or error), 77 spin or a
# C compiler is missing.
#
# Prints one line per run:
#   model SIZE=2 ... : violated (expected violated) ok, states 487, pan 0.00 s, total 0.41 s

set -u

here=$(cd "$(dirname "$0")" && pwd)
model="$here/ptr_ring.pml"
keep=0
custom_model=0

while getopts "m:k" opt; do
	case $opt in
	m) model=$OPTARG; custom_model=1 ;;
	k) keep=1 ;;
	*) echo "usage: $0 [-m model.pml] [-k] holds|violated [NAME=VALUE ...]" >&2
	   exit 1 ;;
	esac
done
shift $((OPTIND - 1))

if [ $# -lt 1 ]; then
	echo "usage: $0 [-m model.pml] [-k] holds|violated [NAME=VALUE ...]" >&2
	exit 1
fi
expect=$1
shift
case $expect in
holds|violated) ;;
*) echo "run_model.sh: EXPECT must be 'holds' or 'violated', not '$expect'" >&2
   exit 1 ;;
esac

defs=()
config=""
for kv in "$@"; do
	name=${kv%%=*}
	value=${kv#*=}
	case $name in
	SIZE|BATCH|ITEMS|NPROD|HEAD_FIRST|OBSERVER|CHECK|GHOST) ;;
	''|[!A-Z_]*|*[!A-Z0-9_]*)
		echo "run_model.sh: bad parameter '$kv'" >&2; exit 1 ;;
	*) if [ "$custom_model" = 0 ]; then
		echo "run_model.sh: unknown parameter '$kv'" >&2; exit 1
	   fi ;;
	esac
	case $value in
	''|*[!0-9]*) echo "run_model.sh: '$kv': value must be a number" >&2
		     exit 1 ;;
	esac
	defs+=("-D$name=$value")
	config="$config $name=$value"
done
config=${config# }

spin=${SPIN:-spin}
if ! command -v "$spin" >/dev/null 2>&1; then
	echo "model $config: SKIP (spin not found)"
	exit 77
fi
if [ -n "${CC:-}" ]; then
	cc=$CC
elif command -v gcc >/dev/null 2>&1; then
	cc=gcc
else
	cc=cc
fi
# CC may carry flags ("ccache gcc"): test its first word.
if ! command -v "${cc%% *}" >/dev/null 2>&1; then
	echo "model $config: SKIP (no C compiler)"
	exit 77
fi
if [ ! -r "$model" ]; then
	echo "run_model.sh: cannot read model '$model'" >&2
	exit 1
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/ptr_ring_model.XXXXXX") || exit 1
# shellcheck disable=SC2317  # called through the EXIT trap
cleanup() {
	if [ "$keep" = 1 ]; then
		echo "run_model.sh: kept $tmp" >&2
	else
		rm -rf "$tmp"
	fi
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP

now() { date +%s.%N; }
t0=$(now)

# Work on a copy: pan names its trail after the model path it was given,
# so a path outside the temporary directory would leave a trail there.
cp "$model" "$tmp/model.pml" || exit 1
cd "$tmp" || exit 1

if ! "$spin" "${defs[@]}" -a model.pml >spin.out 2>&1; then
	echo "model $config: ERROR (spin -a failed)"
	cat spin.out >&2
	exit 1
fi

# Exhaustive safety search (assertions and invalid end states), exact state
# storage, compressed state vectors, bounded memory.
memlim=${PAN_MEMLIM:-1024}
depth=${PAN_DEPTH:-100000}
hash=${PAN_HASH:-20}
# shellcheck disable=SC2086
if ! $cc ${PAN_CFLAGS:--O0} -DSAFETY -DCOLLAPSE -DMEMLIM="$memlim" -w -o pan pan.c \
	>cc.out 2>&1; then
	echo "model $config: ERROR (compiling pan failed)"
	cat cc.out >&2
	exit 1
fi

./pan -m"$depth" -w"$hash" >pan.out 2>&1
pan_rc=$?
t1=$(now)

errors=$(sed -n 's/.*errors: \([0-9][0-9]*\).*/\1/p' pan.out | tail -n 1)
states=$(sed -n 's/^ *\([0-9][0-9.e+]*\) states, stored.*/\1/p' pan.out |
	tail -n 1)
pantime=$(sed -n 's/^pan: elapsed time \([0-9.e+-]*\) seconds.*/\1/p' \
	pan.out | tail -n 1)
total=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", b - a }')

truncated=0
if grep -q "max search depth too small" pan.out; then
	truncated=1
fi
if grep -qE "out of memory|reached -DMEMLIM|Search not completed" pan.out; then
	incomplete=1
else
	incomplete=0
fi

if [ -z "$errors" ]; then
	outcome="error"
elif [ "$errors" -gt 0 ] && grep -q "assertion violated" pan.out; then
	outcome="violated"
elif [ "$errors" -gt 0 ]; then
	# e.g. an invalid end state (deadlock): a failure either way
	outcome="error"
elif [ "$truncated" = 1 ] || [ "$incomplete" = 1 ]; then
	outcome="incomplete"
else
	outcome="holds"
fi

if [ "$outcome" = "$expect" ]; then
	verdict="ok"
	rc=0
else
	verdict="FAIL"
	rc=1
fi
what=""
if [ "$outcome" = "violated" ]; then
	what=" [$(grep -m1 -o 'assertion violated.*' pan.out | sed 's/ (at depth.*//')]"
fi
printf 'model %s: %s (expected %s) %s, states %s, pan %s s, total %s s%s\n' \
	"$config" "$outcome" "$expect" "$verdict" "${states:-?}" \
	"${pantime:-?}" "$total" "$what"
if [ "$rc" != 0 ]; then
	echo "--- pan output (exit $pan_rc) ---"
	cat pan.out
fi
exit $rc
