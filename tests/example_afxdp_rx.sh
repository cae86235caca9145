#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Copyright (c) 2026 The pagepool authors
#
# examples/afxdp_rx.c for real: the example receives on one end of a veth
# pair (namespace b, made by scripts/netns.sh with a prefix of this test's
# own), bound natively or in SKB mode, while pp_pktgen sends COUNT frames
# from the other end (namespace a). COUNT is below the fill ring's size,
# so every frame has a posted UMEM frame waiting for it even if the
# receiver does not get the CPU while they arrive: the example must
# receive every one (it stops at COUNT), the kernel must drop none
# (XDP_STATISTICS all 0), the worker must have returned some, and the
# page_pool must be freed with nothing in flight.
# Skips (77), saying why, when not root, without network namespaces, or
# without AF_XDP in the kernel.
#   tests/example_afxdp_rx.sh native|skb afxdp_rx pp_pktgen netns.sh
set -u
mode=$1 example=$2 pktgen=$3 netns=$4
count=${AFXDP_EXAMPLE_COUNT:-2000}

if [ "$(id -u)" -ne 0 ]; then
	echo "SKIP: the AF_XDP example needs root (network namespaces, CAP_NET_RAW, CAP_BPF)"
	exit 77
fi
case $mode in
native) flags='' ;;
skb) flags=-S ;;
*) echo "usage: $0 native|skb afxdp_rx pp_pktgen netns.sh" >&2; exit 1 ;;
esac
. "$(dirname "$0")/netns_pair.sh"
tmp=$(mktemp -d)
trap 'pair_down; rm -rf "$tmp"' EXIT
trap 'exit 1' INT TERM
prefix=pagepoolxe$(($$ % 10000))
pair_up "$netns" "$prefix" 10.219.0

# shellcheck disable=SC2086
"${N[@]}" exec b "$example" $flags -n "$count" "$IF_B" >"$tmp/rx.out" 2>&1 &
pid=$!
# The receiver is ready once libxdp's program is on the interface.
attached=0
for _ in $(seq 100); do
	if ip -n "$NS_B" link show "$IF_B" | grep -q "prog/xdp"; then
		attached=1
		break
	fi
	kill -0 "$pid" 2>/dev/null || break
	sleep 0.05
done
if [ "$attached" -ne 1 ]; then
	kill -INT "$pid" 2>/dev/null
	wait "$pid"
	if grep -q "CONFIG_XDP_SOCKETS" "$tmp/rx.out"; then
		echo "SKIP: the kernel has no AF_XDP sockets (CONFIG_XDP_SOCKETS)"
		exit 77
	fi
	echo "FAIL: $mode: the example did not attach"
	cat "$tmp/rx.out"
	exit 1
fi
sleep 0.2
"${N[@]}" exec a "$pktgen" --dev "$IF_A" --dst-mac "$mac_b" \
	--count "$count" --rate 100000 -q >"$tmp/tx.out" 2>&1
txrc=$?
# It stops by itself at COUNT frames; give it 5 s.
for _ in $(seq 50); do
	kill -0 "$pid" 2>/dev/null || break
	sleep 0.1
done
kill -INT "$pid" 2>/dev/null
wait "$pid"
rxrc=$?
cat "$tmp/rx.out"
fail=0
if [ "$txrc" -ne 0 ] || [ "$rxrc" -ne 0 ]; then
	echo "FAIL: $mode: sender exit $txrc, example exit $rxrc"
	cat "$tmp/tx.out"
	fail=1
fi
sent=$(sed -n 's/^pp_pktgen: sent \([0-9]*\) packets.*/\1/p' "$tmp/tx.out")
if [ "$sent" != "$count" ]; then
	echo "FAIL: $mode: pp_pktgen sent '$sent' of $count"
	fail=1
fi
grep -q "^afxdp_rx: received $count frames ($count IPv4), [1-9][0-9]* returned by the worker$" "$tmp/rx.out" || {
	echo "FAIL: $mode: not every frame received, or none through the worker"
	fail=1
}
grep -q "^afxdp_rx: XDP_STATISTICS rx_dropped 0 rx_ring_full 0 rx_fill_ring_empty_descs 0 rx_invalid_descs 0$" "$tmp/rx.out" || {
	echo "FAIL: $mode: the kernel dropped frames"
	fail=1
}
grep -q "^afxdp_rx: page_pool freed, nothing in flight$" "$tmp/rx.out" || {
	echo "FAIL: $mode: the page_pool was not freed"
	fail=1
}
[ "$fail" -eq 0 ] && echo "PASS: $mode: $count frames, every one received, page_pool freed"
exit "$fail"
