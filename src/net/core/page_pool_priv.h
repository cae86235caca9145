/* SPDX-License-Identifier: MIT */
/*
 * Copyright (c) 2026 The pagepool authors
 *
 * Private: what the page_pool source files share. page_pool.c owns the
 * lifecycle (create, destroy, deferred release, registry),
 * page_pool_alloc.c the allocation slow paths and fragments,
 * page_pool_put.c the recycle decision and release, page_pool_dma.c the
 * DMA mapping and its tracking, page_pool_stats.c the counters' readers.
 */
#ifndef PAGEPOOL_PAGE_POOL_PRIV_H
#define PAGEPOOL_PAGE_POOL_PRIV_H

#include <pagepool/page_pool.h>

/* PP_TRACE(): the USDT probes of every page_pool source file. */
#include "lib/usdt.h"

/* ---- page_pool_shm.c: the live view (PAGEPOOL_STATS=1) ---- */

/* A pool was created, destroyed with pages in flight, or is being freed. */
void _pp_shm_pool_add(struct page_pool *pool);
void _pp_shm_pool_detach(struct page_pool *pool);
void _pp_shm_pool_del(struct page_pool *pool);

/* ---- page_pool.c ---- */

/* Threaded NAPI: move the owner of @napi's pools. */
unsigned int _pp_napi_owner_move(const struct napi_struct *napi,
				 unsigned long from, unsigned long to);

/* Preferred node for refills: params.nid, or the calling thread's node. */
int _pp_pool_pref_nid(const struct page_pool *pool);

/*
 * Give @page (which entered @pool and whose pool references are gone) back
 * to the page allocator: undo the DMA mapping, count the release. The
 * release count is the last access to @pool: once it is made the pool may
 * be freed by a concurrent destroy.
 * Context: any thread holding the page.
 */
void _pp_return_page(struct page_pool *pool, struct page *page);

/* Record @page as entering @pool (pp info, hold count, init callback).
 * Context: the allocation side. */
void _pp_set_pp_info(struct page_pool *pool, struct page *page);

/* ---- page_pool_dma.c ---- */

/* Map @page for @pool's device, track it, sync max_len for the device.
 * 0 or -errno (the page is then not part of the pool). Allocation side. */
int _pp_dma_map(struct page_pool *pool, struct page *page, gfp_t gfp);

/* Undo @page's mapping if the tracking says this caller is first and
 * destroy has not revoked the device (the scrub unmaps it then). Any
 * thread holding the page. */
void _pp_dma_unmap(struct page_pool *pool, struct page *page);

/* Sync min(size, max_len) at params.offset for the device, unless destroy
 * already revoked syncing. @owner: the caller is the allocation context
 * (cannot race with destroy). */
void _pp_dma_sync_for_device(struct page_pool *pool, struct page *page,
			     int dma_sync_size, bool owner);

/*
 * A sync of @len bytes at @off of @page, which @pool mapped itself, inside
 * its block: the DMA layer's fast path (dma/dma_priv.h), which on the
 * plain identity device skips the argument checks the map already did.
 * The GenMC harnesses (tests/genmc/page_pool_env.h) model the public DMA
 * calls instead.
 */
#if !defined(PP_MODEL_CHECK)
#include "dma/dma_priv.h"
static inline void
_pp_pool_dma_sync(const struct page_pool *pool, const struct page *page,
		  size_t off, size_t len, bool for_cpu)
{
	(void)_pp_dma_sync_mapped(pool->p.dev, (dma_addr_t)page->dma_addr, off,
				  len, pool->p.dma_dir, for_cpu);
}
#define _pp_pool_dma_need_sync(pool) _pp_dma_need_sync((pool)->p.dev)
/* _pp_dma_sync_mapped_held() for @pool's device: true if it synced. */
#define _pp_pool_dma_sync_held(pool, len, for_cpu)                          \
	_pp_dma_sync_mapped_held((pool)->p.dev, (len), (for_cpu))
#else
static inline void
_pp_pool_dma_sync(const struct page_pool *pool, const struct page *page,
		  size_t off, size_t len, bool for_cpu)
{
	if (for_cpu)
		pp_dma_sync_for_cpu(pool->p.dev, (dma_addr_t)page->dma_addr,
				    off, len, pool->p.dma_dir);
	else
		pp_dma_sync_for_device(pool->p.dev,
				       (dma_addr_t)page->dma_addr, off, len,
				       pool->p.dma_dir);
}
#define _pp_pool_dma_need_sync(pool) pp_dma_dev_need_sync((pool)->p.dev)
#define _pp_pool_dma_sync_held(pool, len, for_cpu) false
#endif

