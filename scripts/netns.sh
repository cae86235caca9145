#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Copyright (c) 2026 The pagepool authors
#
# Two network namespaces joined by a veth pair, for the tests and
# benchmarks that move real packets (AF_XDP, io_uring, AF_PACKET senders).
# Everything it makes is named after a prefix that starts with "pagepool",
# and its addresses (10.x) exist only inside those namespaces, so traffic
# never leaves them and nothing of the host's is touched.
#
#   scripts/netns.sh [-p PREFIX] [-n 10.X.Y] up      create (idempotent)
#   scripts/netns.sh [-p PREFIX] down                remove (idempotent)
#   scripts/netns.sh [-p PREFIX] status              exit 0 if fully up
#   scripts/netns.sh [-p PREFIX] leftovers           list anything of PREFIX
#   scripts/netns.sh [-p PREFIX] exec a|b CMD...     run CMD in a namespace,
#                                                    with bpffs mounted
#   scripts/netns.sh [-p PREFIX] env                 print the names, shell
#                                                    assignments
#
# Names: namespaces PREFIX-a and PREFIX-b; the veth ends PREFIXa (in
# PREFIX-a, address 10.X.Y.1/24) and PREFIXb (in PREFIX-b, 10.X.Y.2/24).
# Defaults: PREFIX "pagepool", subnet 10.213.0. PREFIX is "pagepool"
# followed by at most 6 of [a-z0-9], so the interface names fit IFNAMSIZ.
#
# bpffs: `ip netns exec` gives each command a mount namespace of its own
# and remounts /sys there, so a bpffs mounted by one exec is gone in the
# next. `exec` therefore mounts bpffs inside the command's own mount
# namespace, where it vanishes with the command: nothing to unmount, even
# after a crash.
#
# `up` that fails half-way, or is interrupted, removes what it made. `down`
# kills the processes still inside the namespaces (they would keep them
# alive), deletes the namespaces (which deletes the veth pair), removes a
# veth end left in the root namespace by an interrupted `up` and a stale
# /run/netns entry, and reports what it could not remove (exit 1).
#
# Exit: 0 done, 1 failed, 2 usage, 77 not root or no `ip netns` (as tests).
set -u

prefix=pagepool
subnet=10.213.0

usage() {
	sed -n '12,22p' "$0" | sed 's/^# \{0,1\}//' >&2
	exit 2
}

while [ $# -gt 0 ]; do
	case $1 in
	-p) [ $# -ge 2 ] || usage; prefix=$2; shift 2 ;;
	-n) [ $# -ge 2 ] || usage; subnet=$2; shift 2 ;;
	-h|--help) usage ;;
	*) break ;;
	esac
