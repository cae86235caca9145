#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Copyright (c) 2026 The pagepool authors
#
# Issue 10's side-by-side io_uring receive benchmark on loopback: one
# sender, pp_pktgen --mode udp (sendmmsg batches of 64 over a connected
# socket; it outruns udp_sink --send), and udp_sink receiving, one after
# another and interleaved over REPS rounds:
#   uring-thread     io_uring multishot recv into a provided-buffer ring of
#                    page_pool pages, each page read and returned to the
#                    pool on a second thread (--return-thread)
#   uring-inline     the same, each page returned by the receiving thread
#   recvmmsg-inline  recvmmsg() into malloc'd buffers, freed inline
#   recvmmsg-thread  the same, each buffer read and freed on a second thread
# Two passes: a fixed offered rate (--rate, default 100000 pps), where both
# receivers sleep when idle (io_uring_wait_cqe, a blocking recvmmsg), so
# the CPU time per packet compares their work at the same load; and a
# pass as fast as the sender goes. The receiver runs pinned to one CPU
# (both its threads), the sender to another. Per row: datagrams received
# per second of sending, the sender's rate, the receiving thread's and
# the whole process's CPU time (/proc/PID/task/*/schedstat, from the
# start of the sending until the socket is drained) per datagram
# received, sent - received, and the kernel's UDP RcvbufErrors over the
# row (/proc/net/snmp); medians with min and max. As root, the suite runs
# in a network namespace of its own (unshare -n), so the counters are its
# alone; otherwise they are the host's, shared with whatever else runs.
# Exits 77 where io_uring is unavailable or udp_sink is not built.
#   bench/uring_suite.sh BUILD_DIR [REPS] [SEC] [--rate PPS] [--no-max]
#     REPS  rounds (default 3)      SEC  seconds of sending per row (default 3)
#     --rate PPS  the fixed offered rate (100000)
#     --no-max    leave out the as-fast-as-possible pass
#     --rx-cpu N / --tx-cpu N   the receiver's and the sender's CPU
#                               (default: the first and the last one)
set -u

SUITE=uring_suite
. "$(dirname "$0")/suite_lib.sh"
args=("$@")
suite_args 100000 "$@"
pktgen=$build/tools/pp_pktgen
sink=$build/tools/udp_sink
[ -x "$pktgen" ] || { echo "uring_suite: no $pktgen (build first)" >&2; exit 1; }
if [ ! -x "$sink" ]; then
	echo "uring_suite: no $sink: built only with liburing (liburing-dev)" >&2
	exit 77
fi

# Counters of our own: re-run inside a fresh network namespace (only
# loopback, brought up here; it goes away with the last process).
netns=host
if [ "${PP_URING_SUITE_NETNS:-}" = 1 ]; then
	ip link set lo up || { echo "uring_suite: cannot bring lo up" >&2; exit 1; }
	netns=private
elif [ "$(id -u)" -eq 0 ] && unshare -n true 2>/dev/null; then
	PP_URING_SUITE_NETNS=1 exec unshare -n "$0" "${args[@]}"
fi

tmp=$(mktemp -d) || exit 1
cleanup() {
	suite_kill_rx
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

port=$((20000 + $$ % 20000))
size=106	# a 64-byte payload
cpuname=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n1)
echo "# uring_suite: $reps interleaved rounds of $sec s per row, loopback ($netns network namespace), $((size - 42))-byte UDP payloads; receiver on CPU $rx_cpu, sender on CPU $tx_cpu; started $(date -u '+%Y-%m-%d %H:%M UTC')"
echo "# CPU: ${cpuname:-unknown} ($ncpu usable), kernel $(uname -r), load average $(cut -d' ' -f1-3 /proc/loadavg)"
[ "$rx_cpu" != "$tx_cpu" ] || echo "# one CPU: sender and receiver share it"
[ "$netns" = private ] ||
	echo "# not root: RcvbufErrors are the host's, counting other sockets' drops too"

# The receiving process's CPU time so far, ns: its main (receiving)
# thread's, then all its threads'.
cpu_ns() {
	echo "$(suite_thread_ns "$1") $(suite_cpu_ns "$1")"
}

rcvbuf_errors() {
	awk '/^Udp:/ { if (n++) print $6 }' /proc/net/snmp
}

