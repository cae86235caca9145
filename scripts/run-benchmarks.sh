#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# The main job: installs what the benchmarks need, builds an optimised
# pagepool, and runs the benchmark suite. Results go to stdout and to
# bench-results/<UTC date>.txt.
#   scripts/run-benchmarks.sh [--no-deps] [REPS] [COUNT]
set -eu
cd "$(dirname "$0")/.."

if [ "${1:-}" = --no-deps ]; then
	shift
else
	scripts/install-deps.sh bench
fi
reps=${1:-5} count=${2:-100000000}

dir=build-bench
rm -rf "$dir"
meson setup "$dir" -Dbuildtype=release -Dtests=false >/dev/null
ninja -C "$dir" >/dev/null

mkdir -p bench-results
out=bench-results/$(date -u +%Y-%m-%dT%H%M%SZ).txt
{
	echo "# pagepool $(git describe --always --dirty 2>/dev/null || echo unknown), build: meson buildtype=release ($(cc --version | head -n1))"
	echo "## ptr_ring (seed 002)"
	bench/ptr_ring_suite.sh "$dir/tools/ptr_ring_test" "$reps" "$count"
	echo "## page_pool (bench_page_pool_simple inline and --outline, seeds 000 and 003)"
	bench/page_pool_suite.sh "$dir/bench/bench_page_pool_simple" "$reps" "$count"
	echo "## page_pool, pages returned from another CPU (bench_page_pool_cross_cpu)"
	bench/cross_cpu_suite.sh "$dir/bench/bench_page_pool_cross_cpu" "$reps"
	echo "## page_frag_cache (page_frag_test, seed 004)"
	bench/page_frag_suite.sh "$dir/tools/page_frag_test"
	echo "## packet path (seed 001's table on the software NIC; DPDK testpmd on net_null beside XDP_DROP)"
	bench/packet_path_suite.sh "$dir" "$reps" 2 ||
		echo "# packet path suite failed (see stderr)"
	echo "## AF_XDP receive on a veth pair (hand-rolled free-frame receiver, DPDK testpmd on net_af_xdp, ours; pp_pktgen sending)"
	bench/afxdp_suite.sh "$dir" "$reps" 3 ||
		echo "# AF_XDP suite failed or skipped (see stderr)"
	echo "## io_uring receive on loopback (udp_sink: page_pool provided-buffer ring vs recvmmsg into malloc'd buffers; pp_pktgen --mode udp sending)"
	bench/uring_suite.sh "$dir" "$reps" 3 ||
		echo "# io_uring suite failed or skipped (see stderr)"
	echo "## tap_net_test (seed 004's vhost_net_test through a TAP device)"
	bench/tap_suite.sh "$dir/tools/tap_net_test" ||
		echo "# tap_net_test suite failed (see stderr)"
	echo "## peers (DPDK rte_mempool/rte_ring, ck_ring, glibc, mimalloc, jemalloc)"
	bench/peers_suite.sh "$dir" "$reps" --png "${out%.txt}-peers.png" ||
		echo "# peers suite failed (see stderr)"
} | tee "$out"
echo "# saved to $out"
