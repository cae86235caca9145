#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# Instruction budgets: runs each benchmark operation under callgrind at two
# iteration counts and divides the difference, so set-up and tear-down
# cancel out, then compares with tests/perf/budget.txt. Instruction counts
# do not depend on machine load, so this gates CI on the fast paths'
# cost without timing anything. Skips (77) without valgrind.
#   tests/perf/budget.sh BUILD_DIR BUDGET_FILE
set -u
build=$1 budgets=$2
command -v valgrind >/dev/null 2>&1 || { echo "valgrind not found"; exit 77; }
export PP_TIME_BENCH_CLOCK=monotonic	# valgrind does not know rdtscp

count() {	# program args... -> instructions collected
	valgrind --tool=callgrind --callgrind-out-file=/dev/null "$@" 2>&1 |
		sed -n 's/.*Collected : //p'
}

fail=0
while read -r name prog args budget; do
	case $name in '#'*|'') continue ;; esac
	case $prog in
	bench_page_pool_simple) exe=$build/bench/$prog; n1=(--loops 100000); n2=(--loops 200000) ;;
	ptr_ring_test) exe=$build/tools/$prog; n1=(-N 100000); n2=(-N 200000) ;;
	bench_page_pool_remote_put) exe=$build/bench/$prog; n1=(--loops 100000); n2=(--loops 200000) ;;
	bench_page_alloc) exe=$build/bench/$prog; n1=(-r 1 -n 100000); n2=(-r 1 -n 200000) ;;
	*) echo "unknown program $prog"; exit 1 ;;
	esac
	[ "$args" = - ] && args=	# no arguments
	read -ra extra <<<"${args//[=,]/ }"	# --a=1,--b: "--a 1 --b"
	a=$(count "$exe" "${n1[@]}" "${extra[@]}")
	b=$(count "$exe" "${n2[@]}" "${extra[@]}")
	if [ -z "$a" ] || [ -z "$b" ]; then
		echo "FAIL: $name: no callgrind count"; fail=1; continue
	fi
	per=$(( (b - a) / 100000 ))
	# Twice the operations must cost more: anything else means the
	# program did not run the loop (bad arguments, an early exit).
	if [ "$per" -le 0 ]; then
		echo "FAIL: $name: the operation was not measured ($a, $b)"
		fail=1
	elif [ "$per" -gt "$budget" ]; then
		echo "FAIL: $name: $per instructions per operation, budget $budget"
		fail=1
	else
		echo "ok: $name: $per instructions per operation (budget $budget)"
	fi
done <"$budgets"
exit $fail
