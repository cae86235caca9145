#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Copyright (c) 2026 The pagepool authors
#
# The main job: installs what the benchmarks need, builds an optimised
# pagepool, and runs the benchmark suite. Results go to stdout and to
# bench-results/<UTC date>.txt; the figures worth drawing go to
# bench-results/<UTC date>.tsv as chart rows (bench/summary.py documents
# them), and the charts drawn from that file to
# bench-results/<UTC date>-<chart>.png: owner (page_pool fast path vs
# peers), cross (pages freed by another thread), ring (ptr_ring), frag
# (page_frag_cache), packet (the packet path), afxdp and afxdp_cpu
# (AF_XDP receive), each with the kernel's published figures where they
# exist.
#   scripts/run-benchmarks.sh [--no-deps] [REPS] [COUNT]
#     REPS   rounds of every suite (default 5)
#     COUNT  items per ptr_ring and page_pool row (default 100000000); the
#            cross-CPU, page_frag and peer rows run COUNT/10
set -eu
cd "$(dirname "$0")/.."

if [ "${1:-}" = --no-deps ]; then
	shift
else
	scripts/install-deps.sh bench
fi
reps=${1:-5} count=${2:-100000000}
case $reps$count in *[!0-9]*) echo "run-benchmarks: REPS and COUNT are numbers" >&2; exit 2 ;; esac
small=$((count / 10 > 1000 ? count / 10 : 1000))

dir=build-bench
rm -rf "$dir"
meson setup "$dir" -Dbuildtype=release -Dtests=false >/dev/null
ninja -C "$dir" >/dev/null

mkdir -p bench-results
stamp=$(date -u +%Y-%m-%dT%H%M%SZ)
out=bench-results/$stamp.txt
rows=bench-results/$stamp.tsv
: >"$rows"
PP_BENCH_RESULTS=$PWD/$rows
export PP_BENCH_RESULTS
cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n1)
started=$(date -u '+%Y-%m-%d %H:%M UTC')

# Every tool prints the machine (CPU, compiler, mitigations) before its
# results; it is printed once, at the top, and dropped from the suites.
once() {
	awk '
		/^# CPU mitigations/ { skip = 1; next }
		skip && /^#   / { next }
		{ skip = 0 }
		/^# CPU: .*usable\)$/ || /^# Compiler: / { next }
		{ print; fflush() }'
}

{
	echo "# pagepool $(git describe --always --dirty 2>/dev/null || echo unknown), build: meson buildtype=release ($(cc --version | head -n1))"
	echo "# started $started; CPU: ${cpu:-unknown} ($(nproc) usable), kernel $(uname -r)"
	vuln=/sys/devices/system/cpu/vulnerabilities
	if [ -d $vuln ]; then
		echo "# CPU mitigations ($vuln):"
		for f in "$vuln"/*; do
			printf '#   %-26s %s\n' "${f##*/}" "$(cat "$f" 2>/dev/null || echo unreadable)"
		done
	fi
} | tee "$out"
{
	echo "## ptr_ring (ptr_ring_test, the kernel selftest from \"ptr_ring: move r->queue[] clearing after r->consumer_head updating\")"
	bench/ptr_ring_suite.sh "$dir/tools/ptr_ring_test" "$reps" "$count"
	echo "## page_pool (bench_page_pool_simple inline and --outline, beside the kernel's figures from \"fix two bugs related to page_pool\")"
	bench/page_pool_suite.sh "$dir/bench/bench_page_pool_simple" "$reps" "$count"
	echo "## page_pool, pages returned from another CPU (bench_page_pool_cross_cpu)"
	bench/cross_cpu_suite.sh "$dir/bench/bench_page_pool_cross_cpu" "$reps" "$small"
	echo "## page_frag_cache (page_frag_test, the kernel's test of \"First try to replace page_frag with page_frag_cache\")"
	bench/page_frag_suite.sh "$dir/tools/page_frag_test" "$small"
	echo "## packet path (the fec driver's XDP table from \"net: fec: add initial XDP support\" on the software NIC; DPDK testpmd on net_null beside XDP_DROP)"
	bench/packet_path_suite.sh "$dir" "$reps" 2 ||
		echo "# packet path suite failed (see stderr)"
	echo "## AF_XDP receive on a veth pair (hand-rolled free-frame receiver, DPDK testpmd on net_af_xdp, ours; pp_pktgen sending)"
	bench/afxdp_suite.sh "$dir" "$reps" 3 ||
		echo "# AF_XDP suite failed or skipped (see stderr)"
	echo "## io_uring receive on loopback (udp_sink: page_pool provided-buffer ring vs recvmmsg into malloc'd buffers; pp_pktgen --mode udp sending)"
	bench/uring_suite.sh "$dir" "$reps" 3 ||
		echo "# io_uring suite failed or skipped (see stderr)"
	echo "## TAP round trips (tap_net_test: the kernel's vhost_net_test of \"First try to replace page_frag with page_frag_cache\", through a TAP device)"
	bench/tap_suite.sh "$dir/tools/tap_net_test" ||
		echo "# tap_net_test suite failed (see stderr)"
	echo "## peers (DPDK rte_mempool/rte_ring, ck_ring, glibc, mimalloc, jemalloc)"
	bench/peers_suite.sh "$dir" "$reps" "$small" ||
		echo "# peers suite failed (see stderr)"
	echo "## charts, drawn from $rows"
	python3 bench/summary.py --charts "$rows" --png "${out%.txt}" \
		--meta "cpu=${cpu:-unknown CPU}, median of $reps rounds" \
		--meta "started=$started" ||
		echo "# charts failed (see stderr)"
} | once | tee -a "$out"
echo "# saved to $out, chart rows in $rows"
