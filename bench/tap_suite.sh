#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# Seed 004's measurement on our machines: tap_net_test (vhost_net_test's
# counterpart: round trips through a TAP device in a private network
# namespace) with the page_frag_cache path (the seed), the plain
# page_frag refill (the pre-seed path) and malloc, interleaved within each
# run, printed as a table beside the seed's two vhost_net_test rows:
# elapsed time per run (mean +- spread, the standard error as perf stat
# prints it), task-clock, context switches and frames per second, and each
# path's task-clock and elapsed time over the page_frag path's (the seed:
# 0.992 and 0.994), the means' ratios and, run by run, the median of each
# run's task-clock ratio with how many runs were at or below 1 (paired
# within a run, so it is not moved by one slowed run as the means are).
# Three workloads: ICMP echo of 60-1514 bytes, ARP of
# 60-1514 bytes (both on one core, pinned), and ICMP echo of 60-9000
# bytes with the replies freed on a second thread, with the cache-line
# round trip between its two CPUs before and after (docs/benchmarks.md:
# on a VM the host's placement of the vCPUs moves that workload's ratios).
#
# tap_net_test needs root (a network namespace and a TAP device) and
# /dev/net/tun; without them the suite prints why and exits 0.
#   bench/tap_suite.sh TAP_NET_TEST [RUNS] [FRAMES] [--cpu N]
#     (vs page_frag: task-clock / elapsed time over the page_frag path's)
#     RUNS    runs per path (default 10)   FRAMES  requests per run (default 100000)
#     --cpu N the core the single-thread workloads are pinned to (default: the last)
set -eu

SUITE=tap_suite
. "$(dirname "$0")/suite_lib.sh"
suite_cpu_args "$@"
tool=${pos[0]} runs=${pos[1]:-10} frames=${pos[2]:-100000}
case $runs$frames$cpu in *[!0-9]*) echo "tap_suite: RUNS, FRAMES and --cpu are numbers" >&2; exit 2 ;; esac
[ -x "$tool" ] || { echo "tap_suite: no $tool (build first)" >&2; exit 1; }

if [ "$(id -u)" -ne 0 ]; then
	echo "# tap_net_test skipped: it needs root (a network namespace and a TAP device)"
	exit 0
fi
if [ ! -c /dev/net/tun ]; then
	echo "# tap_net_test skipped: no /dev/net/tun (TUN/TAP not available here)"
	exit 0
fi
pin=()
if command -v taskset >/dev/null; then pin=(taskset -c "$cpu"); fi

# One tap_net_test run as table rows: path, task-clock ms (+-%), context
# switches, frames/s (+-%), elapsed s (+- s), the ratios of the means to
# page_frag's, and the run-by-run task-clock ratio's median.
table() {
	awk '
	/stats for/ { split($0, q, "'\''"); p = q[2]; order[++n] = p }
	/msec task-clock/ { tc[p] = $1; tcs[p] = $(NF - 1) }
	/context-switches/ { cs[p] = $1 }
	/frames\/sec/ { fps[p] = $1; fpss[p] = $(NF - 1) }
	/time elapsed/ { el[p] = $1; els[p] = $3 }
	/buffers in use/ { inuse[p] = $1 }
	/task-clock over page_frag/ {
		match($0, /[0-9]+ of [0-9]+/)
		paired[p] = $1 " (" substr($0, RSTART, RLENGTH) " <= 1)"
	}
	END {
		f = "| %-28s | %-18s | %-9s | %-18s | %-20s | %-13s | %-22s | %s |\n"
		printf f, "path", "task-clock (ms)", "ctx sw", "frames/s",
			"elapsed (s)", "vs page_frag", "run by run", "in use"
		printf "|---|---|---|---|---|---|---|---|\n"
		printf f, "kernel: page_frag (before)", "603027.29 +- 0.04%",
			"2097713", "n/a", "343.376 +- 0.147", "1 / 1", "n/a", "n/a"
		printf f, "kernel: page_frag_cache", "598081.02 +- 0.11%",
			"2097738", "n/a", "341.466 +- 0.305", "0.992 / 0.994",
			"n/a", "n/a"
		for (i = 1; i <= n; i++) {
			p = order[i]
			r = "n/a"
			if (tc["page_frag"] > 0 && el["page_frag"] > 0)
				r = sprintf("%.3f / %.3f", tc[p] / tc["page_frag"], el[p] / el["page_frag"])
			printf f, "ours: " p, tc[p] " +- " tcs[p], cs[p],
				fps[p] " +- " fpss[p], el[p] " +- " els[p], r,
				(p in paired ? paired[p] : "1"), inuse[p]
		}
	}'
}

# workload TITLE PIN ARGS...: run tap_net_test ARGS (under taskset if PIN
# is 1), print its heading line and the table.
workload() {
	local title=$1 pinned=$2 out rc
	shift 2
	local cmd=("$tool" "$@")
	if [ "$pinned" = 1 ]; then cmd=("${pin[@]}" "${cmd[@]}"); fi
	echo "### $title: tap_net_test $*"
	set +e
	out=$("${cmd[@]}" 2>&1)
	rc=$?
	set -e
	if [ "$rc" -eq 3 ]; then
		echo "# tap_net_test skipped: $(tail -n1 <<<"$out")"
		return 0
	fi
	if [ "$rc" -ne 0 ]; then
		echo "# tap_net_test failed (exit $rc):"
		while IFS= read -r line; do echo "#   $line"; done <<<"$out"
		return 1
	fi
	head -n1 <<<"$out"
	# -F: how far apart the two threads' CPUs were (the host may move
	# a VM's vCPUs, and -F's ratios move with them).
	grep -E '^tap_net_test: CPU .* cache-line round trip' <<<"$out" || true
	table <<<"$out"
}

fail=0
workload "ICMP echo, 60-1514 bytes, 8 in flight, pinned to CPU $cpu" 1 \
	-r "$runs" -n "$frames" || fail=1
workload "ARP, 60-1514 bytes, 8 in flight, pinned to CPU $cpu" 1 \
	-r "$runs" -n "$frames" --proto arp || fail=1
workload "ICMP echo, 60-9000 bytes, 16 in flight, replies freed on a second thread" 0 \
	-r "$runs" -n $((frames / 2)) -s 60:9000 -q 16 -F || fail=1
exit $fail
