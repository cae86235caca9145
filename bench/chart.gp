# SPDX-License-Identifier: MIT
#
# Bar chart of bench/peers_suite.sh --png: ns per round trip (per item for
# the ring rows) of every row, log scale, pagepool bars first in each group.
# Called by the suite with -e "datafile='...'; outfile='...'; term='...';
# subtitle='...'"; the data file has: index "label" ns colour, colour 1
# pagepool, 2 DPDK, 3 mallocs, 4 ck.
if (!exists("term")) term = 'pngcairo'
if (!exists("subtitle")) subtitle = ''
if (term eq 'pngcairo') {
	set terminal pngcairo size 1400,800 font 'Sans,10'
} else {
	set terminal png size 1400,800
}
set output outfile

# Row names have underscores: no enhanced-text subscripts.
set termoption noenhanced
set title "pagepool and its peers: ns per round trip (median, lower is better)\n".subtitle
set ylabel 'ns per round trip / item (log scale)'
set logscale y
set yrange [0.3:*]
set grid ytics mytics
set style fill solid 0.85 border -1
set boxwidth 0.8
set xtics rotate by -45 left nomirror font ',9'
set xrange [-1:*]
set bmargin 14
set rmargin 18
set key top left

set linetype 1 lc rgb '#1f77b4'
set linetype 2 lc rgb '#d62728'
set linetype 3 lc rgb '#7f7f7f'
set linetype 4 lc rgb '#2ca02c'

plot datafile using 1:($4 == 1 ? $3 : 1/0):xtic(2) with boxes lt 1 title 'pagepool', \
     '' using 1:($4 == 2 ? $3 : 1/0) with boxes lt 2 title 'DPDK', \
     '' using 1:($4 == 3 ? $3 : 1/0) with boxes lt 3 title 'glibc / mimalloc / jemalloc', \
     '' using 1:($4 == 4 ? $3 : 1/0) with boxes lt 4 title 'ck', \
     '' using 1:($3 * 1.12):(sprintf('%.1f', $3)) with labels font ',8' notitle
