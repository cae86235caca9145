# SPDX-License-Identifier: MIT
# Copyright (c) 2026 The pagepool authors
"""The tables of afxdp_suite.sh and uring_suite.sh: their result lines
("receiver|pass|value|...", one a row run) and median (min-max) cells."""
import statistics


def load(path):
    """{(receiver, pass): [[value, ...] one list per round]}"""
    rows = {}
    with open(path) as f:
        for line in f:
            fields = line.rstrip('\n').split('|')
            rows.setdefault((fields[0], fields[1]), []).append(fields[2:])
    return rows


def cell(vals, scale=1.0, fmt='%.0f'):
    """'median (min-max)' of vals divided by scale."""
    v = [float(x) / scale for x in vals]
    return (fmt + ' (' + fmt + '-' + fmt + ')') % (
        statistics.median(v), min(v), max(v))
