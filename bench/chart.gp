# SPDX-License-Identifier: MIT
# Copyright (c) 2026 The pagepool authors
#
# One chart of the benchmark suite: horizontal bars, one per row, labelled
# in words, coloured by who measured it (pagepool, another library, the
# kernel's published figure), the median written at the end of each bar
# and the min-max range of the runs as a thin line. Drawn by
# bench/summary.py --charts, which passes with -e:
#   datafile  rows: y <tab> value <tab> min <tab> max <tab> rgb <tab> label <tab> value text
#   outfile, term (pngcairo or png), title, subtitle, xlabel
#   nrows     number of rows; logscale 0 or 1; xfloor, under a log
#             scale, where the bars start (a third of the smallest value);
#             xceil where the axis ends (room for the largest value's text)
#   keys      the legend: "name|rgb;name|rgb;..."
#   labelwidth  characters in the longest label
if (!exists("term")) term = 'pngcairo'
if (!exists("subtitle")) subtitle = ''
if (!exists("logscale")) logscale = 0
if (!exists("keys")) keys = ''
if (!exists("xfloor")) xfloor = 0
if (!exists("xceil")) xceil = 1e9

if (!exists("labelwidth")) labelwidth = 60
height = 200 + 34 * nrows
width = 760 + 8 * labelwidth
if (term eq 'pngcairo') {
	set terminal pngcairo size width,height font 'Sans,11'
} else {
	set terminal png size width,height
}
set output outfile
set datafile separator "\t"
# Labels have underscores and carets: no enhanced-text markup.
set termoption noenhanced

set title title."\n".subtitle font ',13'
set xlabel xlabel
set ytics scale 0 nomirror
set yrange [-0.7:nrows - 0.3]
set grid xtics mxtics
set border 3
set lmargin labelwidth * 0.85 + 3
set bmargin 5
set rmargin 16
set style fill solid 0.9 noborder
if (logscale) {
	set logscale x
	set xrange [xfloor:xceil]
} else {
	set xrange [0:*]
	xfloor = 0
	set offsets 0, graph 0.18, 0, 0
}
set key off

nkeys = (keys eq '') ? 0 : words(system("echo '".keys."' | tr ' ;' '_ '"))
keyname(i) = system("echo '".keys."' | cut -d';' -f".i." | cut -d'|' -f1")
keyrgb(i) = int(system("echo '".keys."' | cut -d';' -f".i." | cut -d'|' -f2"))

# The legend, one line under the x axis label: a swatch and a name per
# kind, spaced evenly across the picture.
do for [i = 1:nkeys] {
	x0 = (i - 0.5) / nkeys - 0.12
	set object i rect from screen x0, screen 0.015 to screen x0 + 0.02, screen 0.015 + 14.0 / height \
		fc rgb keyrgb(i) fs solid 0.9 noborder
	set label i keyname(i) at screen x0 + 0.027, screen 0.015 + 7.0 / height left
}

plot datafile using (xfloor):1:(xfloor):2:($1 - 0.36):($1 + 0.36):5:ytic(6) \
	with boxxyerror lc rgb variable notitle, \
     '' using 2:1:3:4 with xerrorbars pt -1 lc rgb '#303030' lw 1 notitle, \
     '' using ($4 > $2 ? $4 : $2):1:7 with labels left offset 0.8,0 notitle
