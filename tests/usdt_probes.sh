#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# Copyright (c) 2026 The pagepool authors
#
# The USDT probes of pagepool-usdt(7) are in the library: every probe of
# the list below has a note (provider "pagepool") in each file given, as
# readelf -n shows it, and there is no probe the list does not name.
# Used by meson (on the built shared and static libraries) and by
# tests/install_check.sh (on the installed ones).
#   usdt_probes.sh [--built-without-sdt] LIBRARY...
# Exit 0 pass, 1 fail, 77 skip (no readelf, or a build without
# <sys/sdt.h>, which has no probes by design).
set -u
probes="alloc_pages destroy_deferred destroy_stalled dma_fault refill release ring_full"

if [ "${1:-}" = --built-without-sdt ]; then
	echo "SKIP: built without <sys/sdt.h> (Debian: systemtap-sdt-dev): no probes"
	exit 77
fi
command -v readelf >/dev/null || { echo "SKIP: readelf not found"; exit 77; }
[ $# -gt 0 ] || { echo "usage: $0 [--built-without-sdt] LIBRARY..."; exit 1; }

fails=0
for lib in "$@"; do
	# "Provider: pagepool" is followed by "Name: x" in each stapsdt note.
	have=$(readelf -n "$lib" 2>/dev/null | awk '
		/Provider:/ { prov = $2 }
		/Name:/ && prov == "pagepool" { print $2; prov = "" }' |
		sort -u | tr '\n' ' ')
	for p in $probes; do
		case " $have " in
		*" $p "*) ;;
		*) echo "FAIL: $lib: no USDT probe pagepool:$p"; fails=$((fails + 1)) ;;
		esac
	done
	for p in $have; do
		case " $probes " in
		*" $p "*) ;;
		*) echo "FAIL: $lib: probe pagepool:$p is not in the list (and pagepool-usdt(7))"
		   fails=$((fails + 1)) ;;
		esac
	done
	echo "$lib: $have"
done
[ "$fails" -eq 0 ]
