#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Copyright (c) 2026 The pagepool authors
#
# Smoke test of the main job's summary and chart step (bench/summary.py,
# bench/chart.gp) on canned results, without running a benchmark: the
# peers table and the bench_page_pool_simple summary read made-up
# time_bench lines and append chart rows to PP_BENCH_RESULTS, as the main
# job has them do; shell-suite rows (ring, fragments, packet path) are
# added as bench/*_suite.sh write them; then --charts draws one PNG per
# chart. Checks that the text says targets in words (no internal row ids,
# no "PRODUCT.md", no "seed NNN"), that every chart is drawn and is a PNG
# (when gnuplot is installed), that the chart digest agrees with the rows
# file, and that a malformed row is refused. Exit 0 pass, 1 fail, 77 no
# python3.
#   tests/bench_summary_smoke.sh SOURCE_ROOT
set -u
src=${1:-$(cd "$(dirname "$0")/.." && pwd)}
summary=$src/bench/summary.py
command -v python3 >/dev/null 2>&1 || { echo "SKIP: no python3"; exit 77; }
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
fail=0
bad() { echo "FAIL: $*"; fail=1; }

tb() {	# type ns: one time_bench line (ticks = ns * 2)
	awk -v t="$1" -v ns="$2" 'BEGIN {
		printf "Type:%s Per elem: %d cycles(tsc) %.3f ns (step:0) - (measurement period time:0.1 sec time_interval:100000000) - (invoke count:1000000 tsc_interval:%d)\n",
		       t, ns * 2, ns, ns * 2000000 }'
}

# ---- the peers table ------------------------------------------------------
for r in 1 2 3; do
	tb pagepool_pp_fast_same 1.$r
	tb dpdk_mempool_c256_same 3.$r
	tb glibc_malloc_same 15.$r
	tb pagepool_pp_ring_cross 40.$r
	tb dpdk_mempool_c256_cross 90.$r
	tb pagepool_ptr_ring_spsc 4.$r
	tb ck_ring_spsc 6.$r
	# peer_dpdk's order: DPDK's bulk row, then ours checked and trusted.
	tb dpdk_mempool_c256_bulk32_same 0.5$r
	tb pagepool_pp_bulk32_same 1.6$r
	tb pagepool_pp_bulk32_trusted_same 0.4$r
done >"$tmp/peers"
rows=$tmp/rows.tsv
: >"$rows"
if ! out=$(PP_BENCH_RESULTS=$rows python3 "$summary" --meta reps=3 "$tmp/peers" 2>&1); then
	bad "summary.py on the peers' lines: $out"
fi
grep -q '^  pagepool page_pool fast path, inline ' <<<"$out" ||
	bad "peers table: the pagepool row is not labelled in words"$'\n'"$out"
grep -Eq '[a-z0-9]+_[a-z0-9_]+_(same|cross|spsc)\b' <<<"$out" &&
	bad "peers table: internal row ids in the text"$'\n'"$out"
grep -q '^target: page_pool faster than every malloc .*closest glibc malloc/free' <<<"$out" ||
	bad "peers table: the malloc target does not name the closest in words"$'\n'"$out"
grep -q "^target: page_pool's inline fast path at least 1.5 times as fast as DPDK's rte_mempool cached get/put: MET" <<<"$out" ||
	bad "peers table: no fast-path target in words"$'\n'"$out"
# The trusted row is paired with the DPDK row across the checked one.
grep -q "^target: page_pool bulk alloc + trusted recycle of 32 (DPDK's shape) .*: MET (every paired round)" <<<"$out" ||
	bad "peers table: the trusted bulk target is not paired"$'\n'"$out"
grep -q "^shown for scale: page_pool bulk alloc + checked put of 32 .*: n/a (not like for like) (was MISSED (every paired round);" <<<"$out" ||
	bad "peers table: the checked bulk row is judged, or not paired"$'\n'"$out"
[ "$(grep -c '^target: ' <<<"$out")" -eq 7 ] || bad "peers table: want 7 targets"$'\n'"$out"
for c in owner cross ring; do
	grep -q "^$c	" "$rows" || bad "peers: no $c chart row"
done

# ---- paired rounds: the middle half decides, not one wild round ----------
# Eight rounds of the burst pair, peer first as peer_dpdk runs them: seven
# with ours 10% ahead, one preempted (ours 5x slower): judged on the
# paired median. Then rounds swinging 0.5x / 2x: too wide to judge.
for r in 1 2 3 4 5 6 7; do
	tb dpdk_rte_ring_burst32_spsc 3.3
	tb pagepool_ptr_ring_burst32_spsc 3.0
done >"$tmp/pairs"
{ tb dpdk_rte_ring_burst32_spsc 3.3; tb pagepool_ptr_ring_burst32_spsc 15; } >>"$tmp/pairs"
pout=$(python3 "$summary" --meta reps=8 "$tmp/pairs" 2>&1) ||
	bad "summary.py on paired rounds: $pout"
grep -q "^target: ptr_ring batched .*: MET (paired median) .*middle half \[1.10..1.10\], of 8" <<<"$pout" ||
	bad "paired: one wild round of eight stopped the verdict"$'\n'"$pout"
