#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# xdp_rxq_info with threaded NAPI: --queues 2 gives each queue a NAPI
# thread named napi/sim0-ID, pinned to its own CPU (round-robin over the
# CPUs the process may use), so the sample's per-CPU lines show one
# "XDP-RX CPU n" line per CPU that saw packets and the RXQ lines put each
# queue on its thread's CPU; the total is the sum of the CPU lines. The
# tool exits 0 only when every frame is accounted for and no page is left
# in flight. --threaded 0 polls every queue from one thread, as before.
set -u
tool=$1
fail=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
ncpu=$(nproc)

run() {	# run NAME ARGS...: the tool's output in $tmp/NAME, squeezed
	local name=$1
	shift
	if ! "$tool" --dev sim0 -s 1 "$@" >"$tmp/$name.raw" 2>&1; then
		echo "FAIL: xdp_rxq_info $* exited non-zero:"; cat "$tmp/$name.raw"
		fail=1
	fi
	tr -s ' ' <"$tmp/$name.raw" | sed 's/ $//' >"$tmp/$name"
}

# Two queues, threaded by default; watched from outside while it runs.
"$tool" --dev sim0 --queues 2 --flows 16 --act XDP_DROP --read -s 1 \
	--duration 2 -z >"$tmp/two.raw" 2>&1 &
pid=$!
sleep 1.2
names=0 cpus=""
for t in /proc/$pid/task/*; do
	comm=$(cat "$t/comm" 2>/dev/null) || continue
	case $comm in
	napi/sim0-*)
		names=$((names + 1))
		cpus="$cpus $(sed -n 's/^Cpus_allowed_list:[[:space:]]*//p' "$t/status")"
		;;
	esac
done
if ! wait "$pid"; then
	echo "FAIL: --queues 2 exited non-zero:"; cat "$tmp/two.raw"; fail=1
fi
tr -s ' ' <"$tmp/two.raw" | sed 's/ $//' >"$tmp/two"
if [ "$names" -ne 2 ]; then
	echo "FAIL: --queues 2: $names threads named napi/sim0-*, want 2"; fail=1
fi
# Each thread pinned to one CPU, different ones when there are two.
for c in $cpus; do
	case $c in
	*[-,]*) echo "FAIL: a NAPI thread is not pinned (CPUs $c)"; fail=1 ;;
	esac
done
if [ "$ncpu" -ge 2 ] && [ "$(tr ' ' '\n' <<<"$cpus" | sort -u | grep -c .)" -ne 2 ]; then
	echo "FAIL: the two NAPI threads share a CPU (CPUs$cpus)"; fail=1
fi

# The per-CPU lines: one per CPU that saw packets, then the total, which
# is their sum (the last interval, no separators; each rate is rounded,
# so within one per line).
awk '
	/^Running XDP/ { n = 0; sum = 0; delete seen }
	/^XDP-RX CPU [0-9]+ / { n++; sum += $4; seen[$3] = 1 }
	/^XDP-RX CPU total / { last_n = n; last_sum = sum; last_total = $4 }
	END {
		if (last_total == "" || last_total + 0 == 0) { print "no total"; exit 1 }
		d = last_sum - last_total
		if (d > last_n || -d > last_n) { print "total " last_total " is not the sum " last_sum; exit 1 }
		print last_n
	}' "$tmp/two" >"$tmp/two.n" || {
	echo "FAIL: --queues 2: $(cat "$tmp/two.n")"; cat "$tmp/two"; fail=1; }
n=$(tail -n 1 "$tmp/two.n")
if [ "$ncpu" -ge 2 ] && [ "$n" != 2 ]; then
	echo "FAIL: --queues 2 on $ncpu CPUs: $n 'XDP-RX CPU n' lines, want 2"
	cat "$tmp/two"; fail=1
fi
# Each queue on one CPU, its thread's.
for q in 0 1; do
	if ! grep -Eq "^rx_queue_index $q:[0-9]+ [1-9][0-9]* 0\$" "$tmp/two"; then
		echo "FAIL: --queues 2: no traffic on queue $q"; cat "$tmp/two"; fail=1
	fi
done
q0=$(grep -E '^rx_queue_index 0:[0-9]+ ' "$tmp/two" | tail -n 1 | sed 's/.*0:\([0-9]*\) .*/\1/')
q1=$(grep -E '^rx_queue_index 1:[0-9]+ ' "$tmp/two" | tail -n 1 | sed 's/.*1:\([0-9]*\) .*/\1/')
if [ "$ncpu" -ge 2 ] && [ "$q0" = "$q1" ]; then
	echo "FAIL: --queues 2: both queues counted on CPU $q0"; cat "$tmp/two"; fail=1
fi

# Threaded with the other actions, modes and devices; the wire thread.
run skb --queues 3 --flows 32 --act XDP_PASS -S --no-recycle --duration 1
run tx --queues 2 --flows 8 --act XDP_TX --iommu --duration 1
run bounce --queues 2 --flows 8 --act XDP_DROP --read --bounce --duration 1
run wire --queues 2 --flows 8 --act XDP_DROP --wire thread --duration 1
run one --queues 1 --threaded 1 --act XDP_DROP --duration 1 --cpu-time
grep -q "process, NAPI threads)$" "$tmp/one" || {
	echo "FAIL: --threaded 1 --cpu-time: no process CPU time"; cat "$tmp/one"; fail=1; }
for f in skb tx bounce wire one; do
	grep -Eq '^XDP-RX CPU total [1-9][0-9,]*$' "$tmp/$f" || {
		echo "FAIL: $f: no traffic"; cat "$tmp/$f"; fail=1; }
done

# --threaded 0: one thread polls both queues; no NAPI threads.
"$tool" --dev sim0 --queues 2 --flows 16 --threaded 0 --act XDP_DROP -s 1 \
	--duration 1 >"$tmp/off.raw" 2>&1 &
pid=$!
sleep 0.5
names=$(cat /proc/$pid/task/*/comm 2>/dev/null | grep -c '^napi/')
if ! wait "$pid"; then
	echo "FAIL: --threaded 0 exited non-zero:"; cat "$tmp/off.raw"; fail=1
fi
if [ "$names" -ne 0 ]; then
	echo "FAIL: --threaded 0: $names NAPI threads"; fail=1
fi
grep -q 'XDP-RX CPU *total' "$tmp/off.raw" || {
	echo "FAIL: --threaded 0: no total line"; cat "$tmp/off.raw"; fail=1; }

out=$("$tool" --dev sim0 --threaded 2 2>&1); rc=$?
if [ "$rc" -ne 2 ] || ! grep -q -- "--threaded" <<<"$out"; then
	echo "FAIL: --threaded 2 exited $rc: $out"; fail=1
fi

[ "$fail" -eq 0 ] && echo "PASS: xdp_rxq_info threaded"
exit "$fail"
