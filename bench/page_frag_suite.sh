#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Copyright (c) 2026 The pagepool authors
#
# The page_frag_cache part of the benchmark suite: page_frag_test (the
# kernel's page_frag test module as a program) with the kernel script's
# smoke, nonaligned and aligned presets, each with glibc, mimalloc and
# jemalloc in the same run (--compare). nonaligned and aligned use
# NR_TEST iterations (the script's 100M would keep the malloc rows busy
# for many minutes). With PP_BENCH_RESULTS set, the nonaligned and aligned
# figures and the kernel's published ones go there as chart rows
# (bench/summary.py describes them).
#   bench/page_frag_suite.sh PAGE_FRAG_TEST [NR_TEST]
set -eu
tool=$1 nr=${2:-10000000}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# One chart row: chart kind label value unit min max note.
result() {
	[ -z "${PP_BENCH_RESULTS:-}" ] ||
		printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$@" >>"$PP_BENCH_RESULTS"
}

# The kernel's figures: the page_frag_cache series (Yunsheng Lin, Part-1
# cover letter), arm64 at 2.6 GHz, perf stat -r 200 of the module with
# test_alloc_len=12 nr_test=51200000, elapsed seconds / nr_test: before
# the series and after it.
cover='the page_frag_cache series, Part-1 cover letter (Yunsheng Lin)'
declare -A kernel=([nonaligned]=82.81 [aligned]=18.26)

"$tool" --preset smoke --compare
for p in nonaligned aligned; do
	"$tool" --preset $p "nr_test=$nr" --compare | tee "$tmp/$p"
	# "# ALLOCATOR: N ns per iteration, M M/s"
	sed -n -E 's/^# ([a-z]+): ([0-9.]+) ns per iteration.*/\1 \2/p' "$tmp/$p" |
	while read -r who ns; do
		if [ "$who" = pagepool ]; then
			result frag ours "pagepool page_frag_cache, $p" "$ns" ns '' '' \
				"page_frag_test --preset $p nr_test=$nr"
			result frag kernel "kernel page_frag_cache, $p (arm64, 12-byte fragments)" \
				"${kernel[$p]}" ns '' '' "$cover"
		else
			result frag peer "$who malloc/free, $p" "$ns" ns '' '' \
				"page_frag_test --preset $p nr_test=$nr --alloc $who"
		fi
	done
done
echo "# the kernel's page_frag_test ($cover; arm64 2.6 GHz, 12-byte fragments, elapsed / 51200000):"
echo "#   nonaligned 89.92 ns before the series, 82.81 ns after; aligned 67.15 ns before, 18.26 ns after"
