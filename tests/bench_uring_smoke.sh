#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Copyright (c) 2026 The pagepool authors
#
# Smoke test of bench/uring_suite.sh: one round of one second at a low
# fixed rate prints a row for each of the four receivers (io_uring over a
# page_pool buffer ring, pages returned on another thread and inline;
# recvmmsg into malloc'd buffers, inline and on another thread), each with
# every datagram sent received and no drop counted by the kernel, and the
# CPU ratio lines; bad usage exits 2. No rate is checked: speed belongs in
# benchmarks. Skips (77) where udp_sink is not built (no liburing) or
# io_uring is unavailable.
#   tests/bench_uring_smoke.sh SOURCE_ROOT BUILD_DIR
set -u
suite=$1/bench/uring_suite.sh
build=$2
fail=0
. "$(dirname "$0")/smoke_lib.sh"

[ -x "$build/tools/udp_sink" ] ||
	skip "tools/udp_sink not built (liburing-dev missing)"

check_suite_usage "$suite" "$build"

out=$("$suite" "$build" 1 1 --no-max --rate 5000 2>&1)
rc=$?
if [ "$rc" -eq 77 ]; then
	echo "SKIP: uring_suite cannot run here (io_uring unavailable):"
	echo "$out"
	exit 77
fi
if [ "$rc" -ne 0 ]; then
	echo "FAIL: uring_suite.sh exited $rc:"; echo "$out"; exit 1
fi
# | name | rx | tx | thread ns | process ns | sent-received 0 | RcvbufErrors 0 |
n='[0-9.]+ \([0-9.]+-[0-9.]+\)'
row="$n \\| $n \\| $n \\| $n \\| 0 \\(0-0\\) \\| 0 \\(0-0\\) \\|\$"
for name in 'io_uring, page_pool buffer ring, pages returned on another thread' \
	    'io_uring, page_pool buffer ring, pages returned inline' \
	    "recvmmsg into malloc'd buffers, freed inline" \
	    "recvmmsg into malloc'd buffers, freed on another thread"; do
	if ! grep -Eq "^\\| $name \\| $row" <<<"$out"; then
		echo "FAIL: no row, or datagrams lost, for: $name"
		echo "$out"; fail=1
	fi
done
if [ "$(grep -c '^At 5000 pps, .* process CPU per datagram: [0-9.]*$' <<<"$out")" -ne 2 ]; then
	echo "FAIL: no CPU ratio lines"; echo "$out"; fail=1
fi

[ "$fail" -eq 0 ] && { echo "$out"; echo "PASS: uring_suite"; }
exit "$fail"
