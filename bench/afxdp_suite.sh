#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Copyright (c) 2026 The pagepool authors
#
# Issue 10's side-by-side AF_XDP receive benchmark: one veth pair between
# two namespaces (scripts/netns.sh, a prefix of this run's own, always
# removed), pp_pktgen sending 60-byte frames from namespace a, and in
# namespace b, one after another and interleaved over REPS rounds:
#   hand     bench/xsk_freeframe_rx, a hand-rolled receiver keeping its
#            frames on a free-frame stack as the xdpsock sample does;
#   testpmd  DPDK's dpdk-testpmd --forward-mode=rxonly on its net_af_xdp
#            PMD (no hugepages, no shared config);
#   ours     xdp_rxq_info --dev <veth> --act XDP_DROP --read: pagepool's
#            AF_XDP backend (skipped, with a note, where it is not built).
# All bind in copy mode (zero-copy is refused on veth), native XDP unless
# --skb (hand and ours; DPDK 22.11's PMD has no such option and attaches
# natively on veth). Two passes: a fixed offered rate (--rate, default 100000 pps),
# where the receivers that can sleep in poll() when idle do (hand --poll,
# ours --sleep; testpmd always polls busily), so the CPU time per packet
# compares their work at the same load; and a pass as fast as the sender
# goes, all polling busily. The receiver runs pinned to one CPU, the
# sender to another. Per row: packets received per second of sending, the
# sender's rate, the receiving process's CPU time (all its threads, from
# /proc/PID/task/*/schedstat, over the sending) per packet received, and
# the kernel's XDP_STATISTICS drop counters; medians with min and max.
# With PP_BENCH_RESULTS set, the as-fast-as-possible rates and the CPU
# time per packet at the fixed rate go there as chart rows (afxdp and
# afxdp_cpu; bench/summary.py describes them).
# Needs root; exits 77 when not root or without network namespaces.
#   bench/afxdp_suite.sh BUILD_DIR [REPS] [SEC] [--rate PPS] [--skb] [--no-max]
#     REPS  rounds (default 3)      SEC  seconds of sending per row (default 3)
#     --rate PPS  the fixed offered rate (100000)
#     --skb       hand and ours bind in XDP_SKB (generic) mode
#     --no-max    leave out the as-fast-as-possible pass
#     --rx-cpu N / --tx-cpu N   the receiver's and the sender's CPU
#                               (default: the first and the last one)
set -u

SUITE=afxdp_suite
. "$(dirname "$0")/suite_lib.sh"
skb=0
suite_opt() {
	case $1 in
	--skb) skb=1 ;;
	*) return 1 ;;
	esac
}
suite_args 100000 "$@"
here=$(cd "$(dirname "$0")" && pwd)
netns=$here/../scripts/netns.sh
pktgen=$build/tools/pp_pktgen
hand=$build/bench/xsk_freeframe_rx
ours=$build/tools/xdp_rxq_info
[ -x "$pktgen" ] || { echo "afxdp_suite: no $pktgen (build first)" >&2; exit 1; }
if [ "$(id -u)" -ne 0 ]; then
	echo "afxdp_suite: needs root (network namespaces, AF_XDP)" >&2
	exit 77
fi

