/* SPDX-License-Identifier: MIT */
/*
 * Copyright (c) 2026 The pagepool authors
 *
 * GenMC: fragments of one page_pool page (page_pool_alloc_frag()) dropped
 * on two threads while the pool is destroyed, on the real sources (test
 * configuration: page_pool_env.h). Each holder writes its fragment and
 * drops its pp reference with page_pool_put_page(); destroy drains the
 * bias the pool still holds (_pp_free_frag()). Whoever drops the last
 * reference recycles or releases the page: through the unref's load
 * fast path (the drain finds only its own references left) or through
 * its read-modify-write; the page then goes back to the allocator, which
 * overwrites its bytes.
 *
 * Checks: every holder's write is ordered before the page is freed (else
 * a race with the allocator's stores), the pool outlives every holder's
 * access, every page is free at the end.
 */
#include "page_pool_env.h"

#define FRAGSZ 64

static struct page_pool *pool;
static struct page *page;
static unsigned int off[2];

static void *
holder(void *arg)
{
	int id = (int)(long)arg;

	((char *)page_address(page))[off[id]] = (char)(id + 1);
	page_pool_put_page(pool, page, -1, false);
	return NULL;
}

int
main(void)
{
	pthread_t h0, h1;
	int i;

	pool = env_pool_create(false);
	page = page_pool_alloc_frag(pool, &off[0], FRAGSZ, GFP_KERNEL);
	assert(page != NULL && off[0] == 0);
	assert(page_pool_alloc_frag(pool, &off[1], FRAGSZ, GFP_KERNEL) ==
	       page && off[1] == FRAGSZ);

	pthread_create(&h0, NULL, holder, (void *)0L);
	pthread_create(&h1, NULL, holder, (void *)1L);
	page_pool_destroy(pool);
	env_release_retry(pool, 2);
	pthread_join(h0, NULL);
	pthread_join(h1, NULL);

	for (i = 0; i < ENV_NPAGES; i++)
		assert(!__atomic_load_n(&env_page_used[i], __ATOMIC_RELAXED));
	return 0;
}
