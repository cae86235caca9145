/* SPDX-License-Identifier: MIT */
/*
 * Copyright (c) 2026 The pagepool authors
 *
 * page_pool allocation beyond the inline fast path: refilling the alloc
 * cache from the ring, the bulk slow path into the page allocator, order > 0
 * blocks, and the fragment allocator (page_pool_alloc_frag, page_pool_alloc,
 * page_pool_alloc_va).
 *
 * Everything here runs in the pool's allocation context (its owner), the
 * ring's only consumer, so the ring is consumed without its lock, as in
 * the kernel. These functions are out of line on purpose: the fast path
 * stays a handful of instructions and the compiler keeps the slow path's
 * registers out of it.
 */
#include <errno.h>
#include <string.h>

#include "mm/page_alloc_priv.h"
#include "page_pool_priv.h"

/*
 * The kernel aligns fragments to dma_get_cache_alignment(): 1 where DMA is
 * cache-coherent (x86), the cache line elsewhere, so a device writing one
 * fragment never shares a non-coherent line with another.
 */
#if defined(__x86_64__) || defined(__i386__)
#define PP_FRAG_ALIGN 1u
#else
#define PP_FRAG_ALIGN ((unsigned int)SMP_CACHE_BYTES)
#endif

/* A page ptr_ring_unconsume() found no room for (producers refilled the
 * slots behind the head): it leaves the pool, as a wrong-node page does. */
static void
refill_unconsume_destroy(void *ptr)
{
	struct page *page = ptr;

	_pp_return_page(page->pp, page);
}

static __attribute__((noinline)) struct page *
refill_alloc_cache(struct page_pool *pool)
{
	struct ptr_ring *r = &pool->ring;
	struct page **cache = pool->alloc.cache;
	uint32_t count = pool->alloc.count;
	struct page *page = NULL;
	int pref_nid, want, got, i;

	/* Lockless test first: most refills of a busy pool find pages. An
	 * empty ring may be this thread's own returns, stashed when it is
	 * not the registered owner (page_pool_stash.c). */
	if (__ptr_ring_empty(r)) {
		_pp_stash_flush_self(pool);
		if (__ptr_ring_empty(r)) {
			pp_alloc_stat_inc(pool, empty);
			return NULL;
		}
	}
	pref_nid = _pp_pool_pref_nid(pool);
	/*
	 * The kernel consumes one page at a time and stops at the first on
	 * the wrong node. One batched consume straight into the cache takes
	 * the same pages (the ring's slots retired once, not per page); the
	 * pages are then checked in order.
	 */
	want = count < PP_ALLOC_CACHE_REFILL
		       ? (int)(PP_ALLOC_CACHE_REFILL - count) : 1;
	got = __ptr_ring_consume_batched(r, (void **)&cache[count], want);
	/*
	 * With one node the allocator puts every page on node 0, so the
	 * node test can only fail for another preference (which
	 * page_pool_create() and page_pool_update_nid() reject there).
	 * Skipping it saves a read of each page's struct page on the
	 * owner's side of a cross-thread return, as the kernel's test
	 * compiles away without CONFIG_NUMA.
	 */
	i = got;
	if (PP_UNLIKELY(pref_nid != 0 || _pp_numa_nr_nodes() > 1)) {
		for (i = 0; i < got; i++) {
			if (PP_UNLIKELY(page_to_nid(cache[count + i]) !=
					pref_nid))
				break;
		}
	}
	if (PP_UNLIKELY(i < got)) {
		/*
		 * Wrong node (the preference changed, or another node's
		 * thread returned it): release this one and stop, so the
		 * slow path allocates on the right node without draining the
		 * whole ring into the allocator. The pages the batch took
		 * after it go back to the head of the ring, where the kernel
		 * would have left them (a slow path: both ring locks).
		 */
		struct page *wrong = cache[count + i];

		if (i + 1 < got)
			ptr_ring_unconsume(r, (void **)&cache[count + i + 1],
					   got - i - 1,
					   refill_unconsume_destroy);
		_pp_return_page(pool, wrong);
		pp_alloc_stat_inc(pool, waive);
	}
	count += (uint32_t)i;
	pool->alloc.count = count;

	if (count > 0) {
		PP_TRACE(refill, pool, pool->id, count);
		page = cache[--count];
		pool->alloc.count = count;
		pp_alloc_stat_inc(pool, refill);
	}
	return page;
}