tmp=$(mktemp -d) || exit 1
prefix=pagepoolpk$(($$ % 10000))
N=("$netns" -p "$prefix" -n 10.216.0)
cleanup() {
	suite_kill_rx
	"${N[@]}" down >/dev/null || echo "afxdp_suite: $prefix not fully removed" >&2
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

"${N[@]}" up
rc=$?
if [ "$rc" -eq 77 ]; then
	echo "afxdp_suite: no network namespaces here" >&2
	exit 77
elif [ "$rc" -ne 0 ]; then
	echo "afxdp_suite: netns.sh up failed" >&2
	exit 1
fi
eval "$("${N[@]}" env)"
for ns in "$NS_A" "$NS_B"; do
	ip netns exec "$ns" sysctl -qw net.ipv6.conf.all.disable_ipv6=1
	ip netns exec "$ns" sysctl -qw net.ipv6.conf.default.disable_ipv6=1
done
mac_a=$(ip netns exec "$NS_A" cat "/sys/class/net/$IF_A/address")
mac_b=$(ip netns exec "$NS_B" cat "/sys/class/net/$IF_B/address")
ip -n "$NS_A" neigh replace "$IP_B" lladdr "$mac_b" dev "$IF_A" nud permanent
ip -n "$NS_B" neigh replace "$IP_A" lladdr "$mac_a" dev "$IF_B" nud permanent

xmode=native hflag='' oflag=''
if [ "$skb" = 1 ]; then xmode='skb (testpmd: native)' hflag=-S oflag=-S; fi

cpuname=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n1)
echo "# afxdp_suite: $reps interleaved rounds of $sec s per row, veth $IF_A -> $IF_B, $xmode XDP, copy mode; receiver on CPU $rx_cpu, sender on CPU $tx_cpu; started $(date -u '+%Y-%m-%d %H:%M UTC')"
echo "# CPU: ${cpuname:-unknown} ($ncpu usable), kernel $(uname -r), load average $(cut -d' ' -f1-3 /proc/loadavg)"

# Which receivers can run.
have_hand=0 have_tp=0 have_ours=0 osleep=''
if [ -x "$hand" ]; then
	have_hand=1
else
	echo "# hand: skipped (bench/xsk_freeframe_rx not built: libxdp-dev and libbpf-dev missing)"
fi
testpmd=$(command -v dpdk-testpmd || true)
if [ -z "$testpmd" ]; then
	echo "# testpmd: skipped (dpdk-testpmd not installed; Debian package dpdk-dev)"
elif [ "$rx_cpu" = "$tx_cpu" ]; then
	echo "# testpmd: skipped (one CPU: its main lcore needs another)"
else
	have_tp=1
fi
# Ours: xdp_rxq_info opens a real interface only with the AF_XDP backend.
if [ -x "$ours" ]; then
	probe=$(timeout 10 "${N[@]}" exec b "$ours" --dev "$IF_B" --act XDP_DROP --duration 1 2>&1)
	if [ $? -eq 0 ] && grep -q 'received:' <<<"$probe"; then
		have_ours=1
		"$ours" --help 2>&1 | grep -q -- '--sleep' && osleep=--sleep
	fi
fi
[ "$have_ours" = 1 ] || echo "ours: skipped (AF_XDP backend not built)"
if [ $((have_hand + have_tp + have_ours)) -eq 0 ]; then
	echo "afxdp_suite: no receiver to run" >&2
	exit 1
fi

# Wait until the receiver has attached its XDP program to b's end (all
# three do, through libxdp), or has died. 0 when it is ready.
wait_ready() {
	local i
	for ((i = 0; i < 200; i++)); do
		kill -0 "$rxpid" 2>/dev/null || return 1
		if ip -n "$NS_B" link show dev "$IF_B" 2>/dev/null | grep -q 'prog/xdp'; then
			sleep 0.3	# the socket enters the program's map
			return 0
		fi
		sleep 0.05
	done
	return 1
}

# start_rx RECEIVER: start it on b's end in the background (rxpid).
start_rx() {
	case $1 in
	hand)
		"${N[@]}" exec b taskset -c "$rx_cpu" "$hand" -i "$IF_B" $hflag \
			"${hpoll[@]}" --quiet >"$out" 2>&1 &
		;;
	testpmd)
		# No -i: testpmd forwards at once and waits for SIGINT.
		# 16384 mbufs fit in 256 MB without hugepages.
		"${N[@]}" exec b "$testpmd" -l "$tx_cpu,$rx_cpu" \
			--main-lcore "$tx_cpu" --no-huge -m 256 --no-pci \
			--no-shconf --log-level=lib.eal:warning \
			--vdev "net_af_xdp0,iface=$IF_B,start_queue=0,queue_count=1" \
			-- --forward-mode=rxonly --nb-cores=1 --rxd=2048 \
			--total-num-mbufs=16384 --stats-period 60 \
			>"$out" 2>&1 &
		;;
	ours)
		"${N[@]}" exec b taskset -c "$rx_cpu" "$ours" --dev "$IF_B" \
			--act XDP_DROP --read $oflag \
			"${osl[@]}" >"$out" 2>&1 &
		;;
	esac
	rxpid=$!
}

