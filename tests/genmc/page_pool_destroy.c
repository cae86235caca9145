/* SPDX-License-Identifier: MIT */
/*
 * Copyright (c) 2026 The pagepool authors
 *
 * GenMC: put versus destroy on the real page_pool sources (see
 * page_pool_env.h for the test configuration). The pool, with no owner,
 * hands two pages to two returner threads while a third destroys it:
 *
 *  - returner 0 gives its page back with page_pool_put_full_page(): it
 *    goes to the ring, under the producer lock, with the ring statistics
 *    counted inside the lock;
 *  - returner 1 holds a second page reference (get_page()), so its put
 *    releases the page from the pool (_pp_return_page(): the DMA unmap, the
 *    release-count increment R4 as its last touch of the pool), and then
 *    drops its own reference;
 *  - the destroyer calls page_pool_destroy() and, if pages were still in
 *    flight, retries page_pool_release() as the deferred-release thread
 *    would, until the pool is freed.
 *
 * With -DENV_DMA=1 the pool maps its pages and syncs them for the device:
 * returner 0's sync and returner 1's unmap race with the destroy-time
 * scrub, and the device is unbound as soon as page_pool_destroy() returns.
 *
 * Checks: nobody touches the pool after it is freed (a race with the
 * stores that free it: a statistic counted after the unlock, a release
 * without the producer-lock barrier, a count increment not ordered before
 * the in-flight read); no DMA op of the pool runs after destroy returned
 * (a race with the unbind); each page is unmapped exactly once; at the
 * end every page is back in the allocator and the pool is gone.
 *
 * PUT_BULK=1 gives returner 0's page back through page_pool_put_page_bulk()
 * instead (recycle_ring_bulk()).
 */
#include "page_pool_env.h"

#ifndef ENV_DMA
#define ENV_DMA 0
#endif
#ifndef PUT_BULK
#define PUT_BULK 0
#endif
/* Which returners run (bit 0: returner 0, bit 1: returner 1); the page of
 * one that does not is put back to the ring before the threads start. */
#ifndef RETURNERS
#define RETURNERS 3
#endif

static struct page_pool *pool;
static struct page *page_of[2];

static void *
returner(void *arg)
{
	int id = (int)(long)arg;
	struct page *page = page_of[id];

	/* Another return path (the remote-return stash, say) is another
	 * branch below, chosen by a -D flag on its own harnesses.txt line
	 * (docs/genmc.md, "Extending them"). */
	/* The packet's data: plain, the page's user wrote it. */
	((char *)page_address(page))[1] = (char)id;
	if (id == 0) {
#if PUT_BULK
		struct page *bulk[1] = { page };

		page_pool_put_page_bulk(bulk, 1);
#else
		page_pool_put_full_page(pool, page, false);
#endif
	} else {
		page_pool_put_full_page(pool, page, false);
		put_page(page);
	}
	return NULL;
}

static void *
destroyer(void *arg)
{
	(void)arg;
	page_pool_destroy(pool);
	/* The driver may unbind the device now. */
	env_dev_unbind();
	env_release_retry(pool, 2);
	return NULL;
}

int
main(void)
{
	pthread_t r0, r1, d;
	int i;

	pool = env_pool_create(ENV_DMA);
	for (i = 0; i < 2; i++) {
		page_of[i] = page_pool_alloc_pages(pool, GFP_KERNEL);
		assert(page_of[i] != NULL);
	}
	get_page(page_of[1]);

	for (i = 0; i < 2; i++) {
		if (!(RETURNERS & (1 << i)))
			returner((void *)(long)i);
	}
	if (RETURNERS & 1)
		pthread_create(&r0, NULL, returner, (void *)0L);
	if (RETURNERS & 2)
		pthread_create(&r1, NULL, returner, (void *)1L);
	pthread_create(&d, NULL, destroyer, NULL);
	if (RETURNERS & 1)
		pthread_join(r0, NULL);
	if (RETURNERS & 2)
		pthread_join(r1, NULL);
	pthread_join(d, NULL);

	for (i = 0; i < ENV_NPAGES; i++) {
		assert(!__atomic_load_n(&env_page_used[i], __ATOMIC_RELAXED));
		assert(!env_mapped[i]);
	}
	return 0;
}
