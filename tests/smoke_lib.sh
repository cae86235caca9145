# SPDX-License-Identifier: MIT
# shellcheck shell=bash
# Copyright (c) 2026 The pagepool authors
#
# Sourced by the smoke tests of the bench suites and the tools: the skips
# they share (exit 77, saying why) and the suites' bad-usage checks.
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
