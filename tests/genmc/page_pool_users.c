/* SPDX-License-Identifier: MIT */
/*
 * Copyright (c) 2026 The pagepool authors
 *
 * GenMC: two users of one pool destroy it concurrently, on the real
 * sources (test configuration: page_pool_env.h). The pool has a second
 * user (page_pool_get(), as page_pool_use_xdp_mem() takes for the XDP
 * memory model). The driver's thread allocates a page and recycles it
 * directly into the alloc cache (plain accesses, the owner's privilege),
 * then drops its user; the other thread drops the memory model's user.
 * Whichever drop is last releases the pool: it empties the alloc cache
 * the driver filled and frees the pool.
 *
 * Checks: the last user sees the other's work on the pool (the
 * user-count drop, R5/A5: else its reads of the alloc cache race with the
 * driver's writes), and every page is back in the allocator at the end.
 */
#include "page_pool_env.h"

static struct page_pool *pool;

static void *
driver(void *arg)
{
	struct page *page;

	(void)arg;
	page = page_pool_alloc_pages(pool, GFP_KERNEL);
	assert(page != NULL);
	page_pool_put_full_page(pool, page, true);
	page_pool_destroy(pool);
	return NULL;
}

static void *
mem_model(void *arg)
{
	(void)arg;
	page_pool_destroy(pool);
	return NULL;
}

int
main(void)
{
	pthread_t d, m;
	int i;

	pool = env_pool_create(false);
	page_pool_get(pool);
	pthread_create(&d, NULL, driver, NULL);
	pthread_create(&m, NULL, mem_model, NULL);
	pthread_join(d, NULL);
	pthread_join(m, NULL);
	/* Nothing was in flight: no release was deferred. */
	assert(!env_deferred);
	for (i = 0; i < ENV_NPAGES; i++)
		assert(!__atomic_load_n(&env_page_used[i], __ATOMIC_RELAXED));
	return 0;
}
