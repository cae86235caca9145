#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# Seed 001's table (the fec driver's XDP figures on an i.MX8, "Re: [EXT]
# Re: [PATCH 1/1] net: fec: add initial XDP support") on the software NIC:
# xdp_rxq_info on sim0, native and
# SKB (generic) mode x XDP_DROP and XDP_PASS (with --read, as the seed ran
# it) x pages recycled (skb_mark_for_recycle) and released
# (page_pool_release_page, --no-recycle), each beside the seed's i.MX8
# figure, with ns per packet against the 6.72 ns budget of 100 Gbit/s at
# 64-byte frames (seed 003). Then, in the same run and on the same core,
# DPDK's dpdk-testpmd --forward-mode=rxonly on net_null (copy=1, 64-byte
# frames: the PMD copies each frame into an mbuf, as our inline wire
# writes each into a page) against xdp_rxq_info --act XDP_DROP --wire
# inline, the issue's target, with the default (non-coherent) identity
# device and with --coherent (x86's DMA: no syncs; testpmd's net_null makes
# none either). SKB-mode XDP_DROP is also run with the IOMMU model
# (--iommu, default costs), recycle against release. Rows are interleaved over REPS rounds and
# the median is printed with min and max; the machine may be shared, so
# compare within one run. testpmd runs without hugepages (--no-huge) and
# is skipped, with a note, if it is not installed (Debian: dpdk-dev) or
# there is no second CPU for its main lcore. With PP_BENCH_RESULTS set,
# every row, the i.MX8 figure beside each, and testpmd's go there as chart
# rows (bench/summary.py describes them).
#   bench/packet_path_suite.sh BUILD_DIR [REPS] [SEC] [--cpu N]
#     REPS  rounds (default 3)      SEC  seconds per row (default 2)
#     --cpu N    the core every measured loop is pinned to (default: the
#                last one); testpmd's main lcore goes on another
set -eu

SUITE=packet_path_suite
. "$(dirname "$0")/suite_lib.sh"
suite_cpu_args "$@"
build=${pos[0]} reps=${pos[1]:-3} sec=${pos[2]:-2}
ncpu=$(nproc)
case $reps$sec$cpu in *[!0-9]*) echo "packet_path_suite: REPS, SEC and --cpu are numbers" >&2; exit 2 ;; esac
[ "$reps" -ge 1 ] && [ "$sec" -ge 1 ] || { echo "packet_path_suite: REPS and SEC must be at least 1" >&2; exit 2; }
tool=$build/tools/xdp_rxq_info
[ -x "$tool" ] || { echo "packet_path_suite: no $tool (build first)" >&2; exit 1; }

tmp=$(mktemp -d)
prefix=pp_pps_$$
cleanup() {
	rm -rf "$tmp"
	rm -rf "/var/run/dpdk/$prefix" 2>/dev/null || true
}
trap cleanup EXIT

main_lcore=''
for ((c = 0; c < ncpu; c++)); do
	if [ "$c" != "$cpu" ]; then main_lcore=$c; break; fi
done
testpmd=$(command -v dpdk-testpmd || true)
tp_note=''
if [ -z "$testpmd" ]; then
	tp_note="dpdk-testpmd not installed (Debian package dpdk-dev): no DPDK row"
elif [ -z "$main_lcore" ]; then
	tp_note="one CPU only: testpmd needs a main lcore besides the forwarding one; no DPDK row"
fi

cpuname=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n1)
started=$(date -u '+%Y-%m-%d %H:%M UTC')
echo "# packet_path_suite: $reps interleaved rounds of $sec s per row, pinned to CPU $cpu; started $started"
echo "# CPU: ${cpuname:-unknown} ($ncpu usable), kernel $(uname -r), load average $(cut -d' ' -f1-3 /proc/loadavg)"
[ -z "$tp_note" ] || echo "# $tp_note"

