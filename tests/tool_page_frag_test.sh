#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# Drives page_frag_test end to end: the script's presets (smoke, aligned,
# nonaligned, with a small nr_test) and the module's parameters pass their
# checks and print the kernel's result line; --compare runs every malloc
# family built; bad usage is refused with exit 2 and a message.
set -u
tool=$1
fail=0

expect_ok() {
	local out
	if ! out=$("$tool" --verify "$@" 2>&1); then
		echo "FAIL: page_frag_test $* exited non-zero:"; echo "$out"
		fail=1; return
	fi
	if ! grep -Eq '^[0-9]+ of iterations for (aligned|non-aligned) testing took: [0-9]+us$' <<<"$out"; then
		echo "FAIL: page_frag_test $*: no result line"; echo "$out"; fail=1
	fi
	if grep -q 'page_frag_test failed:' <<<"$out"; then
		echo "FAIL: page_frag_test $*: failure line"; echo "$out"; fail=1
	fi
}

expect_usage_error() {
	local out rc
	out=$("$tool" "$@" 2>&1); rc=$?
	if [ "$rc" -ne 2 ]; then
		echo "FAIL: page_frag_test $* exited $rc, want 2"; echo "$out"; fail=1
	elif [ -z "$out" ]; then
		echo "FAIL: page_frag_test $*: no message"; fail=1
	fi
}

expect_ok --preset smoke nr_test=100000
expect_ok --preset nonaligned nr_test=200000
expect_ok --preset aligned nr_test=200000
expect_ok nr_test=50000 test_alloc_len=1
expect_ok nr_test=50000 test_alloc_len=4096 test_align=1
expect_ok nr_test=50000 --alloc glibc
out=$("$tool" --preset aligned nr_test=50000 --compare 2>&1) || {
	echo "FAIL: --compare"; echo "$out"; fail=1; }
n=$(grep -Ec '^50000 of iterations for aligned testing took' <<<"$out")
if [ "$n" -lt 2 ]; then
	echo "FAIL: --compare printed $n result lines"; echo "$out"; fail=1
fi

"$tool" --help | grep -q -- '--preset' || { echo "FAIL: --help"; fail=1; }

expect_usage_error nr_test=0
expect_usage_error test_alloc_len=0
expect_usage_error test_alloc_len=4097
expect_usage_error test_align=2
expect_usage_error test_push_cpu=100000
expect_usage_error bogus=1
expect_usage_error --preset fast
expect_usage_error --alloc tcmalloc
expect_usage_error --watchdog 0
expect_usage_error --bogus
expect_usage_error extra

exit $fail
