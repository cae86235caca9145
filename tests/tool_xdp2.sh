#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# Drives xdp2 end to end on the software NIC: native and skb mode,
# recycling and releasing, identity and IOMMU, inline and threaded wire.
# Each run must print the sample's per-protocol line for UDP
# ("proto 17: N pkt/s") and exit 0, which the tool does only when every
# frame was sent back (or counted), every page came back and the DMA
# device saw no fault. Bad usage exits 2 with a message. Each run is a
# process of its own with its own software NIC and lasts two seconds: up
# to four run side by side (run_bg, smoke_lib.sh).
set -u
tool=$1
fail=0
. "$(dirname "$0")/smoke_lib.sh"

expect_ok() {
	run_bg check_ok "$@"
}

# shellcheck disable=SC2317  # called through run_bg
check_ok() {
	local out
	if ! out=$("$tool" --duration 2 "$@" sim0 2>&1); then
		echo "FAIL: xdp2 $* exited non-zero:"; echo "$out"; fail=1; return
	fi
	if ! grep -Eq '^proto 17: +[1-9][0-9]* pkt/s$' <<<"$out"; then
		echo "FAIL: xdp2 $*: no 'proto 17' line"; echo "$out"; fail=1
	fi
	if grep -Eq '^proto (0|6):' <<<"$out"; then
		echo "FAIL: xdp2 $*: counted a protocol never sent"; echo "$out"; fail=1
	fi
}

expect_usage_error() {
	local out rc
	out=$("$tool" "$@" 2>&1); rc=$?
	if [ "$rc" -ne 2 ]; then
		echo "FAIL: xdp2 $* exited $rc, want 2"; echo "$out"; fail=1
	elif [ -z "$out" ]; then
		echo "FAIL: xdp2 $*: no message"; fail=1
	fi
}

expect_ok
expect_ok -N --iommu
expect_ok -S
expect_ok -S --no-recycle --iommu --size 1500 --flows 16
expect_ok -S -F --wire thread
# Bounce mode: a wrong sync would show as poisoned headers (a protocol
# never sent) or a DMA-API debug error.
expect_ok --bounce
expect_ok -S --bounce --iommu
expect_ok --bounce --iommu --no-recycle --wire thread --size 1500
wait_bg

expect_usage_error ppnosuchif0
expect_usage_error
expect_usage_error -S -N sim0
expect_usage_error --size 9000 sim0
expect_usage_error --wire nowhere sim0

[ "$fail" -eq 0 ] && echo "PASS: xdp2"
exit "$fail"
