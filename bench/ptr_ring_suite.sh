#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# The ptr_ring part of the benchmark suite: seed 002's measurement
# (ptr_ring_test -s 1000 -m 1 -N 100000000, from "ptr_ring: move
# r->queue[] clearing after r->consumer_head updating") for both zeroing
# orders, the
# single-thread simple mode, consume batch sizes, and one vs two producers.
# The machine is shared and cross-CPU figures swing between runs, so the
# configurations are interleaved (A B C ... A B C ...) for REPS rounds and
# the median of each is reported, with min and max. With PP_BENCH_RESULTS
# set, the SPSC rows and the kernel's published figures go there as chart
# rows (bench/summary.py describes them).
#   bench/ptr_ring_suite.sh PTR_RING_TEST [REPS] [COUNT]
set -eu
tool=$1 reps=${2:-5} count=${3:-100000000}

# One chart row: chart kind label value unit min max note.
result() {
	[ -z "${PP_BENCH_RESULTS:-}" ] ||
		printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$@" >>"$PP_BENCH_RESULTS"
}

configs=(
	"spsc mainline|-s 1000 -m 1 -N $count --variant mainline"
	"spsc head-first|-s 1000 -m 1 -N $count --variant head-first"
	"simple mainline|-s 1000 -m 0 -N $count --variant mainline"
	"simple head-first|-s 1000 -m 0 -N $count --variant head-first"
	"spsc mainline -b 4|-s 1000 -m 1 -N $count -b 4"
	"spsc mainline -b 16|-s 1000 -m 1 -N $count -b 16"
	"spsc mainline -b 64|-s 1000 -m 1 -N $count -b 64"
	"spsc head-first -b 16|-s 1000 -m 1 -N $count -b 16 --variant head-first"
	"1 producer (locked)|-s 1000 -m 1 -N $((count / 4)) -p 1 --locked"
	"2 producers (locked)|-s 1000 -m 1 -N $((count / 4)) -p 2"
)

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

"$tool" -h >/dev/null
"$tool" -s 1000 -m 0 -N 1000 | grep '^# ' | grep -v '^# ptr_ring_test\|^# single' || true
echo "# $reps interleaved rounds; started $(date -u '+%Y-%m-%d %H:%M UTC')"
for ((r = 1; r <= reps; r++)); do
	for i in "${!configs[@]}"; do
		args=${configs[$i]#*|}
		# shellcheck disable=SC2086
		line=$("$tool" $args | grep 'Per elem:') || {
			echo "ptr_ring_test $args failed" >&2; exit 1; }
		# cycles and ns per item
		sed -E 's/.*Per elem: ([0-9]+) cycles\(tsc\) ([0-9.]+) ns.*/\1 \2/' \
			<<<"$line" >>"$tmp/$i"
	done
done

printf '%-26s %10s %10s %10s %10s %10s\n' config cycles ns_median ns_min ns_max Mitems/s
for i in "${!configs[@]}"; do
	name=${configs[$i]%%|*}
	sort -n -k2 "$tmp/$i" | awk -v name="$name" '
		{ c[NR] = $1; n[NR] = $2 }
		END {
			m = int((NR + 1) / 2)
			printf "%-26s %10d %10.3f %10.3f %10.3f %10.2f\n",
			       name, c[m], n[m], n[1], n[NR], 1000 / n[m]
		}' | tee "$tmp/row$i"
done
# The kernel's figures: perf stat's elapsed time of the same command
# (-N 100000000, so seconds / 1e8 items; process start included).
kernel=(
	"x86 2.392 GHz, mainline|26.538"
	"x86 2.392 GHz, head-first|25.422"
	"arm64 2.6 GHz, mainline|20.872"
	"arm64 2.6 GHz, head-first|18.882"
)
post='"Re: [Linuxarm] Re: [PATCH net-next v3 2/3] ptr_ring: move r->queue[] clearing after r->consumer_head updating"'
echo "# the kernel's ptr_ring_test -s 1000 -m 1 -N 100000000 (Yunsheng Lin, $post; perf stat elapsed time / 1e8):"
for k in "${kernel[@]}"; do
	printf '#   %-26s %10.3f ns per item\n' "${k%%|*}" "${k#*|}"
done
for i in 0 1; do
	read -r _ variant _ ns lo hi _ <"$tmp/row$i"
	result ring ours "pagepool ptr_ring_test, $variant zeroing, per item" \
		"$ns" ns "$lo" "$hi" "ptr_ring_test ${configs[$i]#*|}"
done
for k in "${kernel[@]}"; do
	result ring kernel "kernel ptr_ring_test, ${k%%|*}, per item" "${k#*|}" ns \
		'' '' "perf stat elapsed / 1e8, $post"
done
# The commands, for docs/benchmarks.md.
for i in "${!configs[@]}"; do
	echo "# ${configs[$i]%%|*}: ptr_ring_test ${configs[$i]#*|}"
done
