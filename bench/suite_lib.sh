# SPDX-License-Identifier: MIT
# Copyright (c) 2026 The pagepool authors
#
# Shared by the suites that time a receiver against a sender
# (afxdp_suite.sh, uring_suite.sh): their common options, the receiver's
# CPU time from /proc and stopping it; and by those that pin every loop to
# one core (packet_path_suite.sh, tap_suite.sh): their options. Sourced, not run. The caller sets
# SUITE (its file name without .sh: messages, and its usage is the
# comment block from "#   bench/$SUITE" to the "set" line) and may define
# suite_opt, called with an option the library does not know, returning 0
# when it took it (flags only).

suite_usage() {
	sed -n "/^#   bench\/$SUITE/,/^set/s/^#   //p" "$0" >&2
	exit 2
}

# suite_args DEFAULT_RATE "$@": BUILD_DIR [REPS] [SEC] [--rate PPS]
# [--no-max] [--rx-cpu N] [--tx-cpu N]; sets build, reps (3), sec (3),
# rate, nomax, ncpu, rx_cpu (the first CPU) and tx_cpu (the last one).
# Bad usage exits 2.
suite_args() {
	local pos=()
	rate=$1 nomax=0 rx_cpu='' tx_cpu=''
	shift
	while [ $# -gt 0 ]; do
		case $1 in
		--rate) [ $# -ge 2 ] || suite_usage; rate=$2; shift ;;
		--no-max) nomax=1 ;;
		--rx-cpu) [ $# -ge 2 ] || suite_usage; rx_cpu=$2; shift ;;
		--tx-cpu) [ $# -ge 2 ] || suite_usage; tx_cpu=$2; shift ;;
		-h | --help) suite_usage ;;
		-*)
			if ! declare -F suite_opt >/dev/null || ! suite_opt "$1"; then
				echo "$SUITE: unknown option $1" >&2
				suite_usage
			fi
			;;
		*) pos+=("$1") ;;
		esac
		shift
	done
	if [ ${#pos[@]} -lt 1 ] || [ ${#pos[@]} -gt 3 ]; then suite_usage; fi
	build=${pos[0]} reps=${pos[1]:-3} sec=${pos[2]:-3}
	ncpu=$(nproc)
	[ -n "$rx_cpu" ] || rx_cpu=0
	[ -n "$tx_cpu" ] || tx_cpu=$((ncpu - 1))
	case $reps$sec$rate$rx_cpu$tx_cpu in
	*[!0-9]*) echo "$SUITE: REPS, SEC, --rate and the CPUs are numbers" >&2; exit 2 ;;
	esac
	[ "$reps" -ge 1 ] && [ "$sec" -ge 1 ] && [ "$rate" -ge 1 ] ||
		{ echo "$SUITE: REPS, SEC and --rate must be at least 1" >&2; exit 2; }
}

# suite_cpu_args "$@": ARG [N] [N] [--cpu N], the options of the suites
# pinned to one core; sets pos (the one to three positional arguments) and
# cpu (default: the last CPU). Bad usage exits 2.
suite_cpu_args() {
	local p=()
	cpu=''
	while [ $# -gt 0 ]; do
		case $1 in
		--cpu) [ $# -ge 2 ] || suite_usage; cpu=$2; shift ;;
		-h | --help) suite_usage ;;
		-*) echo "$SUITE: unknown option $1" >&2; suite_usage ;;
		*) p+=("$1") ;;
		esac
		shift
	done
	if [ ${#p[@]} -lt 1 ] || [ ${#p[@]} -gt 3 ]; then suite_usage; fi
	pos=("${p[@]}")
	[ -n "$cpu" ] || cpu=$(($(nproc) - 1))
}

# suite_cpu_ns PID: the process's CPU time so far, ns, all its threads.
suite_cpu_ns() {
	local f s=0 v
	for f in /proc/"$1"/task/*/schedstat; do
		read -r v _ <"$f" 2>/dev/null && s=$((s + v))
	done
	echo "$s"
}

# suite_thread_ns PID: its main thread's CPU time so far, ns.
suite_thread_ns() {
	local v=0
	read -r v _ <"/proc/$1/task/$1/schedstat" 2>/dev/null
	echo "$v"
}

# The receiver running in the background, if any: $rxpid.
rxpid=''

# suite_stop_rx: SIGINT to the receiver, up to 10 s for it to print its
# totals and exit, then SIGKILL.
suite_stop_rx() {
	local i
	kill -INT "$rxpid" 2>/dev/null
	for ((i = 0; i < 200; i++)); do
		kill -0 "$rxpid" 2>/dev/null || break
		sleep 0.05
	done
	suite_kill_rx
}

# suite_kill_rx: SIGKILL to the receiver if there is one (for traps).
suite_kill_rx() {
	if [ -n "$rxpid" ]; then
		kill -KILL "$rxpid" 2>/dev/null
		wait "$rxpid" 2>/dev/null
	fi
	rxpid=''
}

# suite_rounds RECEIVER...: run_row RECEIVER PASS (the caller's) for each
# receiver and each pass ("rate", then "max" unless --no-max), interleaved
# over $reps rounds; run_row appends its line to $tmp/results. Sets
# failed to 1 when a row failed.
suite_rounds() {
	local r pass who passes=(rate)
	[ "$nomax" = 1 ] || passes+=(max)
	failed=0
	: >"$tmp/results"
	for ((r = 1; r <= reps; r++)); do
		for pass in "${passes[@]}"; do
			for who in "$@"; do
				run_row "$who" "$pass" || failed=1
			done
		done
	done
}

# suite_table ARGS...: python3 running a script on stdin, with suite_table.py
# (the rows of $tmp/results and their median cells) importable and no
# bytecode written into the source tree.
suite_table() {
	PYTHONDONTWRITEBYTECODE=1 PYTHONPATH="$(dirname "$0")${PYTHONPATH:+:$PYTHONPATH}" \
		python3 - "$@"
}
