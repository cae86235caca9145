#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# Copyright (c) 2026 The pagepool authors
#
# Every fix guarded: reverts each known fix (tests/mutation/mutants.sh),
# one at a time, in a scratch copy of the source tree, rebuilds only the
# tests that guard it and runs them; a fix is guarded when one of them
# then fails. The copy is configured once, as CI's sanitizer build
# (AddressSanitizer + UBSan, debug checks, the race tests' delay points:
# the use-after-free mutants are seen only by the sanitizer), and each
# mutant is an incremental rebuild. Before any mutant, every guarding test
# must pass on the unchanged copy. Prints a table (mutant, killed by,
# seconds) and exits 0 when every mutant was killed, 1 otherwise.
#   run.sh SOURCE_ROOT [MUTANT ...]
# MUTANT names run only those. MUTATION_KEEP=1 keeps the scratch directory.
set -u
src=$(cd "${1:?usage: run.sh SOURCE_ROOT [MUTANT ...]}" && pwd)
shift
only=" $* "
here=$src/tests/mutation
per_test_timeout=${MUTATION_TIMEOUT:-180}

for t in perl meson ninja gcc timeout; do
	command -v "$t" >/dev/null || { echo "SKIP: $t not found"; exit 77; }
done

work=$(mktemp -d)
if [ "${MUTATION_KEEP:-0}" = 1 ]; then
	echo "mutation: scratch directory kept: $work"
else
	trap 'rm -rf "$work"' EXIT
fi
tree=$work/src
build=$work/build
mkdir "$tree"
# The tree without build directories or git metadata.
tar -C "$src" --exclude='./build*' --exclude=./.git -cf - . |
	tar -C "$tree" -xf - || { echo "cannot copy the tree"; exit 1; }

# ---- Read the mutants -------------------------------------------------------
names=() files=() edits=() killers=()
mutant() {
	local name=$1 file=$2 edit=$3 k
	shift 3
	[ "$only" = "  " ] || [[ $only == *" $name "* ]] || return 0
	names+=("$name") files+=("$file") edits+=("$edit")
	k=$(printf '%s\n' "$@")
	killers+=("$k")
}
# shellcheck source=mutants.sh
. "$here/mutants.sh"
[ ${#names[@]} -gt 0 ] || { echo "no mutant matches '$*'"; exit 1; }

# Every test program a mutant names, built once up front.
mapfile -t targets < <(printf '%s\n' "${killers[@]}" | awk '{print "tests/" $1}' | sort -u)

# ---- Configure once ---------------------------------------------------------
start=$SECONDS
echo "mutation: configuring the sanitizer build in a scratch copy"
if ! CC=gcc meson setup "$build" "$tree" -Dwerror=true \
	-Db_sanitize=address,undefined -Ddebug_checks=true \
	-Dc_args=-fno-sanitize-recover=all -Dtest_hooks=true \
	-Dtools=false -Dexamples=false -Ddocs=false \
	-Dbench_mimalloc=disabled -Dbench_jemalloc=disabled \
	-Dbench_dpdk=disabled -Dbench_ck=disabled >"$work/setup.log" 2>&1; then
	cat "$work/setup.log"; echo "mutation: configure FAILED"; exit 1
fi
build_targets() {
	ninja -C "$build" "${targets[@]}" >"$work/ninja.log" 2>&1
}
if ! build_targets; then
	tail -n 40 "$work/ninja.log"; echo "mutation: build FAILED"; exit 1
fi

# Run one guarding test ("prog args"): 0 pass, 77 skip, else failed.
run_killer() {
	local prog args
	read -r prog args <<<"$1"
	# shellcheck disable=SC2086
	(cd "$build/tests" && timeout "$per_test_timeout" "./$prog" $args) \
		>"$work/out.log" 2>&1
}

# ---- Baseline: every guard passes on the unchanged tree -------------------
mapfile -t all_killers < <(printf '%s\n' "${killers[@]}" | sort -u)
for k in "${all_killers[@]}"; do
	run_killer "$k"
	rc=$?
	if [ $rc -ne 0 ]; then
		tail -n 20 "$work/out.log"
		echo "mutation: '$k' does not pass on the unchanged tree (exit $rc)"
		exit 1
	fi
done
echo "mutation: baseline passes ($((SECONDS - start)) s); ${#names[@]} mutants"

# ---- One mutant at a time -------------------------------------------------
survivors=0
table="| mutant | file | killed by | seconds |"$'\n'"|---|---|---|---|"$'\n'
for i in "${!names[@]}"; do
	name=${names[$i]} file=${files[$i]}
	t0=$SECONDS
	cp -p "$tree/$file" "$work/orig"
	result=
	if ! perl -0pi -e "${edits[$i]}" "$tree/$file"; then
		result="EDIT FAILED"
	elif cmp -s "$tree/$file" "$work/orig"; then
		result="DOES NOT APPLY (the code moved: update mutants.sh)"
	elif ! build_targets; then
		tail -n 20 "$work/ninja.log"
		result="DOES NOT BUILD"
	else
		while IFS= read -r k; do
			run_killer "$k"
			rc=$?
			if [ $rc -ne 0 ] && [ $rc -ne 77 ]; then
				why=$(grep -m1 -oE 'ERROR: AddressSanitizer: [a-z-]+|runtime error|CHECK failed|[^ ]+ returned while|consumer_head [0-9]+ published|false "empty"|fault' "$work/out.log")
				[ $rc -eq 124 ] && why="timed out"
				result="$k (exit $rc${why:+: $why})"
				break
			fi
		done <<<"${killers[$i]}"
		[ -n "$result" ] || result="NOT KILLED"
	fi
	# Restore with a fresh timestamp, so the next build recompiles it.
	cp "$work/orig" "$tree/$file"
	touch "$tree/$file"
	case $result in
	"DOES NOT"*|"EDIT FAILED"|"NOT KILLED") survivors=$((survivors + 1)) ;;
	esac
	secs=$((SECONDS - t0))
	printf 'mutation: %-26s %s (%d s)\n' "$name" "$result" "$secs"
	table+="| $name | \`$file\` | $result | $secs |"$'\n'
done

echo
printf '%s' "$table"
echo
echo "mutation: $((${#names[@]} - survivors)) of ${#names[@]} killed in $((SECONDS - start)) s"
[ "$survivors" -eq 0 ]
