#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Copyright (c) 2026 The pagepool authors
#
# The kernel's page_pool selftest (tools/testing/selftests/net/bench/
# test_bench_page_pool.sh) with our program in the module's place: it
# "loads" the benchmark with its default parameters, keeps the last ten
# lines of the log (the selftest reads `dmesg | tail -10`) and needs each
# of its three patterns (fast path, ptr_ring, slow path) to match there.
# Our default output must therefore end as the in-tree module's does; the
# extra tests and the pool counters are opt-in. Module-style key=value
# parameters are accepted too. Small loop counts: nothing is timed.
set -u -o pipefail
tool=$1
fail=0

# $1: what the run was; the rest: the command.
selftest() {
	local what=$1 result
	shift
	result=$("$@" 2>/dev/null | tail -10) || { echo "FAIL: $what: exit status"; fail=1; return; }
	local bad=0
	for pat in 'no-softirq-page_pool01 Per elem: ([0-9]+) cycles\(tsc\) ([0-9]+\.[0-9]+) ns' \
		   'no-softirq-page_pool02 Per elem: ([0-9]+) cycles\(tsc\) ([0-9]+\.[0-9]+) ns' \
		   'no-softirq-page_pool03 Per elem: ([0-9]+) cycles\(tsc\) ([0-9]+\.[0-9]+) ns'; do
		if ! grep -o -E "$pat" <<<"$result" >/dev/null; then
			echo "FAIL: $what: '$pat' not in the last 10 lines"
			bad=1
		fi
	done
	[ $bad = 0 ] || { echo "$result"; fail=1; }
}

# The selftest loads the module with no parameters; ours needs a smaller
# loop count to stay quick, given the module's way and ours.
selftest "loops=20000" "$tool" loops=20000
selftest "--loops 20000" "$tool" --loops 20000
selftest "--outline loops=20000" "$tool" --outline loops=20000
exit $fail
