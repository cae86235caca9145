#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# Smoke test of the peer benchmarks (bench/peers/, bench/peers_suite.sh):
# every peer program that was built runs with a tiny N, exits 0 and prints
# its rows as time_bench lines that the suite's parser accepts; bad usage
# exits 2; the suite itself runs one round and prints a JSON document with
# verdicts. No timing is checked. Under sanitizers (PEERS_SANITIZE set to
# something other than "none") DPDK is skipped, its EAL is not built for
# them, and under TSan ck_ring too. Exit 0 pass, 1 fail, 77 nothing could
# run.
#   tests/bench_peers_smoke.sh PEER_PROGRAM...
set -u
here=$(cd "$(dirname "$0")" && pwd)
sanitize=${PEERS_SANITIZE:-none}
fail=0 ran=0

# Rows each program must print.
declare -A want=(
	[peer_pagepool]=12 [peer_glibc]=4 [peer_mimalloc]=4
	[peer_jemalloc]=4 [peer_dpdk]=15 [peer_ck]=1
)
line_re='^Type:[a-z0-9]+_[a-z0-9_]+_(same|cross|spsc) Per elem: [0-9]+ cycles\(tsc\) [0-9]+\.[0-9]{3} ns \(step:[0-9]+\)'

for prog in "$@"; do
	name=${prog##*/}
	if [ "$name" = peer_dpdk ] && [ "$sanitize" != none ]; then
		echo "SKIP: $name under -Db_sanitize=$sanitize"
		continue
	fi
	# ck_ring orders with its own inline-asm fences, which TSan cannot
	# see: it reports ck's slot accesses as races.
	if [ "$name" = peer_ck ] && [[ $sanitize == *thread* ]]; then
		echo "SKIP: $name under -Db_sanitize=$sanitize (ck's fences are invisible to TSan)"
		continue
	fi
	ran=$((ran + 1))
	if ! out=$(timeout 60 "$prog" -N 4000 2>&1); then
		echo "FAIL: $name -N 4000 exited non-zero:"; echo "$out"
		fail=1; continue
	fi
	n=$(grep -Ec "$line_re" <<<"$out")
	if [ "$n" -ne "${want[$name]:-1}" ]; then
		echo "FAIL: $name: $n time_bench lines, want ${want[$name]:-1}:"
		echo "$out"; fail=1
	fi
	if grep 'Per elem:' <<<"$out" | grep -Evq "$line_re"; then
		echo "FAIL: $name: a result line the suite cannot parse:"
		echo "$out"; fail=1
	fi
	"$prog" -h | grep -q -- '-N COUNT' || { echo "FAIL: $name -h"; fail=1; }
	# -R: every row again, in the same process.
	if [ "$name" = peer_pagepool ]; then
		n2=$(timeout 60 "$prog" -N 4000 -R 2 2>&1 | grep -Ec "$line_re")
		[ "$n2" -eq $((2 * n)) ] || { echo "FAIL: $name -R 2: $n2 lines, want $((2 * n))"; fail=1; }
	fi
	# -T: the touched byte; first is the old harness's byte 0.
	if [ "$name" = peer_pagepool ]; then
		timeout 60 "$prog" -N 4000 -T first 2>&1 | grep -q '^# .*touch first,' ||
			{ echo "FAIL: $name -T first"; fail=1; }
		grep -q '^# .*touch spread,' <<<"$out" ||
			{ echo "FAIL: $name: header without the default touch"; fail=1; }
		# Cross rows start their clock after an untimed warm-up.
		grep -q '^# .*(cross 1000 after [0-9]* untimed)' <<<"$out" ||
			{ echo "FAIL: $name: header without the cross warm-up"; fail=1; }
	fi
	for bad in "-N 10" "-N abc" "-R 0" "-T 3" "-x" "extra"; do
		# shellcheck disable=SC2086
		"$prog" $bad >/dev/null 2>&1
		rc=$?
		[ $rc -eq 2 ] || { echo "FAIL: $name $bad exited $rc, want 2"; fail=1; }
	done
	echo "ok: $name ($n rows)"
done

# The suite end to end, one round, in the plain build.
if [ $ran -gt 0 ] && [ "$sanitize" = none ] && [ $# -gt 0 ]; then
	build=$(cd "$(dirname "$1")/../.." && pwd)
	if ! js=$("$here/../bench/peers_suite.sh" "$build" 1 4000 --json 2>/dev/null); then
		echo "FAIL: peers_suite.sh $build 1 4000 --json"; fail=1
	elif ! python3 -c '
import json, sys
d = json.load(sys.stdin)
assert len(d["verdicts"]) == 8, d["verdicts"]
assert any(r["type"] == "pagepool_pp_fast_same" and r["ns"] > 0 for r in d["rows"])
for v in d["verdicts"]:
    assert v["status"].split()[0] in ("MET", "MISSED", "SPREAD", "n/a"), v
' <<<"$js"; then
		echo "FAIL: peers_suite.sh --json: unexpected document"; echo "$js"; fail=1
	else
		echo "ok: peers_suite.sh --json"
	fi
fi

[ $ran -gt 0 ] || exit 77
exit $fail
