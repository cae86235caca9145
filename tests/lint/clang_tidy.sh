#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# clang-tidy over the library's sources with the repository's .clang-tidy
# (bug patterns and the static analyser, warnings as errors), using the
# build's compile_commands.json. Skips (77) where clang-tidy is missing.
#   tests/lint/clang_tidy.sh BUILD_DIR SOURCE_DIR
set -u
build=$1 src=$2
command -v clang-tidy >/dev/null 2>&1 || { echo "clang-tidy not found"; exit 77; }
[ -f "$build/compile_commands.json" ] || { echo "no compile_commands.json"; exit 77; }
out=$(cd "$src" && clang-tidy -p "$build" --quiet $(find src -name "*.c" | sort) 2>&1)
rc=$?
if [ $rc -ne 0 ] || grep -q 'warning:\|error:' <<<"$out"; then
	echo "$out" | grep -A3 'warning:\|error:'
	exit 1
fi
echo "clang-tidy: $(find "$src"/src -name "*.c" | wc -l) files clean"
