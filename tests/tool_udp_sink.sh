#!/bin/sh
# SPDX-License-Identifier: MIT
# Copyright (c) 2026 The pagepool authors
#
# udp_sink end to end on loopback, both receive paths (io_uring buffers
# from a page_pool, recvmmsg into malloc'd buffers), buffers consumed and
# returned on a second thread: a rate-limited sender's datagrams all
# arrive, and the sink exits cleanly (its pool destroyed with every page
# back). Skips (77) with udp_sink's reason when io_uring is unavailable.
#
# Usage: tool_udp_sink.sh PATH/TO/udp_sink
set -u
sink=$1
n=20000
port=$((20000 + $$ % 20000))
out=$(mktemp) || exit 1
trap 'rm -f "$out"' EXIT

for mode in uring recvmmsg; do
	"$sink" --mode "$mode" --port "$port" --count "$n" --duration 60 \
		--return-thread --quiet >"$out" 2>&1 &
	pid=$!
	i=0
	until grep -q listening "$out" || ! kill -0 "$pid" 2>/dev/null; do
		[ $i -lt 100 ] || break
		sleep 0.05
		i=$((i + 1))
	done
	if ! grep -q listening "$out"; then
		wait "$pid"
		rc=$?
		cat "$out"
		if [ "$rc" -eq 77 ]; then
			echo "SKIP: udp_sink --mode $mode cannot run here"
			exit 77
		fi
		echo "FAIL: udp_sink --mode $mode did not start (exit $rc)"
		exit 1
	fi
	"$sink" --send "127.0.0.1:$port" --count "$n" --rate 50000 >/dev/null
	wait "$pid"
	rc=$?
	cat "$out"
	if [ "$rc" -ne 0 ]; then
		echo "FAIL: udp_sink --mode $mode exited $rc"
		exit 1
	fi
	if ! grep -q "$mode received $n datagrams" "$out"; then
		echo "FAIL: --mode $mode did not receive all $n datagrams"
		exit 1
	fi
	port=$((port + 1))
done
echo PASS
