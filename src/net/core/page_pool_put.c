/* SPDX-License-Identifier: MIT */
/*
 * Copyright (c) 2026 The pagepool authors
 *
 * page_pool return paths: the recycle decision for a page whose last pool
 * reference was dropped (alloc cache, ring, or release), the ring produce
 * with its statistics inside the producer lock, and the bulk return of
 * pages from any mix of pools.
 *
 * The rule every function here keeps (see page_pool.c): the pool is only
 * touched while the caller still holds a page of it, and a ring produce
 * that succeeded is the last touch.
 */
#include <errno.h>
#include <stdio.h>

#include "lib/test_hooks.h"
#include "page_pool_priv.h"

/* Pages produced into a ring per producer-lock section in bulk returns
 * (the kernel's XDP_BULK_QUEUE_SIZE). */
#define PP_BULK_SIZE 16

/*
 * The decision, short of the ring: returns @page if it should go to the
 * ring, NULL if it was cached or released.
 */
static struct page *
put_decide(struct page_pool *pool, struct page *page, int dma_sync_size,
	   bool allow_direct)
{
	if (PP_LIKELY(page_ref_count(page) == 1 &&
		      !page_is_pfmemalloc(page))) {
		/* Poison first: the device must see the page as synced. */
		if (PP_DEBUG)
			__page_pool_debug_recycle(pool, page);
		if (pp_load_relaxed(&pool->dma_sync))
			_pp_dma_sync_for_device(pool, page, dma_sync_size,
						allow_direct);
		if (allow_direct) {
			if (pool->alloc.count < PP_ALLOC_CACHE_SIZE) {
				pool->alloc.cache[pool->alloc.count++] = page;
				__pp_stat_inc(
					pool->owner_recycle_stats.cached);
				return NULL;
			}
			__pp_stat_inc(pool->owner_recycle_stats.cache_full);
		}
		return page;
	}
	/*
	 * Someone else holds a page reference (or it came from emergency
	 * reserves): the pool lets go of it and the last holder frees it.
	 */
	_pp_released_refcnt_inc(pool);
	_pp_return_page(pool, page);
	return NULL;
}

/* @hooked: with the test builds' delay points (a constant: see
 * put_in_ring_delayed()). */
static inline __attribute__((always_inline)) bool
recycle_in_ring(struct page_pool *pool, struct page *page, bool hooked)
{
	bool ok;

	pp_spin_lock(&pool->ring.producer_lock);
	ok = __ptr_ring_produce(&pool->ring, page) == 0;
	/* Counted inside the lock: after a successful produce and the
	 * unlock, the pool may be gone (counted after the unlock,
	 * tests/genmc/page_pool_destroy.c finds a race with the free). */
	if (ok)
		__pp_stat_inc(pool->ring_recycle_stats.ring);
	else
		__pp_stat_inc(pool->ring_recycle_stats.ring_full);
	if (hooked)
		PP_TEST_DELAY(PP_TP_RING_PRODUCED);
	pp_spin_unlock(&pool->ring.producer_lock);
	if (hooked)
		PP_TEST_DELAY(PP_TP_RING_UNLOCKED);
	return ok;
}

#if PP_TEST_HOOKS
/*
 * The ring put with its delay points, out of line: a call between the
 * produce and the return would make the fast path keep the page and the
 * pool in saved registers, and cost it a tenth (tests/perf/budget.txt).
 * This way the test builds' fast path pays one test.
 */
static void __attribute__((noinline, cold))
put_in_ring_delayed(struct page_pool *pool, struct page *page)
{
	if (!recycle_in_ring(pool, page, true))
		_pp_return_page(pool, page);
}
#endif

void
__page_pool_put_page(struct page_pool *pool, struct page *page,
		     int dma_sync_size, bool allow_direct)
{
	page = put_decide(pool, page, dma_sync_size, allow_direct);
	if (page == NULL)
		return;
#if PP_TEST_HOOKS
	if (PP_TEST_HOOKS_ARMED()) {
		put_in_ring_delayed(pool, page);
		return;
	}
#endif
	if (recycle_in_ring(pool, page, false))
		return;
	/* Ring full: the page is still ours, and so is the pool. */
	_pp_return_page(pool, page);
}

