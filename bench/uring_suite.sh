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
# Two passes: a fixed offered rate (--rate, default 50000 pps), where both
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
# Exits 77 where io_uring is unavailable.
#   bench/uring_suite.sh BUILD_DIR [REPS] [SEC] [--rate PPS] [--no-max]
#     REPS  rounds (default 3)      SEC  seconds of sending per row (default 3)
#     --rate PPS  the fixed offered rate (50000)
#     --no-max    leave out the as-fast-as-possible pass
#     --rx-cpu N / --tx-cpu N   the receiver's and the sender's CPU
#                               (default: the first and the last one)
set -u

usage() {
	sed -n '/^#   bench\/uring_suite/,/^set/s/^#   //p' "$0" >&2
	exit 2
}

rate=50000 nomax=0 rx_cpu='' tx_cpu='' pos=()
args=("$@")
while [ $# -gt 0 ]; do
	case $1 in
	--rate) [ $# -ge 2 ] || usage; rate=$2; shift ;;
	--no-max) nomax=1 ;;
	--rx-cpu) [ $# -ge 2 ] || usage; rx_cpu=$2; shift ;;
	--tx-cpu) [ $# -ge 2 ] || usage; tx_cpu=$2; shift ;;
	-h | --help) usage ;;
	-*) echo "uring_suite: unknown option $1" >&2; usage ;;
	*) pos+=("$1") ;;
	esac
	shift
done
if [ ${#pos[@]} -lt 1 ] || [ ${#pos[@]} -gt 3 ]; then usage; fi
build=${pos[0]} reps=${pos[1]:-3} sec=${pos[2]:-3}
ncpu=$(nproc)
[ -n "$rx_cpu" ] || rx_cpu=0
[ -n "$tx_cpu" ] || tx_cpu=$((ncpu - 1))
case $reps$sec$rate$rx_cpu$tx_cpu in
*[!0-9]*) echo "uring_suite: REPS, SEC, --rate and the CPUs are numbers" >&2; exit 2 ;;
esac
[ "$reps" -ge 1 ] && [ "$sec" -ge 1 ] && [ "$rate" -ge 1 ] ||
	{ echo "uring_suite: REPS, SEC and --rate must be at least 1" >&2; exit 2; }
pktgen=$build/tools/pp_pktgen
sink=$build/tools/udp_sink
for p in "$pktgen" "$sink"; do
	[ -x "$p" ] || { echo "uring_suite: no $p (build first)" >&2; exit 1; }
done

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
rxpid=''
cleanup() {
	if [ -n "$rxpid" ]; then
		kill -KILL "$rxpid" 2>/dev/null
		wait "$rxpid" 2>/dev/null
	fi
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
	local f s=0 v m=0
	read -r m _ <"/proc/$1/task/$1/schedstat" 2>/dev/null
	for f in /proc/"$1"/task/*/schedstat; do
		read -r v _ <"$f" 2>/dev/null && s=$((s + v))
	done
	echo "$m $s"
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
	kill -INT "$rxpid" 2>/dev/null
	for ((i = 0; i < 100; i++)); do
		kill -0 "$rxpid" 2>/dev/null || break
		sleep 0.05
	done
	kill -KILL "$rxpid" 2>/dev/null
	wait "$rxpid" 2>/dev/null
	rxpid=''
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

passes=(rate)
[ "$nomax" = 1 ] || passes+=(max)
recv=(uring-thread uring-inline recvmmsg-inline recvmmsg-thread)
failed=0
: >"$tmp/results"
for ((r = 1; r <= reps; r++)); do
	for pass in "${passes[@]}"; do
		for who in "${recv[@]}"; do
			run_row "$who" "$pass" || failed=1
		done
	done
done

python3 - "$tmp/results" "$rate" <<'PY'
import statistics, sys

rows = {}
for line in open(sys.argv[1]):
    f = line.rstrip('\n').split('|')
    rows.setdefault((f[0], f[1]), []).append(f[2:])
rate = int(sys.argv[2])
order = ('uring-thread', 'uring-inline', 'recvmmsg-inline', 'recvmmsg-thread')
names = {
    'uring-thread': 'io_uring, page_pool buffer ring, pages returned on another thread',
    'uring-inline': 'io_uring, page_pool buffer ring, pages returned inline',
    'recvmmsg-inline': 'recvmmsg into malloc\'d buffers, freed inline',
    'recvmmsg-thread': 'recvmmsg into malloc\'d buffers, freed on another thread',
}

def cell(vals, scale=1.0, fmt='%.0f'):
    v = [float(x) / scale for x in vals]
    return (fmt + ' (' + fmt + '-' + fmt + ')') % (statistics.median(v), min(v), max(v))

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
for a, b in (('uring-inline', 'recvmmsg-inline'), ('uring-thread', 'recvmmsg-thread')):
    if (a, 'rate') in med and (b, 'rate') in med and med[(b, 'rate')] > 0:
        print('At %d pps, %s / %s process CPU per datagram: %.2f' % (
            rate, a, b, med[(a, 'rate')] / med[(b, 'rate')]))
print()
print('Medians (min-max) over the rounds. CPU: from the start of the sending until')
print('the socket is drained, over the datagrams received; on loopback the kernel')
print('queues each datagram to the socket in the sender\'s softirq (its CPU), the')
print('copy out to the receiver\'s buffer is the receiver\'s. Sent - received is what')
print('the kernel took from the sender and the receiver never got; RcvbufErrors is')
print('the kernel\'s count of datagrams dropped at a full socket receive queue.')
PY
[ "$failed" = 0 ] || { echo "uring_suite: some rows failed" >&2; exit 1; }
