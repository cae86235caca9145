/* SPDX-License-Identifier: MIT */
/*
 * Copyright (c) 2026 The pagepool authors
 *
 * page_pool: bad input on the out-of-line entry points. A NULL pool is
 * refused the way the other pool functions refuse it (NULL with errno
 * EINVAL from allocations, 0 from counters, nothing done by void calls),
 * and nothing crashes. The inline fast paths (page_pool_alloc_pages(),
 * page_pool_put_page() and relatives) are not covered: like the kernel's,
 * they take the pool on trust.
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

int
main(void)
{
	test_null_pool();
	test_bulk_foreign();
	return T_EXIT_PASS;
}
