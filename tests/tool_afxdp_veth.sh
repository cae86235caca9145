#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Copyright (c) 2026 The pagepool authors
#
# The AF_XDP backend end to end: xdp_rxq_info and xdp2 on one end of a
# veth pair (namespace b, made by scripts/netns.sh with a prefix of this
# test's own), pp_pktgen sending from the other (namespace a). One case
# per run, so each stays short:
#
#   drop   XDP_DROP, native and SKB bind
#   pass   XDP_PASS, native and SKB: the small stack counts every frame
#          received as UDP
#   tx     XDP_TX (xdp_rxq_info, native; xdp2, SKB): every frame received
#          is sent back and arrives at the sender's interface
#   redirect  XDP_REDIRECT from the AF_XDP device on b's veth end to one on
#          a second veth pair inside b (afxdp_redirect, a NAPI thread per
#          device): every frame received is sent out of the second device
#          and arrives at its peer, or is counted as dropped
#   kill   the receiver is killed (SIGKILL) mid-run; `netns.sh down` then
#          leaves no namespace, veth or bpffs mount behind
#   errors a missing interface, no permission (as nobody), no bpffs: each
#          a clear message and a non-zero exit
#
# Every frame is accounted for: frames sent = received by the tool +
# the kernel's XDP_STATISTICS drops (rx_dropped, rx_ring_full) + drops of
# the veth itself (its rx_dropped, which in native mode also counts the
# frames its XDP redirect could not place: the AF_XDP drops once more, so
# those are taken out of it); the tools check at exit that the program saw every
# received frame and that the page_pool is empty (no page in flight).
# Skips (77) when not root, without `ip netns`, or without AF_XDP, saying
# which.
#   tests/tool_afxdp_veth.sh CASE xdp_rxq_info xdp2 pp_pktgen netns.sh \
#	afxdp_redirect
set -u
case=$1
rxq=$2
xdp2=$3
pktgen=$4
netns=$5
redirect=${6:-}
fail=0
count=${AFXDP_TEST_COUNT:-20000}

if [ "$(id -u)" -ne 0 ]; then
	echo "SKIP: AF_XDP needs root (network namespaces, CAP_NET_RAW, CAP_BPF)"
	exit 77
fi
if ! "$rxq" --help 2>&1 | grep -q "real interface"; then
	echo "SKIP: xdp_rxq_info built without the AF_XDP backend (libxdp-dev, libbpf-dev)"
	exit 77
fi
prefix=pagepoolax$(($$ % 10000))
N=("$netns" -p "$prefix" -n 10.216.0)
trap '"${N[@]}" down >/dev/null' EXIT
trap 'exit 1' INT TERM
"${N[@]}" up
rc=$?
if [ "$rc" -eq 77 ]; then
	echo "SKIP: no network namespaces here (netns.sh exit 77)"
	exit 77
elif [ "$rc" -ne 0 ]; then
	echo "FAIL: netns.sh up exited $rc"
	exit 1
fi
eval "$("${N[@]}" env)"
# No IPv6: its neighbour discovery would add frames to the counts.
for ns in "$NS_A" "$NS_B"; do
	ip netns exec "$ns" sysctl -qw net.ipv6.conf.all.disable_ipv6=1 \
		net.ipv6.conf.default.disable_ipv6=1 >/dev/null 2>&1
done
mac_b=$(ip -n "$NS_B" link show "$IF_B" | awk '/link\/ether/ {print $2}')
tmp=$(mktemp -d)
trap '"${N[@]}" down >/dev/null; rm -rf "$tmp"' EXIT

stat_of() {	# NS IF COUNTER
	ip netns exec "$1" cat "/sys/class/net/$2/statistics/$3"
}

# The receiver is ready once the kernel program is on the interface.
wait_attached() {
	local i

	for i in $(seq 100); do
		ip -n "$NS_B" link show "$IF_B" | grep -q "prog/xdp" && {
			sleep 0.3
			return 0
		}
		sleep 0.05
	done
	return 1
}

