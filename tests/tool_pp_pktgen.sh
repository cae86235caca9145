#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Copyright (c) 2026 The pagepool authors
#
# pp_pktgen end to end over a veth pair between two namespaces made by
# scripts/netns.sh (a prefix of this test's own, removed on exit): every
# frame sent from namespace a arrives in namespace b, counted exactly by
# b's interface (rx_packets) and by b's UDP layer (NoPorts: the frames
# are valid IPv4/UDP, checksum and lengths, addressed to b with no socket
# listening), and none fails IPv4's header checks; for AF_PACKET at the
# smallest and largest size, several flows and a paced rate, AF_XDP TX
# where built with libxdp, and UDP sockets (also into udp_sink, where
# built). SIGINT ends a run with its
# totals. Bad input gives a reason and exit 2 (usage) or 1 (no such
# interface); an unprivileged run exits 3 saying it needs root. Skips
# (77) when not root or without `ip netns`.
#   tests/tool_pp_pktgen.sh PATH/TO/pp_pktgen PATH/TO/netns.sh [PATH/TO/udp_sink]
set -u
tool=$1
netns=$2
sink=${3:-}
fail=0

if [ "$(id -u)" -ne 0 ]; then
	echo "SKIP: pp_pktgen's test needs root (network namespaces, AF_PACKET)"
	exit 77
fi
prefix=pagepoolpg$(($$ % 10000))
N=("$netns" -p "$prefix" -n 10.215.0)
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
	ip netns exec "$ns" sysctl -qw net.ipv6.conf.all.disable_ipv6=1
	ip netns exec "$ns" sysctl -qw net.ipv6.conf.default.disable_ipv6=1
done
mac_a=$(ip netns exec "$NS_A" cat "/sys/class/net/$IF_A/address")
mac_b=$(ip netns exec "$NS_B" cat "/sys/class/net/$IF_B/address")
# Fixed neighbours: no ARP exchange (b answers the UDP frames with ICMP,
# a's UDP sockets need b's address) adds frames to the counts.
ip -n "$NS_A" neigh replace "$IP_B" lladdr "$mac_b" dev "$IF_A" nud permanent
ip -n "$NS_B" neigh replace "$IP_A" lladdr "$mac_a" dev "$IF_B" nud permanent

# rx_packets of b's end, Udp NoPorts and Ip InHdrErrors in namespace b.
counters() {
	ip netns exec "$NS_B" sh -c "cat /sys/class/net/$IF_B/statistics/rx_packets; cat /proc/net/snmp" |
	awk 'NR == 1 { rx = $1 }
	     $1 == "Ip:" && $2 !~ /^[0-9]/ { for (i = 2; i <= NF; i++) ip[$i] = i }
	     $1 == "Ip:" && $2 ~ /^[0-9]/ { hdr = $(ip["InHdrErrors"]) }
	     $1 == "Udp:" && $2 !~ /^[0-9]/ { for (i = 2; i <= NF; i++) udp[$i] = i }
	     $1 == "Udp:" && $2 ~ /^[0-9]/ { nop = $(udp["NoPorts"]) }
	     END { print rx, nop, hdr }'
}

# send NAME N PP_PKTGEN-OPTIONS...: all N arrive in b, valid.
send() {
	local name=$1 n=$2 out rc before after
	shift 2
	read -r -a before <<<"$(counters)"
	out=$(ip netns exec "$NS_A" "$tool" --count "$n" --quiet "$@" 2>&1)
	rc=$?
	read -r -a after <<<"$(counters)"
	if [ "$rc" -ne 0 ] || ! grep -q "^pp_pktgen: sent $n packets" <<<"$out" ||
	   ! grep -q "^Result: OK: " <<<"$out"; then
		echo "FAIL: $name: pp_pktgen exited $rc, want 'sent $n packets':"
		echo "$out"; fail=1; return
	fi
	local rx=$((after[0] - before[0])) nop=$((after[1] - before[1]))
	local hdr=$((after[2] - before[2]))
	if [ "$rx" -ne "$n" ] || [ "$nop" -ne "$n" ] || [ "$hdr" -ne 0 ]; then
		echo "FAIL: $name: sent $n; b received $rx, UDP NoPorts $nop, IPv4 header errors $hdr"
		echo "$out"; fail=1; return
	fi
	echo "ok: $name: $n sent, $n received in b"
}

send "AF_PACKET 60 bytes" 100000 --dev "$IF_A" --dst-mac "$mac_b" \
	--src-ip "$IP_A" --dst-ip "$IP_B"
send "AF_PACKET 1514 bytes, 8 flows" 20000 --dev "$IF_A" --dst-mac "$mac_b" \
	--src-ip "$IP_A" --dst-ip "$IP_B" --size 1514 --flows 8 --batch 32
send "AF_PACKET 333 bytes at 50000 pps" 10000 --dev "$IF_A" \
	--dst-mac "$mac_b" --src-ip "$IP_A" --dst-ip "$IP_B" --size 333 \
	--rate 50000 --udp-dst-port 7777
