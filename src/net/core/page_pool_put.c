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
#include <string.h>

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

/*
 * A return that is not direct goes through the calling thread's return
 * stash (page_pool_stash.c) if the pool has an owner: an ownerless pool
 * has no allocation thread that could be on another CPU, and its returns
 * go to the ring at once, as in the kernel. Tested inline so that such a
 * pool's ring path does not pay a call.
 */
static inline __attribute__((always_inline)) bool
stash_ok(const struct page_pool *pool, bool allow_direct)
{
	/* Relaxed: set before the pool is shared or by the owner itself;
	 * pairs with nothing (as in __page_pool_put_unrefed()). */
	return !allow_direct && pp_load_relaxed(&pool->owner) != 0;
}

#if PP_TEST_HOOKS
/*
 * The ring put with its delay points, out of line: a call between the
 * produce and the return would make the fast path keep the page and the
 * pool in saved registers, and cost it a tenth (tests/perf/budget.txt).
 * This way the test builds' ring path pays one test, and their stash
 * and alloc-cache paths, which have no delay point, none.
 */
static void __attribute__((noinline, cold))
put_in_ring_delayed(struct page_pool *pool, struct page *page)
{
	if (!recycle_in_ring(pool, page, true))
		_pp_return_page(pool, page);
}
#endif

void
_pp_put_in_ring(struct page_pool *pool, struct page *page)
{
#if PP_TEST_HOOKS
	if (PP_TEST_HOOKS_ARMED()) {
		put_in_ring_delayed(pool, page);
		return;
	}
#endif
	if (recycle_in_ring(pool, page, false))
		return;
	/* Ring full: the page is still ours, and so is the pool. */
	PP_TRACE(ring_full, pool, pool->id, 1);
	_pp_return_page(pool, page);
}

/*
 * A put that is not direct of a page the caller holds alone, with
 * nothing to sync: put_decide() would hand it to the ring path, which
 * sends it to the caller's return stash if the pool has an owner (it is
 * not the caller: the put is not direct) and into the ring otherwise.
 * Taken first, with one tail call, so that these common cases pay no
 * frame here (debug builds take the general path). The test builds'
 * armed delay points need no test here: the only ring produce on this
 * path, _pp_put_in_ring() (an ownerless pool's, or a stashless
 * thread's), tests for them.
 */
static PP_ALWAYS_INLINE bool
put_ring_ok(const struct page *page)
{
	return !PP_DEBUG && page_ref_count(page) == 1 &&
	       !page_is_pfmemalloc(page);
}

/* Everything but the common remote case: out of line, so that its frame
 * is not paid by that case. */
static __attribute__((noinline)) void
put_page_general(struct page_pool *pool, struct page *page,
		 int dma_sync_size, bool allow_direct)
{
	page = put_decide(pool, page, dma_sync_size, allow_direct);
	if (page == NULL)
		return;
#if PP_TEST_HOOKS
	if (PP_TEST_HOOKS_ARMED()) {
		if (stash_ok(pool, allow_direct) && _pp_stash_put(pool, page))
			return;
		put_in_ring_delayed(pool, page);
		return;
	}
#endif
	/* Not the owner: the return stash batches the ring produce. */
	if (stash_ok(pool, allow_direct) && _pp_stash_put(pool, page))
		return;
	if (recycle_in_ring(pool, page, false))
		return;
	/* Ring full: the page is still ours, and so is the pool. */
	PP_TRACE(ring_full, pool, pool->id, 1);
	_pp_return_page(pool, page);
}

void
__page_pool_put_page(struct page_pool *pool, struct page *page,
		     int dma_sync_size, bool allow_direct)
{
	/* The owner's recycle of a page it holds alone into the alloc
	 * cache, with its sync for the device (the inline put's fast path
	 * when the pool syncs): as the kernel's __page_pool_put_page(). */
	if (allow_direct && PP_LIKELY(put_ring_ok(page) &&
				      pool->alloc.count < PP_ALLOC_CACHE_SIZE)) {
		/* A leaf when the sync is (a driver's poll on the plain
		 * identity device): no frame; put_decide() syncs in full. */
		if (pp_load_relaxed(&pool->dma_sync) &&
		    !_pp_pool_dma_sync_held(pool,
					    _pp_dma_sync_len(pool,
							     dma_sync_size),
					    false))
			goto general;
		pool->alloc.cache[pool->alloc.count++] = page;
		__pp_stat_inc(pool->owner_recycle_stats.cached);
		return;
	}
	/* Relaxed, pairs with nothing: as in put_decide(). */
	if (!allow_direct && PP_LIKELY(put_ring_ok(page) &&
				       !pp_load_relaxed(&pool->dma_sync))) {
		/* Not the owner: the return stash batches the ring produce
		 * (stash_ok(), tested here). */
		if (stash_ok(pool, false)) {
			_pp_stash_put_remote(pool, page);
			return;
		}
		_pp_put_in_ring(pool, page);
		return;
	}
general:
	put_page_general(pool, page, dma_sync_size, allow_direct);
}