void
page_pool_free_va(struct page_pool *pool, void *va, bool allow_direct)
{
	struct page *page = virt_to_page(va);

	if (pool == NULL || page == NULL) {
		errno = EINVAL;
		return;
	}
	page = compound_head(page);
	/*
	 * An address is easily one of another allocator's pages: out of
	 * line, the signature and the pool are checked in every build,
	 * which the inline page_pool_put_page() leaves to debug builds.
	 */
	if (PP_UNLIKELY((page->pp_magic & PP_MAGIC_MASK) != PP_SIGNATURE ||
			page->pp != pool)) {
		errno = EINVAL;
		if (PP_DEBUG)
			__page_pool_debug_put(pool, page, allow_direct);
		return;
	}
	page_pool_put_page(pool, page, -1, allow_direct);
}

/*
 * Produce @bulk[0..count) under one producer-lock section. On a full ring,
 * count ring_full once and release the rest outside the lock.
 */
static void
recycle_ring_bulk(struct page_pool *pool, struct page **bulk,
		  unsigned int count)
{
	unsigned int i;

	pp_spin_lock(&pool->ring.producer_lock);
	for (i = 0; i < count; i++) {
		if (__ptr_ring_produce(&pool->ring, bulk[i]) != 0) {
			__pp_stat_inc(pool->ring_recycle_stats.ring_full);
			break;
		}
	}
#if PAGE_POOL_STATS
	pp_store_relaxed(&pool->ring_recycle_stats.ring,
			 pool->ring_recycle_stats.ring + i);
#endif
	PP_TEST_DELAY(PP_TP_RING_PRODUCED);
	pp_spin_unlock(&pool->ring.producer_lock);
	PP_TEST_DELAY(PP_TP_RING_UNLOCKED);
	/* Only pages that did not fit are still ours (and keep the pool
	 * alive while we release them). */
	for (; i < count; i++)
		_pp_return_page(pool, bulk[i]);
}

void
page_pool_put_page_bulk(struct page **data, unsigned int count)
{
	unsigned int i, n = 0;

	if (data == NULL)
		return;
	/* Pass 1: keep the pages whose last pool reference this is. */
	for (i = 0; i < count; i++) {
		struct page *page;

		if (data[i] == NULL)
			continue;
		page = compound_head(data[i]);
		/*
		 * With no pool argument, page->pp is all there is to go by,
		 * and in a page that is not a pool page it is whatever its
		 * owner left there: check the signature before using it, in
		 * every build (one compare, on a line the unref loads
		 * anyway).
		 */
		if (PP_UNLIKELY((page->pp_magic & PP_MAGIC_MASK) !=
				PP_SIGNATURE)) {
			_pp_debug_bulk_foreign(page);
			continue;
		}
		if (PP_DEBUG && !__page_pool_debug_put(page->pp, page, false))
			continue;
		if (page_pool_unref_and_test(page))
			data[n++] = page;
	}

	/* Then one pool at a time; pages of other pools move to the front
	 * for the next round. */
	while (n > 0) {
		struct page_pool *pool = data[0]->pp;
		struct page *bulk[PP_BULK_SIZE];
		unsigned int foreign = 0, nb = 0;
		bool allow_direct =
			pp_load_relaxed(&pool->owner) == pp_thread_self();

		for (i = 0; i < n; i++) {
			struct page *page = data[i];

			if (page->pp != pool) {
				data[foreign++] = page;
				continue;
			}
			page = put_decide(pool, page, -1, allow_direct);
			if (page == NULL)
				continue;
			bulk[nb++] = page;
			if (nb == PP_BULK_SIZE) {
				recycle_ring_bulk(pool, bulk, nb);
				nb = 0;
			}
		}
		if (nb > 0)
			recycle_ring_bulk(pool, bulk, nb);
		n = foreign;
	}
}
