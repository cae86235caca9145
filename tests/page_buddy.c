/* SPDX-License-Identifier: MIT */
/*
 * Copyright (c) 2026 The pagepool authors
 *
 * Buddy split and merge on a source capped at one region: allocating every
 * page hands out each exactly once and then fails with ENOMEM; freeing them
 * all, in any order, leaves the region one free block of the largest order
 * again. The same with random mixed orders, and single splits checked block
 * by block in the free lists.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "page_helpers.h"

#define NPAGES (1UL << MAX_PAGE_ORDER)

static unsigned int rng = 12345;

static unsigned int
rnd(void)
{
	rng = rng * 1103515245u + 12345u;
	return rng >> 8;
}

static void
shuffle(struct page **v, unsigned int *orders, size_t n)
{
	size_t i, j;
	struct page *tp;
	unsigned int to;

	for (i = n; i > 1; i--) {
		j = rnd() % i;
		tp = v[i - 1];
		v[i - 1] = v[j];
		v[j] = tp;
		to = orders[i - 1];
		orders[i - 1] = orders[j];
		orders[j] = to;
	}
}

/* Mark the pages of a block in @seen; fail on any page seen twice. */
static void
mark(unsigned char *seen, uintptr_t base, struct page *p, unsigned int order)
{
	uintptr_t idx = ((uintptr_t)page_address(p) - base) >> PAGE_SHIFT;
	unsigned long i;

	CHECK(idx + (1UL << order) <= NPAGES);
	CHECK_EQ((uintptr_t)page_address(p) & ((PAGE_SIZE << order) - 1), 0);
	for (i = 0; i < (1UL << order); i++) {
		CHECK_EQ(seen[idx + i], 0);
		seen[idx + i] = 1;
	}
}

static void
test_all_order0(struct pp_mem_source *src)
{
	static struct page *pages[NPAGES];
	static unsigned int orders[NPAGES];
	static unsigned char seen[NPAGES];
	struct _pp_zone_stats st;
	uintptr_t base = 0;
	unsigned long n = 0;
	struct page *p;

	memset(seen, 0, sizeof(seen));
	while ((p = alloc_pages_src(src, NUMA_NO_NODE, GFP_KERNEL, 0)) !=
	       NULL) {
		CHECK(n < NPAGES);
		if (base == 0)
			base = (uintptr_t)page_address(p) &
			       ~(PP_REGION_SIZE - 1);
		orders[n] = 0;
		pages[n++] = p;
		mark(seen, base, p, 0);
		/* Write the page: a page handed out twice would be
		 * detected when it is checked below. */
		memset(page_address(p), (int)(n & 0xff), PAGE_SIZE);
	}
	CHECK_EQ(errno, ENOMEM);
	CHECK_EQ(n, NPAGES);
	st = t_stats(src);
	CHECK_EQ(st.free_pages, 0);
	CHECK_EQ(st.managed_pages, NPAGES);
	CHECK_EQ(st.nr_regions, 1);
	CHECK_EQ(_pp_thread_cache_count(src, NUMA_NO_NODE), 0);
	for (n = 0; n < NPAGES; n++) {
		unsigned char *b = page_address(pages[n]);

		CHECK_EQ(b[PAGE_SIZE - 1], (n + 1) & 0xff);
	}
	shuffle(pages, orders, NPAGES);
	for (n = 0; n < NPAGES; n++)
		__free_pages(pages[n], 0);
	t_check_whole(src);
}

