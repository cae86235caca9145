#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# Drives xdp_rxq_info end to end on the software NIC: each implemented
# action in native and skb mode, recycling and releasing, with the
# identity DMA device and the IOMMU model. Every run must print the
# sample's lines (as seed 001 shows them, spaces squeezed) and exit 0,
# which the tool does only when every frame is accounted for, no page is
# left in flight and the DMA device saw no fault. Bad usage is refused
# with exit 2 and a message. The same runs under --bounce prove the
# driver's and the pool's syncs cover exactly what the CPU reads.
set -u
tool=$1
fail=0

expect_ok() {
	local out act=$1 opt=$2
	shift 2
	if ! out=$("$tool" --dev sim0 --act "$act" -s 1 --duration 1 "$@" 2>&1); then
		echo "FAIL: xdp_rxq_info --act $act $* exited non-zero:"; echo "$out"
		fail=1; return
	fi
	out=$(tr -s ' ' <<<"$out" | sed 's/ $//')
	if ! grep -Eq "^Running XDP on dev:sim0 \(ifindex:[0-9]+\) action:$act options:$opt$" <<<"$out"; then
		echo "FAIL: xdp_rxq_info --act $act $*: no 'Running XDP' line for options:$opt"
		echo "$out"; fail=1
	fi
	if ! grep -q '^XDP stats CPU pps issue-pps$' <<<"$out"; then
		echo "FAIL: xdp_rxq_info --act $act $*: no header line"; echo "$out"; fail=1
	fi
	if ! grep -Eq '^XDP-RX CPU [0-9]+ [1-9][0-9,]* 0$' <<<"$out"; then
		echo "FAIL: xdp_rxq_info --act $act $*: no per-CPU line"; echo "$out"; fail=1
	fi
	if ! grep -Eq '^XDP-RX CPU total [1-9][0-9,]*$' <<<"$out"; then
		echo "FAIL: xdp_rxq_info --act $act $*: no total line"; echo "$out"; fail=1
	fi
	if ! grep -Eq '^rx_queue_index 0:sum [1-9][0-9,]*$' <<<"$out"; then
		echo "FAIL: xdp_rxq_info --act $act $*: no RXQ line"; echo "$out"; fail=1
	fi
}

expect_usage_error() {
	local out rc want=$1
	shift
	out=$("$tool" "$@" 2>&1); rc=$?
	if [ "$rc" -ne 2 ]; then
		echo "FAIL: xdp_rxq_info $* exited $rc, want 2"; echo "$out"; fail=1
	elif ! grep -q -- "$want" <<<"$out"; then
		echo "FAIL: xdp_rxq_info $*: no '$want' message"; echo "$out"; fail=1
	fi
}

for mode in "" "-S"; do
	expect_ok XDP_DROP read --read $mode
	expect_ok XDP_DROP no_touch $mode --iommu
	expect_ok XDP_PASS no_touch $mode
	expect_ok XDP_PASS read --readmem $mode --no-recycle --iommu
	expect_ok XDP_TX swapmac $mode --iommu
	expect_ok XDP_ABORTED no_touch $mode
done
expect_ok XDP_DROP swapmac --swapmac -S --no-recycle --size 1514 --flows 64
expect_ok XDP_DROP no_touch --force -S --no-separators
expect_ok XDP_DROP read --read --wire thread
expect_ok XDP_PASS no_touch --queues 4 --flows 32 -S
expect_ok XDP_TX swapmac --coherent
expect_ok XDP_PASS read --read -S --coherent --iommu --no-recycle
expect_ok XDP_DROP no_touch --queues 2 --flows 8 --wire thread
out=$("$tool" --dev sim0 --act XDP_DROP --queues 3 --flows 64 -s 1 --duration 1 2>&1 | tr -s ' ' | sed 's/ $//')
for q in 0 1 2; do
	if ! grep -Eq "^rx_queue_index $q:sum [1-9][0-9,]*\$" <<<"$out"; then
		echo "FAIL: --queues 3: no traffic on queue $q"; echo "$out"; fail=1
	fi
done
expect_ok XDP_TX swapmac -S --wire thread --iommu
# Bounce mode with poison (swiotlb=force with DMA-API debugging): every
# action in both modes, identity and IOMMU; the tool fails on a frame read
# with never-synced bytes or on any DMA-API debug error.
for mode in "" "-S"; do
	expect_ok XDP_DROP read --read $mode --bounce
	expect_ok XDP_DROP no_touch $mode --bounce --iommu
	expect_ok XDP_PASS read --read $mode --bounce --iommu
	expect_ok XDP_PASS no_touch $mode --bounce --no-recycle
	expect_ok XDP_TX swapmac $mode --bounce
	expect_ok XDP_TX swapmac $mode --bounce --iommu --wire thread
	expect_ok XDP_ABORTED no_touch $mode --bounce --iommu
done
expect_ok XDP_DROP read --read --bounce --size 1514 --flows 64 --queues 2

out=$("$tool" --dev sim0 --act XDP_DROP -s 1 --duration 1 -z 2>&1)
if grep -q ',' <<<"$out"; then
	echo "FAIL: --no-separators printed separators"; echo "$out"; fail=1
fi

expect_usage_error "ERR: --dev name unknown" --dev eth0 --act XDP_DROP
expect_usage_error "ERR: --dev name unknown" --dev sim99
expect_usage_error "ERR: Invalid XDP --action: XDP_FOO" --dev sim0 --act XDP_FOO
expect_usage_error "ERR: required option --dev missing" --act XDP_DROP
expect_usage_error "frame size 9000" --dev sim0 --size 9000 --duration 1
expect_usage_error "sec" --dev sim0 --sec 0
expect_usage_error "XDP_REDIRECT" --dev sim0 --act XDP_REDIRECT
expect_usage_error "ERR: --wire" --dev sim0 --wire elsewhere
expect_usage_error "queues" --dev sim0 --queues 17
expect_usage_error "ERR: --bounce" --dev sim0 --bounce --coherent

[ "$fail" -eq 0 ] && echo "PASS: xdp_rxq_info"
exit "$fail"
