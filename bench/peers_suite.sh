#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# The side-by-side peer benchmarks: page_pool, our page allocator and
# ptr_ring against DPDK rte_mempool / rte_ring, ck_ring, glibc, mimalloc and
# jemalloc (bench/peers/, one program per allocator family). Cross-CPU
# figures swing between runs on a shared machine, so the programs are
# interleaved (A B C ... A B C ...) for REPS rounds, each program also runs
# its rows INNER times in turn inside one process (-R), peer_dpdk runs
# pagepool's bulk, cross-thread and burst rows right after its own (same
# process, same pinned CPUs: A on the first usable CPU, B on the second),
# and each row's median is reported with its min and max; a row whose
# max/min is over 1.5 is marked wide. bench/summary.py prints one table
# with the ratio of every peer to the pagepool path it is compared with,
# and whether each target is met: on the rounds paired in one process
# when there are three or more (their median, unless the middle half of
# them spans more than 1.5x: then too wide to judge), else on the rows'
# medians. A peer that was not built
# (its package missing) drops its rows; with PP_BENCH_RESULTS set the rows
# go there as chart rows too.
#   bench/peers_suite.sh BUILD_DIR [REPS] [N] [--inner INNER] [--json] [--png FILE]
#     REPS  rounds (default 5)      N  round trips per row (default 10000000;
#                                      cross-thread rows run N/4, at most
#                                      2 s each)
#     --inner INNER  rounds inside each program per REPS round (default 1)
#     --json       print the summary as one JSON document instead
#     --png FILE   also draw the charts (gnuplot): FILE without .png,
#                  then -owner.png, -cross.png and -ring.png
set -eu
here=$(cd "$(dirname "$0")" && pwd)

usage() {
	sed -n 's/^#   //p' "$0" >&2
	exit 2
}

json=0 png='' inner=1 pos=()
while [ $# -gt 0 ]; do
	case $1 in
	--json) json=1 ;;
	--png) [ $# -ge 2 ] || usage; png=$2; shift ;;
	--inner) [ $# -ge 2 ] || usage; inner=$2; shift ;;
	-h | --help) usage ;;
	-*) echo "peers_suite: unknown option $1" >&2; usage ;;
	*) pos+=("$1") ;;
	esac
	shift
done
if [ ${#pos[@]} -lt 1 ] || [ ${#pos[@]} -gt 3 ]; then usage; fi
build=${pos[0]} reps=${pos[1]:-5} n=${pos[2]:-10000000}
case $reps$n$inner in *[!0-9]*) echo "peers_suite: REPS, N and INNER are numbers" >&2; exit 2 ;; esac
[ "$inner" -ge 1 ] || { echo "peers_suite: INNER must be at least 1" >&2; exit 2; }
[ "$reps" -ge 1 ] || { echo "peers_suite: REPS must be at least 1" >&2; exit 2; }

progs=() missing=()
for p in peer_pagepool peer_glibc peer_mimalloc peer_jemalloc peer_dpdk peer_ck; do
	if [ -x "$build/bench/peers/$p" ]; then
		progs+=("$build/bench/peers/$p")
	else
		missing+=("$p")
	fi
done
[ ${#progs[@]} -gt 0 ] || { echo "peers_suite: no peer programs in $build/bench/peers" >&2; exit 1; }

tmp=$(mktemp -d)
# peer_dpdk removes its runtime directory itself; this catches a crash.
cleanup() {
	rm -rf "$tmp"
	rm -rf /var/run/dpdk/peer_dpdk_* 2>/dev/null || true
	rmdir /var/run/dpdk 2>/dev/null || true
}
trap cleanup EXIT

# Everything but the JSON document goes to stderr under --json.
if [ $json = 1 ]; then exec 3>&2; else exec 3>&1; fi

cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n1)
started=$(date -u '+%Y-%m-%d %H:%M UTC')
{
	echo "# peers_suite: $reps interleaved rounds of $inner in-process round(s), N $n (cross-thread rows N/4, at most 2 s each); started $started"
	echo "# CPU: ${cpu:-unknown} ($(nproc) usable), kernel $(uname -r)"
	echo "# programs: ${progs[*]##*/}"
	[ ${#missing[@]} -eq 0 ] || echo "# not built (package missing or option disabled), rows dropped: ${missing[*]}"
} >&3

failed=()
for ((r = 1; r <= reps; r++)); do
	for p in "${progs[@]}"; do
		name=${p##*/}
		if ! "$p" -N "$n" -R "$inner" >"$tmp/out" 2>"$tmp/err"; then
			echo "peers_suite: $name failed in round $r:" >&2
			cat "$tmp/err" >&2
			failed+=("$name")
			continue
		fi
		grep 'Per elem:' "$tmp/out" >>"$tmp/results" || true
		# Notes (pool counters, DPDK's lcore cache rule) from round 1.
		[ "$r" != 1 ] || grep '^# ' "$tmp/out" | grep -v "^# $name: " >>"$tmp/notes" || true
	done
done

[ ! -s "$tmp/notes" ] || cat "$tmp/notes" >&3
meta=(--meta "reps=$reps" --meta "inner=$inner" --meta "n=$n" --meta "started=$started" --meta "cpu=${cpu:-unknown}")
[ ${#missing[@]} -eq 0 ] || meta+=(--meta "missing=${missing[*]}")
[ ${#failed[@]} -eq 0 ] || meta+=(--meta "failed=${failed[*]}")
if [ -z "$png" ]; then
	dat=()
else
	dat=(--dat "$tmp/rows.tsv")
fi
if [ $json = 1 ]; then
	python3 "$here/summary.py" --json "${dat[@]}" "${meta[@]}" "$tmp/results"
else
	python3 "$here/summary.py" "${dat[@]}" "${meta[@]}" "$tmp/results"
fi

if [ -n "$png" ]; then
	python3 "$here/summary.py" --charts "$tmp/rows.tsv" --png "${png%.png}" \
		--meta "cpu=${cpu:-unknown CPU}, median of $reps rounds" \
		--meta "started=$started" >&3
fi
[ ${#failed[@]} -eq 0 ] || { echo "peers_suite: failed: ${failed[*]}" >&2; exit 1; }
