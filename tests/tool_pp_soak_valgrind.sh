#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# pp_soak under valgrind's memcheck, at a small scale (20000 buffers, pools
# recreated every 20 ms): no invalid access, no use of uninitialised
# memory, no definite leak, and pp_soak's own verdict. Skips (77) without
# valgrind, and in sanitizer builds (PP_SANITIZE), whose binaries valgrind
# cannot run.
#   tool_pp_soak_valgrind.sh PP_SOAK
set -u
tool=$1
if ! command -v valgrind >/dev/null 2>&1; then
	echo "SKIP: valgrind not found (Debian: valgrind)"
	exit 77
fi
if [ "${PP_SANITIZE:-none}" != none ]; then
	echo "SKIP: built with -Db_sanitize=$PP_SANITIZE"
	exit 77
fi
out=$(valgrind --tool=memcheck --error-exitcode=3 --leak-check=full \
	--errors-for-leak-kinds=definite -q \
	"$tool" --duration 120 --max-buffers 20000 --recreate-ms 20 2>&1)
rc=$?
echo "$out"
case $rc in
0) ;;
3) echo "FAIL: memcheck reported errors"; exit 1 ;;
*) echo "FAIL: pp_soak exited $rc under valgrind"; exit 1 ;;
esac
grep -q '^result: PASS$' <<<"$out" || { echo "FAIL: no PASS verdict"; exit 1; }
exit 0
