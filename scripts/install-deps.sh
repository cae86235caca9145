#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# Installs the Debian packages pagepool's build, tests and benchmarks use.
# Run as root on Debian 12 or newer; elsewhere it says what it would need
# and returns, so a developer machine with the tools already present works.
#   scripts/install-deps.sh          build + tests
#   scripts/install-deps.sh bench    ... plus the peers the benchmarks use
set -eu

pkgs=(
	build-essential clang meson ninja-build pkg-config python3
	libnuma-dev numactl
	spin groff-base valgrind clang-tidy
	systemtap-sdt-dev
	iproute2 iputils-ping liburing-dev
	libxdp-dev libbpf-dev
)
if [ "${1:-}" = bench ]; then
	# dpdk-dev carries dpdk-testpmd (bench/packet_path_suite.sh), dpdk
	# its drivers (net_null).
	pkgs+=(gnuplot-nox libmimalloc-dev libjemalloc-dev libdpdk-dev libck-dev
		dpdk dpdk-dev)
fi

if [ "$(id -u)" -ne 0 ] || ! command -v apt-get >/dev/null 2>&1; then
	echo "install-deps: not root or no apt-get; make sure these are installed: ${pkgs[*]}" >&2
	exit 0
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -q
apt-get install -y -q --no-install-recommends "${pkgs[@]}"
