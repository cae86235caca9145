#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# Drives bench_page_pool_simple with few loops: it runs every test, its
# output satisfies the kernel selftest's parser (test_bench_page_pool.sh
# greps "no-softirq-page_pool0N Per elem: N cycles(tsc) N.N ns"), it prints
# the pool counters after each test, and bad usage exits 2. No timing is
# checked: numbers belong to the benchmark suite, not to tests.
set -u
tool=$1
fail=0
out=$("$tool" --loops 20000 2>&1) || { echo "FAIL: exit $?"; echo "$out"; exit 1; }
for n in 1 2 3; do
	grep -Eq "no-softirq-page_pool0$n Per elem: ([0-9]+) cycles\(tsc\) ([0-9]+\.[0-9]+) ns" <<<"$out" ||
		{ echo "FAIL: no selftest-parsable page_pool0$n line"; fail=1; }
done
for t in for_loop atomic_inc lock owner_check tasklet_page_pool01_fast_path \
	 tasklet_page_pool02_ptr_ring tasklet_page_pool03_slow; do
	grep -q "Type:$t Per elem:" <<<"$out" || { echo "FAIL: no $t line"; fail=1; }
done
[ "$(grep -c '  stats: alloc fast' <<<"$out")" -eq 6 ] || { echo "FAIL: stats lines"; fail=1; }
# The slow test must really take the slow path: one bulk per 64 pages
# (312 for 20000 loops after the 64 prefilled ring pages) plus the prefill's.
grep -A1 'no-softirq-page_pool03 Per' <<<"$out" | grep -q 'slow 313 ' ||
	{ echo "FAIL: page_pool03 did not take the slow path as expected"; fail=1; }
# run_flags selects tests; only no-softirq02 here.
out=$("$tool" --loops 5000 --run_flags 4)
[ "$(grep -c 'Per elem' <<<"$out")" -eq 1 ] && grep -q 'no-softirq-page_pool02 ' <<<"$out" ||
	{ echo "FAIL: --run_flags 4"; fail=1; }
"$tool" --loops 2000 --run_flags 2 --json | grep -q '^{"type":"no-softirq-page_pool01","cycles":' ||
	{ echo "FAIL: --json"; fail=1; }
for bad in "--loops 999" "--loops 4294967296" "--loops x" "--run_flags -1" "--bogus" "extra"; do
	# shellcheck disable=SC2086
	"$tool" $bad >/dev/null 2>&1; rc=$?
	[ "$rc" -eq 2 ] || { echo "FAIL: '$bad' exited $rc, want 2"; fail=1; }
done
"$tool" --help | grep -q -- '--run_flags' || { echo "FAIL: --help"; fail=1; }
exit $fail
