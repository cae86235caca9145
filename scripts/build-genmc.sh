#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# Builds GenMC, the weak-memory model checker the tests/genmc harnesses
# run under, from the project's shared tools (../shared/tools/genmc beside
# this checkout) into build-genmc/ in the checkout, once: an existing
# build is reused. GenMC is a test tool only (GPL); nothing of it is
# linked into pagepool. Prints the binary's path; exits 0 without
# building (and says so) when the shared tools are not there, so the
# harnesses then skip.
#   scripts/build-genmc.sh
set -eu
cd "$(dirname "$0")/.."
top=$PWD
prefix=$top/build-genmc
if [ -x "$prefix/bin/genmc" ] && "$prefix/bin/genmc" --version >/dev/null 2>&1; then
	echo "$prefix/bin/genmc"
	exit 0
fi
tools=$top/../shared/tools/genmc
if ! [ -f "$tools/build.sh" ]; then
	echo "build-genmc: no GenMC sources at ../shared/tools/genmc; the GenMC tests will skip" >&2
	exit 0
fi
echo "build-genmc: building GenMC into build-genmc/ (a few minutes, once; log in build-genmc.log)" >&2
if ! sh "$tools/build.sh" "$prefix" >"$top/build-genmc.log" 2>&1; then
	tail -n 30 "$top/build-genmc.log" >&2
	echo "build-genmc: FAILED" >&2
	exit 1
fi
echo "$prefix/bin/genmc"