# Bytes waiting in the receiver's socket (/proc/net/udp rx_queue); empty
# when the socket is gone.
rx_queue() {
	local hex q
	hex=$(printf '%04X' "$port")
	q=$(awk -v p=":$hex" '$2 ~ p"$" { split($5, q, ":"); print q[2]; exit }' \
		/proc/net/udp)
	[ -z "$q" ] || echo $((16#$q))
}

# run_row RECEIVER PASS: one receiver, one pass; appends a result line
# "receiver|pass|rx_pps|tx_pps|thread_ns|process_ns|sent-received|rcvbuf_errors".
run_row() {
	local who=$1 pass=$2 out=$tmp/rx.out rateopt=() opts=() c0 c1 e0 e1 snd
	local sent secs rxd i rc q
	[ "$pass" = max ] || rateopt=(--rate "$rate")
	case $who in
	uring-thread) opts=(--mode uring --return-thread) ;;
	uring-inline) opts=(--mode uring) ;;
	recvmmsg-thread) opts=(--mode recvmmsg --return-thread) ;;
	recvmmsg-inline) opts=(--mode recvmmsg) ;;
	esac
	: >"$out"
	taskset -c "$rx_cpu" "$sink" "${opts[@]}" --port "$port" --quiet \
		>"$out" 2>&1 &
	rxpid=$!
	for ((i = 0; i < 200; i++)); do
		grep -q listening "$out" && break
		kill -0 "$rxpid" 2>/dev/null || break
		sleep 0.05
	done
	if ! grep -q listening "$out"; then
		kill -KILL "$rxpid" 2>/dev/null
		wait "$rxpid"
		rc=$?
		rxpid=''
		if [ "$rc" -eq 77 ]; then
			echo "uring_suite: io_uring unavailable here:" >&2
			cat "$out" >&2
			exit 77
		fi
		echo "uring_suite: udp_sink ${opts[*]} did not start:" >&2
		tail -n 20 "$out" >&2
		return 1
	fi
	e0=$(rcvbuf_errors)
	c0=$(cpu_ns "$rxpid")
	snd=$("$pktgen" --mode udp --dst-ip 127.0.0.1 --udp-dst-port "$port" \
		--size "$size" --duration "$sec" --cpu "$tx_cpu" --quiet \
		"${rateopt[@]}" 2>&1)
	# Until the receiver has emptied its socket (at most 2 s more).
	for ((i = 0; i < 40; i++)); do
		q=$(rx_queue)
		[ "${q:-0}" -gt 0 ] || break
		sleep 0.05
	done
	c1=$(cpu_ns "$rxpid")
	e1=$(rcvbuf_errors)
	suite_stop_rx
	port=$((port + 1))
	read -r sent secs < <(sed -n 's/^pp_pktgen: sent \([0-9]*\) packets of [0-9]* bytes in \([0-9.]*\) s.*/\1 \2/p' <<<"$snd")
	if [ -z "${sent:-}" ]; then
		echo "uring_suite: pp_pktgen failed:" >&2; echo "$snd" >&2
		return 1
	fi
	rxd=$(sed -n 's/^udp_sink: [a-z]* received \([0-9]*\) datagrams.*/\1/p' "$out")
	if [ -z "$rxd" ]; then
		echo "uring_suite: udp_sink ${opts[*]} printed no total:" >&2
		tail -n 20 "$out" >&2
		return 1
	fi
	awk -v who="$who" -v pass="$pass" -v sent="$sent" -v secs="$secs" \
	    -v rxd="$rxd" -v c0="$c0" -v c1="$c1" -v e0="$e0" -v e1="$e1" 'BEGIN {
		split(c0, a, " "); split(c1, b, " ")
		printf "%s|%s|%.0f|%.0f|%.1f|%.1f|%d|%d\n", who, pass,
		       rxd / secs, sent / secs,
		       rxd ? (b[1] - a[1]) / rxd : 0, rxd ? (b[2] - a[2]) / rxd : 0,
		       sent - rxd, e1 - e0
	}' >>"$tmp/results"
}

recv=(uring-thread uring-inline recvmmsg-inline recvmmsg-thread)
suite_rounds "${recv[@]}"

suite_table "$tmp/results" "$rate" <<'PY'
import statistics, sys
from suite_table import load, cell

rows = load(sys.argv[1])
rate = int(sys.argv[2])
order = ('uring-thread', 'uring-inline', 'recvmmsg-inline', 'recvmmsg-thread')
names = {
    'uring-thread': 'io_uring, page_pool buffer ring, pages returned on another thread',
    'uring-inline': 'io_uring, page_pool buffer ring, pages returned inline',
    'recvmmsg-inline': 'recvmmsg into malloc\'d buffers, freed inline',
    'recvmmsg-thread': 'recvmmsg into malloc\'d buffers, freed on another thread',
}

med = {}
for pass_, title in (('rate', 'offered %d pps; both receivers sleep when idle' % rate),
                     ('max', 'as fast as the sender goes')):
    present = [w for w in order if (w, pass_) in rows]
    if not present:
        continue
    print()
    print('UDP receive on loopback, %s' % title)
    print()
    print('| receiver | received kpps | sender kpps | CPU ns/datagram, receiving thread | CPU ns/datagram, process | sent - received | RcvbufErrors |')
    print('|---|---|---|---|---|---|---|')
    for w in present:
        col = list(zip(*rows[(w, pass_)]))
        med[(w, pass_)] = statistics.median(float(x) for x in col[3])
        print('| %s | %s | %s | %s | %s | %s | %s |' % (
            names[w], cell(col[0], 1e3, '%.1f'), cell(col[1], 1e3, '%.1f'),
            cell(col[2]), cell(col[3]), cell(col[4]), cell(col[5])))
print()
for pass_, label in (('rate', 'At %d pps' % rate), ('max', 'As fast as the sender goes')):
    for a, b in (('uring-inline', 'recvmmsg-inline'), ('uring-thread', 'recvmmsg-thread')):
        if (a, pass_) in med and (b, pass_) in med and med[(b, pass_)] > 0:
            print('%s, %s / %s process CPU per datagram: %.2f' % (
                label, a, b, med[(a, pass_)] / med[(b, pass_)]))
print()
print('Medians (min-max) over the rounds. CPU: from the start of the sending until')
print('the socket is drained, over the datagrams received; on loopback the kernel')
print('queues each datagram to the socket in the sender\'s softirq (its CPU), the')
print('copy out to the receiver\'s buffer is the receiver\'s. Sent - received is what')
print('the kernel took from the sender and the receiver never got; RcvbufErrors is')
print('the kernel\'s count of datagrams dropped at a full socket receive queue.')
PY
[ "$failed" = 0 ] || { echo "uring_suite: some rows failed" >&2; exit 1; }