/* The length a recycle syncs for the device: -1 (or anything above
 * max_len) means max_len. */
static inline unsigned int
_pp_dma_sync_len(const struct page_pool *pool, int dma_sync_size)
{
	unsigned int len = pool->p.max_len;

	if (dma_sync_size >= 0 && (unsigned int)dma_sync_size < len)
		len = (unsigned int)dma_sync_size;
	return len;
}

/*
 * _pp_dma_sync_for_cpu_napi() - the kernel's inline
 * page_pool_dma_sync_for_cpu(), for the library's drivers: the pool's
 * owner (its NAPI) syncs @size bytes at @offset past params.offset of a
 * page it took off its own RX ring, so the page is the pool's and the
 * public function's checks (which page, which pool, which thread) are the
 * driver's to vouch for. A range outside max_len goes to the public
 * function, which refuses it.
 */
static inline void
_pp_dma_sync_for_cpu_napi(const struct page_pool *pool,
			  const struct page *page, unsigned int offset,
			  unsigned int size)
{
	if (PP_LIKELY(pool->dma_map &&
		      (size_t)offset + size <= pool->p.max_len))
		_pp_pool_dma_sync(pool, page, (size_t)pool->p.offset + offset,
				  size, true);
	else
		page_pool_dma_sync_for_cpu(pool, page, offset, size);
}

#if !defined(PP_MODEL_CHECK)
#include "lib/test_hooks.h"

/*
 * A driver's poll over its pool's pages whose syncs it tallies itself
 * (dma/dma_priv.h's struct dma_sync_tally): _pp_napi_dma_fast() is
 * sampled once when the poll begins, after _pp_dma_count_hold(); while it
 * is true every sync of the pool's pages the two helpers below make is a
 * barrier and a tally in the caller's registers, which the poll adds with
 * _pp_dma_sync_tally_add() before its flush. Otherwise, and for anything
 * outside the fast case, they take the calls they stand for.
 */
static inline bool
_pp_napi_dma_fast(const struct page_pool *pool)
{
	return pool->dma_map && _pp_dma_held_plain(pool->p.dev);
}

/* _pp_dma_sync_for_cpu_napi(@pool, @page, 0, @size), tallied in @t when
 * @fast (_pp_napi_dma_fast()). */
static PP_ALWAYS_INLINE void
_pp_dma_sync_for_cpu_napi_tally(const struct page_pool *pool,
				const struct page *page, unsigned int size,
				bool fast, struct dma_sync_tally *t)
{
	if (PP_LIKELY(fast && size <= pool->p.max_len))
		_pp_dma_sync_tally(t, size, true);
	else
		_pp_dma_sync_for_cpu_napi(pool, page, 0, size);
}

/*
 * page_pool_put_page(@pool, @page, @len, true) from the pool's owner (its
 * NAPI poll): the recycle into the alloc cache inline, as
 * __page_pool_put_page()'s direct fast path makes it, with its sync for
 * the device tallied in @t when @fast (_pp_napi_dma_fast()). Everything
 * else (another holder's reference, a full cache, a slow sync, the debug
 * and test-hook builds' checks) takes the public put.
 */
static PP_ALWAYS_INLINE void
_pp_put_page_napi(struct page_pool *pool, struct page *page, unsigned int len,
		  bool fast, struct dma_sync_tally *t)
{
	if (PP_DEBUG || PP_TEST_HOOKS_ARMED() ||
	    PP_UNLIKELY(page_ref_count(page) != 1 || page_is_pfmemalloc(page) ||
			pool->alloc.count >= PP_ALLOC_CACHE_SIZE))
		goto put;
	if (!page_pool_unref_and_test(page))
		return;
	/* Relaxed: as in __page_pool_put_page(); the owner's own flag. */
	if (pp_load_relaxed(&pool->dma_sync)) {
		if (PP_UNLIKELY(!fast)) {
			__page_pool_put_page(pool, page, (int)len, true);
			return;
		}
		_pp_dma_sync_tally(t, _pp_dma_sync_len(pool, (int)len), false);
	}
	pool->alloc.cache[pool->alloc.count++] = page;
	__pp_stat_inc(pool->owner_recycle_stats.cached);
	return;
put:
	page_pool_put_page(pool, page, (int)len, true);
}
#endif

/* Destroy: revoke the device (no sync or unmap by another thread starts),
 * wait for the DMA ops in progress, unmap every tracked page (in flight or
 * not). Afterwards the pool never touches its device again. */
