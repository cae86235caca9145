#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# The cross-CPU part of the benchmark suite: bench_page_pool_cross_cpu with
# one returning thread per CPU beyond the RX thread's (one on a 2-CPU
# machine, so nobody shares a CPU), REPS runs. Cross-CPU figures swing
# between runs on a shared machine, so the median per-page cost of the
# returning threads is reported with min and max (and, with
# PP_BENCH_RESULTS set, written there as a chart row: bench/summary.py).
#   bench/cross_cpu_suite.sh BENCH_PAGE_POOL_CROSS_CPU [REPS] [LOOPS]
set -eu
tool=$1 reps=${2:-5} loops=${3:-10000000}

# One chart row: chart kind label value unit min max note.
result() {
	[ -z "${PP_BENCH_RESULTS:-}" ] ||
		printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$@" >>"$PP_BENCH_RESULTS"
}
ncpu=$(nproc)
nret=$((ncpu > 1 ? ncpu - 1 : 1))
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

"$tool" --loops "$loops" --returning_cpus "$nret" | grep -v '^#   ' | tee "$tmp/run1"
for ((r = 2; r <= reps; r++)); do
	"$tool" --loops "$loops" --returning_cpus "$nret" >"$tmp/run$r"
done
echo "# medians of $reps runs: bench_page_pool_cross_cpu --loops $loops --returning_cpus $nret"
cat "$tmp"/run* | sed -n -E 's/.*Sum Type:page_pool_cross_cpu Average: ([0-9]+) cycles.*/\1/p' |
	sort -n | awk '{ c[NR] = $1 } END {
		printf "page_pool_cross_cpu return, per page: median %d cycles(tsc) (min %d, max %d)\n",
		       c[int((NR + 1) / 2)], c[1], c[NR] }'
cat "$tmp"/run* | sed -n -E 's/.*CPU\([0-9]+\) [0-9]+ cycles\(tsc\) ([0-9.]+) ns.*/\1/p' |
	sort -n | awk '{ n[NR] = $1 } END {
		printf "page_pool_cross_cpu return, per page: median %.3f ns (min %.3f, max %.3f)\n",
		       n[int((NR + 1) / 2)], n[1], n[NR] }' | tee "$tmp/ns"
read -r _ _ _ _ _ ns _ _ lo _ hi <"$tmp/ns"
result cross ours "pagepool bench_page_pool_cross_cpu, page returned from another CPU" \
	"$ns" ns "${lo%,}" "${hi%)}" "bench_page_pool_cross_cpu --loops $loops --returning_cpus $nret"
