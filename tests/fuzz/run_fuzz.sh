#!/bin/sh
# SPDX-License-Identifier: MIT
#
# Run one libFuzzer harness for a fixed time, starting from its seed corpus
# in the source tree. New inputs go to a scratch directory (libFuzzer writes
# into the first corpus directory it is given), so the tree never changes;
# a crash leaves its reproducer in the build directory's fuzz-artifacts/.
# Reproduce one with: HARNESS fuzz-artifacts/NAME-crash-HASH
#
# Usage: run_fuzz.sh HARNESS SEED_DIR SECONDS
# FUZZ_SECONDS in the environment overrides SECONDS (a longer local run).
# Exit: 0 no finding, 1 a crash, a leak, a timeout or an out-of-memory.
set -u
exe=$1 seeds=$2 secs=${FUZZ_SECONDS:-$3}
name=$(basename "$exe")
arts=$(dirname "$exe")/fuzz-artifacts
mkdir -p "$arts" || exit 1
# The scratch corpus lives beside the artifacts, not in /tmp, where a
# cleaner removing it mid-run makes libFuzzer stop with an error.
work=$(mktemp -d "$arts/corpus-$name.XXXXXX") || exit 1
trap 'rm -rf "$work"' EXIT HUP INT TERM

# libFuzzer exits 77 on a crash by default, which the test runner would
# count as a skip: every finding is exit 1 here.
"$exe" -max_total_time="$secs" -rss_limit_mb=4096 -timeout=20 \
	-error_exitcode=1 -timeout_exitcode=1 -print_final_stats=1 \
	-artifact_prefix="$arts/$name-" "$work" "$seeds"