# name|xdp_rxq_info options|seed pps (the i.MX8 figures of the fec thread)
rows=(
	"native DROP recycle|--act XDP_DROP --read|466553"
	"native DROP release|--act XDP_DROP --read --no-recycle|463145"
	"SKB DROP recycle|--act XDP_DROP --read -S|226272"
	"SKB DROP release|--act XDP_DROP --read -S --no-recycle|104443"
	"native PASS recycle|--act XDP_PASS --read|80518"
	"native PASS release|--act XDP_PASS --read --no-recycle|60539"
	"SKB PASS recycle|--act XDP_PASS --read -S|113681"
	"SKB PASS release|--act XDP_PASS --read -S --no-recycle|62566"
	"xdp_rxq_info XDP_DROP --wire inline|--act XDP_DROP --wire inline|-"
	"xdp_rxq_info XDP_DROP --wire inline --coherent|--act XDP_DROP --wire inline --coherent|-"
	"SKB DROP recycle iommu|--act XDP_DROP --read -S --iommu|-"
	"SKB DROP release iommu|--act XDP_DROP --read -S --no-recycle --iommu|-"
)

run_xdp() {	# name, options
	local out pps
	# shellcheck disable=SC2086
	if ! out=$(taskset -c "$cpu" "$tool" --dev sim0 $2 -z -s "$sec" --duration "$sec" 2>&1); then
		echo "packet_path_suite: xdp_rxq_info $2 failed:" >&2
		echo "$out" >&2
		return 1
	fi
	pps=$(awk '$1 == "XDP-RX" && $3 == "total" { v = $4 } END { print v }' <<<"$out")
	[ -n "$pps" ] && echo "$1|$pps" >>"$tmp/results"
}

run_testpmd() {
	local pps
	# No -i: testpmd forwards at once and prints port statistics every
	# second until SIGINT. 8192 mbufs fit in 512 MB without hugepages.
	timeout -s INT "$((sec + 3))" "$testpmd" -l "$main_lcore,$cpu" \
		--main-lcore "$main_lcore" --no-huge -m 512 --no-pci \
		--vdev net_null0,copy=1,size=64 --file-prefix "$prefix" \
		--log-level=lib.eal:warning -- --forward-mode=rxonly \
		--nb-cores=1 --total-num-mbufs=8192 --stats-period 1 \
		>"$tmp/testpmd" 2>&1 || true
	# The median rate of the one-second periods after the first
	# (start-up), as xdp_rxq_info's rate leaves out nothing but set-up.
	pps=$(tr -d '\r' <"$tmp/testpmd" |
		awk '/Rx-pps:/ { if (++n > 1) print $2 }' | sort -n |
		awk '{ v[NR] = $1 } END { if (NR) print v[int((NR + 1) / 2)] }')
	if [ -z "$pps" ] || [ "$pps" = 0 ]; then
		echo "packet_path_suite: dpdk-testpmd gave no rate:" >&2
		tail -n 20 "$tmp/testpmd" >&2
		return 1
	fi
	echo "dpdk-testpmd rxonly net_null copy=1|$pps" >>"$tmp/results"
}

failed=0
for ((r = 1; r <= reps; r++)); do
	for row in "${rows[@]}"; do
		IFS='|' read -r name opts _ <<<"$row"
		run_xdp "$name" "$opts" || failed=1
	done
	if [ -z "$tp_note" ]; then
		run_testpmd || failed=1
	fi
done

printf '%s\n' "${rows[@]}" >"$tmp/rows"
python3 - "$tmp/rows" "$tmp/results" <<'PY'
import os, statistics, sys

seed, order = {}, []
for line in open(sys.argv[1]):
    name, _, ref = line.rstrip('\n').split('|')
    order.append(name)
    seed[name] = None if ref == '-' else int(ref)
runs = {}
for line in open(sys.argv[2]):
    name, pps = line.rstrip('\n').rsplit('|', 1)
    runs.setdefault(name, []).append(float(pps))

BUDGET = 6.72   # ns per 64-byte frame at 100 Gbit/s (seed 003)

def med(name):
    v = runs.get(name)
    return statistics.median(v) if v else None

def cell(name):
    v = runs[name]
    return '%.3f (%.3f-%.3f)' % (statistics.median(v) / 1e6, min(v) / 1e6,
                                 max(v) / 1e6)

FEC = '"Re: [EXT] Re: [PATCH 1/1] net: fec: add initial XDP support"'
RESULTS = os.environ.get('PP_BENCH_RESULTS')

