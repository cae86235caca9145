#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# The page_pool part of the benchmark suite: bench_page_pool_simple (the
# kernel's bench module as a program) run REPS times; prints the first
# run in full (machine header, every time_bench line, the pool counters
# after each test) and then the median of each result over all runs, with
# the kernel's published numbers and our targets beside them.
#   bench/page_pool_suite.sh BENCH_PAGE_POOL_SIMPLE [REPS] [LOOPS]
set -eu
tool=$1 reps=${2:-5} loops=${3:-100000000}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

"$tool" --loops "$loops" | tee "$tmp/run1"
for ((r = 2; r <= reps; r++)); do
	"$tool" --loops "$loops" --run_flags 0xffffffff >"$tmp/run$r"
done
echo "# medians of $reps runs: bench_page_pool_simple --loops $loops"
cat "$tmp"/run* | sed -n -E 's/.*Type:([^ ]+) Per elem: ([0-9]+) cycles\(tsc\) ([0-9.]+) ns.*/\1 \2 \3/p' |
	sort -k1,1 -k3,3n | awk -v reps="$reps" '
	function flush() {
		if (name == "") return
		m = int((n + 1) / 2)
		printf "%-32s %6d cycles %9.3f ns   (min %.3f, max %.3f)\n",
		       name, c[m], ns[m], ns[1], ns[n]
	}
	$1 != name { flush(); name = $1; n = 0 }
	{ n++; c[n] = $2; ns[n] = $3 }
	END { flush() }'
cat <<'TXT'
# kernel, bench_page_pool_simple, best published (EPYC 9684X, SRSO=ibpb):
#   fast_path 14 cycles 5.555 ns, ptr_ring 31 cycles 12.389 ns, slow 95 cycles 37.607 ns
# targets: page_pool01 < 8 cycles, page_pool02 < 30, page_pool03 < 100
TXT