# field NAME FILE: the value of NAME:value in the AF_XDP lines.
field() {
	grep -o "[ ]$1:[0-9]*" "$2" | head -1 | cut -d: -f2
}

# run_case LABEL CHECK TOOL-ARGS...: start the receiver in b, send $count
# frames from a, check the accounting; CHECK is drop, pass or tx.
run_case() {
	local label=$1 check=$2 pid rc sent recv kdrop kfull vdrop back other
	local missed
	local b_drop0 a_rx0 a_drop0

	shift 2
	b_drop0=$(stat_of "$NS_B" "$IF_B" rx_dropped)
	a_rx0=$(stat_of "$NS_A" "$IF_A" rx_packets)
	a_drop0=$(stat_of "$NS_A" "$IF_A" rx_dropped)
	"${N[@]}" exec b "$@" >"$tmp/rx.out" 2>&1 &
	pid=$!
	if ! wait_attached; then
		kill "$pid" 2>/dev/null
		wait "$pid"
		# A kernel without the facility: say which, and skip.
		if grep -q "CONFIG_XDP_SOCKETS" "$tmp/rx.out"; then
			echo "SKIP: the kernel has no AF_XDP sockets (CONFIG_XDP_SOCKETS)"
			exit 77
		fi
		if grep -q "does not support this XDP mode" "$tmp/rx.out"; then
			echo "SKIP: $label: veth here does not take XDP in this mode"
			cat "$tmp/rx.out"
			exit 77
		fi
		echo "FAIL: $label: the receiver did not attach"
		cat "$tmp/rx.out"
		fail=1
		return
	fi
	"${N[@]}" exec a "$pktgen" --dev "$IF_A" --dst-mac "$mac_b" \
		--count "$count" --rate 100000 -q >"$tmp/tx.out" 2>&1
	rc=$?
	# What was sent has arrived when the sender returns, up to the
	# veth's NAPI; the receiver takes what is in its rings and prints
	# its per-second line at least once, then stops.
	sleep 1.1
	kill -INT "$pid"
	wait "$pid"
	rc=$((rc * 10 + $?))
	if [ "$rc" -ne 0 ]; then
		echo "FAIL: $label: sender/receiver exit $rc"
		cat "$tmp/tx.out" "$tmp/rx.out"
		fail=1
		return
	fi
	sent=$(sed -n 's/^pp_pktgen: sent \([0-9]*\) packets.*/\1/p' "$tmp/tx.out")
	recv=$(field received "$tmp/rx.out")
	kdrop=$(field rx_dropped "$tmp/rx.out")
	kfull=$(field rx_ring_full "$tmp/rx.out")
	missed=$(field missed "$tmp/rx.out")
	vdrop=$(( $(stat_of "$NS_B" "$IF_B" rx_dropped) - b_drop0 ))
	if [ -z "$sent" ] || [ -z "$recv" ] || [ -z "$kdrop" ] ||
	   [ -z "$kfull" ] || [ -z "$missed" ]; then
		echo "FAIL: $label: missing counts"
		cat "$tmp/tx.out" "$tmp/rx.out"
		fail=1
		return
	fi
	other=$vdrop
	if grep -q "mode:native" "$tmp/rx.out"; then
		other=$((vdrop - kdrop - kfull))
	fi
	if [ "$sent" -ne $((recv + missed + kdrop + kfull + other)) ] ||
	   [ "$recv" -eq 0 ] || [ "$other" -lt 0 ]; then
		echo "FAIL: $label: sent $sent != received $recv + missed at close $missed + XDP_STATISTICS rx_dropped $kdrop + rx_ring_full $kfull + other veth drops $other (rx_dropped $vdrop)"
		cat "$tmp/rx.out"
		fail=1
		return
	fi
	case $check in
	pass)
		if [ "$(field stack_udp "$tmp/rx.out")" != "$recv" ]; then
			echo "FAIL: $label: the stack counted $(field stack_udp "$tmp/rx.out") UDP frames of $recv received"
			fail=1
			return
		fi
		;;
	tx)
		back=$(( $(stat_of "$NS_A" "$IF_A" rx_packets) - a_rx0 +
			 $(stat_of "$NS_A" "$IF_A" rx_dropped) - a_drop0 ))
		if [ "$(field tx "$tmp/rx.out")" != "$recv" ] ||
		   [ "$back" -ne "$recv" ]; then
			echo "FAIL: $label: received $recv, sent back $(field tx "$tmp/rx.out"), arrived at the sender $back"
			fail=1
			return
		fi
		;;
	esac
	echo "ok: $label: sent $sent = received $recv + missed at close $missed + XDP_STATISTICS rx_dropped $kdrop + rx_ring_full $kfull + other veth drops $other"
}

