#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# Drives bench_page_pool_cross_cpu with few loops: per-CPU time_bench lines
# for each returning thread, the kernel's "Sum Type:... Average:" line,
# recycled/empty counts whose total matches what the RX thread sent (the
# tool itself fails otherwise), and exit 2 on bad usage. No timing checks.
set -u
tool=$1
fail=0
for r in 1 3; do
	out=$("$tool" --loops 2000 --returning_cpus $r 2>&1) ||
		{ echo "FAIL: --returning_cpus $r exited non-zero"; echo "$out"; fail=1; continue; }
	n=$(grep -cE 'Type:page_pool_cross_cpu CPU\([0-9]+\) [0-9]+ cycles\(tsc\) [0-9]+\.[0-9]+ ns' <<<"$out")
	[ "$n" -eq "$r" ] || { echo "FAIL: $n per-CPU lines for $r returners"; fail=1; }
	grep -Eq "Sum Type:page_pool_cross_cpu Average: [0-9]+ cycles\(tsc\) CPUs:$r step:0" <<<"$out" ||
		{ echo "FAIL: no Sum line"; echo "$out"; fail=1; }
	[ "$(grep -c 'recycled:[0-9]* pages, empty:[0-9]* times' <<<"$out")" -eq "$r" ] ||
		{ echo "FAIL: recycled lines"; fail=1; }
done
for bad in "--loops 10" "--returning_cpus 0" "--returning_cpus 65" "--bogus" "x"; do
	# shellcheck disable=SC2086
	"$tool" $bad >/dev/null 2>&1; rc=$?
	[ "$rc" -eq 2 ] || { echo "FAIL: '$bad' exited $rc, want 2"; fail=1; }
done
exit $fail
