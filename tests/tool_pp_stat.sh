#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# Copyright (c) 2026 The pagepool authors
#
# pp-stat against running processes (PAGEPOOL_STATS=1, published every
# 50 ms):
#  - a running bench_page_pool_cross_cpu: its pool in the table and in
#    each JSON form, with the kernel's attribute names, counters moving
#    between two reads, and the page allocator's figures; killed, its pools are gone (pp-stat says so, and
#    removes the file the dead process left);
#  - pp_stat_stall, a process whose pool was destroyed with a page in
#    flight (and whose forked child has exited: the parent's view stays):
#    detach-time in page-pool-get, "stalled" and STALLED; once it returns
#    the page and exits, nothing is published for it;
#  - a process without PAGEPOOL_STATS publishes nothing; bad usage exits 2.
# Waits poll (up to 30 s) for what the publisher writes; nothing is timed.
#   tool_pp_stat.sh PP_STAT BENCH_CROSS_CPU PP_STAT_STALL
set -u
ppstat=$1 bench=$2 stall=$3
fail=0
err() { echo "FAIL: $*"; fail=1; }
command -v python3 >/dev/null || { echo "SKIP: python3 not found"; exit 77; }
[ -d /dev/shm ] || { echo "SKIP: no /dev/shm"; exit 77; }
export PAGEPOOL_STATS_MS=50

# Poll "pp-stat ARGS" until python expression COND over its JSON output
# (j) holds; prints the last output. 0 once it holds.
poll_json() {
	local cond=$1 out i; shift
	for i in $(seq 300); do
		out=$("$ppstat" "$@" 2>/dev/null) &&
		python3 -c "import json,sys; j=json.loads(sys.argv[1]); sys.exit(0 if ($cond) else 1)" "$out" 2>/dev/null &&
			{ echo "$out"; return 0; }
		sleep 0.1
	done
	echo "$out"
	return 1
}

# ---- A running benchmark --------------------------------------------------
PAGEPOOL_STATS=1 "$bench" --loops 1000000000 --returning_cpus 1 >/dev/null 2>&1 &
bpid=$!
if ! j1=$(poll_json 'len(j["page-pool-get"]) == 1 and j["page-pool-stats-get"][0]["alloc-fast"] > 0' --json $bpid); then
	err "no pool of the running benchmark: $j1"
else
	python3 - "$j1" <<'PY' || fail=1
import json, sys
j = json.loads(sys.argv[1])
get, st, pp = j["page-pool-get"][0], j["page-pool-stats-get"][0], j["pagepool"][0]
want = {"alloc-fast", "alloc-slow", "alloc-slow-high-order", "alloc-empty",
        "alloc-refill", "alloc-waive", "recycle-cached", "recycle-cache-full",
        "recycle-ring", "recycle-ring-full", "recycle-released-refcnt", "info"}
ok = True
def check(c, what):
    global ok
    if not c:
        print("FAIL:", what, j); ok = False
check(set(get) == {"id", "inflight", "inflight-mem"}, "page-pool-get keys")
check(set(st) == want, "page-pool-stats-get keys")
check(st["info"] == {"id": get["id"]}, "stats info names the pool")
check(get["inflight-mem"] == get["inflight"] * 4096, "inflight-mem")
check(pp["state"] == "live" and pp["id"] == get["id"], "pagepool state")
a = j["allocator"]
check(a["bad-pages"] == 0 and len(a["zones"]) >= 1, "allocator")
z = a["zones"][0]
check(z["managed-pages"] > 0 and len(z["free-blocks"]) == 11 and
      z["free-pages"] <= z["managed-pages"], "allocator zone")
sys.exit(0 if ok else 1)
PY
	fast1=$(python3 -c 'import json,sys; print(json.loads(sys.argv[1])["page-pool-stats-get"][0]["alloc-fast"])' "$j1")
	poll_json "j[0][\"alloc-fast\"] > $fast1" --dump page-pool-stats-get $bpid >/dev/null ||
		err "alloc-fast does not move past $fast1"
	out=$("$ppstat" --dump page-pool-get $bpid) &&
		python3 -c 'import json,sys; l=json.loads(sys.argv[1]); assert isinstance(l, list) and "inflight" in l[0]' "$out" ||
		err "--dump page-pool-get: $out"
	out=$("$ppstat" -n 2 -d 50 $bpid)
	[ "$(grep -cE '^ +[0-9]+ +-?[0-9]+ +0 +[0-9]+ live ' <<<"$out")" -eq 2 ] ||
		err "two tables with the live pool: $out"
	grep -q "RELEASED" <<<"$out" || err "table header: $out"
	grep -qE '^ +0 +[0-9]+ +[1-9][0-9]* ' <<<"$out" || err "no allocator row: $out"
fi
kill $bpid 2>/dev/null
wait $bpid 2>/dev/null
out=$("$ppstat" --json $bpid 2>&1) && err "pp-stat on the killed benchmark succeeded: $out"
grep -q "exited\|no pools" <<<"$out" || err "killed benchmark: $out"
[ ! -e /dev/shm/pagepool.$bpid ] || err "the killed benchmark's file is still there"

# ---- A stalled destroy ----------------------------------------------------
coproc STALL { PAGEPOOL_STATS=1 exec "$stall" 2>/dev/null; }
spid=$STALL_PID
read -r -t 30 line <&"${STALL[0]}" || line=
[ "$line" = ready ] || err "pp_stat_stall did not start: '$line'"
if ! j=$(poll_json 'j["page-pool-get"] and "detach-time" in j["page-pool-get"][0] and j["pagepool"][0]["state"] == "stalled"' --json $spid); then
	err "no stalled pool: $j"
else
	python3 -c 'import json,sys; g=json.loads(sys.argv[1])["page-pool-get"][0]; assert g["inflight"] == 1 and g["detach-time"] > 0' "$j" ||
		err "stalled pool's fields: $j"
	"$ppstat" --once $spid | grep -qE ' STALLED +1 ' || err "no STALLED row: $("$ppstat" --once $spid)"
fi
exec {fd}>&"${STALL[1]}"
exec {STALL[1]}>&-
exec {fd}>&-
wait $spid 2>/dev/null || err "pp_stat_stall failed"
[ ! -e /dev/shm/pagepool.$spid ] || err "the exited process's file is still there"
out=$("$ppstat" $spid 2>&1) && err "pp-stat on an exited process succeeded: $out"

# ---- Nothing published without PAGEPOOL_STATS; usage ----------------------
env -u PAGEPOOL_STATS "$bench" --loops 1000000000 --returning_cpus 1 >/dev/null 2>&1 &
npid=$!
sleep 0.5
[ ! -e /dev/shm/pagepool.$npid ] || err "published without PAGEPOOL_STATS"
kill $npid 2>/dev/null
wait $npid 2>/dev/null
for bad in "" "--bogus 1" "0" "x" "--dump nope 1" "-d 1 1"; do
	# shellcheck disable=SC2086
	"$ppstat" $bad >/dev/null 2>&1; rc=$?
	[ $rc -eq 2 ] || err "'pp-stat $bad' exited $rc, want 2"
done
exit $fail
