#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# Is every ordering needed? Weakens each release, acquire, acq_rel and
# seq_cst access of the files in scope to relaxed, one at a time, in a copy
# of the include and src trees, and runs every "pass" configuration of
# harnesses.txt against the copy (under RC11 first, then, for an access no
# harness caught there, under IMM). An access is needed when some harness
# then fails; one that no harness catches must either be relaxed in the
# code (with the harnesses as proof) or be listed in weaken-keep.txt with
# the reason it stays. Prints a markdown table (docs/genmc.md keeps it).
#   weaken.sh SOURCE_ROOT [FILE...]
# FILEs (relative to SOURCE_ROOT) narrow the scope to those files.
# Exit 0 when every access is caught or kept with a reason, 1 otherwise,
# 77 without GenMC. With WEAKEN_SKIP_KEPT=1 (the test suite sets it) the
# accesses listed in weaken-keep.txt are not run again: showing that no
# harness catches them runs every harness under both models, about five
# minutes each; docs/genmc.md records the full run.
set -u
src=$1
here=$src/tests/genmc
genmc=${GENMC:-$src/build-genmc/bin/genmc}
if ! [ -x "$genmc" ]; then
	echo "SKIP: GenMC not found (set GENMC, or run scripts/build-genmc.sh)"
	exit 77
fi
# Files whose orderings the harnesses cover, relative to the source root.
scope=(include/pagepool/ptr_ring.h include/pagepool/spinlock_pvt.h
	include/pagepool/page_pool.h include/pagepool/page.h
	src/net/core/page_pool.c src/net/core/page_pool_put.c
	src/net/core/page_pool_alloc.c src/net/core/page_pool_dma.c
	src/net/core/page_pool_stash.c
	include/pagepool/page_frag_cache.h src/mm/page_frag_cache.c
	src/mm/page_alloc.c)