# run_row RECEIVER PASS: one receiver, one pass; appends a result line
# "receiver|pass|rx_pps|tx_pps|ns_per_pkt|rx_dropped|ring_full|fill_empty|unaccounted".
run_row() {
	local who=$1 pass=$2 out=$tmp/rx.out rateopt=() hpoll=() osl=() c0 c1 snd
	local sent secs rxd drop ring fill try
	if [ "$pass" = rate ]; then
		rateopt=(--rate "$rate") hpoll=(--poll)
		[ -z "$osleep" ] || osl=("$osleep")
	fi
	# The previous row's socket leaves the queue when the kernel has
	# released it, after its process exited (on 6.18 up to a second
	# later): until then binding fails with EBUSY. Start again then.
	for ((try = 0; try < 20; try++)); do
		start_rx "$who"
		wait_ready && break
		suite_kill_rx
		grep -qi 'resource busy' "$out" || break
		sleep 0.25
	done
	if [ -z "$rxpid" ]; then
		echo "afxdp_suite: $who did not start:" >&2
		tail -n 20 "$out" >&2
		return 1
	fi
	c0=$(suite_cpu_ns "$rxpid")
	snd=$(ip netns exec "$NS_A" "$pktgen" --dev "$IF_A" --dst-mac "$mac_b" \
		--src-ip "$IP_A" --dst-ip "$IP_B" --duration "$sec" \
		--cpu "$tx_cpu" --quiet "${rateopt[@]}" 2>&1)
	sleep 0.3	# what is still in the rings
	c1=$(suite_cpu_ns "$rxpid")
	suite_stop_rx
	tr -d '\r' <"$out" >"$out.txt"
	read -r sent secs < <(sed -n 's/^pp_pktgen: sent \([0-9]*\) packets of [0-9]* bytes in \([0-9.]*\) s.*/\1 \2/p' <<<"$snd")
	if [ -z "${sent:-}" ]; then
		echo "afxdp_suite: pp_pktgen failed:" >&2; echo "$snd" >&2
		return 1
	fi
	if [ "$who" = testpmd ]; then
		rxd=$(awk '/Accumulated forward statistics/ { f = 1 }
			   f && /RX-packets:/ { print $2; exit }' "$out.txt")
		drop=$(awk '/Accumulated forward statistics/ { f = 1 }
			    f && /RX-dropped:/ { print $4; exit }' "$out.txt")
		ring=- fill=-
	else
		rxd=$(grep -o 'received[: ][0-9]*' "$out.txt" | tail -n1 | tr -dc 0-9)
		drop=$(grep -o 'rx_dropped[: ][0-9]*' "$out.txt" | tail -n1 | tr -dc 0-9)
		ring=$(grep -o 'rx_ring_full[: ][0-9]*' "$out.txt" | tail -n1 | tr -dc 0-9)
		fill=$(grep -o 'rx_fill_ring_empty_descs[: ][0-9]*' "$out.txt" | tail -n1 | tr -dc 0-9)
	fi
	if [ -z "$rxd" ] || [ -z "$drop" ]; then
		echo "afxdp_suite: $who printed no totals:" >&2
		tail -n 20 "$out.txt" >&2
		return 1
	fi
	awk -v who="$who" -v pass="$pass" -v sent="$sent" -v secs="$secs" \
	    -v rxd="$rxd" -v drop="$drop" -v ring="$ring" -v fill="$fill" \
	    -v c0="$c0" -v c1="$c1" 'BEGIN {
		# The kernel counts a full RX ring apart from rx_dropped
		# (a fill ring found empty); testpmd reports only the latter.
		printf "%s|%s|%.0f|%.0f|%.1f|%s|%s|%s|%d\n", who, pass,
		       rxd / secs, sent / secs, rxd ? (c1 - c0) / rxd : 0,
		       drop, ring, fill, sent - rxd - drop - (ring == "-" ? 0 : ring)
	}' >>"$tmp/results"
}

recv=()
[ "$have_hand" = 1 ] && recv+=(hand)
[ "$have_tp" = 1 ] && recv+=(testpmd)
[ "$have_ours" = 1 ] && recv+=(ours)
suite_rounds "${recv[@]}"

suite_table "$tmp/results" "$rate" <<'PY'
import os, statistics, sys
from suite_table import load, cell

rows = load(sys.argv[1])
rate = int(sys.argv[2])
names = {
    'hand': 'hand-rolled free-frame stack (xsk_freeframe_rx)',
    'testpmd': 'DPDK testpmd rxonly, net_af_xdp',
    'ours': 'ours: xdp_rxq_info XDP_DROP --read',
}

RESULTS = os.environ.get('PP_BENCH_RESULTS')

def result(chart, kind, label, vals, scale, unit):
    # One chart row (bench/summary.py describes them): median, min, max.
    if not RESULTS:
        return
    v = [float(x) / scale for x in vals]
    num = lambda x: '%.6g' % x
    with open(RESULTS, 'a') as f:
        f.write('\t'.join([chart, kind, label, num(statistics.median(v)),
                           unit, num(min(v)), num(max(v)),
                           'afxdp_suite']) + '\n')

def counter(vals):
    if any(x == '-' for x in vals):
        return '-'
    return '%d' % statistics.median(int(x) for x in vals)

for pass_, title in (('rate', 'offered %d pps; hand and ours sleep in poll() when idle, testpmd polls' % rate),
                     ('max', 'as fast as the sender goes; every receiver polls busily')):
    present = [w for w in ('hand', 'testpmd', 'ours') if (w, pass_) in rows]
    if not present:
        continue
    print()
    print('AF_XDP receive, %s' % title)
    print()
    print('| receiver | received kpps | sender kpps | CPU ns/packet | rx_dropped | rx_ring_full | rx_fill_ring_empty_descs | unaccounted |')
    print('|---|---|---|---|---|---|---|---|')
    for w in present:
        r = rows[(w, pass_)]
        col = list(zip(*r))
        print('| %s | %s | %s | %s | %s | %s | %s | %s |' % (
            names[w], cell(col[0], 1e3, '%.1f'), cell(col[1], 1e3, '%.1f'),
            cell(col[2], 1.0, '%.0f'), counter(col[3]), counter(col[4]),
            counter(col[5]), counter(col[6])))
        label = ('pagepool ' if w == 'ours' else '') + names[w].replace('ours: ', '')
        if pass_ == 'max':
            result('afxdp', 'ours' if w == 'ours' else 'peer', label,
                   col[0], 1e6, 'Mpps')
        else:
            result('afxdp_cpu', 'ours' if w == 'ours' else 'peer', label,
                   col[2], 1.0, 'ns')
print()
print('Medians (min-max) over the rounds. CPU ns/packet: the receiving process\'s')
print('CPU time while the sender ran, over the packets it received; in copy mode the')
print('kernel copies each frame into the UMEM in the softirq, on the sender\'s CPU here.')
print('Unaccounted: sent - received - rx_dropped - rx_ring_full (testpmd reports no')
print('rx_ring_full: its full-ring drops show here).')
PY
[ "$failed" = 0 ] || { echo "afxdp_suite: some rows failed" >&2; exit 1; }
