#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Copyright (c) 2026 The pagepool authors
#
# The page_pool part of the benchmark suite: bench_page_pool_simple (the
# kernel's bench module as a program) with every test (run_flags 0x3ff)
# in both call shapes, interleaved, REPS times each: inline (the header's
# fast paths, as a user gets them) and --outline (the library's exported
# functions with a barrier per iteration, as the kernel module calls the
# kernel's). Prints the first run of each in full (machine header, every
# time_bench line, the pool counters after each test), then
# bench/summary.py --kernel: the median of every row with fractional
# ticks, the --outline rows beside the kernel's published figures for the
# same test and context, and the verdicts.
#   bench/page_pool_suite.sh BENCH_PAGE_POOL_SIMPLE [REPS] [LOOPS] [--json]
set -eu
here=$(cd "$(dirname "$0")" && pwd)
json=0 pos=()
for a in "$@"; do
	case $a in
	--json) json=1 ;;
	*) pos+=("$a") ;;
	esac
done
tool=${pos[0]:?usage: page_pool_suite.sh BENCH_PAGE_POOL_SIMPLE [REPS] [LOOPS] [--json]}
reps=${pos[1]:-5} loops=${pos[2]:-100000000}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
if [ $json = 1 ]; then exec 3>&2; else exec 3>&1; fi

for ((r = 1; r <= reps; r++)); do
	for mode in inline outline; do
		flag=()
		[ $mode = inline ] || flag=(--outline)
		if [ "$r" = 1 ]; then
			"$tool" "${flag[@]}" --loops "$loops" --run_flags 0x3ff --stats |
				tee "$tmp/$mode.$r" >&3
		else
			"$tool" "${flag[@]}" --loops "$loops" --run_flags 0x3ff >"$tmp/$mode.$r"
		fi
	done
done
# One results file; the --outline rows typed "outline:<row>".
cat "$tmp"/inline.* >"$tmp/results"
sed 's/Type:/Type:outline:/' "$tmp"/outline.* >>"$tmp/results"
echo "# medians of $reps interleaved runs of each: bench_page_pool_simple [--outline] --loops $loops --run_flags 0x3ff" >&3
args=(--kernel --meta "reps=$reps" --meta "loops=$loops")
[ $json = 0 ] || args+=(--json)
python3 "$here/summary.py" "${args[@]}" "$tmp/results"