ops='pp_store_release|pp_load_acquire|pp_xchg_acquire|pp_fetch_sub_acq_rel|__ATOMIC_(RELEASE|ACQUIRE|ACQ_REL|SEQ_CST)'
shift
[ $# -gt 0 ] && scope=("$@")
harnesses=$(grep -v '^#' "$here/harnesses.txt" | awk -F'|' '$2 == "pass" {print $1}')

work=$(mktemp -d)
# Stop the accesses still running (weaken_one() jobs) before their files go.
trap 'kill $(jobs -p) 2>/dev/null; wait; rm -rf "$work"' EXIT

# The files each configuration compiles (its preprocessor dependencies,
# relative to the source root, in $work/deps/NAME): a weakening in a file
# a harness does not include cannot change what it checks, so it is not
# run. A configuration whose dependencies cannot be listed runs for every
# weakening.
root=$(cd "$src" && pwd -P)
mkdir -p "$work/deps"
while IFS='|' read -r name _ file _ cflags; do
	# shellcheck disable=SC2086
	if ${CC:-cc} -M -MG -I"$root/include" -I"$root/src" -DPP_MODEL_CHECK \
		$cflags "$root/tests/genmc/$file" 2>/dev/null |
		tr -s '\\ ' '\n' | grep -v ':$' | grep . |
		xargs realpath -m -s --relative-to="$root" \
			>"$work/deps/$name" 2>/dev/null; then
		:
	else
		rm -f "$work/deps/$name"
	fi
done < <(grep -v '^#' "$here/harnesses.txt" | awk -F'|' '$2 == "pass"')

# The configurations to run for a weakening of $1 at line $2: those that
# include the file; first the ones the comments just above the access name
# ("Needed: relaxed, NAME finds ..."), then those whose harness file they
# name ("tests/genmc/FILE"), then the rest in harnesses.txt order. Only
# comment lines count: a configuration may share a function's name
# (page_pool_destroy), and the code around an access is not a pointer to
# the harness that catches it. The order changes no verdict (every
# configuration runs until one fails), only how soon the catching one
# runs: the first ones that hold cost a full exploration each.
order_for() {
	local f=$1 lineno=$2 near h hfile named='' filed='' rest=''
	near=$(sed -n "$((lineno > 12 ? lineno - 12 : 1)),${lineno}p" "$src/$f" |
		grep -E '^[[:space:]]*(/[*/]|[*])|/[*]')
	for h in $harnesses; do
		if [ -f "$work/deps/$h" ] && ! grep -qxF "$f" "$work/deps/$h"; then
			continue
		fi
		hfile=$(grep -v '^#' "$here/harnesses.txt" | grep "^$h|" | cut -d'|' -f3)
		if grep -qE "(^|[^a-z_])$h([^a-z_]|\$)" <<<"$near"; then
			named="$named $h"
		elif grep -qF "tests/genmc/$hfile" <<<"$near"; then
			filed="$filed $h"
		else
			rest="$rest $h"
		fi
	done
	# shellcheck disable=SC2086 # one name a word
	echo $named $filed $rest
}

weaken_line() {
	# $1 file, $2 line number: every ordered access on that line becomes
	# relaxed.
	sed -i -E "$2{
		s/pp_store_release\(/pp_store_relaxed(/g
		s/pp_load_acquire\(/pp_load_relaxed(/g
		s/pp_xchg_acquire\(/pp_xchg_relaxed(/g
		s/pp_fetch_sub_acq_rel\(/pp_fetch_sub_relaxed(/g
		s/__ATOMIC_(RELEASE|ACQUIRE|ACQ_REL|SEQ_CST)/__ATOMIC_RELAXED/g
	}" "$1"
}

# One access, $1 file, $2 line number, $3 its text: weakened in a copy of
# the trees of its own, then every configuration that compiles the file
# runs until one fails. Prints the access's table row.
weaken_one() {
	local f=$1 lineno=$2 text=$3 w access reason caught order models h
	local kf kpat kreason
	w=$(mktemp -d -p "$work")
	cp -r "$src/include" "$w/include"
	cp -r "$src/src" "$w/src"
	# Relaxed forms the weakened sites need.
	cat >>"$w/include/pagepool/atomic_pvt.h" <<'DEFS'
#define pp_xchg_relaxed(p, v) __atomic_exchange_n((p), (v), __ATOMIC_RELAXED)
#define pp_fetch_sub_relaxed(p, v) __atomic_fetch_sub((p), (v), __ATOMIC_RELAXED)
DEFS
	weaken_line "$w/$f" "$lineno"
	access=$(grep -oE "$ops" <<<"$text" | head -n1)
	reason=
	while IFS='|' read -r kf kpat kreason; do
		[ "$kf" = "$f" ] && [[ $text == *"$kpat"* ]] &&
			reason=$kreason && break
	done < <(grep -v '^#' "$here/weaken-keep.txt" 2>/dev/null)
	if [ -n "$reason" ] && [ "${WEAKEN_SKIP_KEPT:-0}" = 1 ]; then
		echo "| \`$access\` | \`$f:$lineno\` | kept, not run again: $reason |"
		rm -rf "$w"
		return
	fi
	caught=
	order=$(order_for "$f" "$lineno")
	for models in --rc11 --imm; do
		for h in $order; do
			# Caught only by a violation: a harness the weakened
			# tree no longer compiles or runs in proves nothing
			# about the ordering.
			if GENMC_MODELS=$models "$here/run_genmc.sh" \
				"$src" "$h" "$w/include" "$w/src" 2>&1 |
				grep -q ' violated '; then
				caught=$h
				[ "$models" = --imm ] && caught="$h (IMM only)"
				break 2
			fi
		done
	done
	if [ -z "$caught" ]; then
		if [ -n "$reason" ]; then
			caught="not caught; kept: $reason"
		else
			caught="NOT CAUGHT"
		fi
	fi
	echo "| \`$access\` | \`$f:$lineno\` | $caught |"
	rm -rf "$w"
}

# The accesses are independent: WEAKEN_JOBS of them (default, one a CPU)
# run at once, each in its own copy, and the rows print in source order.
# The test suite runs this test alone, so without it a CPU would idle.
jobs_max=${WEAKEN_JOBS:-$(nproc 2>/dev/null || echo 1)}
mkdir "$work/rows"
n=0
for f in "${scope[@]}"; do
	while IFS=: read -r lineno text; do
		# Definitions of the wrappers, and comments, are not call sites.
		grep -qE '^#define|^[[:space:]]*(\*|/\*|//)' <<<"$text" && continue
		n=$((n + 1))
		weaken_one "$f" "$lineno" "$text" \
			>"$work/rows/$(printf '%05d' "$n")" &
		while [ "$(jobs -rp | wc -l)" -ge "$jobs_max" ]; do
			wait -n
		done
	done < <(grep -nE "$ops" "$src/$f")
done
wait
echo "| access | file:line | caught by (first harness that fails) |"
echo "|---|---|---|"
[ "$n" -eq 0 ] || cat "$work/rows"/*
missed=$(cat "$work/rows"/* 2>/dev/null | grep -c '| NOT CAUGHT |$')
[ "$missed" -eq 0 ] || { echo "$missed ordering(s) caught by no harness"; exit 1; }