def result(kind, label, mpps, lo=None, hi=None, note=''):
    # One chart row (bench/summary.py describes them).
    if not RESULTS:
        return
    num = lambda v: '' if v is None else '%.6g' % v
    with open(RESULTS, 'a') as f:
        f.write('\t'.join(['packet', kind, label, num(mpps), 'Mpps',
                           num(lo), num(hi), note]) + '\n')

def words(name):
    mode, act, pages = name.split(' ')
    return '%s XDP_%s, pages %s' % (mode, act, 'recycled' if pages ==
                                    'recycle' else 'released')

print()
print('The fec driver\'s XDP table on sim0 (xdp_rxq_info --read, 64-byte '
      'frames, wire inline), beside its i.MX8 figures from %s; '
      '6.72 ns per packet is 100 Gbit/s of 64-byte frames' % FEC)
print()
print('| mode | action | pages | Mpps median (min-max) | ns/packet | x 6.72 ns | fec i.MX8 pps | x i.MX8 |')
print('|---|---|---|---|---|---|---|---|')
for name in order[:8]:
    if name not in runs:
        print('| %s | | | failed | | | %s | |' % (name.replace(' ', ' | '), f'{seed[name]:,}'))
        continue
    m = med(name)
    ns = 1e9 / m
    mode, act, pages = name.split(' ')
    print('| %s | XDP_%s | %s | %s | %.1f | %.1f | %s | %.1f |' % (
        mode, act, pages, cell(name), ns, ns / BUDGET, f'{seed[name]:,}',
        m / seed[name]))
    result('ours', 'pagepool xdp_rxq_info: ' + words(name), m / 1e6,
           min(runs[name]) / 1e6, max(runs[name]) / 1e6,
           'xdp_rxq_info on sim0')
    result('kernel', 'kernel fec driver on i.MX8: ' + words(name), seed[name] / 1e6,
           note=FEC)
print()
print('| mode | action | recycle / release, here | fec on i.MX8 |')
print('|---|---|---|---|')
for mode in ('native', 'SKB'):
    for act in ('DROP', 'PASS'):
        a, b = med(f'{mode} {act} recycle'), med(f'{mode} {act} release')
        s = seed[f'{mode} {act} recycle'] / seed[f'{mode} {act} release']
        here = '%.2f' % (a / b) if a and b else 'n/a'
        print(f'| {mode} | XDP_{act} | {here} | {s:.2f} |')
a, b = med('SKB DROP recycle iommu'), med('SKB DROP release iommu')
if a and b:
    print()
    print('SKB-mode XDP_DROP with the IOMMU model (--iommu, default costs): '
          'recycle %s Mpps, release %s Mpps, recycle / release %.2f (fec on i.MX8: 2.17)'
          % (cell('SKB DROP recycle iommu'), cell('SKB DROP release iommu'), a / b))
print()
print('Side by side, same core, 64-byte frames copied into the buffer')
print()
print('| receiver | Mpps median (min-max) | ns/packet | x 6.72 ns |')
print('|---|---|---|---|')
xdp = 'xdp_rxq_info XDP_DROP --wire inline'
xdpc = 'xdp_rxq_info XDP_DROP --wire inline --coherent'
tp = 'dpdk-testpmd rxonly net_null copy=1'
for name in (tp, xdp, xdpc):
    if name in runs:
        ns = 1e9 / med(name)
        print('| %s | %s | %.1f | %.1f |' % (name, cell(name), ns, ns / BUDGET))
        result('peer' if name == tp else 'ours',
               ('' if name == tp else 'pagepool ') + name + ', same core',
               med(name) / 1e6, min(runs[name]) / 1e6,
               max(runs[name]) / 1e6)
if tp in runs:
    print()
    for name, what in ((xdp, 'syncs made (non-coherent device)'),
                       (xdpc, 'coherent device, as x86 (no syncs)')):
        if name in runs:
            r = med(name) / med(tp)
            print('%s / testpmd rxonly, %s: %.2f (target: XDP_DROP at least '
                  'as fast as DPDK testpmd rxonly, 1.00): %s'
                  % (name, what, r, 'met' if r >= 1.0 else 'not met'))
PY
[ "$failed" = 0 ] || { echo "packet_path_suite: some rows failed" >&2; exit 1; }