for r in 1 2 3 4; do
	tb dpdk_rte_ring_burst32_spsc 3.0
	tb pagepool_ptr_ring_burst32_spsc 6.0
	tb dpdk_rte_ring_burst32_spsc 6.0
	tb pagepool_ptr_ring_burst32_spsc 3.0
done >"$tmp/pairs"
pout=$(python3 "$summary" --meta reps=8 "$tmp/pairs" 2>&1) ||
	bad "summary.py on paired rounds: $pout"
grep -q "^target: ptr_ring batched .*: SPREAD TOO WIDE TO JUDGE (middle half of the paired rounds 0.50..2.00)" <<<"$pout" ||
	bad "paired: rounds swinging 0.5x/2x were judged"$'\n'"$pout"

# ---- the bench_page_pool_simple summary -----------------------------------
for t in lock no-softirq-page_pool01 no-softirq-page_pool02 no-softirq-page_pool03 \
	 tasklet_page_pool01_fast_path tasklet_page_pool02_ptr_ring tasklet_page_pool03_slow; do
	tb "$t" 5
	tb "outline:$t" 7
done >"$tmp/pp"
if ! kout=$(PP_BENCH_RESULTS=$rows python3 "$summary" --kernel --meta reps=1 "$tmp/pp" 2>&1); then
	bad "summary.py --kernel: $kout"
fi
grep -q 'fix two bugs related to page_pool' <<<"$kout" ||
	bad "--kernel: the kernel's figures are not cited by their post"$'\n'"$kout"
grep -q "^target: fast path called the kernel's way (--outline) at most 5 TSC ticks" <<<"$kout" ||
	bad "--kernel: no target in words"$'\n'"$kout"
grep -q '^owner	kernel	kernel fast path, no-softirq, Xeon E5-1650 v4	5.713	ns' "$rows" ||
	bad "--kernel: no kernel fast-path chart row"$'\n'"$(cat "$rows")"

# ---- shell-suite rows, as bench/*_suite.sh write them ---------------------
printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' \
	ring ours "pagepool ptr_ring_test, mainline zeroing, per item" 4.4 ns 4.2 4.9 "" \
	ring kernel "kernel ptr_ring_test, x86 2.392 GHz, mainline, per item" 26.538 ns "" "" "" \
	frag ours "pagepool page_frag_cache, aligned" 20.5 ns "" "" "" \
	frag kernel "kernel page_frag_cache, aligned (arm64, 12-byte fragments)" 18.26 ns "" "" "" \
	frag peer "glibc malloc/free, aligned" 60 ns "" "" "" \
	packet ours "pagepool xdp_rxq_info: native XDP_DROP, pages recycled" 12.5 Mpps 12 13 "" \
	packet kernel "kernel fec driver on i.MX8: native XDP_DROP, pages recycled" 0.466553 Mpps "" "" "" \
	>>"$rows"

# ---- the charts -----------------------------------------------------------
if ! cout=$(python3 "$summary" --charts "$rows" --png "$tmp/run" \
		--meta "cpu=test CPU" --meta "started=now" 2>&1); then
	bad "--charts: $cout"
fi
[ "$(grep -c '^== ' <<<"$cout")" -eq 5 ] || bad "--charts: want 5 charts"$'\n'"$cout"
# The digest lists every row of the file once (the charts are drawn from it).
[ "$(grep -c '^  \(ours\|peer\|kernel\) ' <<<"$cout")" -eq "$(wc -l <"$rows")" ] ||
	bad "--charts: the digest does not list every row"$'\n'"$cout"$'\n'"$(cat "$rows")"
if command -v gnuplot >/dev/null 2>&1; then
	for c in owner cross ring frag packet; do
		f=$tmp/run-$c.png
		if [ ! -s "$f" ]; then
			bad "--charts: no $f"
		elif [ "$(head -c 4 "$f" | od -An -c | tr -d ' ')" != '211PNG' ]; then
			bad "--charts: $f is not a PNG"
		fi
	done
else
	echo "note: gnuplot not installed: the PNGs were not checked"
fi

# ---- no internal words in anything printed -----------------------------------
if grep -Ei 'PRODUCT\.md|seeds? [0-9]{3}' <<<"$out$kout$cout"; then
	bad "the output names PRODUCT.md or a seed number"
fi

# ---- malformed rows are refused ---------------------------------------------
printf 'owner\tmine\tx\t1\tns\n' >"$tmp/bad.tsv"
python3 "$summary" --charts "$tmp/bad.tsv" --png "$tmp/bad" >/dev/null 2>"$tmp/err" &&
	bad "--charts accepted kind 'mine'"
grep -q 'kind' "$tmp/err" || bad "--charts: no clear error for a bad kind: $(cat "$tmp/err")"
printf 'owner\tours\tx\tfast\tns\n' >"$tmp/bad.tsv"
python3 "$summary" --charts "$tmp/bad.tsv" --png "$tmp/bad" >/dev/null 2>&1 &&
	bad "--charts accepted a value that is not a number"
printf 'owner\tours\tx\t1\tns\nowner\tours\ty\t1\tMpps\n' >"$tmp/bad.tsv"
python3 "$summary" --charts "$tmp/bad.tsv" --png "$tmp/bad" >/dev/null 2>&1 &&
	bad "--charts accepted a chart mixing units"

[ $fail -eq 0 ] && echo "PASS: bench summary and charts"
exit $fail