/* The kernel's exported put of an unrefed page, out of line on purpose. */
void
page_pool_put_unrefed_page(struct page_pool *pool, struct page *page,
			   int dma_sync_size, bool allow_direct)
{
	if (PP_DEBUG && !__page_pool_debug_put(pool, page, allow_direct))
		return;
	__page_pool_put_unrefed(pool, page, dma_sync_size, allow_direct);
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
 * count ring_full once (the kernel's bulk return), or once per page that
 * did not fit with @full_each (the return stash, whose pages were single
 * puts to their callers), and release the rest outside the lock.
 */
void
_pp_recycle_ring_bulk(struct page_pool *pool, struct page **bulk,
		      unsigned int count, bool full_each)
{
	unsigned int i;

	pp_spin_lock(&pool->ring.producer_lock);
	/* One batched produce (the producer index in a register, the wrap
	 * tested once per run); no page here is NULL, so it stops only at a
	 * full slot. */
	i = (unsigned int)__ptr_ring_produce_batched(&pool->ring,
						     (void **)bulk, (int)count);
	if (i < count) {
#if PAGE_POOL_STATS
		pp_store_relaxed(&pool->ring_recycle_stats.ring_full,
				 pool->ring_recycle_stats.ring_full +
					 (full_each ? count - i : 1));
#endif
		PP_TRACE(ring_full, pool, pool->id, count - i);
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

/*
 * bulk_direct()'s page-by-page run, over the @count pages the cache has
 * room for from slot @c: the pages up to the first that fails go into
 * the cache. Out of line, so that the whole-batch path keeps no register
 * for it.
 *
 * The run's shape: pp_magic overlays compound_head, so a word that
 * matches the signature with bits 0 and 1 clear is a head page (bit 0
 * would mark a tail) that is not pfmemalloc (bit 1): a tail page, like any
 * other mismatch, goes to the general path, which takes compound_head()
 * first. Every field read lies in the page's own struct
 * page (one cache line), so reading them for a page that then fails the
 * test is harmless.
 */
static __attribute__((noinline)) unsigned int
bulk_direct_run(struct page_pool *pool, uint32_t c, struct page **data,
		unsigned int count)
{
	unsigned long magic = 0;
	unsigned int i;

	for (i = 0; i < count; i++) {
		struct page *page = data[i];
		unsigned long bad;

		if (PP_UNLIKELY(page == NULL))
			break;
		/* The pages before passed: their signature bits are clear. */
		bad = __pp_recycle_bad(pool, page, &magic);
		if (PP_UNLIKELY((bad | (magic & (PP_MAGIC_MASK | 0x3UL))) != 0))
			break;
	}
	__pp_cache_bulk_add(pool, c, data, i);
	return i;
}

/*
 * The owner giving back pages of its own pool that it holds alone: the
 * case page_pool_alloc_pages_bulk() pairs with. Every page is checked as
 * put_decide() checks it (the pool's signature, this pool, a sole page
 * reference and a sole pool reference, not pfmemalloc), with no sync for
 * the device and room in the alloc cache for them all. The common case,
 * a whole batch that passes, is one pass that only reads (each page's
 * tests accumulated into two words, no branch per page but the NULL
 * test), then one copy into the cache and one statistics store: see
 * pp_bulk_recyclable() in page_pool.h; the page tests and the copy are
 * the header's inlines, as in its inline fast path. Both passes test a
 * page with __pp_recycle_bad(), the bulk paths' one A3. When some page
 * fails, nothing has been written yet, and the batch goes page by page
 * (bulk_direct_run()): straight into the cache while each page passes,
 * the first that does not and the rest to the general path, which
 * decides each page on its own (so one bad page costs the batch its fast
 * path, never a page).
 * Returns how many pages it took.
 * Context: @pool's owner (page_pool_put_page_bulk() read data[0]'s pool
 * and compared its owner).
 */
static unsigned int
bulk_direct(struct page_pool *pool, struct page **data, unsigned int count)
{
	unsigned int room;
	uint32_t c;

	/* What __pp_cache_bulk_fits() tests after the owner: the sync,
	 * then the room, read once for the whole batch and for the run
	 * alike. Relaxed, pairs with nothing: as in that function. */
	if (pp_load_relaxed(&pool->dma_sync))
		return 0;
	c = pool->alloc.count;
	room = PP_ALLOC_CACHE_SIZE - c;
	if (PP_LIKELY(count <= room && pp_bulk_recyclable(pool, data, count))) {
		__pp_cache_bulk_add(pool, c, data, count);
		return count;
	}
	return bulk_direct_run(pool, c, data, count < room ? count : room);
}

/*
 * A thread that is not the owner giving back pages of one pool that has
 * an owner, each held alone, with nothing to sync: what its single puts
 * would do page by page (put_ring_ok(), then _pp_stash_put_remote()),
 * without the general path's decision per page. The same read-only test
 * as the owner's batch (pp_bulk_recyclable()), then the whole batch into
 * this thread's return stash (_pp_stash_put_remote_bulk(), which keeps
 * the pool alive as it goes: the pages not yet stashed are in flight).
 * All or none: a batch with a page that fails, of another pool included,
 * goes to the general path whole.
 * Context: a thread that is not @pool's owner, and @pool has one
 * (page_pool_put_page_bulk() compared it).
 */
static unsigned int
bulk_remote(struct page_pool *pool, struct page **data, unsigned int count)
{
	/* Relaxed, pairs with nothing: as in put_decide(). */
	if (PP_TEST_HOOKS_ARMED() || pp_load_relaxed(&pool->dma_sync) ||
	    !pp_bulk_recyclable(pool, data, count))
		return 0;
	_pp_stash_put_remote_bulk(pool, data, count);
	return count;
}

/* Everything bulk_direct() did not take: out of line, so that a batch the
 * owner recycles whole pays none of this path's registers and stack. */
static __attribute__((noinline)) void
put_page_bulk_general(struct page **data, unsigned int count)
{
	unsigned int i, n = 0;

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
			if (stash_ok(pool, allow_direct) &&
			    _pp_stash_put(pool, page))
				continue;
			bulk[nb++] = page;
			if (nb == PP_BULK_SIZE) {
				_pp_recycle_ring_bulk(pool, bulk, nb, false);
				nb = 0;
			}
		}
		if (nb > 0)
			_pp_recycle_ring_bulk(pool, bulk, nb, false);
		n = foreign;
	}
}

/* The name in parentheses: a translation unit that sees the header's
 * inline macro (the GenMC harnesses include this file) still defines the
 * function. */
void
(page_pool_put_page_bulk)(struct page **data, unsigned int count)
{
	struct page_pool *pool;
	unsigned long owner;
	unsigned int n = 0;

	if (data == NULL)
		return;
	/*
	 * The first page's pool and that pool's owner, read once for both
	 * fast paths: they pick the owner's batch or a non-owner's, and
	 * each tests every page it takes (pp_bulk_recyclable() or the
	 * run's __pp_recycle_bad()). Debug builds take the general path,
	 * which checks every page on its own.
	 */
	if (!PP_DEBUG && __pp_bulk_pool(data, count, &pool)) {
		/* Relaxed: only the owner itself matches, and an ownerless
		 * pool has no stash; pairs with nothing (as in
		 * __pp_cache_bulk_fits() and stash_ok()). */
		owner = pp_load_relaxed(&pool->owner);
		if (owner == pp_thread_self())
			n = bulk_direct(pool, data, count);
		else if (owner != 0)
			n = bulk_remote(pool, data, count);
	}
	if (n < count)
		put_page_bulk_general(data + n, count - n);
}

/*
 * The owner's trusted bulk recycle (see page_pool.h): the batch-level
 * tests the header's inline path makes, then one copy into the alloc
 * cache; any test failing sends the batch to the checked bulk put. Debug
 * builds test every page first (_pp_debug_recycle_bulk()), and a batch
 * with a page that breaks the contract goes to the checked put, which
 * decides each page on its own.
 */
void
(page_pool_recycle_direct_bulk)(struct page_pool *pool, struct page **pages,
				unsigned int n)
{
	uint32_t c;
	unsigned int i;

	if (pages == NULL) {
		if (n > 0 || pool == NULL)
			errno = EINVAL;
		return;
	}
	if (pool == NULL) {
		/* No pool to trust: each page to its own, checked. */
		errno = EINVAL;
		if (PP_DEBUG)
			_pp_debug_recycle_bulk_nopool(n);
		(page_pool_put_page_bulk)(pages, n);
		return;
	}
	if (PP_DEBUG) {
		bool bad = false;

		n = _pp_debug_recycle_bulk(pool, pages, n, &bad);
		if (bad) {
			(page_pool_put_page_bulk)(pages, n);
			return;
		}
	}
	if (!__pp_cache_bulk_fits(pool, n, &c)) {
		(page_pool_put_page_bulk)(pages, n);
		return;
	}
	if (PP_DEBUG)
		for (i = 0; i < n; i++)
			__page_pool_debug_recycle(pool, pages[i]);
	__pp_cache_bulk_add(pool, c, pages, n);
}