/* A page entering the pool: map it, then account it. */
static int
page_enter(struct page_pool *pool, struct page *page, gfp_t gfp)
{
	/* The allocator's list link shared these bytes; keep only the
	 * pfmemalloc bit. */
	page->pp_magic &= 0x2UL;
	if (pool->dma_map && _pp_dma_map(pool, page, gfp) != 0)
		return -1;
	_pp_set_pp_info(pool, page);
	return 0;
}

static struct page *
alloc_high_order(struct page_pool *pool, gfp_t gfp)
{
	struct page *page;

	page = alloc_pages_src(pool->src, pool->p.nid, gfp | __GFP_COMP,
			       pool->p.order);
	if (page == NULL)
		return NULL;
	if (page_enter(pool, page, gfp) != 0) {
		put_page(page);
		errno = ENOMEM;
		return NULL;
	}
	pp_alloc_stat_inc(pool, slow_high_order);
	PP_TRACE(alloc_pages, pool, pool->id, pool->p.order, 1);
	return page;
}

static struct page *
alloc_pages_slow(struct page_pool *pool, gfp_t gfp)
{
	struct page **cache = pool->alloc.cache;
	unsigned long got, i;

	if ((gfp & GFP_ATOMIC) == GFP_ATOMIC)
		gfp |= __GFP_NOWARN;
	if (pool->p.order > 0)
		return alloc_high_order(pool, gfp);

	/* The cache is empty: bulk-allocate straight into it. */
	for (i = 0; i < PP_ALLOC_CACHE_REFILL; i++)
		cache[i] = NULL;
	got = alloc_pages_bulk_src(pool->src, pool->p.nid, gfp,
				   PP_ALLOC_CACHE_REFILL, cache);
	for (i = 0; i < got; i++) {
		struct page *page = cache[i];

		if (page_enter(pool, page, gfp) != 0) {
			put_page(page);
			continue;
		}
		cache[pool->alloc.count++] = page;
	}
	if (pool->alloc.count == 0) {
		errno = ENOMEM;
		return NULL;
	}
	pp_alloc_stat_inc(pool, slow);
	PP_TRACE(alloc_pages, pool, pool->id, 0, pool->alloc.count);
	return cache[--pool->alloc.count];
}

/* The alloc cache is empty: the ring first, then the page allocator. Not
 * inlined, so that get_page_slow()'s path to a cached page saves no
 * registers for it. */
static __attribute__((noinline)) struct page *
get_page_refill(struct page_pool *pool, gfp_t gfp)
{
	struct page *page = refill_alloc_cache(pool);

	if (page != NULL)
		return page;
	return alloc_pages_slow(pool, gfp);
}

static struct page *
get_page_slow(struct page_pool *pool, gfp_t gfp)
{
	uint32_t count = pool->alloc.count;

	if (count > 0) {
		/* Called directly rather than from the inline fast path
		 * (bench_page_pool_simple --outline allocates this way, as
		 * the kernel's module calls its exported allocator): the
		 * same steps in the same order. */
		struct page *page = pool->alloc.cache[--count];

		pool->alloc.count = count;
		pp_alloc_stat_inc(pool, fast);
		return page;
	}
	return get_page_refill(pool, gfp);
}

struct page *
__page_pool_alloc_pages_slow(struct page_pool *pool, gfp_t gfp)
{
	struct page *page;

	if (PP_UNLIKELY(pool == NULL)) {
		errno = EINVAL;
		return NULL;
	}
	page = get_page_slow(pool, gfp);

	/* The caller's call site, not this function's. */
	if (PP_DEBUG && page != NULL)
		_pp_debug_alloc_at(pool, page, __builtin_return_address(0));
	return page;
}

/* The name in parentheses: a translation unit that sees the header's
 * inline macro (the GenMC harnesses include this file) still defines the
 * function. */
unsigned int
(page_pool_alloc_pages_bulk)(struct page_pool *pool, gfp_t gfp,
			   struct page **pages, unsigned int n)
{
	unsigned int got = 0, count, take, i;

