/* SPDX-License-Identifier: MIT */
/*
 * Copyright (c) 2026 The pagepool authors
 *
 * page_pool: bad input on the out-of-line entry points. A NULL pool is
 * refused the way the other pool functions refuse it (NULL with errno
 * EINVAL from allocations, 0 from counters, nothing done by void calls),
 * and nothing crashes. The inline fast paths (page_pool_alloc_pages(),
 * page_pool_put_page() and relatives) and __page_pool_put_page() behind
 * them are not covered: like the kernel's, they take the pool on trust.
 */
#include <errno.h>
#include <string.h>

#include <pagepool/page_pool.h>

#include "helpers.h"

static void
test_null_pool(void)
{
	CHECK_EQ(page_pool_inflight(NULL), 0);
	errno = 0;
	CHECK(__page_pool_alloc_pages_slow(NULL, GFP_KERNEL) == NULL);
	CHECK_EQ(errno, EINVAL);
	errno = 0;
	CHECK(__page_pool_alloc_pages_slow(NULL, GFP_ATOMIC) == NULL);
	CHECK_EQ(errno, EINVAL);
}

/*
 * A page that never came from a pool, in a bulk put among pool pages. The
 * block's owner may have left anything in the bytes page_pool uses; make
 * them look like a live pool page's (a pp pointer, one pp reference) so
 * that only the signature tells it apart. It is skipped, untouched, in
 * every build; the pool pages around it are recycled.
 */
static void
test_bulk_foreign(void)
{
	struct page_pool_params pp = { .nid = NUMA_NO_NODE };
	struct page_pool *pool = page_pool_create(&pp);
	struct page *plain = alloc_pages(GFP_KERNEL, 0);
	struct page *bulk[4], *a, *b;

	CHECK(pool != NULL && plain != NULL);
	plain->pp = (struct page_pool *)(uintptr_t)0xdead000;
	plain->pp_ref_count = 1;
	a = page_pool_alloc_pages(pool, GFP_KERNEL);
	b = page_pool_alloc_pages(pool, GFP_KERNEL);
	CHECK(a != NULL && b != NULL);
	CHECK_EQ(page_pool_inflight(pool), 64);
	bulk[0] = plain;
	bulk[1] = a;
	bulk[2] = plain;	/* twice: still nothing happens to it */
	bulk[3] = b;
	fprintf(stderr, "expect a report of page %p in debug builds:\n",
		(void *)plain);
	errno = 0;
	page_pool_put_page_bulk(bulk, 4);
	CHECK_EQ(errno, EINVAL);
	CHECK_EQ(page_ref_count(plain), 1);
	CHECK_EQ(plain->pp_ref_count, 1);
	/* a and b are back: the ring holds them, nothing left the pool. */
	CHECK_EQ(__ptr_ring_empty(&pool->ring), false);
	CHECK(page_pool_alloc_pages(pool, GFP_KERNEL) != NULL);
	__free_pages(plain, 0);
	page_pool_destroy(pool);
}

/*
 * The other out-of-line calls: NULL arguments, and page_pool_free_va() of
 * an address whose page is not the pool's.
 */
