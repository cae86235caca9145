# SPDX-License-Identifier: MIT
# shellcheck shell=bash
# Copyright (c) 2026 The pagepool authors
#
# Sourced by the tests that send real frames: one pair of network
# namespaces joined by a veth pair (scripts/netns.sh), with IPv6 off in
# both, so that its neighbour discovery adds no frame to the counts.
#   . "$(dirname "$0")/netns_pair.sh"
#   trap 'pair_down' EXIT
#   pair_up NETNS_SH PREFIX SUBNET
# pair_up sets N (the netns.sh command of this pair), NS_A, NS_B, IF_A,
# IF_B, IP_A, IP_B (netns.sh env) and mac_a, mac_b; it exits 77 where
# there are no network namespaces and 1 when the set-up fails. N is set
# before anything is made, so a trap's pair_down also removes a pair that
# was interrupted half made.

pair_up() {
	local rc ns
	N=("$1" -p "$2" -n "$3")
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
	for ns in "$NS_A" "$NS_B"; do
		ip netns exec "$ns" sysctl -qw net.ipv6.conf.all.disable_ipv6=1 \
			net.ipv6.conf.default.disable_ipv6=1 >/dev/null 2>&1
	done
	mac_a=$(ip netns exec "$NS_A" cat "/sys/class/net/$IF_A/address")
	mac_b=$(ip netns exec "$NS_B" cat "/sys/class/net/$IF_B/address")
}

pair_down() {
	[ "${#N[@]}" -eq 0 ] || "${N[@]}" down >/dev/null
}
N=()