static void
test_mixed_orders(struct pp_mem_source *src, int round)
{
	static struct page *pages[NPAGES];
	static unsigned int orders[NPAGES];
	static unsigned char seen[NPAGES];
	uintptr_t base = 0;
	unsigned int order, fails = 0;
	unsigned long n = 0, i, j;
	struct page *p;

	memset(seen, 0, sizeof(seen));
	/* Mostly small orders, some large, until several in a row fail. */
	while (fails < 16) {
		order = rnd() % 8 == 0 ? rnd() % NR_PAGE_ORDERS : rnd() % 4;
		p = alloc_pages_src(src, NUMA_NO_NODE, GFP_KERNEL, order);
		if (p == NULL) {
			CHECK_EQ(errno, ENOMEM);
			fails++;
			continue;
		}
		if (base == 0)
			base = (uintptr_t)page_address(p) &
			       ~(PP_REGION_SIZE - 1);
		mark(seen, base, p, order);
		orders[n] = order;
		pages[n++] = p;
	}
	/* Whatever is still free fits no order that failed: fill it with
	 * order 0 pages to see the whole region accounted for. */
	while ((p = alloc_pages_src(src, NUMA_NO_NODE, GFP_KERNEL, 0)) !=
	       NULL) {
		mark(seen, base, p, 0);
		orders[n] = 0;
		pages[n++] = p;
	}
	for (i = 0; i < NPAGES; i++)
		CHECK_EQ(seen[i], 1);
	if (round & 1)
		shuffle(pages, orders, n);
	for (i = 0; i < n; i++) {
		j = round & 1 ? i : n - 1 - i;	/* shuffled, or LIFO */
		__free_pages(pages[j], orders[j]);
	}
	t_check_whole(src);
}

static void
test_split_one(struct pp_mem_source *src)
{
	struct _pp_zone_stats st;
	unsigned int order, o;
	struct page *p;

	/* Orders above the per-thread caches split exactly one block: one
	 * free buddy at each order from the allocated one up. */
	for (order = PP_PCP_MAX_ORDER + 1; order < MAX_PAGE_ORDER; order++) {
		p = alloc_pages_src(src, NUMA_NO_NODE, GFP_KERNEL, order);
		CHECK(p != NULL);
		st = t_stats(src);
		for (o = 0; o < NR_PAGE_ORDERS; o++)
			CHECK_EQ(st.nr_free[o],
				 o >= order && o < MAX_PAGE_ORDER);
		CHECK_EQ(st.free_pages, NPAGES - (1UL << order));
		__free_pages(p, order);
		t_check_whole(src);
	}
	/* Cached orders refill a batch: after a drain the region merges. */
	for (order = 0; order <= PP_PCP_MAX_ORDER; order++) {
		p = alloc_pages_src(src, NUMA_NO_NODE, GFP_KERNEL, order);
		CHECK(p != NULL);
		CHECK(_pp_thread_cache_count(src, NUMA_NO_NODE) > 0);
		CHECK_EQ(t_in_use(src), 1UL << order);
		__free_pages(p, order);
		CHECK_EQ(t_in_use(src), 0);
		t_check_whole(src);
	}
}

int
main(void)
{
	struct pp_mem_source *src = t_capped_source(PP_MEM_ANON, 1);
	struct page *p;
	int round;

	test_all_order0(src);
	test_split_one(src);
	for (round = 0; round < 6; round++)
		test_mixed_orders(src, round);

	/* A source with a page out cannot be destroyed, and still works. */
	p = alloc_pages_src(src, NUMA_NO_NODE, GFP_KERNEL, 0);
	CHECK(p != NULL);
	CHECK_EQ(pp_mem_source_destroy(src), -EBUSY);
	__free_pages(p, 0);
	p = alloc_pages_src(src, NUMA_NO_NODE, GFP_KERNEL, MAX_PAGE_ORDER);
	CHECK(p != NULL);
	__free_pages(p, MAX_PAGE_ORDER);
	CHECK_EQ(pp_mem_source_destroy(src), 0);

	/* An uncapped source grows region by region. */
	src = t_capped_source(PP_MEM_ANON, 0);
	{
		struct page *big[3];
		int i;

		for (i = 0; i < 3; i++) {
			big[i] = alloc_pages_src(src, NUMA_NO_NODE, 0,
						 MAX_PAGE_ORDER);
			CHECK(big[i] != NULL);
		}
		CHECK_EQ(t_stats(src).nr_regions, 3);
		for (i = 0; i < 3; i++)
			put_page(big[i]);
		t_check_whole(src);
	}
	CHECK_EQ(pp_mem_source_destroy(src), 0);
	return T_EXIT_PASS;
}
