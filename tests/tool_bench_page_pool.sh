#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Copyright (c) 2026 The pagepool authors
#
# Drives bench_page_pool_simple with few loops: by default it runs the
# in-tree module's tests only (baselines, no-softirq 01-03) and prints no
# counters, so its output ends as the module's log does (the selftest's
# tail is checked by tool_bench_page_pool_selftest.sh); run_flags selects
# the out-of-tree module's tasklet tests and our owner tests by the same
# bits; --stats prints the pool counters, which show the path each test
# really took; --outline runs the same tests through the exported
# functions; module-style key=value parameters work; bad usage exits 2.
# No timing is checked: numbers belong to the benchmark suite, not to
# tests.
set -u
tool=$1
fail=0
re_line='Per elem: ([0-9]+) cycles\(tsc\) ([0-9]+\.[0-9]+) ns'

out=$("$tool" --loops 20000 2>&1) || { echo "FAIL: exit $?"; echo "$out"; exit 1; }
for t in for_loop atomic_inc lock owner_check no-softirq-page_pool01 \
	 no-softirq-page_pool02 no-softirq-page_pool03; do
	grep -Eq "Type:$t $re_line" <<<"$out" || { echo "FAIL: default: no $t line"; fail=1; }
done
[ "$(grep -c 'Per elem' <<<"$out")" -eq 7 ] || { echo "FAIL: default: other tests ran"; fail=1; }
! grep -q 'stats:' <<<"$out" || { echo "FAIL: default: counters printed"; fail=1; }
grep -q '^# Calls: inline' <<<"$out" || { echo "FAIL: default: not inline"; fail=1; }

for mode in "" --outline; do
	what=${mode:-inline}
	# shellcheck disable=SC2086
	out=$("$tool" $mode --loops 20000 --run_flags 0x3fe --stats 2>&1) ||
		{ echo "FAIL: $what: exit $?"; echo "$out"; fail=1; continue; }
	for t in no-softirq-page_pool01 no-softirq-page_pool02 no-softirq-page_pool03 \
		 tasklet_page_pool01_fast_path tasklet_page_pool02_ptr_ring \
		 tasklet_page_pool03_slow owner_page_pool01_fast_path \
		 owner_page_pool02_napi_local owner_page_pool03_slow; do
		grep -Eq "Type:$t $re_line" <<<"$out" || { echo "FAIL: $what: no $t line"; fail=1; }
	done
	[ "$(grep -c '  stats: alloc fast' <<<"$out")" -eq 9 ] || { echo "FAIL: $what: stats lines"; fail=1; }
	# The path each test took, from its counters: 01 direct, 02 through
	# the ring (no NAPI, the tasklet's pool included) or direct (owner:
	# NAPI-local), 03 the slow path, one bulk per 64 pages (312 for
	# 20000 loops after the 64 prefilled ring pages) plus the prefill's.
	for t in no-softirq-page_pool01 tasklet_page_pool01_fast_path owner_page_pool01_fast_path \
		 owner_page_pool02_napi_local; do
		grep -A1 "Type:$t Per" <<<"$out" | grep -q 'cached 20000 ' ||
			{ echo "FAIL: $what: $t did not recycle directly"; fail=1; }
	done
	for t in no-softirq-page_pool02 tasklet_page_pool02_ptr_ring; do
		grep -A1 "Type:$t Per" <<<"$out" | grep -q 'cached 0 .* ring 20064 ' ||
			{ echo "FAIL: $what: $t did not go through the ring"; fail=1; }
	done
	for t in no-softirq-page_pool03 tasklet_page_pool03_slow owner_page_pool03_slow; do
		grep -A1 "Type:$t Per" <<<"$out" | grep -q 'slow 313 ' ||
			{ echo "FAIL: $what: $t did not take the slow path"; fail=1; }
	done
done
# --bulk 32: the owner's bulk round trip recycles every page directly,
# a pool without NAPI's goes through the ring, per page; both call modes.
for mode in "" --outline; do
	what="bulk ${mode:-inline}"
	# shellcheck disable=SC2086
	out=$("$tool" $mode --loops 3200 --bulk 32 --run_flags 0x84 --stats 2>&1) ||
		{ echo "FAIL: $what: exit $?"; echo "$out"; fail=1; continue; }
	grep -A1 "Type:owner_page_pool01_fast_path_bulk32 Per" <<<"$out" | grep -q 'cached 3200 ' ||
		{ echo "FAIL: $what: owner bulk did not recycle directly"; echo "$out"; fail=1; }
	grep -A1 "Type:no-softirq-page_pool02_bulk32 Per" <<<"$out" | grep -q 'cached 0 .* ring 3264 ' ||
		{ echo "FAIL: $what: bulk without NAPI did not go through the ring"; echo "$out"; fail=1; }
