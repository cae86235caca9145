# SPDX-License-Identifier: MIT
# shellcheck shell=bash
# Copyright (c) 2026 The pagepool authors
#
# Sourced by the smoke tests of the bench suites and the tools: the skips
# they share (exit 77, saying why), the suites' bad-usage checks, and
# independent runs of a tool started side by side.
#   . "$(dirname "$0")/smoke_lib.sh"

# skip MSG: print "SKIP: MSG" and exit 77.
skip() {
	echo "SKIP: $*"
	exit 77
}

# need_root MSG: skip, saying MSG, unless run as root.
need_root() {
	[ "$(id -u)" -eq 0 ] || skip "$1"
}

# need_tun: skip unless /dev/net/tun is there.
need_tun() {
	[ -c /dev/net/tun ] || skip "no /dev/net/tun (TUN/TAP not available here)"
}

# check_suite_usage SUITE BUILD: SUITE exits 2 with no arguments and with
# a SEC that is not a number; else it says which and sets fail=1.
# shellcheck disable=SC2034  # fail is the caller's
check_suite_usage() {
	"$1" >/dev/null 2>&1
	[ $? -eq 2 ] || { echo "FAIL: no arguments should exit 2"; fail=1; }
	"$1" "$2" 1 x >/dev/null 2>&1
	[ $? -eq 2 ] || { echo "FAIL: SEC x should exit 2"; fail=1; }
}

# run_bg CHECK ARGS...: run the caller's function CHECK (which sets fail=1
# on a failure and prints why) in the background, at most PP_TEST_JOBS
# (default 4) at a time. wait_bg waits for them all, prints what each said
# in the order they were started, and sets fail=1 if any failed. For runs
# that are processes of their own (each with its own software NIC) and
# last a fixed time: the same runs and checks, overlapped.
bg_dir='' bg_n=0
run_bg() {
	local log
	[ -n "$bg_dir" ] || bg_dir=$(mktemp -d)
	while [ "$(jobs -pr | wc -l)" -ge "${PP_TEST_JOBS:-4}" ]; do
		wait -n
	done
	log=$bg_dir/$bg_n
	bg_n=$((bg_n + 1))
	(
		fail=0
		"$@"
		echo "$fail" >"$log.rc"
	) >"$log" 2>&1 &
}

# shellcheck disable=SC2034  # fail is the caller's
wait_bg() {
	local i
	wait
	for ((i = 0; i < bg_n; i++)); do
		cat "$bg_dir/$i"
		[ "$(cat "$bg_dir/$i.rc" 2>/dev/null)" = 0 ] || fail=1
	done
	[ -z "$bg_dir" ] || rm -rf "$bg_dir"
	bg_dir='' bg_n=0
}
