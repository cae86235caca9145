/* SPDX-License-Identifier: MIT */
/*
 * Copyright (c) 2026 The pagepool authors
 *
 * page_pool fragments: page_pool_alloc_frag() packs fragments into one page
 * with pp_ref_count taking the bias, each holder's put drops one reference
 * and only the last recycles; a drained frag page nobody holds is reused in
 * place (alloc fast + recycle cached); page_pool_alloc()'s frag-or-page
 * rule and its truesize extension; page_pool_alloc_va()/page_pool_free_va();
 * destroy returning the partly used frag page; bad arguments.
 */
#include <errno.h>
#include <string.h>

#include <pagepool/page_pool.h>

#include "page_pool_helpers.h"

static struct page_pool *
new_pool(void)
{
	struct page_pool_params pp = { .nid = NUMA_NO_NODE };
	struct page_pool *pool = page_pool_create(&pp);

	CHECK(pool != NULL);
	return pool;
}

static void
test_frag_packing(void)
{
	struct page_pool *pool = new_pool();
	struct page *p[5];
	unsigned int off[5], i;
	struct page_pool_stats s;

	/* Four 1000-byte fragments fit a 4096-byte page; the fifth does
	 * not. (On x86 fragments are not cache-line aligned, as in the
	 * kernel where dma_get_cache_alignment() is 1.) */
	for (i = 0; i < 5; i++) {
		p[i] = page_pool_alloc_frag(pool, &off[i], 1000, GFP_KERNEL);
		CHECK(p[i] != NULL);
	}
	CHECK(p[1] == p[0] && p[2] == p[0] && p[3] == p[0]);
	CHECK(p[4] != p[0]);
	CHECK_EQ(off[0], 0);
	CHECK(off[1] >= 1000 && off[2] >= off[1] + 1000 &&
	      off[3] >= off[2] + 1000 && off[3] + 1000 <= PAGE_SIZE);
	CHECK_EQ(off[4], 0);
	/* The full page was drained when the fifth was asked for: the pool
	 * gave up its bias, four holders remain. */
	CHECK_EQ(p[0]->pp_ref_count, 4);
	for (i = 0; i < 3; i++)
		page_pool_put_page(pool, p[0], -1, true);
	s = pp_test_stats(pool);
	CHECK_EQ(s.recycle_stats.cached, 0);
	page_pool_put_page(pool, p[0], -1, true);	/* the last holder */
	s = pp_test_stats(pool);
	CHECK_EQ(s.recycle_stats.cached, 1);
	/* Reset for its next use (debug builds mark a page in the pool 0). */
	CHECK_EQ(p[0]->pp_ref_count, PP_DEBUG ? 0 : 1);
	page_pool_put_page(pool, p[4], -1, true);	/* still partly used */
	page_pool_destroy(pool);	/* returns the frag page */
}

static void
test_reuse_in_place(void)
{
	struct page_pool *pool = new_pool();
	struct page *a, *b;
	unsigned int off;
	struct page_pool_stats before, after;

	a = page_pool_alloc_frag(pool, &off, 2048, GFP_KERNEL);
	page_pool_put_page(pool, a, -1, true);
	b = page_pool_alloc_frag(pool, &off, 2048, GFP_KERNEL);
	CHECK(b == a && off == 2048);
	page_pool_put_page(pool, b, -1, true);
	/* Nobody holds a fragment of the full page: it is reused in place. */
	before = pp_test_stats(pool);
	b = page_pool_alloc_frag(pool, &off, 2048, GFP_KERNEL);
	after = pp_test_stats(pool);
	CHECK(b == a && off == 0);
	CHECK_EQ(after.alloc_stats.fast, before.alloc_stats.fast + 1);
	CHECK_EQ(after.recycle_stats.cached, before.recycle_stats.cached + 1);
	page_pool_put_page(pool, b, -1, true);
	page_pool_destroy(pool);
}

static void
test_alloc_rule(void)
{
	struct page_pool *pool = new_pool();
	unsigned int off, size;
	struct page *a, *b;
	char *va;

	/* More than half a page: a whole page. */
	size = PAGE_SIZE / 2 + 1;
	a = page_pool_alloc(pool, &off, &size, GFP_KERNEL);
	CHECK(a != NULL && off == 0 && size == PAGE_SIZE);
	page_pool_put_full_page(pool, a, true);

	/* 1500 then 1500: the second would leave less than 1500, so it gets
	 * the rest of the page (truesize stays honest). */
	size = 1500;
	a = page_pool_alloc(pool, &off, &size, GFP_KERNEL);
	CHECK(a != NULL && off == 0 && size == 1500);
	size = 1500;
	b = page_pool_dev_alloc(pool, &off, &size);
	CHECK(b == a && off == 1500 && size == PAGE_SIZE - 1500);
	page_pool_put_page(pool, a, -1, true);
	page_pool_put_page(pool, b, -1, true);

	size = 256;
	va = page_pool_dev_alloc_va(pool, &size);
	CHECK(va != NULL && size == 256);
	memset(va, 0x5a, size);
	page_pool_free_va(pool, va + 100, true);	/* any address inside */
	page_pool_destroy(pool);
}

static void
test_bad_input(void)
{
	struct page_pool *pool = new_pool();
	unsigned int off = 77, size;

	errno = 0;
	CHECK(page_pool_alloc_frag(pool, &off, PAGE_SIZE + 1, GFP_KERNEL) ==
	      NULL);
	CHECK_EQ(errno, EINVAL);
	CHECK_EQ(off, 77);
	CHECK(page_pool_alloc_frag(pool, &off, 0, GFP_KERNEL) == NULL);
	CHECK(page_pool_alloc_frag(pool, NULL, 64, GFP_KERNEL) == NULL);
	CHECK(page_pool_alloc_frag(NULL, &off, 64, GFP_KERNEL) == NULL);
	CHECK(page_pool_alloc(pool, &off, NULL, GFP_KERNEL) == NULL);
	size = 0;
	CHECK(page_pool_alloc(pool, &off, &size, GFP_KERNEL) == NULL);
	CHECK_EQ(errno, EINVAL);
	CHECK(page_pool_alloc_va(pool, NULL, GFP_KERNEL) == NULL);
	page_pool_free_va(NULL, &off, true);
	page_pool_free_va(pool, &off, true);	/* not a pool page: ignored */
	CHECK_EQ(page_pool_inflight(pool), 0);
	CHECK(pool->frag_page == NULL);
	CHECK_EQ(page_pool_enable_direct_recycling(NULL, NULL), -EINVAL);
	page_pool_disable_direct_recycling(NULL);
	page_pool_update_nid(NULL, 0);
	page_pool_dma_sync_for_cpu(NULL, NULL, 0, 0);
	page_pool_destroy(pool);
}

int
main(void)
{
	test_frag_packing();
	test_reuse_in_place();
	test_alloc_rule();
	test_bad_input();
	return T_EXIT_PASS;
}
