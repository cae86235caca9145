#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# The page_frag_cache part of the benchmark suite: page_frag_test (the
# kernel's page_frag test module as a program) with the kernel script's
# smoke, nonaligned and aligned presets, each with glibc, mimalloc and
# jemalloc in the same run (--compare). nonaligned and aligned use
# NR_TEST iterations (the script's 100M would keep the malloc rows busy
# for many minutes).
#   bench/page_frag_suite.sh PAGE_FRAG_TEST [NR_TEST]
set -eu
tool=$1 nr=${2:-10000000}
"$tool" --preset smoke --compare
"$tool" --preset nonaligned "nr_test=$nr" --compare
"$tool" --preset aligned "nr_test=$nr" --compare
