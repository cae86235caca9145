/* SPDX-License-Identifier: MIT */
/*
 * Copyright (c) 2026 The pagepool authors
 *
 * The page allocator's per-thread paths, one thread: alloc_pages(0) +
 * __free_pages() in a loop, and the refill page_pool does -
 * alloc_pages_bulk() of 64 into an empty array, timed alone - followed by
 * __free_pages() of each. Best of ROUNDS, in TSC ticks per page on x86
 * (ns elsewhere). -p runs the pair loop alone (the CI instruction
 * budget's row, tests/perf/budget.txt).
 *
 * Usage: bench_page_alloc [-n ITERATIONS] [-r ROUNDS] [-p]
 */
#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include <pagepool/page.h>

#include "cli.h"

#define PROG "bench_page_alloc"
#define BULK 64

#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#define UNIT "tsc"
static inline uint64_t
ticks(void)
{
	return __rdtsc();
}
#else
#define UNIT "ns"
static inline uint64_t
ticks(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}
#endif

int
main(int argc, char **argv)
{
	unsigned long n = 1000000, rounds = 5, i, r, j;
	uint64_t t0, t1, t, ta, best_pair = UINT64_MAX, best_bulk = UINT64_MAX,
		 best_refill = UINT64_MAX;
	struct page *v[BULK], *p;
	static const struct option longopts[] = {
		{ "pairs-only", no_argument, NULL, 'p' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c, pairs_only = 0;

	while ((c = getopt_long(argc, argv, "n:r:ph", longopts, NULL)) != -1) {
		switch (c) {
		case 'n':
			n = pp_tool_parse_num(PROG, "-n", optarg, 1000,
					      1000000000);
			break;
		case 'r':
			rounds = pp_tool_parse_num(PROG, "-r", optarg, 1, 100);
			break;
		case 'p':
			pairs_only = 1;
			break;
		case 'h':
			printf("Usage: " PROG " [-n ITERATIONS] [-r ROUNDS] [-p] "
			       "[-h|--help]\n"
			       "Page allocator per-thread paths, one thread.\n"
			       "  -n N   pairs per round (bulk rows: N/64 "
			       "rounds of 64), default 1000000\n"
			       "  -r R   rounds, best kept, default 5\n"
			       "  -p, --pairs-only  the alloc_pages(0) + "
			       "__free_pages() row alone\n");
			return 0;
		default:
			fprintf(stderr, "Usage: " PROG
				" [-n ITERATIONS] [-r ROUNDS] [-p]\n");
			return 2;
		}
	}
	for (r = 0; r < rounds; r++) {
		t0 = ticks();
		for (i = 0; i < n; i++) {
			p = alloc_pages(GFP_KERNEL, 0);
			if (p == NULL)
				goto oom;
			*(volatile char *)page_address(p) = 1;
			__free_pages(p, 0);
		}
		t = ticks() - t0;
		if (t < best_pair)
			best_pair = t;
		if (pairs_only)
			continue;

		ta = 0;
		t0 = ticks();
		for (i = 0; i < n / BULK; i++) {
			memset(v, 0, sizeof(v));
			t1 = ticks();
			if (alloc_pages_bulk(GFP_KERNEL, BULK, v) != BULK)
				goto oom;
			ta += ticks() - t1;
			for (j = 0; j < BULK; j++)
				__free_pages(v[j], 0);
		}
		t = ticks() - t0;
		if (t < best_bulk)
			best_bulk = t;
		if (ta < best_refill)
			best_refill = ta;
	}
	printf("alloc_pages(0) + __free_pages():              %6.1f %s per "
	       "pair\n",
	       (double)best_pair / n, UNIT);
	if (pairs_only)
		goto done;
	printf("alloc_pages_bulk(%d) + __free_pages() each:    %6.1f %s per "
	       "page\n",
	       BULK, (double)best_bulk / (n / BULK * BULK), UNIT);
	printf("  of which the refill, alloc_pages_bulk(%d): %6.1f %s per "
	       "page\n",
	       BULK, (double)best_refill / (n / BULK * BULK), UNIT);
done:
	printf("(best of %lu rounds of %lu)\n", rounds, n);
	return 0;
oom:
	fprintf(stderr, PROG ": out of memory\n");
	return 1;
}