static void
test_other_entry_points(void)
{
	struct page_pool_params pp = { .nid = NUMA_NO_NODE };
	struct page_pool *pool = page_pool_create(&pp);
	struct page_pool *other = page_pool_create(&pp);
	struct page *page, *plain;
	unsigned int size = 256, off;
	static char not_ours[64];
	long refs;
	void *va;

	CHECK(pool != NULL && other != NULL);
	page = page_pool_alloc_pages(pool, GFP_KERNEL);
	CHECK(page != NULL);
	refs = page->pp_ref_count;

	/*
	 * The debug hooks with a NULL pool or page. (__page_pool_put_page(),
	 * the recycle decision behind the inline puts, takes its arguments
	 * on trust as they do: two compares there cost the ring path 4
	 * instructions of about 120.)
	 */
	CHECK(!__page_pool_debug_put(NULL, page, false));
	CHECK(!__page_pool_debug_put(pool, NULL, false));
	__page_pool_debug_recycle(NULL, page);
	__page_pool_debug_recycle(pool, NULL);
	__page_pool_debug_alloc(NULL, page);
	__page_pool_debug_alloc(pool, NULL);
	__page_pool_debug_destroy(NULL);
	CHECK_EQ(page->pp_ref_count, refs);
	CHECK_EQ(page_pool_inflight(pool), 64);

	/* Allocations. */
	errno = 0;
	CHECK(page_pool_alloc_frag(NULL, &off, 64, GFP_KERNEL) == NULL);
	CHECK_EQ(errno, EINVAL);
	errno = 0;
	CHECK(page_pool_alloc_frag(pool, NULL, 64, GFP_KERNEL) == NULL);
	CHECK_EQ(errno, EINVAL);
	errno = 0;
	CHECK(page_pool_alloc_frag(pool, &off, ~0u, GFP_KERNEL) == NULL);
	CHECK_EQ(errno, EINVAL);
	errno = 0;
	CHECK(page_pool_alloc(pool, &off, NULL, GFP_KERNEL) == NULL);
	CHECK_EQ(errno, EINVAL);
	errno = 0;
	CHECK(page_pool_alloc_va(NULL, &size, GFP_KERNEL) == NULL);
	CHECK_EQ(errno, EINVAL);
	errno = 0;
	CHECK(page_pool_alloc_va(pool, NULL, GFP_KERNEL) == NULL);
	CHECK_EQ(errno, EINVAL);

	/* page_pool_free_va(): nothing happens to what is not the pool's. */
	page_pool_free_va(pool, NULL, false);
	page_pool_free_va(NULL, page_address(page), false);
	errno = 0;
	page_pool_free_va(pool, not_ours, false);
	CHECK_EQ(errno, EINVAL);
	plain = alloc_pages(GFP_KERNEL, 0);
	CHECK(plain != NULL);
	plain->pp = pool;		/* stale bytes: only the signature tells */
	plain->pp_ref_count = 1;
	errno = 0;
	page_pool_free_va(pool, page_address(plain), false);
	CHECK_EQ(errno, EINVAL);
	CHECK_EQ(page_ref_count(plain), 1);
	CHECK_EQ(plain->pp_ref_count, 1);
	__free_pages(plain, 0);
	errno = 0;
	page_pool_free_va(other, page_address(page), false);
	CHECK_EQ(errno, EINVAL);
	CHECK_EQ(page->pp_ref_count, refs);
	CHECK_EQ(page_pool_inflight(pool), 64);
	CHECK_EQ(page_pool_inflight(other), 0);
	va = page_pool_alloc_va(pool, &size, GFP_KERNEL);
	CHECK(va != NULL);
	page_pool_free_va(pool, (char *)va + 10, false);

	/* Statistics and introspection. */
	CHECK(!page_pool_get_stats(NULL, NULL));
	CHECK(page_pool_ethtool_stats_get_strings(NULL) == NULL);
	CHECK(page_pool_ethtool_stats_get(NULL, NULL) == NULL);
	CHECK_EQ(page_pool_enable_direct_recycling(NULL, NULL), -EINVAL);
	CHECK_EQ(page_pool_enable_direct_recycling(pool, NULL), -EINVAL);
	page_pool_disable_direct_recycling(NULL);
	page_pool_update_nid(NULL, 0);
	page_pool_update_nid(pool, -7);
	page_pool_use_xdp_mem(NULL, NULL, NULL);
	page_pool_get(NULL);
	page_pool_destroy(NULL);

	page_pool_put_full_page(pool, page, false);
	page_pool_destroy(pool);
	page_pool_destroy(other);
}

int
main(void)
{
	test_null_pool();
	test_bulk_foreign();
	test_other_entry_points();
	return T_EXIT_PASS;
}