done
[ $# -ge 1 ] || usage
cmd=$1
shift

if ! [[ $prefix =~ ^pagepool[a-z0-9]{0,6}$ ]]; then
	echo "netns.sh: prefix '$prefix' must be pagepool followed by at most 6 of [a-z0-9]" >&2
	exit 2
fi
if ! [[ $subnet =~ ^10\.([0-9]{1,3})\.([0-9]{1,3})$ ]] ||
   [ "${BASH_REMATCH[1]}" -gt 255 ] || [ "${BASH_REMATCH[2]}" -gt 255 ]; then
	echo "netns.sh: subnet '$subnet' must be 10.X.Y" >&2
	exit 2
fi

ns_a=$prefix-a
ns_b=$prefix-b
if_a=${prefix}a
if_b=${prefix}b
ip_a=$subnet.1
ip_b=$subnet.2

need_root() {
	if [ "$(id -u)" -ne 0 ]; then
		echo "netns.sh: needs root (network namespaces)" >&2
		exit 77
	fi
	if ! command -v ip >/dev/null 2>&1 || ! ip netns list >/dev/null 2>&1; then
		echo "netns.sh: 'ip netns' is not available (Debian: iproute2)" >&2
		exit 77
	fi
}

ns_exists() {
	[ -e "/run/netns/$1" ] && ip netns exec "$1" true 2>/dev/null
}

is_up() {
	ns_exists "$ns_a" && ns_exists "$ns_b" &&
	ip -n "$ns_a" -o addr show dev "$if_a" 2>/dev/null | grep -q " $ip_a/24 " &&
	ip -n "$ns_b" -o addr show dev "$if_b" 2>/dev/null | grep -q " $ip_b/24 " &&
	ip -n "$ns_a" -o link show dev "$if_a" 2>/dev/null | grep -q "state UP" &&
	ip -n "$ns_b" -o link show dev "$if_b" 2>/dev/null | grep -q "state UP"
}

# Everything of this prefix that still exists, one item a line.
leftovers() {
	local ns

	for ns in "$ns_a" "$ns_b"; do
		if [ -e "/run/netns/$ns" ] || ip netns list 2>/dev/null |
		   awk '{print $1}' | grep -qx "$ns"; then
			echo "netns $ns"
		fi
	done
	for ifn in "$if_a" "$if_b"; do
		if ip link show dev "$ifn" >/dev/null 2>&1; then
			echo "link $ifn (root namespace)"
		fi
	done
}

down() {
	local ns pid left

	for ns in "$ns_a" "$ns_b"; do
		if ns_exists "$ns"; then
			# Processes left in the namespace (a receiver killed
			# half-way, say) keep it alive after its name goes.
			for pid in $(ip netns pids "$ns" 2>/dev/null); do
				kill -TERM "$pid" 2>/dev/null
			done
			sleep 0.2
			for pid in $(ip netns pids "$ns" 2>/dev/null); do
				kill -KILL "$pid" 2>/dev/null
			done
		fi
		if [ -e "/run/netns/$ns" ]; then
			ip netns delete "$ns" 2>/dev/null ||
				{ umount "/run/netns/$ns" 2>/dev/null
				  rm -f "/run/netns/$ns"; }
		fi
	done
	# An `up` interrupted between creating the pair and moving it.
	for ifn in "$if_a" "$if_b"; do
		ip link show dev "$ifn" >/dev/null 2>&1 &&
			ip link delete dev "$ifn" 2>/dev/null
	done
	left=$(leftovers)
	if [ -n "$left" ]; then
		echo "netns.sh: could not remove:" >&2
		echo "$left" | sed 's/^/  /' >&2
		return 1
	fi
	return 0
}

up() {
	if is_up; then
		return 0
	fi
	# Anything half-made by an earlier run goes first.
	down || return 1
	trap 'down; exit 1' HUP INT TERM
	if ! { ip netns add "$ns_a" &&
	       ip netns add "$ns_b" &&
	       ip link add "$if_a" netns "$ns_a" type veth \
			peer name "$if_b" netns "$ns_b" &&
	       ip -n "$ns_a" addr add "$ip_a/24" dev "$if_a" &&
	       ip -n "$ns_b" addr add "$ip_b/24" dev "$if_b" &&
	       ip -n "$ns_a" link set lo up &&
	       ip -n "$ns_b" link set lo up &&
	       ip -n "$ns_a" link set "$if_a" up &&
	       ip -n "$ns_b" link set "$if_b" up; }; then
		echo "netns.sh: up failed; removing what was made" >&2
		down
		trap - HUP INT TERM
		return 1
	fi
	trap - HUP INT TERM
	return 0
}

case $cmd in
up)
	need_root
	up
	;;
down)
	need_root
	down
	;;
status)
	need_root
	is_up
	;;
leftovers)
	need_root
	left=$(leftovers)
	[ -n "$left" ] && echo "$left"
	[ -z "$left" ]
	;;
exec)
	need_root
	[ $# -ge 2 ] || usage
	case $1 in
	a) ns=$ns_a ;;
	b) ns=$ns_b ;;
	*) usage ;;
	esac
	shift
	# The mount lives in this command's own mount namespace (see top).
	exec ip netns exec "$ns" sh -c '
		if ! grep -q " /sys/fs/bpf bpf " /proc/self/mounts; then
			mount -t bpf bpf /sys/fs/bpf || {
				echo "netns.sh: cannot mount bpffs" >&2; exit 1; }
		fi
		exec "$@"' sh "$@"
	;;
env)
	printf 'NS_A=%s\nNS_B=%s\nIF_A=%s\nIF_B=%s\nIP_A=%s\nIP_B=%s\n' \
		"$ns_a" "$ns_b" "$if_a" "$if_b" "$ip_a" "$ip_b"
	;;
*)
	usage
	;;
esac
