#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# Runs one GenMC harness configuration of tests/genmc/harnesses.txt under
# RC11 and under IMM, against the headers in INCLUDE_DIR and the sources
# in SRC_DIR (the tree's own, or weakened copies from weaken.sh).
#   run_genmc.sh SOURCE_ROOT NAME [INCLUDE_DIR [SRC_DIR]]
# GENMC_MODELS (default "--rc11 --imm") picks the models (weaken.sh tries
# RC11 alone first). Exit 0 when every run met its expectation ("pass": no error; "error":
# GenMC reports one), 1 otherwise, 77 when GenMC is not available: set
# GENMC to the binary, or build it with scripts/build-genmc.sh.
set -u
src=$1 name=$2 inc=${3:-$1/include} srcdir=${4:-$1/src}
here=$src/tests/genmc
genmc=${GENMC:-$src/build-genmc/bin/genmc}
if ! [ -x "$genmc" ]; then
	echo "SKIP: GenMC not found (set GENMC, or run scripts/build-genmc.sh)"
	exit 77
fi
line=$(grep -v '^#' "$here/harnesses.txt" | grep "^$name|") ||
	{ echo "no harness configuration named $name"; exit 1; }
IFS='|' read -r _ expect file gflags cflags <<<"$line"

# GenMC 0.11 compiles each harness to /tmp/__genmc.ll.XXXXXX (a fixed
# template, TMPDIR ignored) and never removes it: 1.6 MB a run, hundreds
# of runs in a CI run. A run reads its file right after writing it, so
# files of ours older than ten minutes belong to no run still reading them.
find /tmp -maxdepth 1 -name '__genmc.ll.*' -user "$(id -u)" -mmin +10 \
	-delete 2>/dev/null

rc=0
for model in ${GENMC_MODELS:---rc11 --imm}; do
	start=$(date +%s%N)
	# shellcheck disable=SC2086
	out=$(timeout 600 "$genmc" $model --disable-estimation $gflags -- \
		-I"$inc" -I"$srcdir" -DPP_MODEL_CHECK $cflags "$here/$file" 2>&1)
	status=$?
	ms=$((($(date +%s%N) - start) / 1000000))
	execs=$(sed -n 's/^Number of complete executions explored: //p' <<<"$out")
	if grep -q '^\*\*\* Verification complete' <<<"$out" &&
	   grep -q '^No errors were detected' <<<"$out" && [ $status -eq 0 ]; then
		verdict=holds
	elif grep -q '^\*\*\* Verification unsuccessful' <<<"$out"; then
		verdict=violated
	else
		verdict=broken
	fi
	printf '%-40s %-5s %-8s executions=%s %d ms\n' "$name" "${model#--}" \
		"$verdict" "${execs:-?}" "$ms"
	case $expect/$verdict in
	pass/holds | error/violated) ;;
	*)
		rc=1
		echo "expected $expect, got $verdict:"
		grep -m3 -E '^Error|error:' <<<"$out"
		[ "$verdict" = broken ] && tail -n 20 <<<"$out"
		;;
	esac
done
exit $rc
