#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Copyright (c) 2026 The pagepool authors
#
# Smoke test of bench/afxdp_suite.sh: one round of one second at a low
# fixed rate prints the hand-rolled receiver's row and DPDK testpmd's,
# every frame sent accounted for (received or counted by the kernel),
# and ours: a row where pagepool's AF_XDP backend is built, else the note
# that it is skipped; no namespace of the run is left behind; bad usage
# exits 2. No rate is checked: speed belongs in benchmarks. Skips (77)
# when not root, without network namespaces, or without dpdk-testpmd
# (Debian: dpdk-dev) or the hand-rolled receiver (libxdp-dev).
#   tests/bench_afxdp_smoke.sh SOURCE_ROOT BUILD_DIR
set -u
suite=$1/bench/afxdp_suite.sh
build=$2
fail=0
. "$(dirname "$0")/smoke_lib.sh"

need_root "the AF_XDP suite needs root (namespaces, AF_XDP)"
command -v dpdk-testpmd >/dev/null ||
	skip "dpdk-testpmd not installed (Debian: dpdk-dev)"
[ -x "$build/bench/xsk_freeframe_rx" ] ||
	skip "bench/xsk_freeframe_rx not built (libxdp-dev, libbpf-dev)"
[ "$(nproc)" -ge 2 ] ||
	skip "one CPU: testpmd needs a second for its main lcore"

check_suite_usage "$suite" "$build"

before=$(ip netns list | grep -c '^pagepoolpk')
out=$("$suite" "$build" 1 1 --no-max --rate 20000 2>&1)
rc=$?
if [ "$rc" -eq 77 ]; then
	echo "SKIP: afxdp_suite cannot run here:"; echo "$out"; exit 77
fi
if [ "$rc" -ne 0 ]; then
	echo "FAIL: afxdp_suite.sh exited $rc:"; echo "$out"; exit 1
fi
# | name | rx | tx | ns | rx_dropped | ring | fill | unaccounted 0 |
row='[0-9.]+ \([0-9.]+-[0-9.]+\) \| [0-9.]+ \([0-9.]+-[0-9.]+\) \| [0-9]+ \([0-9]+-[0-9]+\) \| [0-9]+ \| [-0-9]+ \| [-0-9]+ \| 0 \|$'
for name in 'hand-rolled free-frame stack \(xsk_freeframe_rx\)' \
	    'DPDK testpmd rxonly, net_af_xdp'; do
	if ! grep -Eq "^\| $name \| $row" <<<"$out"; then
		echo "FAIL: no row, or frames unaccounted, for: $name"
		echo "$out"; fail=1
	fi
done
if ! grep -Eq "^\| ours: xdp_rxq_info XDP_DROP --read \| $row" <<<"$out" &&
   ! grep -q '^ours: skipped (AF_XDP backend not built)' <<<"$out"; then
	echo "FAIL: neither a row for ours nor the note that it is skipped"
	echo "$out"; fail=1
fi
after=$(ip netns list | grep -c '^pagepoolpk')
if [ "$after" -gt "$before" ]; then
	echo "FAIL: the suite left a namespace behind:"; ip netns list; fail=1
fi

[ "$fail" -eq 0 ] && { echo "$out"; echo "PASS: afxdp_suite"; }
exit "$fail"