void _pp_dma_scrub(struct page_pool *pool);

/* Allocation and release of the tracking table. */
int _pp_dma_track_init(struct page_pool *pool);
void _pp_dma_track_free(struct page_pool *pool);

/* ---- page_pool_put.c ---- */

/* Produce @bulk[0..count) (pages of @pool whose return is decided) into
 * the ring under one producer-lock section; release what does not fit,
 * counting ring_full once, or per page with @full_each. Any thread
 * holding the pages. */
void _pp_recycle_ring_bulk(struct page_pool *pool, struct page **bulk,
			   unsigned int count, bool full_each);

/* Produce @page, whose return is decided, into @pool's ring, or release
 * it if the ring is full (page_pool_put.c). */
void _pp_put_in_ring(struct page_pool *pool, struct page *page);

/* ---- page_pool_stash.c ---- */

/* Put @page (of @pool, which has an owner that is not the caller; its
 * return decided, bound for the ring) in the
 * calling thread's return stash; false if the thread has none (go to the
 * ring). Once it returns true the caller must not touch @pool. */
bool _pp_stash_put(struct page_pool *pool, struct page *page);

/* The same for a single remote put, which never fails: a thread with no
 * stash produces @page into the ring (_pp_put_in_ring()). */
void _pp_stash_put_remote(struct page_pool *pool, struct page *page);

/* @n such pages of @pool, as @n _pp_stash_put_remote() calls would put
 * them, each run that fits in the slot with one publication. */
void _pp_stash_put_remote_bulk(struct page_pool *pool, struct page **pages,
			       unsigned int n);

/* Flush the calling thread's stash of @pool into the ring. The caller
 * keeps @pool alive otherwise (its allocation context, say). */
void _pp_stash_flush_self(struct page_pool *pool);

/* The release path: take @pool's pages out of every thread's stash and
 * release them. Returns how many. */
unsigned int _pp_stash_steal(struct page_pool *pool);

/* ---- page_pool_alloc.c ---- */

/* Return the partly used fragment page (destroy). */
void _pp_free_frag(struct page_pool *pool);

/* ---- page_pool_debug.c ---- */

/* A page without the pool signature in page_pool_put_page_bulk(): errno
 * EINVAL; debug builds also report it and count it in
 * page_pool_debug_errors(NULL). */
void _pp_debug_bulk_foreign(struct page *page);

/*
 * The checks of page_pool_recycle_direct_bulk() (PP_DEBUG builds): every
 * page of @pages[0..@n) must pass __pp_recycle_bad() for @pool. Each that
 * does not is reported and counted on @pool, and *@bad set; the array is
 * compacted to the pages the checked bulk put may still be given (a NULL
 * entry, a page that is not a pool page and a page already back in its
 * pool are dropped, as that put drops them, the second with errno
 * EINVAL). Returns how many are left. _pp_debug_recycle_bulk_nopool()
 * reports a call with a NULL pool, counted in page_pool_debug_errors(NULL).
 */
unsigned int _pp_debug_recycle_bulk(struct page_pool *pool,
				    struct page **pages, unsigned int n,
				    bool *bad);
void _pp_debug_recycle_bulk_nopool(unsigned int n);

/*
 * The leak report (PP_DEBUG builds): every page handed out is recorded
 * with its allocation call site and the last thread that touched it, until
 * it comes back. A destroyed pool's pages still out are listed when its
 * destroy stalls (_pp_debug_leak_report() at the warning) and at process
 * exit. _pp_debug_alloc_at() is __page_pool_debug_alloc() with the call
 * site given; the pool hooks come from the live view's (page_pool_shm.c),
 * which page_pool.c already calls at a deferred destroy and a free.
 */
void _pp_debug_alloc_at(struct page_pool *pool, struct page *page,
			void *site);
void _pp_debug_page_gone(struct page *page);
void _pp_debug_pool_detached(struct page_pool *pool);
void _pp_debug_pool_freed(struct page_pool *pool);
void _pp_debug_leak_report(struct page_pool *pool, const char *when);

/* ---- page_pool_stats.c ---- */

static inline void
_pp_released_refcnt_inc(struct page_pool *pool)
{
#if PAGE_POOL_STATS
	/* Any thread, no lock: an atomic add. Read by page_pool_get_stats(). */
	pp_fetch_add_relaxed(&pool->released_refcnt, 1);
#else
	(void)pool;
#endif
}

#endif /* PAGEPOOL_PAGE_POOL_PRIV_H */