	if (PP_UNLIKELY(pool == NULL || (pages == NULL && n > 0))) {
		errno = EINVAL;
		return 0;
	}
	while (got < n) {
		struct page *page;

		count = pool->alloc.count;
		if (count > 0) {
			/* Straight out of the cache: one copy, one count
			 * store and one statistics update for the lot. */
			take = count < n - got ? count : n - got;
			count -= take;
			__pp_copy_pages(&pages[got], &pool->alloc.cache[count],
					take);
			pool->alloc.count = count;
#if PAGE_POOL_STATS
			pp_store_relaxed(&pool->alloc_stats.fast,
					 pool->alloc_stats.fast + take);
#endif
			got += take;
			continue;
		}
		/* Empty: the ring or the page allocator refill the cache
		 * (and hand over one page). */
		page = get_page_slow(pool, gfp);
		if (page == NULL)
			break;
		pages[got++] = page;
	}
	if (PP_DEBUG)
		for (i = 0; i < got; i++)
			__page_pool_debug_alloc(pool, pages[i]);
	if (got < n)
		errno = ENOMEM;
	return got;
}

/* ---- Fragments ---------------------------------------------------------- */

/*
 * The frag page is full: drop the bias the pool still holds. If fragment
 * holders remain they own the page now; otherwise the page is ours again
 * and, if nobody else references it, reused in place.
 */
static struct page *
drain_frag(struct page_pool *pool, struct page *page)
{
	long drain_count = PP_BIAS_MAX - pool->frag_users;

	if (page_pool_unref_page(page, drain_count) != 0)
		return NULL;
	if (page_ref_count(page) == 1 && !page_is_pfmemalloc(page)) {
		if (pool->dma_sync)
			_pp_dma_sync_for_device(pool, page, -1, true);
		__pp_stat_inc(pool->owner_recycle_stats.cached);
		return page;
	}
	_pp_return_page(pool, page);
	return NULL;
}

void
_pp_free_frag(struct page_pool *pool)
{
	long drain_count = PP_BIAS_MAX - pool->frag_users;
	struct page *page = pool->frag_page;

	pool->frag_page = NULL;
	if (page == NULL || page_pool_unref_page(page, drain_count) != 0)
		return;
	_pp_return_page(pool, page);
}

struct page *
page_pool_alloc_frag(struct page_pool *pool, unsigned int *offset,
		     unsigned int size, gfp_t gfp)
{
	unsigned int max_size;
	struct page *page;

	if (pool == NULL || offset == NULL || size == 0) {
		errno = EINVAL;
		return NULL;
	}
	max_size = (unsigned int)(PAGE_SIZE << pool->p.order);
	if (size > max_size) {
		errno = EINVAL;
		return NULL;
	}
	size = (size + PP_FRAG_ALIGN - 1) & ~(PP_FRAG_ALIGN - 1);
	page = pool->frag_page;

	if (page != NULL && pool->frag_offset + size > max_size) {
		page = drain_frag(pool, page);
		if (page != NULL) {
			pp_alloc_stat_inc(pool, fast);
			goto frag_reset;
		}
	}
	if (page == NULL) {
		page = page_pool_alloc_pages(pool, gfp);
		if (page == NULL) {
			/* *offset untouched: the caller's output is only
			 * written on success. */
			pool->frag_page = NULL;
			return NULL;
		}
		pool->frag_page = page;
frag_reset:
		/* One store takes the whole bias; holders drop one each. */
		pool->frag_users = 1;
		*offset = 0;
		pool->frag_offset = size;
		page_pool_fragment_page(page, PP_BIAS_MAX);
		return page;
	}
	*offset = pool->frag_offset;
	pool->frag_users++;
	pool->frag_offset = *offset + size;
	return page;
}

struct page *
page_pool_alloc(struct page_pool *pool, unsigned int *offset,
		unsigned int *size, gfp_t gfp)
{
	unsigned int max_size;
	struct page *page;

	if (pool == NULL || offset == NULL || size == NULL || *size == 0) {
		errno = EINVAL;
		return NULL;
	}
	max_size = (unsigned int)(PAGE_SIZE << pool->p.order);
	if (*size > max_size / 2) {
		page = page_pool_alloc_pages(pool, gfp);
		if (page != NULL) {
			*size = max_size;
			*offset = 0;
		}
		return page;
	}
	page = page_pool_alloc_frag(pool, offset, *size, gfp);
	if (page == NULL)
		return NULL;
	/* Another fragment this size would not fit: give this one the rest
	 * of the page, so the caller's truesize is not an underestimate. */
	if (pool->frag_offset + *size > max_size) {
		*size = max_size - *offset;
		pool->frag_offset = max_size;
	}
	return page;
}

void *
page_pool_alloc_va(struct page_pool *pool, unsigned int *size, gfp_t gfp)
{
	unsigned int offset;
	struct page *page = page_pool_alloc(pool, &offset, size, gfp);

	if (page == NULL)
		return NULL;
	return (char *)page_address(page) + offset;
}
