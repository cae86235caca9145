#!/bin/sh
# SPDX-License-Identifier: MIT
# Copyright (c) 2026 The pagepool authors
#
# scripts/netns.sh end to end: up (twice: idempotent), ping both ways
# across the veth pair, bpffs inside `exec`, down (twice), and nothing
# left. Then the states a failed or interrupted run leaves: a half-made
# pair of namespaces, a veth end stranded in the root namespace, a process
# still running inside a namespace; `down` must clear each, and `up` must
# succeed from the half-made state.
#
# Usage: netns_up_down.sh PATH/TO/netns.sh
# Exit: 0 pass, 1 fail, 77 skip (not root, no `ip netns`, no ping).

set -u
netns=$1

if [ "$(id -u)" -ne 0 ]; then
	echo "SKIP: needs root (network namespaces)"
	exit 77
fi
if ! command -v ip >/dev/null 2>&1 || ! ip netns list >/dev/null 2>&1; then
	echo "SKIP: 'ip netns' is not available (Debian: iproute2)"
	exit 77
fi
if ! command -v ping >/dev/null 2>&1; then
	echo "SKIP: ping not found (Debian: iputils-ping)"
	exit 77
fi

# A prefix of our own, so parallel runs and a developer's pair never meet.
p=pagepoolt$(($$ % 100000))
ns() { "$netns" -p "$p" "$@"; }
eval "$(ns env)"

fails=0
fail() {
	echo "FAIL: $*"
	fails=$((fails + 1))
}
trap 'ns down >/dev/null 2>&1' EXIT
trap 'exit 1' HUP INT TERM

check_gone() {
	left=$(ns leftovers)
	[ -z "$left" ] || fail "$1: left behind: $left"
	[ ! -e "/run/netns/$NS_A" ] || fail "$1: /run/netns/$NS_A remains"
	[ ! -e "/run/netns/$NS_B" ] || fail "$1: /run/netns/$NS_B remains"
}

ns up || fail "up"
ns up || fail "second up"
ns status || fail "status after up"
ns exec a ping -c 3 -i 0.2 -W 2 "$IP_B" >/dev/null || fail "ping $IP_B from $NS_A"
ns exec b ping -c 3 -i 0.2 -W 2 "$IP_A" >/dev/null || fail "ping $IP_A from $NS_B"
ns exec b grep -q ' /sys/fs/bpf bpf ' /proc/self/mounts || fail "no bpffs in exec"
# The addresses exist only inside the namespaces.
ip -o addr show | grep -q " $IP_A/" && fail "$IP_A is in the root namespace"
ns down || fail "down"
ns down || fail "second down"
ns status && fail "status says up after down"
check_gone "down"

# A failed run: one namespace made, the veth end still in the root
# namespace (an `up` cut off between its steps).
ip netns add "$NS_A" || fail "setup: netns add"
ip link add "$IF_A" type veth peer name "$IF_B" || fail "setup: link add"
ns down || fail "down after a half-made up"
check_gone "half-made"
ip netns add "$NS_B" || fail "setup: netns add"
ns up || fail "up from a half-made state"
ns exec a ping -c 1 -W 2 "$IP_B" >/dev/null || fail "ping after repair"

# A process left inside a namespace (a receiver killed half-way leaves its
# children) would keep the namespace alive after its name is gone.
ip netns exec "$NS_B" sleep 1000 &
sleeper=$!
sleep 0.3
ns down || fail "down with a process inside"
check_gone "process inside"
# Alive and not a zombie waiting for us to reap it?
running() {
	case $(ps -o stat= -p "$1" 2>/dev/null) in
	''|Z*) return 1 ;;
	*) return 0 ;;
	esac
}
# `down` waits for what it kills; allow a little more, never block.
i=0
while running "$sleeper" && [ $i -lt 20 ]; do
	sleep 0.1
	i=$((i + 1))
done
if running "$sleeper"; then
	fail "a process inside $NS_B survived down (the namespace lives on)"
	kill -KILL "$sleeper"
fi
wait "$sleeper" 2>/dev/null

if [ "$fails" -ne 0 ]; then
	echo "FAIL: $fails check(s)"
	exit 1
fi
echo "PASS"
exit 0
