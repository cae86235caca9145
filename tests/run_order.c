// SPDX-License-Identifier: MIT
/*
 * Copyright (c) 2026 The pagepool authors
 *
 * run_order_of() (tools/lib/run_order.h), the order tap_net_test runs its
 * three paths in: over every six runs each path runs twice in each place,
 * and each path follows each other one equally often, the last path of a
 * run followed by the first of the next counted too, with all three paths
 * and with any two of them. The rotation it replaced fails the pair
 * counts.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "run_order.h"

static int failures;

#define CHECK(cond, ...)                                                      \
	do {                                                                  \
		if (!(cond)) {                                                \
			fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__);  \
			fprintf(stderr, __VA_ARGS__);                         \
			fputc('\n', stderr);                                  \
			failures++;                                           \
		}                                                             \
	} while (0)

/*
 * Run @runs runs (whole cycles) of the paths in @mask (bit p for path p)
 * in the order run_order_of() gives, and count how often path b came
 * right after path a (@follow[a][b]; the last path of the last run is
 * followed by the first of the first, as the next cycle starts) and how
 * often each path ran first in a run (@first).
 */
static void
count(unsigned int runs, unsigned int mask,
      unsigned int follow[RUN_ORDER_PATHS][RUN_ORDER_PATHS],
      unsigned int first[RUN_ORDER_PATHS])
{
	int prev = -1, head = -1;

	memset(follow, 0, sizeof(unsigned int) * RUN_ORDER_PATHS *
				  RUN_ORDER_PATHS);
	memset(first, 0, sizeof(unsigned int) * RUN_ORDER_PATHS);
	for (unsigned int r = 0; r < runs; r++) {
		int firsthere = 1;

		for (unsigned int k = 0; k < RUN_ORDER_PATHS; k++) {
			unsigned int p = run_order_of(r, k);

			if (!(mask & 1u << p))
				continue;
			if (firsthere)
				first[p]++;
			firsthere = 0;
			if (prev >= 0)
				follow[prev][p]++;
			else
				head = (int)p;
			prev = (int)p;
		}
	}
	follow[prev][head]++;
}

static void
test_every_order_once(void)
{
	unsigned int seen = 0;

	for (unsigned int r = 0; r < RUN_ORDER_CYCLE; r++) {
		unsigned int a = run_order_of(r, 0), b = run_order_of(r, 1),
			     c = run_order_of(r, 2);

		CHECK(a < 3 && b < 3 && c < 3 && a != b && b != c && a != c,
		      "run %u: (%u %u %u) is not an order of the three paths",
		      r, a, b, c);
		seen |= 1u << (a * 9 + b * 3 + c);
	}
	CHECK(__builtin_popcount(seen) == RUN_ORDER_CYCLE,
	      "the six runs of a cycle do not take six different orders");
}

static void
test_three_paths(void)
{
	unsigned int follow[3][3], first[3], place[3][3] = { { 0 } };

	/* 24 runs: 72 paths run, 72 adjacencies, 12 for each ordered pair
	 * of two different paths. */
	count(4 * RUN_ORDER_CYCLE, 7, follow, first);
	for (unsigned int a = 0; a < 3; a++)
		for (unsigned int b = 0; b < 3; b++)
			CHECK(follow[a][b] == (a != b ? 12u : 0u),
			      "path %u after path %u %u times of 72, not %u",
			      b, a, follow[a][b], a != b ? 12 : 0);
	for (unsigned int r = 0; r < 4 * RUN_ORDER_CYCLE; r++)
		for (unsigned int k = 0; k < 3; k++)
			place[run_order_of(r, k)][k]++;
	for (unsigned int p = 0; p < 3; p++)
		for (unsigned int k = 0; k < 3; k++)
			CHECK(place[p][k] == 8,
			      "path %u in place %u %u times of 24, not 8", p, k,
			      place[p][k]);
}

static void
test_two_paths(void)
{
	for (unsigned int out = 0; out < 3; out++) {
		unsigned int follow[3][3], first[3];
		unsigned int a = (out + 1) % 3, b = (out + 2) % 3;

		count(4 * RUN_ORDER_CYCLE, 7 & ~(1u << out), follow, first);
		CHECK(follow[a][b] == follow[b][a],
		      "without path %u: %u after %u %u times, %u after %u %u times",
		      out, b, a, follow[a][b], a, b, follow[b][a]);
		CHECK(follow[a][a] == follow[b][b],
		      "without path %u: %u after itself %u times, %u %u times",
		      out, a, follow[a][a], b, follow[b][b]);
		CHECK(first[a] == first[b],
		      "without path %u: %u first in %u runs, %u in %u", out, a,
		      first[a], b, first[b]);
	}
}

int
main(void)
{
	test_every_order_once();
	test_three_paths();
	test_two_paths();
	if (failures != 0) {
		fprintf(stderr, "run_order: %d failed\n", failures);
		return 1;
	}
	printf("run_order: ok\n");
	return 0;
}
