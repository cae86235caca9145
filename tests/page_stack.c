/* SPDX-License-Identifier: MIT */
/*
 * Copyright (c) 2026 The pagepool authors
 *
 * The thread cache's order-0 stack and the freeing path's region cache:
 * a page is prepared for its next allocation when it enters the stack, so
 * whatever its last user left in the first word (a list link, the
 * pfmemalloc bit) is gone when it is handed out again, with a count of 1;
 * misuse on the fast path is still reported (a double free, a wrong order,
 * a tail page) and leaves the stack as it was; the stack spills above its
 * high mark and refills from the zone; frees alternating between the
 * default source and another one (the region cache missing each time) put
 * each page back in its own zone's cache.
 */
#include "page_helpers.h"

#define HIGH0 256	/* the stack's high mark (page_alloc.c) */

static void
test_prepared_on_entry(void)
{
	struct page *p, *q;

	p = alloc_pages(GFP_KERNEL, 0);
	CHECK(p != NULL);
	set_page_pfmemalloc(p);
	CHECK(page_is_pfmemalloc(p));
	__free_pages(p, 0);
	q = alloc_pages(GFP_KERNEL, 0);
	CHECK(q == p);		/* LIFO: the page just freed */
	CHECK(!page_is_pfmemalloc(q));
	CHECK(!PageTail(q));
	CHECK_EQ(page_ref_count(q), 1);
	CHECK_EQ(q->compound_head, 0);

	/* A user's list link in the first word, as a driver's own list. */
	q->lru.next = &q->lru;
	q->lru.prev = &q->lru;
	put_page(q);
	p = alloc_pages(GFP_KERNEL, 0);
	CHECK(p == q);
	CHECK_EQ(p->compound_head, 0);
	CHECK(!PageTail(p));
	__free_pages(p, 0);
}

static void
test_misuse_on_fast_path(void)
{
	unsigned long n;
	struct page *p, *q, *r;

	p = alloc_pages(GFP_KERNEL, 0);
	CHECK(p != NULL);
	n = _pp_thread_cache_count(pp_mem_source_default(), NUMA_NO_NODE);
	errno = 0;
	__free_pages(p, 1);
	CHECK_EQ(errno, EINVAL);	/* not the block's order: kept */
	CHECK_EQ(page_ref_count(p), 1);
	CHECK_EQ(_pp_thread_cache_count(pp_mem_source_default(),
					NUMA_NO_NODE), n);
	errno = 0;
	__free_pages(p, 0);
	CHECK_EQ(errno, 0);
	CHECK_EQ(_pp_thread_cache_count(pp_mem_source_default(),
					NUMA_NO_NODE), n + 1);
	__free_pages(p, 0);		/* double free: reported, undone */
	CHECK_EQ(errno, EINVAL);
	CHECK_EQ(page_ref_count(p), 0);
	CHECK_EQ(_pp_thread_cache_count(pp_mem_source_default(),
					NUMA_NO_NODE), n + 1);
	/* The stack holds p once: two allocations, two pages. */
	q = alloc_pages(GFP_KERNEL, 0);
	r = alloc_pages(GFP_KERNEL, 0);
	CHECK(q == p);
	CHECK(r != NULL && r != q);
	__free_pages(r, 0);
	__free_pages(q, 0);

	/* A tail page of a compound block. */
	p = alloc_pages(GFP_KERNEL, 2);
	CHECK(p != NULL);
	errno = 0;
	__free_pages(p + 1, 0);
	CHECK_EQ(errno, EINVAL);
	CHECK_EQ(page_ref_count(p), 1);
	__free_pages(p, 2);
}

static void
test_spill_refill(void)
{
	static struct page *v[3 * HIGH0];
	struct pp_mem_source *def = pp_mem_source_default();
	unsigned int i;

	pp_thread_cache_drain();
	for (i = 0; i < 3 * HIGH0; i++) {
		v[i] = alloc_pages(GFP_KERNEL, 0);
		CHECK(v[i] != NULL);
		CHECK_EQ(page_ref_count(v[i]), 1);
	}
	for (i = 0; i < 3 * HIGH0; i++)
		__free_pages(v[i], 0);
	/* Spilled in batches above the high mark, never beyond it. */
	CHECK(_pp_thread_cache_count(def, NUMA_NO_NODE) <= HIGH0);
	CHECK(_pp_thread_cache_count(def, NUMA_NO_NODE) > HIGH0 / 2);
	/* Bulk from the stack: each page live, distinct. */
	for (i = 0; i < 3 * HIGH0; i++)
		v[i] = NULL;
	CHECK_EQ(alloc_pages_bulk(GFP_KERNEL, 3 * HIGH0, v), 3 * HIGH0);
	for (i = 0; i < 3 * HIGH0; i++) {
		CHECK_EQ(page_ref_count(v[i]), 1);
		CHECK(!PageTail(v[i]));
		CHECK_EQ(v[i]->_order, 0);
		if (i > 0)
			CHECK(v[i] != v[i - 1]);
	}
	for (i = 0; i < 3 * HIGH0; i++)
		put_page(v[i]);
}

static void
test_two_sources(void)
{
	struct pp_mem_source *src = t_capped_source(PP_MEM_ANON, 1);
	struct page *a[8], *b[8];
	unsigned long na, nb;
	int i;

	for (i = 0; i < 8; i++) {
		a[i] = alloc_pages(GFP_KERNEL, 0);
		b[i] = alloc_pages_src(src, NUMA_NO_NODE, GFP_KERNEL, 0);
		CHECK(a[i] != NULL && b[i] != NULL);
	}
	na = _pp_thread_cache_count(pp_mem_source_default(), NUMA_NO_NODE);
	nb = _pp_thread_cache_count(src, NUMA_NO_NODE);
	for (i = 0; i < 8; i++) {
		__free_pages(b[i], 0);
		__free_pages(a[i], 0);
	}
	CHECK_EQ(_pp_thread_cache_count(pp_mem_source_default(),
					NUMA_NO_NODE), na + 8);
	CHECK_EQ(_pp_thread_cache_count(src, NUMA_NO_NODE), nb + 8);
	t_check_whole(src);
	CHECK_EQ(pp_mem_source_destroy(src), 0);
}

int
main(void)
{
	test_prepared_on_entry();
	test_misuse_on_fast_path();
	test_spill_refill();
	test_two_sources();
	return 0;
}
