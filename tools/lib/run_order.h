/* SPDX-License-Identifier: MIT */
/*
 * Copyright (c) 2026 The pagepool authors
 *
 * The order in which a side-by-side benchmark runs its three paths, run
 * after run, so that no path is measured more often than another right
 * after a particular one (which leaves the allocator, the CPU's caches
 * and the scheduler as its run left them).
 *
 * Runs take the six orders of run_order_of() in turn: the three rotations
 * of (0, 1, 2), then the three of (0, 2, 1). Over every six runs, each
 * path runs twice in each place, and each ordered pair of paths is
 * adjacent exactly three times, counting the last path of a run with the
 * first of the next. Leave one path out and the other two still follow
 * each other, and themselves, equally often and start runs equally often.
 * A rotation alone does not do this for three paths: path 0 then follows
 * path 2 in two runs of three, and path 1 follows it in one.
 *
 * Balanced exactly after a multiple of six runs; after another count the
 * last partial cycle tips the balance by at most one pair.
 */
#ifndef PAGEPOOL_TOOLS_RUN_ORDER_H
#define PAGEPOOL_TOOLS_RUN_ORDER_H

#define RUN_ORDER_PATHS		3
#define RUN_ORDER_CYCLE		6

/* The path that runs @k-th (0-2) in run @r. */
static inline unsigned int
run_order_of(unsigned int r, unsigned int k)
{
	static const unsigned char order[RUN_ORDER_CYCLE][RUN_ORDER_PATHS] = {
		{ 0, 1, 2 }, { 1, 2, 0 }, { 2, 0, 1 },
		{ 0, 2, 1 }, { 2, 1, 0 }, { 1, 0, 2 },
	};

	return order[r % RUN_ORDER_CYCLE][k % RUN_ORDER_PATHS];
}

#endif /* PAGEPOOL_TOOLS_RUN_ORDER_H */
