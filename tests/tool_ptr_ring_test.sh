#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# Drives ptr_ring_test end to end: every mode, variant and batch passes
# its own checks and prints the seed's line and a time_bench line the
# kernel selftest's regex accepts; bad usage is refused with exit 2 and a
# message naming the option.
set -u
tool=$1
fail=0

expect_ok() {
	local out
	if ! out=$("$tool" "$@" 2>&1); then
		echo "FAIL: ptr_ring_test $* exited non-zero:"; echo "$out"
		fail=1; return
	fi
	if ! grep -q '^ptr_ring(size:[0-9]*) perf [a-z]* test produced/comsumed [0-9]* items, finished$' <<<"$out"; then
		echo "FAIL: ptr_ring_test $*: no seed result line"; echo "$out"; fail=1
	fi
	# The selftest's parser: "Per elem: N cycles(tsc) N.N ns".
	if ! grep -Eq 'Type:ptr_ring_[a-z_-]+ Per elem: [0-9]+ cycles\(tsc\) [0-9]+\.[0-9]+ ns \(step:[0-9]+\)' <<<"$out"; then
		echo "FAIL: ptr_ring_test $*: no time_bench line"; echo "$out"; fail=1
	fi
}

expect_usage_error() {
	local out rc
	out=$("$tool" "$@" 2>&1); rc=$?
	if [ "$rc" -ne 2 ]; then
		echo "FAIL: ptr_ring_test $* exited $rc, want 2"; echo "$out"; fail=1
	elif [ -z "$out" ]; then
		echo "FAIL: ptr_ring_test $*: no message"; fail=1
	fi
}

expect_ok -s 1000 -m 0 -N 100000
expect_ok -s 2 -m 0 -N 5000 --variant head-first
expect_ok -s 64 -m 0 -N 100001 -b 32
expect_ok -s 3 -m 0 -N 5000 -b 3 --variant head-first
expect_ok -s 1000 -m 1 -N 200000
expect_ok -s 1000 -m 1 -N 200000 --variant head-first
expect_ok -s 64 -m 1 -N 100000 -b 16
expect_ok -s 2 -m 1 -N 20000 --relax yield
expect_ok -s 256 -m 1 -N 90001 -p 2
expect_ok -s 256 -m 1 -N 50000 --locked
expect_ok -s 256 -m 1 -N 90001 -p 3 -b 8 --variant head-first

"$tool" --help | grep -q -- '--variant' || { echo "FAIL: --help"; fail=1; }

expect_usage_error -s 1
expect_usage_error -s 10000001
expect_usage_error -s abc
expect_usage_error -m 2
expect_usage_error -N 0
expect_usage_error -p 2
expect_usage_error -m 1 -p 0
expect_usage_error -b 0
expect_usage_error --variant sideways
expect_usage_error --relax nap
expect_usage_error --bogus
expect_usage_error -m 0 --locked
expect_usage_error -s 16 -m 0 -b 32
expect_usage_error extra

exit $fail
