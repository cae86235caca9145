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
# Each run is a process of its own with its own software NIC and lasts a
# second: up to four run side by side (run_bg, smoke_lib.sh).
set -u
tool=$1
fail=0
. "$(dirname "$0")/smoke_lib.sh"

expect_ok() {
	run_bg check_ok "$@"
}

# shellcheck disable=SC2317  # called through run_bg
check_ok() {
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
expect_ok XDP_DROP no_touch --ring 16
expect_ok XDP_PASS read --read -S --ring 4096 --iommu
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

# Pcap replay: a small classic pcap written here (six UDP frames and one
# of 5,042 bytes, longer than the RX buffer), replayed in both modes; the
# long frame is dropped by the NIC and counted, never lost.
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
python3 - "$tmp" <<'PY'
import struct, sys
d = sys.argv[1]
def udp(sport, dport, plen):
    eth = bytes([2, 0, 0, 0, 0, 1, 2, 0, 0, 0, 0, 2]) + b'\x08\x00'
    ip = struct.pack('!BBHHHBBH4s4s', 0x45, 0, 28 + plen, 0, 0, 64, 17, 0,
                     bytes([10, 0, 0, 1]), bytes([10, 0, 0, 2]))
    return eth + ip + struct.pack('!HHHH', sport, dport, 8 + plen, 0) + bytes(plen)
def write(name, frames, magic=0xa1b2c3d4, link=1, endian='<', cut=0):
    b = struct.pack(endian + 'IHHiIII', magic, 2, 4, 0, 0, 65535, link)
    for f in frames:
        b += struct.pack(endian + 'IIII', 0, 0, len(f), len(f)) + f
    with open(f'{d}/{name}', 'wb') as fh:
        fh.write(b[:len(b) - cut])
good = [udp(1000 + i, 2000 + i, 40 + i * 50) for i in range(6)]
write('good.pcap', good + [udp(7, 7, 5000)])
write('be.pcap', good, magic=0xa1b2c3d4, endian='>')
write('ns.pcap', good, magic=0xa1b23c4d)
write('empty.pcap', [])
write('linux_sll.pcap', good, link=113)
write('truncated.pcap', good, cut=10)
write('badmagic.pcap', good, magic=0x0a0d0d0a)
with open(f'{d}/short.pcap', 'wb') as fh:
    fh.write(b'\xd4\xc3\xb2\xa1\x02\x00')
PY
for mode in "" "-S"; do
	expect_ok XDP_DROP read --read $mode --pcap "$tmp/good.pcap"
	expect_ok XDP_PASS no_touch $mode --pcap "$tmp/good.pcap" --bounce
	expect_ok XDP_TX swapmac $mode --pcap "$tmp/good.pcap" --iommu
done
expect_ok XDP_DROP no_touch --pcap "$tmp/be.pcap" --queues 2
expect_ok XDP_DROP no_touch --pcap "$tmp/ns.pcap" --wire thread
wait_bg
out=$("$tool" --dev sim0 --act XDP_DROP --pcap "$tmp/good.pcap" -s 1 --duration 1 2>&1)
if ! grep -q "WARN: --pcap .*1 of 7 frames" <<<"$out" ||
   ! grep -Eq '^Dropped by the NIC, too long or too short: [1-9][0-9]* frames \(rx_length_errors\)$' <<<"$out"; then
	echo "FAIL: --pcap: the long frame was not reported as dropped"; echo "$out"; fail=1
fi
expect_usage_error "ERR: --pcap .*missing.pcap: No such file" --dev sim0 --pcap "$tmp/missing.pcap"
expect_usage_error "no frames" --dev sim0 --pcap "$tmp/empty.pcap"
expect_usage_error "link type 113, not Ethernet" --dev sim0 --pcap "$tmp/linux_sll.pcap"
expect_usage_error "frame 6: truncated" --dev sim0 --pcap "$tmp/truncated.pcap"
expect_usage_error "not a classic pcap file" --dev sim0 --pcap "$tmp/badmagic.pcap"
expect_usage_error "too short for a pcap header" --dev sim0 --pcap "$tmp/short.pcap"
expect_usage_error "no --size or --flows" --dev sim0 --pcap "$tmp/good.pcap" --size 128

out=$("$tool" --dev sim0 --act XDP_DROP -s 1 --duration 1 -z 2>&1)
if grep -q ',' <<<"$out"; then
	echo "FAIL: --no-separators printed separators"; echo "$out"; fail=1
fi

expect_usage_error "ERR: --dev name unknown" --dev ppnosuchif0 --act XDP_DROP
expect_usage_error "ERR: --dev name unknown" --dev sim99
expect_usage_error "ERR: Invalid XDP --action: XDP_FOO" --dev sim0 --act XDP_FOO
expect_usage_error "ERR: required option --dev missing" --act XDP_DROP
expect_usage_error "frame size 9000" --dev sim0 --size 9000 --duration 1
expect_usage_error "sec" --dev sim0 --sec 0
expect_usage_error "XDP_REDIRECT" --dev sim0 --act XDP_REDIRECT
expect_usage_error "ERR: --wire" --dev sim0 --wire elsewhere
expect_usage_error "queues" --dev sim0 --queues 17
expect_usage_error "ERR: --ring 100: not a power of two" --dev sim0 --ring 100
expect_usage_error "ring" --dev sim0 --ring 8192
expect_usage_error "ERR: --bounce" --dev sim0 --bounce --coherent

[ "$fail" -eq 0 ] && echo "PASS: xdp_rxq_info"
exit "$fail"