done
# --trusted: the owner's pages come back with
# page_pool_recycle_direct_bulk(), straight into the cache; a pool without
# NAPI has no owner, so the batch falls back to the checked put: the ring.
for mode in "" --outline; do
	what="bulk trusted ${mode:-inline}"
	# shellcheck disable=SC2086
	out=$("$tool" $mode --loops 3200 --bulk 32 --trusted --run_flags 0x84 --stats 2>&1) ||
		{ echo "FAIL: $what: exit $?"; echo "$out"; fail=1; continue; }
	grep -A1 "Type:owner_page_pool01_fast_path_bulk32_trusted Per" <<<"$out" | grep -q 'cached 3200 ' ||
		{ echo "FAIL: $what: owner trusted bulk did not recycle directly"; echo "$out"; fail=1; }
	grep -A1 "Type:no-softirq-page_pool02_bulk32_trusted Per" <<<"$out" | grep -q 'cached 0 .* ring 3264 ' ||
		{ echo "FAIL: $what: trusted bulk without an owner did not fall back to the ring"; echo "$out"; fail=1; }
done
for bad in "--bulk 0" "--bulk 65" "--bulk x" "--trusted"; do
	# shellcheck disable=SC2086
	"$tool" $bad >/dev/null 2>&1; rc=$?
	[ "$rc" -eq 2 ] || { echo "FAIL: '$bad' exited $rc, want 2"; fail=1; }
done
"$tool" --outline --loops 2000 --run_flags 0 | grep -q '^# Calls: outline' ||
	{ echo "FAIL: --outline not announced"; fail=1; }

# run_flags selects tests, as an option or as the module's parameter.
for args in "--loops 5000 --run_flags 4" "loops=5000 run_flags=4" "run_flags=0x4 --loops=5000"; do
	# shellcheck disable=SC2086
	out=$("$tool" $args)
	[ "$(grep -c 'Per elem' <<<"$out")" -eq 1 ] && grep -q 'no-softirq-page_pool02 ' <<<"$out" &&
		grep -q 'loops 5000,' <<<"$out" || { echo "FAIL: $args"; fail=1; }
done
"$tool" --loops 2000 --run_flags 2 --json |
	grep -Eq '^\{"type":"no-softirq-page_pool01","cycles":[0-9]+,.*"cycles_exact":[0-9]+\.[0-9]{3},.*"mode":"inline"\}$' ||
	{ echo "FAIL: --json"; fail=1; }
# Wall-clock nanoseconds are never labelled as TSC cycles.
out=$(PP_TIME_BENCH_CLOCK=monotonic "$tool" --loops 2000 --run_flags 3)
! grep -q 'cycles(tsc)' <<<"$out" && grep -q 'Type:no-softirq-page_pool01 Per elem: [0-9]* ns(monotonic) ' <<<"$out" ||
	{ echo "FAIL: monotonic clock labelled cycles(tsc)"; fail=1; }
for bad in "--loops 999" "--loops 4294967296" "--loops x" "loops=999" "loops=" \
	   "run_flags=x" "--run_flags -1" "verbose=1" "--bogus" "extra"; do
	# shellcheck disable=SC2086
	"$tool" $bad >/dev/null 2>&1; rc=$?
	[ "$rc" -eq 2 ] || { echo "FAIL: '$bad' exited $rc, want 2"; fail=1; }
done
"$tool" --help | grep -q -- '--outline' || { echo "FAIL: --help"; fail=1; }

# The suite's summary: the --outline rows, and only those, beside the
# kernel's figures (never a direct recycle beside the kernel's ring
# figure), with fractional ticks; the inline rows after them.
suite=$(dirname "$0")/../bench/page_pool_suite.sh
if command -v python3 >/dev/null 2>&1; then
	out=$("$suite" "$tool" 1 2000 2>&1) || { echo "FAIL: page_pool_suite.sh: exit $?"; echo "$out"; fail=1; }
	sum=$(sed -n '/^# bench_page_pool_simple, median/,$p' <<<"$out")
	kern=$(sed -n '/^== --outline/,/^== inline/p' <<<"$sum" | grep -E 'E5-1650|EPYC')
	for t in no-softirq-page_pool01 no-softirq-page_pool02 no-softirq-page_pool03 \
		 tasklet_page_pool01_fast_path tasklet_page_pool02_ptr_ring tasklet_page_pool03_slow; do
		grep -Eq "^  $t +[0-9]+\.[0-9]{2} \([0-9]+\.[0-9]{2}\) +[0-9]+\.[0-9]{3} " <<<"$kern" ||
			{ echo "FAIL: summary: no outline $t beside a kernel figure"; fail=1; }
	done
	! grep -q owner_ <<<"$kern" || { echo "FAIL: summary: an owner row beside a kernel figure"; fail=1; }
	grep -Eq "^  owner_page_pool02_napi_local +[0-9.]+ \([0-9.]+\) +[0-9.]+ +[0-9.]* +inline\$" <<<"$sum" ||
		{ echo "FAIL: summary: no inline owner row"; fail=1; }
	grep -q "^target: fast path called the kernel's way (--outline) under 8 TSC ticks (first step): \(MET\|MISSED\)" <<<"$sum" ||
		{ echo "FAIL: summary: no verdict"; fail=1; }
fi
exit $fail
