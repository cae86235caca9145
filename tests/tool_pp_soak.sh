#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# Runs pp_soak for SECONDS (the suite passes 10 in plain and ASan builds,
# less under TSan; PP_SOAK_SECONDS overrides it) and checks its verdict:
# exit 0, every buffer moved and checked, no mismatch, no page lost, no DMA
# fault, no pool stalled. Also: --help works, bad usage is exit 2.
#   tool_pp_soak.sh PP_SOAK SECONDS
set -u
tool=$1 secs=${PP_SOAK_SECONDS:-$2}
fail=0

out=$("$tool" --help 2>&1) || { echo "FAIL: --help exited non-zero"; fail=1; }
grep -q -- '--duration' <<<"$out" || { echo "FAIL: --help does not list --duration"; fail=1; }
for bad in "-d 0" "-o 0" "--dma bogus" "extra"; do
	# shellcheck disable=SC2086
	"$tool" $bad >/dev/null 2>&1; rc=$?
	[ "$rc" -eq 2 ] || { echo "FAIL: pp_soak $bad exited $rc, want 2"; fail=1; }
done

out=$("$tool" --duration "$secs" 2>&1); rc=$?
echo "$out"
[ "$rc" -eq 0 ] || { echo "FAIL: pp_soak exited $rc"; fail=1; }
for want in '^mismatches: 0$' '^pages lost: 0$' '^dma faults: 0$' \
	    'stalled at exit: 0$' '^result: PASS$' \
	    '^buffers moved: [1-9][0-9]* \(pages [1-9][0-9]*, pool frags [1-9][0-9]*, page_frag frags [1-9][0-9]*, alloc_va buffers [1-9][0-9]*\)$'; do
	grep -Eq "$want" <<<"$out" || { echo "FAIL: no line matching $want"; fail=1; }
done
exit $fail
