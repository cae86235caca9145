#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# Smoke test of bench/tap_suite.sh: with tiny runs it prints, for each of
# its three workloads, the seed's two rows and one measured row per path
# (page_frag_cache, page_frag, malloc) with 0 buffers in use, and for the
# -F one the cache-line round trip between its two CPUs; as a user
# without root, or without /dev/net/tun, it prints why it skipped and
# exits 0; bad usage exits 2.
# No rate is checked: speed belongs in benchmarks.
#   tests/bench_tap_smoke.sh SOURCE_ROOT TAP_NET_TEST
set -u
suite=$1/bench/tap_suite.sh
tool=$2
fail=0
. "$(dirname "$0")/smoke_lib.sh"

need_root "tap_suite.sh needs root for a measured run"
need_tun
if ! out=$("$suite" "$tool" 2 500 2>&1); then
	echo "FAIL: tap_suite.sh exited non-zero:"; echo "$out"; exit 1
fi
if grep -q 'skipped' <<<"$out"; then
	echo "SKIP: tap_suite.sh could not set up a TAP device here:"
	echo "$out"
	exit 77
fi
if [ "$(grep -c '^### ' <<<"$out")" -ne 3 ]; then
	echo "FAIL: not three workloads"; echo "$out"; fail=1
fi
if [ "$(grep -Ec '^\| kernel: page_frag(_cache)? ' <<<"$out")" -ne 6 ]; then
	echo "FAIL: the seed's rows are missing"; echo "$out"; fail=1
fi
rows=$(grep -Ec '^\| ours: (page_frag_cache|page_frag|malloc) +\| [0-9.]+ \+- [0-9.]+% +\| [0-9]+ +\| [0-9]+ \+- [0-9.]+% +\| [0-9.]+ \+- [0-9.]+ +\| [0-9.]+ / [0-9.]+ +\| (1|[0-9.]+ \([0-9]+ of [0-9]+ <= 1\)) +\| 0 \|$' <<<"$out")
if [ "$rows" -ne 9 ]; then
	echo "FAIL: $rows of 9 measured rows with 0 buffers in use"; echo "$out"
	fail=1
fi
# The -F workload says how far apart its two CPUs were, before and after.
want=0
[ "$(nproc)" -ge 2 ] && want=2
rtt=$(grep -Ec '^tap_net_test: CPU [0-9]+ \(receiving\) and CPU [0-9]+ \(freer\): cache-line round trip [0-9]+ ns (before|after) the runs$' <<<"$out")
if [ "$rtt" -ne "$want" ]; then
	echo "FAIL: $rtt cache-line round trip lines, want $want"; echo "$out"
	fail=1
fi

# Not root: a note, exit 0 (the main job goes on).
drop=(setpriv --reuid=65534 --regid=65534 --clear-groups
	--inh-caps=-all --bounding-set=-all)
# shellcheck disable=SC2016
if command -v setpriv >/dev/null &&
   "${drop[@]}" bash -c 'test -r "$0" && test -x "$1"' "$suite" "$tool" 2>/dev/null; then
	out=$("${drop[@]}" bash "$suite" "$tool" 1 10 2>&1); rc=$?
	if [ "$rc" -ne 0 ] || ! grep -q 'skipped: it needs root' <<<"$out"; then
		echo "FAIL: unprivileged suite exited $rc, want 0 with a note:"
		echo "$out"; fail=1
	fi
fi

# No /dev/net/tun (hidden in a private mount namespace): a note, exit 0.
if command -v unshare >/dev/null && unshare -m true 2>/dev/null; then
	# shellcheck disable=SC2016
	out=$(unshare -m bash -c 'mount -t tmpfs none /dev/net && exec "$0" "$1" 1 10' "$suite" "$tool" 2>&1)
	rc=$?
	if [ "$rc" -ne 0 ] || ! grep -q 'skipped: no /dev/net/tun' <<<"$out"; then
		echo "FAIL: suite without /dev/net/tun exited $rc, want 0 with a note:"
		echo "$out"; fail=1
	fi
fi

for args in "" "$tool x" "$tool 1 1 1 1" "$tool 1 1 --cpu" "$tool --bogus"; do
	# shellcheck disable=SC2086
	out=$("$suite" $args 2>&1); rc=$?
	if [ "$rc" -ne 2 ] || [ -z "$out" ]; then
		echo "FAIL: tap_suite.sh $args exited $rc, want 2 and a message"
		fail=1
	fi
done
exit $fail
