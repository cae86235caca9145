/* SPDX-License-Identifier: MIT */
/*
 * Copyright (c) 2026 The pagepool authors
 *
 * page_pool_alloc_pages_bulk(): bad input, a request the alloc cache
 * covers, one that drains it and refills from the ring and from the page
 * allocator, distinct valid pages every time, the fast statistic counting
 * each page, ENOMEM with a partial result, and the round trip with
 * page_pool_put_page_bulk().
 */
#include <errno.h>
#include <string.h>

#include <pagepool/fault.h>
#include <pagepool/page_pool.h>

#include "helpers.h"
#include "page_pool_helpers.h"

#define N 300

static void
check_distinct(struct page_pool *pool, struct page **pages, unsigned int n)
{
	unsigned int i, j;

	for (i = 0; i < n; i++) {
		CHECK(pages[i] != NULL);
		CHECK(pages[i]->pp == pool);
		CHECK_EQ(page_ref_count(pages[i]), 1);
		for (j = 0; j < i; j++)
			CHECK(pages[i] != pages[j]);
	}
}

int
main(void)
{
	struct page_pool_params pp;
	struct napi_struct napi;
	struct page_pool *pool;
	struct page *pages[N], *one;
	struct page_pool_stats st;
	unsigned int got;

	errno = 0;
	CHECK_EQ(page_pool_alloc_pages_bulk(NULL, GFP_ATOMIC, pages, 1), 0);
	CHECK_EQ(errno, EINVAL);

	napi_init_current(&napi);
	memset(&pp, 0, sizeof(pp));
	pp.nid = NUMA_NO_NODE;
	pp.napi = &napi;
	pp.pool_size = 256;
	pool = page_pool_create(&pp);
	CHECK(pool != NULL);

	errno = 0;
	CHECK_EQ(page_pool_alloc_pages_bulk(pool, GFP_ATOMIC, NULL, 1), 0);
	CHECK_EQ(errno, EINVAL);
	CHECK_EQ(page_pool_alloc_pages_bulk(pool, GFP_ATOMIC, NULL, 0), 0);

	/* First call: the cache is empty, the page allocator fills it. */
	got = page_pool_alloc_pages_bulk(pool, GFP_ATOMIC, pages, 40);
	CHECK_EQ(got, 40);
	check_distinct(pool, pages, 40);
	st = pp_test_stats(pool);
	CHECK_EQ(st.alloc_stats.slow, 1);
	/* One page came with the refill, 39 straight from the cache. */
	CHECK_EQ(st.alloc_stats.fast, 39);

	/* Back into the cache (the owner: direct), then out again: all
	 * from the cache, the same pages. */
	page_pool_put_page_bulk(pages, 40);
	got = page_pool_alloc_pages_bulk(pool, GFP_ATOMIC, pages, 64);
	CHECK_EQ(got, 64);
	check_distinct(pool, pages, 64);
	CHECK_EQ(pp_test_stats(pool).alloc_stats.slow, 1);
	CHECK_EQ(pp_test_stats(pool).alloc_stats.fast, 39 + 64);

	/* More than the cache holds: refills on the way. */
	got = page_pool_alloc_pages_bulk(pool, GFP_ATOMIC, pages + 64,
					 N - 64);
	CHECK_EQ(got, N - 64);
	check_distinct(pool, pages, N);
	page_pool_put_page_bulk(pages, N);

	/* Interleaved with single allocations. */
	one = page_pool_alloc_pages(pool, GFP_ATOMIC);
	CHECK(one != NULL);
	got = page_pool_alloc_pages_bulk(pool, GFP_ATOMIC, pages, 10);
	CHECK_EQ(got, 10);
	pages[10] = one;
	check_distinct(pool, pages, 11);
	page_pool_put_page_bulk(pages, 11);

	got = page_pool_alloc_pages_bulk(pool, GFP_ATOMIC, pages, N);
	CHECK_EQ(got, N);
	page_pool_put_page_bulk(pages, N);

	/* The owner's bulk return stops its direct run at a page someone
	 * else still references: that one is released, the others cached. */
	got = page_pool_alloc_pages_bulk(pool, GFP_ATOMIC, pages, 10);
	CHECK_EQ(got, 10);
	one = pages[5];
	get_page(one);
	st = pp_test_stats(pool);
	page_pool_put_page_bulk(pages, 10);
	CHECK_EQ(pp_test_stats(pool).recycle_stats.cached,
		 st.recycle_stats.cached + 9);
	CHECK_EQ(pp_test_stats(pool).recycle_stats.released_refcnt,
		 st.recycle_stats.released_refcnt + 1);
	CHECK(one->pp == NULL);
	put_page(one);
	page_pool_disable_direct_recycling(pool);
	page_pool_destroy(pool);

	/* Page allocator failure after the cache: a partial result. */
	memset(&pp, 0, sizeof(pp));
	pp.nid = NUMA_NO_NODE;
	pool = page_pool_create(&pp);
	CHECK(pool != NULL);
	got = page_pool_alloc_pages_bulk(pool, GFP_ATOMIC, pages, 10);
	CHECK_EQ(got, 10);
	/* The cache holds 54; fail every page allocator call after. */
	pp_fault_inject_alloc(0, -1);
	errno = 0;
	got = page_pool_alloc_pages_bulk(pool, GFP_ATOMIC, pages + 10, 100);
	pp_fault_inject_alloc(-1, 0);
	CHECK_EQ(got, 54);
	CHECK_EQ(errno, ENOMEM);
	check_distinct(pool, pages, 64);
	page_pool_put_page_bulk(pages, 64);
	page_pool_destroy(pool);
	return T_EXIT_PASS;
}