case $case in
drop)
	run_case "DROP native" drop "$rxq" --dev "$IF_B" --act XDP_DROP \
		--duration 20 -s 1
	run_case "DROP skb" drop "$rxq" --dev "$IF_B" --act XDP_DROP -S \
		--duration 20 -s 1 --sleep --cpu-time
	grep -q "^CPU time per packet: " "$tmp/rx.out" || {
		echo "FAIL: --cpu-time printed no CPU time"; fail=1; }
	;;
pass)
	run_case "PASS native" pass "$rxq" --dev "$IF_B" --act XDP_PASS \
		--duration 20 -s 1 --sleep
	run_case "PASS skb" pass "$rxq" --dev "$IF_B" --act XDP_PASS -S \
		--duration 20 -s 1
	;;
tx)
	run_case "TX native (xdp_rxq_info)" tx "$rxq" --dev "$IF_B" \
		--act XDP_TX --duration 20 -s 1
	run_case "TX skb (xdp2)" tx "$xdp2" -S --duration 20 "$IF_B"
	grep -q "^proto 17: " "$tmp/rx.out" || {
		echo "FAIL: xdp2 printed no 'proto 17:' line"; cat "$tmp/rx.out"
		fail=1; }
	;;
redirect)
	# A second pair inside b: OUT is one end, its peer counts arrivals.
	out=${prefix}o
	peer=${prefix}p
	ip -n "$NS_B" link add "$out" type veth peer name "$peer" &&
	ip -n "$NS_B" link set "$out" up && ip -n "$NS_B" link set "$peer" up || {
		echo "FAIL: cannot make the second veth pair"; exit 1; }
	ip netns exec "$NS_B" sysctl -qw net.ipv6.conf.all.disable_ipv6=1 >/dev/null 2>&1
	p0=$(stat_of "$NS_B" "$peer" rx_packets)
	d0=$(stat_of "$NS_B" "$peer" rx_dropped)
	"${N[@]}" exec b "$redirect" "$IF_B" "$out" 20 >"$tmp/rx.out" 2>&1 &
	pid=$!
	for i in $(seq 100); do
		grep -q "redirect: ready" "$tmp/rx.out" && break
		sleep 0.05
	done
	if ! grep -q "redirect: ready" "$tmp/rx.out"; then
		kill "$pid" 2>/dev/null
		wait "$pid"
		echo "FAIL: redirect: not ready"; cat "$tmp/rx.out"; exit 1
	fi
	sleep 0.3
	"${N[@]}" exec a "$pktgen" --dev "$IF_A" --dst-mac "$mac_b" \
		--count "$count" --rate 100000 -q >"$tmp/tx.out" 2>&1
	sleep 1
	kill -INT "$pid"
	wait "$pid"
	rc=$?
	line=$(grep "^redirect: received" "$tmp/rx.out")
	set -- $line
	recv=$3 sent=$7 dropped=$9
	arrived=$(( $(stat_of "$NS_B" "$peer" rx_packets) - p0 +
		    $(stat_of "$NS_B" "$peer" rx_dropped) - d0 ))
	if [ "$rc" -ne 0 ] || [ -z "$line" ] || [ "$recv" -eq 0 ] ||
	   [ "$sent" -eq 0 ] ||
	   [ "$arrived" -ne "$sent" ]; then
		echo "FAIL: redirect: exit $rc, $line, arrived at $peer: $arrived"
		cat "$tmp/rx.out"
		fail=1
	else
		echo "ok: redirect: received $recv, sent $sent (+ dropped $dropped), arrived $arrived"
	fi
	;;
