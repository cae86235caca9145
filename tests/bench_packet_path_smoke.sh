#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# Smoke test of bench/packet_path_suite.sh: one round of one second per
# row prints the seed's eight rows (every one measured), the recycle /
# release ratios and the side-by-side table with xdp_rxq_info's row (and
# testpmd's when dpdk-testpmd is installed and there are two CPUs); bad
# usage exits 2. No rate is checked: speed belongs in benchmarks.
#   tests/bench_packet_path_smoke.sh SOURCE_ROOT BUILD_DIR
set -u
suite=$1/bench/packet_path_suite.sh
build=$2
fail=0
. "$(dirname "$0")/smoke_lib.sh"

if ! out=$("$suite" "$build" 1 1 2>&1); then
	echo "FAIL: packet_path_suite.sh exited non-zero:"; echo "$out"; exit 1
fi
rows=$(grep -Ec '^\| (native|SKB) \| XDP_(DROP|PASS) \| (recycle|release) \| [0-9]+\.[0-9]{3} \(' <<<"$out")
if [ "$rows" -ne 8 ]; then
	echo "FAIL: $rows of the seed's 8 rows measured"; echo "$out"; fail=1
fi
if [ "$(grep -Ec '^\| (native|SKB) \| XDP_(DROP|PASS) \| [0-9.]+ \| [0-9.]+ \|$' <<<"$out")" -ne 4 ]; then
	echo "FAIL: no recycle/release ratios"; echo "$out"; fail=1
fi
if ! grep -Eq '^\| xdp_rxq_info XDP_DROP --wire inline \| [0-9]' <<<"$out"; then
	echo "FAIL: no side-by-side xdp_rxq_info row"; echo "$out"; fail=1
fi
if command -v dpdk-testpmd >/dev/null && [ "$(nproc)" -ge 2 ] &&
   ! grep -Eq '^\| dpdk-testpmd rxonly net_null copy=1 \| [0-9]' <<<"$out"; then
	echo "FAIL: dpdk-testpmd is installed but has no row"; echo "$out"; fail=1
fi
check_suite_usage "$suite" "$build"

[ "$fail" -eq 0 ] && echo "PASS: packet_path_suite"
exit "$fail"