if "$tool" --mode xdp --dev lo 2>&1 | grep -q 'built without libxdp'; then
	echo "note: pp_pktgen built without libxdp: --mode xdp not tested"
else
	send "AF_XDP TX 60 bytes, 4 flows" 100000 --mode xdp --dev "$IF_A" \
		--dst-mac "$mac_b" --src-ip "$IP_A" --dst-ip "$IP_B" --flows 4
fi
# Connected UDP sockets get ICMP port unreachable back (b has no
# listener): the datagram refused with it is sent again, so all arrive.
send "UDP sockets, 4 flows" 20000 --mode udp --dst-ip "$IP_B" --size 100 \
	--flows 4

# udp_sink (its recvmmsg path) counts every datagram of --mode udp.
if [ -n "$sink" ]; then
	out_sink=$(mktemp)
	ip netns exec "$NS_B" "$sink" --mode recvmmsg --bind "$IP_B" \
		--port 9100 --count 20000 --duration 20 --quiet >"$out_sink" 2>&1 &
	spid=$!
	for ((i = 0; i < 100; i++)); do
		grep -q listening "$out_sink" && break
		kill -0 "$spid" 2>/dev/null || break
		sleep 0.05
	done
	out=$(ip netns exec "$NS_A" "$tool" --mode udp --dst-ip "$IP_B" \
		--udp-dst-port 9100 --count 20000 --rate 50000 --size 200 \
		--flows 2 --quiet 2>&1)
	wait "$spid"
	rc=$?
	if [ "$rc" -ne 0 ] ||
	   ! grep -q "recvmmsg received 20000 datagrams, 3160000 bytes" "$out_sink"; then
		echo "FAIL: udp_sink did not receive pp_pktgen's 20000 datagrams of 158 bytes (exit $rc):"
		cat "$out_sink"; echo "$out"; fail=1
	else
		echo "ok: udp_sink received pp_pktgen --mode udp's 20000 datagrams"
	fi
	rm -f "$out_sink"
fi

# SIGINT: the totals of what was sent. (timeout runs it in the foreground
# so that SIGINT is not ignored as in a background job.)
out=$(ip netns exec "$NS_A" timeout --preserve-status -s INT 0.5 "$tool" --dev "$IF_A" \
	--rate 10000 2>&1)
rc=$?
if [ "$rc" -ne 0 ] || ! grep -q '^Result: OK: ' <<<"$out"; then
	echo "FAIL: pp_pktgen under SIGINT exited $rc, want 0 with its totals:"
	echo "$out"; fail=1
fi

# expect RC PATTERN ARGS...: pp_pktgen ARGS (in namespace a) exits RC
# and says PATTERN.
expect() {
	local want=$1 pat=$2 out rc
	shift 2
	out=$(ip netns exec "$NS_A" "$tool" "$@" 2>&1)
	rc=$?
	if [ "$rc" -ne "$want" ] || ! grep -q -- "$pat" <<<"$out"; then
		echo "FAIL: pp_pktgen $*: exit $rc, want $want and '$pat':"
		echo "$out"; fail=1
	fi
}
expect 1 "no interface 'nosuchdev0'" --dev nosuchdev0 --count 1
expect 2 "is not a MAC address" --dev "$IF_A" --dst-mac 00:11:22:33:44 --count 1
expect 2 "is not a MAC address" --dev "$IF_A" --dst-mac 00:11:22:33:44:gg --count 1
expect 2 "out of range for $IF_A: 60 to 1514" --dev "$IF_A" --size 1515 --count 1
expect 2 "below the Ethernet minimum" --dev "$IF_A" --size 59 --count 1
expect 2 "not a number" --dev "$IF_A" --size 70000 --count 1
expect 2 "not an IPv4 address" --dev "$IF_A" --dst-ip 10.1.2 --count 1
expect 2 "required" --count 1
expect 2 "mode must be" --mode foo --dev "$IF_A"
expect 0 "usage" --help

# Without privileges: exit 3 and why. Only where the unprivileged user
# can start the tool at all (a checkout in a private directory hides it).
drop=(setpriv --reuid=65534 --regid=65534 --clear-groups
	--inh-caps=-all --bounding-set=-all)
if ! command -v setpriv >/dev/null; then
	echo "note: no setpriv: the unprivileged run is not checked"
elif ! "${drop[@]}" "$tool" --help >/dev/null 2>&1; then
	echo "note: user 65534 cannot start $tool here (a private directory"
	echo "      on its path); the unprivileged run is not checked"
else
	out=$(ip netns exec "$NS_A" "${drop[@]}" "$tool" --dev "$IF_A" --count 1 2>&1)
	rc=$?
	if [ "$rc" -ne 3 ] || ! grep -q 'run as root' <<<"$out"; then
		echo "FAIL: unprivileged run exited $rc, want 3 with a reason:"
		echo "$out"; fail=1
	fi
fi

[ "$fail" -eq 0 ] && echo PASS
exit "$fail"