kill)
	"${N[@]}" exec b "$rxq" --dev "$IF_B" --act XDP_DROP --duration 30 \
		>"$tmp/rx.out" 2>&1 &
	pid=$!
	if ! wait_attached; then
		echo "FAIL: kill: the receiver did not attach"; cat "$tmp/rx.out"
		exit 1
	fi
	"${N[@]}" exec a "$pktgen" --dev "$IF_A" --dst-mac "$mac_b" \
		--duration 3 --rate 100000 -q >/dev/null 2>&1 &
	spid=$!
	sleep 0.5
	kill -KILL "$pid"
	wait "$pid" 2>/dev/null
	kill -INT "$spid" 2>/dev/null
	wait "$spid" 2>/dev/null
	"${N[@]}" down || { echo "FAIL: netns.sh down after SIGKILL"; fail=1; }
	left=$("${N[@]}" leftovers)
	if [ -n "$left" ]; then
		echo "FAIL: left behind after SIGKILL and down: $left"; fail=1
	fi
	if ip -o link show 2>/dev/null | grep -q "$prefix"; then
		echo "FAIL: a veth end of $prefix is left"; fail=1
	fi
	# bpffs was mounted only in the receiver's own mount namespace.
	if grep "$prefix" /proc/mounts; then
		echo "FAIL: a mount of $prefix is left"; fail=1
	fi
	[ "$fail" -eq 0 ] && echo "ok: SIGKILL mid-run, then down: nothing left"
	;;
errors)
	out=$("${N[@]}" exec b "$rxq" --dev ppnosuchif0 --act XDP_DROP 2>&1)
	rc=$?
	if [ "$rc" -ne 2 ] || ! grep -q "name unknown.*no interface" <<<"$out"; then
		echo "FAIL: missing interface: exit $rc: $out"; fail=1
	else
		echo "ok: missing interface: $out"
	fi
	out=$("${N[@]}" exec b "$xdp2" ppnosuchif0 2>&1)
	rc=$?
	if [ "$rc" -ne 2 ] || ! grep -q "unknown interface" <<<"$out"; then
		echo "FAIL: xdp2 missing interface: exit $rc: $out"; fail=1
	fi
	# No bpffs: `ip netns exec` alone remounts /sys without it.
	out=$(ip netns exec "$NS_B" "$rxq" --dev "$IF_B" --act XDP_DROP \
		--duration 1 2>&1)
	rc=$?
	if [ "$rc" -eq 0 ] || ! grep -q "bpffs is not mounted" <<<"$out"; then
		echo "FAIL: no bpffs: exit $rc: $out"; fail=1
	else
		echo "ok: no bpffs: $out"
	fi
	# No permission: nobody, without capabilities.
	if command -v setpriv >/dev/null 2>&1 &&
	   "${N[@]}" exec b setpriv --reuid=nobody --regid=nogroup \
		--clear-groups --inh-caps=-all "$rxq" --help >/dev/null 2>&1; then
		out=$("${N[@]}" exec b setpriv --reuid=nobody --regid=nogroup \
			--clear-groups --inh-caps=-all "$rxq" --dev "$IF_B" \
			--act XDP_DROP --duration 1 2>&1)
		rc=$?
		if [ "$rc" -eq 0 ] || ! grep -q "run as root" <<<"$out"; then
			echo "FAIL: no permission: exit $rc: $out"; fail=1
		else
			echo "ok: no permission: $out"
		fi
	else
		echo "note: no permission case not run (no setpriv, or nobody cannot run $rxq)"
	fi
	ip -n "$NS_B" link show "$IF_B" | grep -q "prog/xdp" && {
		echo "FAIL: an XDP program was left on $IF_B"; fail=1; }
	;;
*)
	echo "usage: $0 drop|pass|tx|redirect|kill|errors XDP_RXQ_INFO XDP2 PP_PKTGEN NETNS_SH [AFXDP_REDIRECT]"
	exit 2
	;;
esac
[ "$fail" -eq 0 ] && echo "PASS: afxdp $case"
exit "$fail"
