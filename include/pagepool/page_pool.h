/* SPDX-License-Identifier: MIT */
/*
 * Copyright (c) 2026 The pagepool authors
 *
 * DOC: page_pool — a recycling page allocator for packet processing
 *
 * The kernel's page_pool (net/core/page_pool.c) with its names and
 * semantics. A pool hands out pages (2^order blocks) to one allocating
 * context, the owner: the RX thread of a NIC queue, an AF_XDP poll loop, an
 * io_uring completion loop. Pages come back from anywhere:
 *
 *   owner allocates  ->  alloc cache (LIFO, 128)  <- owner recycles
 *                              ^ refill 64
 *   other threads return ->  ptr_ring (1024..16384)
 *                              ^ bulk slow path: the page allocator
 *
 * Allocation pops the alloc cache: no lock, no atomic read-modify-write.
 * When it is empty the cache refills from the ring (the owner is the
 * ring's only consumer, so that is lockless too) and, when the ring is
 * empty, from the page allocator in bulk (alloc_pages_bulk). A page put by
 * the owner goes straight back into the cache; a page put by any other
 * thread goes into the ring under its producer lock; a page that cannot be
 * recycled (someone else still holds a reference, the ring is full) is
 * released to the page allocator. Every page that enters the pool is
 * counted (hold), every page that leaves it is counted (release); the
 * difference is what is in flight.
 *
 * Owner. NAPI becomes a thread: a pool created with params.napi (filled
 * by napi_init_current() in the RX thread), or given one later with
 * page_pool_enable_direct_recycling(), recycles directly when the putting
 * thread is that owner. page_pool_disable_direct_recycling() ends it and
 * must be called by the owner, or after the owner stopped using the pool,
 * before the owner thread exits.
 *
 * DMA. With PP_FLAG_DMA_MAP every page is mapped once, when it enters the
 * pool, and unmapped when it leaves; with PP_FLAG_DMA_SYNC_DEV it is synced
 * for the device at map time and on each recycle. Every mapped page is
 * tracked, and page_pool_destroy() unmaps the pages still in flight, so a
 * page returned after the device went away never touches it (the seed-003
 * IOMMU crash, fixed).
 *
 * Destroy. page_pool_destroy() releases what the pool holds; pages still in
 * flight keep the pool alive, and a background retry frees it when the last
 * one comes back, warning periodically ("stalled pool shutdown") meanwhile.
 * A put racing with destroy never touches freed pool memory: a put touches
 * the pool only while it holds the page's in-flight count, and gives that
 * up with its last access (a ring produce inside the producer lock, which
 * the release path takes before freeing; or the release-count increment).
 *
 * Errors: page_pool_create() returns NULL and sets errno; allocations
 * return NULL (errno ENOMEM or EINVAL); int functions return 0 or -errno.
 * Statistics are kept unless built with -DPAGE_POOL_STATS=0 (meson
 * -Dstats=false), which removes their cost from the fast paths.
 */
#ifndef PAGEPOOL_PAGE_POOL_H
#define PAGEPOOL_PAGE_POOL_H

#include <pagepool/page_pool_types.h>
#if defined(PP_MODEL_CHECK)
#include <pthread.h>
#endif

#ifdef __cplusplus
extern "C" {
#endif

#ifndef PAGE_POOL_STATS
#define PAGE_POOL_STATS 1
#endif

/*
 * Debug builds (meson -Ddebug_checks=true, which defines PP_DEBUG=1 for the
 * library and, through pkg-config, for its users; the two must match)
 * check every put and every recycled page: a double put, a put to the wrong
 * pool, a page that never came from a pool, a direct recycle or an
 * allocation outside the owner thread, and a write to a page after it was
 * returned (recycled pages are poisoned and checked when handed out again).
 * Each error is reported on stderr with the page and the pool named and
 * counted (page_pool_debug_errors(); with no pool to count on, in
 * page_pool_debug_errors(NULL)). Puts of a foreign page, to the wrong
 * pool, a second time, or directly into a destroyed pool are dropped; a
 * direct recycle outside the owner thread is reported and carried out.
 */
#ifndef PP_DEBUG
#define PP_DEBUG 0
#endif

/* Byte recycled pages are filled with in debug builds (the kernel's
 * POISON_FREE). */
#define PP_POISON_FREE 0x6b

/** __page_pool_debug_put() - checks of a put; false: drop it. Debug builds. */
PP_API bool __page_pool_debug_put(struct page_pool *pool, struct page *page,
				  bool allow_direct);
/** __page_pool_debug_recycle() - poison @page and mark it free in @pool. */
PP_API void __page_pool_debug_recycle(struct page_pool *pool,
				      struct page *page);
/** __page_pool_debug_alloc() - check a page handed out by @pool. */
PP_API void __page_pool_debug_alloc(struct page_pool *pool, struct page *page);
/** __page_pool_debug_destroy() - check the context of a destroy. */
PP_API void __page_pool_debug_destroy(struct page_pool *pool);

/**
 * page_pool_debug_errors() - misuse detected on @pool so far; with a NULL
 * @pool, the misuse that had no pool to count on (a put to a NULL pool, a
 * foreign page in page_pool_put_page_bulk()). Always 0 unless built with
 * PP_DEBUG.
 */
PP_API uint64_t page_pool_debug_errors(const struct page_pool *pool);

/*
 * Single-writer counters: a relaxed store of the incremented value is a
 * plain increment on every target, and lets other threads read the counter
 * (page_pool_get_stats()) without a data race.
 */
#if PAGE_POOL_STATS
#define __pp_stat_inc(field)                                                 \
	pp_store_relaxed(&(field), pp_load_relaxed(&(field)) + 1)
#else
#define __pp_stat_inc(field) do { } while (0)
#endif
#define pp_alloc_stat_inc(pool, name) __pp_stat_inc((pool)->alloc_stats.name)

/*
 * ---- Owner identity -----------------------------------------------------
 */

/**
 * pp_thread_self() - an identity of the calling thread (its thread
 * pointer), unique among live threads. One instruction on x86-64 and
 * arm64.
 */
static inline unsigned long
pp_thread_self(void)
{
#if defined(PP_MODEL_CHECK)
	/* Model checkers (tests/genmc) have no thread pointer register. */
	return (unsigned long)pthread_self();
#else
	return (unsigned long)__builtin_thread_pointer();
#endif
}

/*
 * Copy @n page pointers (the bulk paths' moves in and out of the alloc
 * cache). One memcpy, except under a model checker (tests/genmc), which
 * refuses a copy whose length is not a constant.
 */
static PP_ALWAYS_INLINE void
__pp_copy_pages(struct page **dst, struct page *const *src, unsigned int n)
{
#if defined(PP_MODEL_CHECK)
	unsigned int i;

	for (i = 0; i < n; i++)
		dst[i] = src[i];
#else
	__builtin_memcpy(dst, src, n * sizeof(struct page *));
#endif
}

/** napi_init_current() - make the calling thread @napi's owner. */
static inline void
napi_init_current(struct napi_struct *napi)
{
	napi->list_owner = pp_thread_self();
}

/*
 * ---- Create, destroy, owner ---------------------------------------------
 */

/**
 * page_pool_create() - create a pool.
 * @params: parameters (copied).
 *
 * Validation, as the kernel's: flags outside PP_FLAG_ALL; PP_FLAG_DMA_MAP
 * without a device or with a dma_dir other than DMA_FROM_DEVICE or
 * DMA_BIDIRECTIONAL; PP_FLAG_DMA_SYNC_DEV without PP_FLAG_DMA_MAP or with
 * max_len 0; order above MAX_PAGE_ORDER; a node that does not exist; a napi
 * with no owner. pagepool's own: an offset that leaves no room in the
 * block (offset >= PAGE_SIZE << order), and offset + max_len past it with
 * PP_FLAG_DMA_SYNC_DEV. pool_size 0 means 1024; more than 16384 is clamped.
 *
 * Context: any thread. The pool's allocation side then belongs to one
 * context at a time (the owner, if any).
 * Return: the pool; NULL with errno EINVAL (bad @params) or ENOMEM.
 */
PP_API struct page_pool *page_pool_create(const struct page_pool_params *params);

/**
 * page_pool_destroy() - drop the creator's reference; on the last one,
 * release the pool.
 * @pool: the pool, or NULL (ignored).
 *
 * Direct recycling is disabled, the partly used fragment page returned,
 * the alloc cache and the ring emptied, every tracked DMA mapping undone.
 * If pages are still in flight the pool stays allocated until they are all
 * back; a background thread retries every params.defer_ms and warns every
 * params.defer_warn_ms on stderr ("page_pool_release_retry() stalled pool
 * shutdown: id N, M inflight S sec").
 *
 * Context: the owner, or any thread once the owner no longer uses the
 * pool. Pages may still be returned from any thread, before and after,
 * with allow_direct false once destroy has been called.
 */
PP_API void page_pool_destroy(struct page_pool *pool);

/**
 * page_pool_get() - take another user reference (the kernel's user_cnt);
 * each one is dropped by a page_pool_destroy().
 */
PP_API void page_pool_get(struct page_pool *pool);

/* The XDP memory model's registration record (<pagepool/xdp.h>); the
 * pool only receives a pointer to it. */
struct xdp_mem_info;

/**
 * page_pool_use_xdp_mem() - take a user reference for a memory model and
 * register @disconnect, called with the pool when it is finally freed.
 * @mem: the memory model's registration, or NULL; the kernel's third
 *	argument since 5.x, accepted and not read.
 */
PP_API void page_pool_use_xdp_mem(struct page_pool *pool,
				  void (*disconnect)(void *pool),
				  const struct xdp_mem_info *mem);

/**
 * page_pool_enable_direct_recycling() - let @napi's owner recycle directly.
 * Return: 0; -EINVAL for NULL arguments or an owner-less @napi; -EBUSY if
 * another owner is set.
 * Context: the pool's allocation context.
 */
PP_API int page_pool_enable_direct_recycling(struct page_pool *pool,
					     struct napi_struct *napi);

/**
 * page_pool_disable_direct_recycling() - no thread recycles directly any
 * more; every put goes through the ring.
 * Context: the owner, or after the owner stopped using the pool.
 */
PP_API void page_pool_disable_direct_recycling(struct page_pool *pool);

/**
 * page_pool_update_nid() - prefer node @new_nid from now on; the alloc
 * cache is released so that later refills apply the new node.
 * Context: the allocation context.
 */
PP_API void page_pool_update_nid(struct page_pool *pool, int new_nid);

/** page_pool_nid_changed() - page_pool_update_nid() if @new_nid differs. */
static inline void
page_pool_nid_changed(struct page_pool *pool, int new_nid)
{
	if (PP_UNLIKELY(pool->p.nid != new_nid))
		page_pool_update_nid(pool, new_nid);
}

/*
 * ---- Allocation ---------------------------------------------------------
 */

/**
 * __page_pool_alloc_pages_slow() - refill the alloc cache from the ring or
 * the page allocator and return a page. Out of line; called by
 * page_pool_alloc_pages() when the cache is empty.
 * Context: the allocation context.
 * Return: the page; NULL with errno ENOMEM, or EINVAL for a NULL @pool.
 */
PP_API struct page *__page_pool_alloc_pages_slow(struct page_pool *pool,
						 gfp_t gfp);

/**
 * page_pool_alloc_pages() - a page (2^order block) from the pool.
 * @pool: the pool
 * @gfp: allocation flags (__GFP_NOWARN silences warnings of the slow path)
 *
 * The block has pp_ref_count 1 and the pool's DMA mapping.
 * Context: the allocation context only (the owner); not thread-safe.
 * Return: the page, or NULL with errno ENOMEM.
 */
static inline struct page *
page_pool_alloc_pages(struct page_pool *pool, gfp_t gfp)
{
	uint32_t count = pool->alloc.count;

	if (PP_LIKELY(count > 0)) {
		struct page *page = pool->alloc.cache[--count];

		/* Count last: the compiler keeps the counter update from
		 * forcing a reload of the cache fields. */
		pool->alloc.count = count;
		pp_alloc_stat_inc(pool, fast);
		if (PP_DEBUG)
			__page_pool_debug_alloc(pool, page);
		return page;
	}
	return __page_pool_alloc_pages_slow(pool, gfp);
}

/**
 * page_pool_alloc_pages_bulk() - up to @n pages from the pool in one call.
 * @pool: the pool
 * @gfp: allocation flags, as for page_pool_alloc_pages()
 * @pages: receives the pages in [0, return value)
 * @n: how many
 *
 * A pagepool extension (the kernel has no page_pool bulk allocation):
 * takes the pages out of the alloc cache with one copy, refilling it from
 * the ring or the page allocator as page_pool_alloc_pages() does when it
 * runs empty. Each page is as page_pool_alloc_pages() returns it; give
 * them back with page_pool_put_page_bulk() or one by one.
 * Context: the allocation context only (the owner); not thread-safe.
 * Return: the number of pages stored, @n on success; fewer with errno
 * ENOMEM when the pool could not get more; 0 with errno EINVAL for a NULL
 * @pool, or NULL @pages with @n > 0.
 */
PP_API unsigned int page_pool_alloc_pages_bulk(struct page_pool *pool,
					       gfp_t gfp, struct page **pages,
					       unsigned int n);

#if !PP_DEBUG && !defined(PAGEPOOL_BUILDING_LIB)
/*
 * The inline fast path, which calls of page_pool_alloc_pages_bulk() reach
 * through the macro below (as DPDK's rte_mempool_get_bulk() is inline;
 * the function itself stays exported, for its address and for
 * "(page_pool_alloc_pages_bulk)(...)"): @n pages the alloc cache holds are
 * one copy out of it, one count store and one statistics store, as in the
 * exported function; everything else (a cache with fewer, bad input) is
 * that function's.
 */
static PP_ALWAYS_INLINE unsigned int
__page_pool_alloc_pages_bulk_inline(struct page_pool *pool, gfp_t gfp,
				    struct page **pages, unsigned int n)
{
	uint32_t count;

	if (PP_LIKELY(pool != NULL && pages != NULL &&
		      n <= (count = pool->alloc.count))) {
		count -= n;
		__pp_copy_pages(pages, &pool->alloc.cache[count], n);
		pool->alloc.count = count;
#if PAGE_POOL_STATS
		pp_store_relaxed(&pool->alloc_stats.fast,
				 pool->alloc_stats.fast + n);
#endif
		return n;
	}
	return (page_pool_alloc_pages_bulk)(pool, gfp, pages, n);
}
#define page_pool_alloc_pages_bulk(pool, gfp, pages, n)                       \
	__page_pool_alloc_pages_bulk_inline(pool, gfp, pages, n)
#endif

/** page_pool_dev_alloc_pages() - page_pool_alloc_pages(GFP_ATOMIC | __GFP_NOWARN). */
static inline struct page *
page_pool_dev_alloc_pages(struct page_pool *pool)
{
	return page_pool_alloc_pages(pool, GFP_ATOMIC | __GFP_NOWARN);
}

/**
 * page_pool_alloc_frag() - @size bytes inside a pool page.
 * @pool: the pool
 * @offset: receives the fragment's offset in the page
 * @size: bytes, rounded up to the DMA alignment (1 on x86, where DMA is
 *	cache-coherent; the cache line elsewhere); at most the block size
 * @gfp: allocation flags
 *
 * Fragments of one page share it through pp_ref_count; each is returned
 * with page_pool_put_page(..., -1, ...), and only the last return
 * recycles the page.
 * Context: the allocation context.
 * Return: the page, or NULL (errno EINVAL if @size exceeds the block,
 * ENOMEM).
 */
PP_API struct page *page_pool_alloc_frag(struct page_pool *pool,
					 unsigned int *offset,
					 unsigned int size, gfp_t gfp);

/** page_pool_dev_alloc_frag() - page_pool_alloc_frag() with GFP_ATOMIC | __GFP_NOWARN. */
static inline struct page *
page_pool_dev_alloc_frag(struct page_pool *pool, unsigned int *offset,
			 unsigned int size)
{
	return page_pool_alloc_frag(pool, offset, size,
				    GFP_ATOMIC | __GFP_NOWARN);
}

/**
 * page_pool_alloc() - a fragment or a whole page, whichever wastes less.
 * @pool: the pool
 * @offset: receives the offset
 * @size: in: bytes wanted; out: bytes granted (the rest of the page when
 *	another fragment of this size would not fit, so truesize is honest)
 * @gfp: allocation flags
 *
 * More than half a block gets a whole block.
 * Context: the allocation context.
 */
PP_API struct page *page_pool_alloc(struct page_pool *pool,
				    unsigned int *offset, unsigned int *size,
				    gfp_t gfp);

/** page_pool_dev_alloc() - page_pool_alloc() with GFP_ATOMIC | __GFP_NOWARN. */
static inline struct page *
page_pool_dev_alloc(struct page_pool *pool, unsigned int *offset,
		    unsigned int *size)
{
	return page_pool_alloc(pool, offset, size, GFP_ATOMIC | __GFP_NOWARN);
}

/**
 * page_pool_alloc_va() - page_pool_alloc(), returning the address.
 * Return: page_address(page) + offset, or NULL.
 */
PP_API void *page_pool_alloc_va(struct page_pool *pool, unsigned int *size,
				gfp_t gfp);

/** page_pool_dev_alloc_va() - page_pool_alloc_va() with GFP_ATOMIC | __GFP_NOWARN. */
static inline void *
page_pool_dev_alloc_va(struct page_pool *pool, unsigned int *size)
{
	return page_pool_alloc_va(pool, size, GFP_ATOMIC | __GFP_NOWARN);
}

/*
 * ---- Fragment references (pp_ref_count) ---------------------------------
 */

/**
 * page_pool_fragment_page() - set pp_ref_count of a fresh page to @nr, so
 * @nr holders can each return it.
 * Context: the caller owns the page alone (count is 1).
 */
static inline void
page_pool_fragment_page(struct page *page, long nr)
{
	pp_store_relaxed(&page->pp_ref_count, nr);
}

/**
 * page_pool_unref_page() - drop @nr fragment references.
 *
 * When the caller holds them all (the common case for whole pages) this is
 * a load, not an atomic read-modify-write, as in the kernel.
 * Context: any thread holding @nr references.
 * Return: the references left; 0 means the caller holds the last one and
 * the count has been reset to 1 for the page's next use.
 */
static inline long
page_pool_unref_page(struct page *page, long nr)
{
	long ret;

	/* A3: pairs with the release half of other holders' drops below.
	 * Needed: relaxed, tests/genmc/page_pool_frag.c finds a race. */
	if (pp_load_acquire(&page->pp_ref_count) == nr) {
		if (!__builtin_constant_p(nr) || nr != 1)
			pp_store_relaxed(&page->pp_ref_count, 1);
		return 0;
	}
	/* R3/A3: each drop publishes its holder's writes to the page; the
	 * last one sees them all before the page is recycled. Needed:
	 * relaxed, tests/genmc/page_pool_frag.c finds a race. */
	ret = __atomic_sub_fetch(&page->pp_ref_count, nr, __ATOMIC_ACQ_REL);
	if (ret == 0)
		pp_store_relaxed(&page->pp_ref_count, 1);
	return ret;
}

/** page_pool_ref_page() - take one more fragment reference. */
static inline void
page_pool_ref_page(struct page *page)
{
	/* Relaxed: the caller already holds a reference; ordering comes
	 * from R3/A3 when references are dropped. */
	pp_fetch_add_relaxed(&page->pp_ref_count, 1);
}

/** page_pool_unref_and_test() - drop one reference; true if it was the last. */
static inline bool
page_pool_unref_and_test(struct page *page)
{
	return page_pool_unref_page(page, 1) == 0;
}

/*
 * ---- Return -------------------------------------------------------------
 */

/**
 * __page_pool_put_page() - the recycle decision for a page whose last
 * fragment reference was dropped: sync for the device, the alloc cache
 * (@allow_direct), the ring, or release. Out of line; the inline puts
 * below take the common direct case themselves. Like them it takes @pool
 * and @page on trust (no checks on the ring path).
 * Context: any thread; @allow_direct only in the owner.
 */
PP_API void __page_pool_put_page(struct page_pool *pool, struct page *page,
				 int dma_sync_size, bool allow_direct);

/* The recycle of a page whose pool references are gone, after the debug
 * checks: the direct fast path inline, everything else out of line. */
static PP_ALWAYS_INLINE void
__page_pool_put_unrefed(struct page_pool *pool, struct page *page,
			int dma_sync_size, bool allow_direct)
{
	if (!allow_direct)
		allow_direct = pp_load_relaxed(&pool->owner) == pp_thread_self();
	/* The direct fast path: nothing to sync, a sole reference, room. */
	if (PP_LIKELY(allow_direct && !pool->dma_sync &&
		      page_ref_count(page) == 1 && !page_is_pfmemalloc(page) &&
		      pool->alloc.count < PP_ALLOC_CACHE_SIZE)) {
		if (PP_DEBUG)
			__page_pool_debug_recycle(pool, page);
		pool->alloc.cache[pool->alloc.count++] = page;
		__pp_stat_inc(pool->owner_recycle_stats.cached);
		return;
	}
	__page_pool_put_page(pool, page, dma_sync_size, allow_direct);
}

/**
 * page_pool_put_unrefed_page() - recycle a page whose pp references the
 * caller already dropped.
 * @pool: the page's pool
 * @page: the page (head page of its block)
 * @dma_sync_size: bytes the device may have written; -1 means max_len
 * @allow_direct: the caller is the owner (the kernel: in NAPI context)
 *
 * Out of line, as the kernel's exported function is: the inline puts below
 * run the same steps in the caller, and bench_page_pool_simple --outline
 * calls this one to cost a put the way the kernel's benchmark module does.
 * Like them it takes @pool and @page on trust (debug builds check them).
 *
 * Context: any thread; @allow_direct true only in the owner. When
 * @allow_direct is false the pool checks whether the caller is its owner
 * anyway, as the kernel's page_pool_napi_local() does.
 */
PP_API void page_pool_put_unrefed_page(struct page_pool *pool,
				       struct page *page, int dma_sync_size,
				       bool allow_direct);

/**
 * page_pool_put_page() - return one fragment reference; the last one
 * recycles the page.
 * @pool: the page's pool
 * @page: the page
 * @dma_sync_size: bytes to sync for the device; -1 means max_len
 * @allow_direct: the caller is the owner
 *
 * Context: any thread holding the reference; @allow_direct only in the
 * owner.
 */
static inline void
page_pool_put_page(struct page_pool *pool, struct page *page,
		   int dma_sync_size, bool allow_direct)
{
	if (PP_DEBUG && !__page_pool_debug_put(pool, page, allow_direct))
		return;
	if (!page_pool_unref_and_test(page))
		return;
	__page_pool_put_unrefed(pool, page, dma_sync_size, allow_direct);
}

/** page_pool_put_full_page() - page_pool_put_page() syncing max_len. */
static inline void
page_pool_put_full_page(struct page_pool *pool, struct page *page,
			bool allow_direct)
{
	page_pool_put_page(pool, page, -1, allow_direct);
}

/**
 * page_pool_recycle_direct() - return a page from the owner (XDP_DROP).
 * Context: the owner only.
 */
static inline void
page_pool_recycle_direct(struct page_pool *pool, struct page *page)
{
	page_pool_put_full_page(pool, page, true);
}

/**
 * page_pool_free_va() - return the page containing @va (from
 * page_pool_alloc_va()). Out of line, so checked in every build: a NULL
 * argument, or an address whose page is not a page of @pool, is ignored
 * with errno EINVAL.
 */
PP_API void page_pool_free_va(struct page_pool *pool, void *va,
			      bool allow_direct);

/**
 * page_pool_put_page_bulk() - return @count pages, possibly of different
 * pools, each as page_pool_put_full_page(..., false).
 * @data: the pages (overwritten)
 * @count: how many
 *
 * Ring candidates of one pool are produced under a single producer-lock
 * section (the kernel's page_pool_put_netmem_bulk()); when the ring fills,
 * ring_full is counted once and the rest are released. A page without the
 * pool signature is skipped with errno EINVAL (and reported in debug
 * builds), since its page->pp cannot be trusted. The owner returning a
 * batch of its own pool's pages that all pass a single put's checks
 * (pp_bulk_recyclable()) copies them into the alloc cache in one step,
 * inline (the macro below); a batch with a page that does not pass is
 * decided page by page, out of line.
 * Context: any thread.
 */
PP_API void page_pool_put_page_bulk(struct page **data, unsigned int count);

/*
 * __pp_recycle_bad() - the owner's recycle test of one page, as the
 * owner's single put decides: would a put of @page recycle it into
 * @pool's alloc cache? The page must carry the pool signature with bits
 * 0 and 1 clear (a head page, not pfmemalloc: pp_magic overlays
 * compound_head), belong to @pool, and hold its last page reference and
 * its last pool reference. Returns the bits of the last three tests that
 * fail, and ORs pp_magic ^ PP_SIGNATURE into *@magic, of which the bits
 * of (PP_MAGIC_MASK | 0x3UL) must be clear (the DMA index bits are the
 * page's own): the page passes when both are zero. The signature's word
 * is kept apart so that a batch masks it once (a 64-bit mask per page
 * costs owner-page_pool01-bulk32 about one instruction a page). Only
 * reads, four fields of one cache line, with no branch. The one test of a
 * page on the owner's bulk paths: pp_bulk_recyclable(), the
 * page-by-page run of page_pool_put_page_bulk() and the debug builds'
 * checks of page_pool_recycle_direct_bulk().
 * Context: the owner, holding @page.
 */
static PP_ALWAYS_INLINE unsigned long
__pp_recycle_bad(const struct page_pool *pool, const struct page *page,
		 unsigned long *magic)
{
	unsigned long bad;

	*magic |= pp_load_relaxed(&page->pp_magic) ^ PP_SIGNATURE;
	bad = (uintptr_t)page->pp ^ (uintptr_t)pool;
	bad |= (unsigned long)(unsigned int)page_ref_count(page) ^ 1UL;
	/* page_pool_unref_and_test() of a sole reference: A3, the acquire
	 * load that pairs with other holders' release drops (R3 in
	 * page_pool_unref_page()); a sole holder stores nothing. Needed:
	 * relaxed, page_pool_stash_bulk (tests/genmc/page_pool_stash.c)
	 * finds the other holder's write racing with the owner's next use
	 * of the page. */
	bad |= (unsigned long)pp_load_acquire(&page->pp_ref_count) ^ 1UL;
	return bad;
}

/*
 * pp_bulk_recyclable() - would a put of each of @data[0..@count) recycle
 * it into @pool's alloc cache, as the owner's single put decides? Each
 * page is tested by __pp_recycle_bad(). Only reads: the caller acts on
 * the whole batch or on none of it. Branch-light: the tests of every page
 * are folded into two words and judged once, so a batch costs four loads
 * of each page's struct page (one cache line) and a few ALU operations
 * per page; a NULL entry ends it at once.
 * Context: the owner, holding every page of @data.
 */
static PP_ALWAYS_INLINE bool
pp_bulk_recyclable(const struct page_pool *pool, struct page *const *data,
		   unsigned int count)
{
	unsigned long magic = 0, other = 0;
	unsigned int i;

#pragma GCC unroll 4
	for (i = 0; i < count; i++) {
		const struct page *page = data[i];

		if (PP_UNLIKELY(page == NULL))
			return false;
		other |= __pp_recycle_bad(pool, page, &magic);
	}
	return ((magic & (PP_MAGIC_MASK | 0x3UL)) | other) == 0;
}

/*
 * __pp_cache_bulk_fits() - may the caller copy @n pages straight into
 * @pool's alloc cache? It must be @pool's owner, the pool must sync
 * nothing for the device, and the cache must have room for all @n. On
 * true, *@c holds the cache's count for __pp_cache_bulk_add(); on false
 * it means nothing. Tests no page: the caller's test of its pages (if
 * any) runs between this half and the copy. The batch test of the
 * owner's inline bulk returns and of page_pool_recycle_direct_bulk();
 * the exported page_pool_put_page_bulk() makes the same tests with the
 * owner read once for its owner's and non-owner's paths. The branch
 * hints are on the tests inside, where a hint on the caller's use of the
 * result does not reach (owner-page_pool01-bulk32-trusted: 3.31
 * instructions a page without them, 3.25 with).
 * Context: any thread; only the owner passes.
 */
static PP_ALWAYS_INLINE bool
__pp_cache_bulk_fits(const struct page_pool *pool, unsigned int n,
		     uint32_t *c)
{
	/* Relaxed: only the owner itself matches; pairs with nothing (as
	 * in __page_pool_put_unrefed()). The cache is the owner's: its
	 * count is read only after that test. */
	return PP_LIKELY(pp_load_relaxed(&pool->owner) == pp_thread_self() &&
			 !pp_load_relaxed(&pool->dma_sync) &&
			 n <= PP_ALLOC_CACHE_SIZE - (*c = pool->alloc.count));
}

/*
 * __pp_cache_bulk_add() - copy @pages[0..@n) into @pool's alloc cache
 * from slot @c, the count __pp_cache_bulk_fits() passed: one copy, one
 * count store, one statistics store.
 * Context: @pool's owner, after __pp_cache_bulk_fits().
 */
static PP_ALWAYS_INLINE void
__pp_cache_bulk_add(struct page_pool *pool, uint32_t c,
		    struct page *const *pages, unsigned int n)
{
	__pp_copy_pages(&pool->alloc.cache[c], pages, n);
	pool->alloc.count = c + n;
#if PAGE_POOL_STATS
	pp_store_relaxed(&pool->owner_recycle_stats.cached,
			 pool->owner_recycle_stats.cached + n);
#endif
}

/*
 * __pp_bulk_pool() - does a batch for page_pool_put_page_bulk() name a
 * pool? True when @count is not 0 and the first page carries the pool
 * signature, with that page's pool in *@pool; false leaves *@pool alone.
 * Reads the first page only; the rest is pp_bulk_recyclable()'s.
 * Context: any thread holding @data[0].
 */
static PP_ALWAYS_INLINE bool
__pp_bulk_pool(struct page *const *data, unsigned int count,
	       struct page_pool **pool)
{
	if (PP_UNLIKELY(count == 0 || data[0] == NULL ||
			(pp_load_relaxed(&data[0]->pp_magic) &
			 PP_MAGIC_MASK) != PP_SIGNATURE))
		return false;
	*pool = data[0]->pp;
	return true;
}

#if !PP_DEBUG && !defined(PAGEPOOL_BUILDING_LIB)
/*
 * The inline fast path, which calls of page_pool_put_page_bulk() reach
 * through the macro below (the function stays exported, as above): the
 * owner returning a batch of its own pool's pages that
 * pp_bulk_recyclable() passes, with nothing to sync and room in the alloc
 * cache for them all, is one copy into the cache. Anything else goes to
 * the exported function, which decides every page on its own (it starts
 * with the same test, made by the same helpers; nothing is written here
 * before it is passed).
 */
static PP_ALWAYS_INLINE void
__page_pool_put_page_bulk_inline(struct page **data, unsigned int count)
{
	struct page_pool *pool;
	uint32_t c;

	if (PP_LIKELY(data != NULL && __pp_bulk_pool(data, count, &pool) &&
		      __pp_cache_bulk_fits(pool, count, &c) &&
		      pp_bulk_recyclable(pool, data, count))) {
		__pp_cache_bulk_add(pool, c, data, count);
		return;
	}
	(page_pool_put_page_bulk)(data, count);
}
#define page_pool_put_page_bulk(data, count)                                  \
	__page_pool_put_page_bulk_inline(data, count)
#endif

/**
 * page_pool_recycle_direct_bulk() - the owner gives back @n pages of
 * @pool that it holds alone, trusted: no test of any page.
 * @pool: the pages' pool
 * @pages: the pages, each as page_pool_alloc_pages() or
 *	page_pool_alloc_pages_bulk() hands it out (overwritten)
 * @n: how many
 *
 * A pagepool extension, the bulk of the kernel's
 * page_pool_recycle_direct() in the shape of DPDK's rte_mempool_put_bulk(),
 * which trusts its caller. The contract: every page is @pool's, and the
 * caller holds its only page reference and its only pool reference (as
 * pages fresh from the pool do, and as page_pool_put_page_bulk() checks
 * page by page). Nothing of the pages is read: when the caller is @pool's
 * owner, the pool syncs nothing for the device and its alloc cache has
 * room for all @n, they are one copy into the cache and one update of its
 * count and of the cached statistic. When any of those three tests fails,
 * the batch goes to page_pool_put_page_bulk(), which checks every page, so
 * a wrong thread, a full cache or a syncing pool costs speed, never a
 * page. In release builds a page that breaks the contract goes into the
 * cache all the same (as DPDK stores whatever it is given); debug builds
 * (PP_DEBUG) test every page with __pp_recycle_bad(), report each that
 * fails, and give such a batch to the checked path instead.
 * Context: @pool's owner (any other thread falls back as above).
 * A NULL @pages with @n > 0 is ignored, and a NULL @pool sends the pages
 * to page_pool_put_page_bulk(), both with errno EINVAL.
 */
PP_API void page_pool_recycle_direct_bulk(struct page_pool *pool,
					  struct page **pages, unsigned int n);

#if !PP_DEBUG && !defined(PAGEPOOL_BUILDING_LIB)
/*
 * The inline fast path, which calls of page_pool_recycle_direct_bulk()
 * reach through the macro below (the function stays exported, as above):
 * the batch-level tests (__pp_cache_bulk_fits()), then one copy into the
 * alloc cache (__pp_cache_bulk_add()), as in the exported function.
 * Everything else is that function's.
 */
static PP_ALWAYS_INLINE void
__page_pool_recycle_direct_bulk_inline(struct page_pool *pool,
				       struct page **pages, unsigned int n)
{
	uint32_t c;

	if (PP_LIKELY(pool != NULL && pages != NULL &&
		      __pp_cache_bulk_fits(pool, n, &c))) {
		__pp_cache_bulk_add(pool, c, pages, n);
		return;
	}
	(page_pool_recycle_direct_bulk)(pool, pages, n);
}
#define page_pool_recycle_direct_bulk(pool, pages, n)                         \
	__page_pool_recycle_direct_bulk_inline(pool, pages, n)
#endif

/**
 * page_pool_release_page() - take @page out of @pool for good: its DMA
 * mapping is undone, it stops counting as in flight, and it becomes an
 * ordinary page that the holder frees with put_page().
 * @pool: the page's pool
 * @page: a page of @pool holding one pool reference (a whole page)
 *
 * The kernel's call of v4.18 to v6.4, which drivers used before handing a
 * page to the stack in an skb not marked for recycling. A page that does
 * not belong to @pool is left alone.
 * Context: any thread holding the page.
 */
PP_API void page_pool_release_page(struct page_pool *pool, struct page *page);

/**
 * pp_stash_flush() - produce the pages the calling thread has waiting in
 * its return stashes into their pools' rings now.
 *
 * A pagepool extension. A thread that is not a pool's owner returns pages
 * to the pool through a per-thread, per-pool stash, produced into the ring
 * 32 at a time under one producer-lock section. Stashes are flushed when
 * full, when the thread exits, when the thread enters the pool's
 * allocation slow path, and taken over by page_pool_destroy(); call this
 * when an idle thread should not keep up to 32 pages per pool from the
 * pool's owner meanwhile.
 * Context: any thread.
 */
PP_API void pp_stash_flush(void);

/*
 * ---- DMA ----------------------------------------------------------------
 */

/** page_pool_get_dma_addr() - the DMA address of a page of a DMA_MAP pool. */
static inline dma_addr_t
page_pool_get_dma_addr(const struct page *page)
{
	return (dma_addr_t)page->dma_addr;
}

/** page_pool_get_dma_dir() - the pool's DMA direction. */
static inline enum dma_data_direction
page_pool_get_dma_dir(const struct page_pool *pool)
{
	return pool->p.dma_dir;
}

/**
 * page_pool_dma_sync_for_cpu() - make @size bytes at @offset (after the
 * pool's params.offset) visible to the CPU after the device wrote them.
 * Nothing is synced, and errno is EINVAL, for a NULL argument, a page that
 * is not @pool's, or a range running past the block; nor on a device that
 * needs no syncs (pp_dma_dev_need_sync() false), as in the kernel.
 * Context: the holder of the page.
 */
PP_API void page_pool_dma_sync_for_cpu(const struct page_pool *pool,
				       const struct page *page,
				       unsigned int offset, unsigned int size);

/*
 * ---- Introspection and statistics ---------------------------------------
 */

/** page_pool_id() - the pool's registry id (unique among live pools, >= 1). */
static inline unsigned int
page_pool_id(const struct page_pool *pool)
{
	return pool->id;
}

/**
 * page_pool_inflight() - pages handed out and not yet returned to the page
 * allocator (hold - release, wrap-safe); 0 for a NULL @pool.
 * Context: any thread; a snapshot.
 */
PP_API int page_pool_inflight(const struct page_pool *pool);

/**
 * page_pool_get_stats() - add the pool's counters into @stats.
 * @pool: the pool
 * @stats: accumulated into (+=), so one zeroed struct can sum many pools,
 *	as in the kernel
 *
 * Context: any thread; counters are read one by one, so the sum is not an
 * atomic snapshot.
 * Return: false if either argument is NULL or statistics are compiled out.
 */
PP_API bool page_pool_get_stats(const struct page_pool *pool,
				struct page_pool_stats *stats);

/** page_pool_ethtool_stats_get_count() - 11, the number of counters. */
PP_API int page_pool_ethtool_stats_get_count(void);

/**
 * page_pool_ethtool_stats_get_strings() - copy the 11 ethtool names
 * ("rx_pp_alloc_fast", ...), each in a 32-byte slot (ETH_GSTRING_LEN).
 * Return: @data advanced past them.
 */
PP_API uint8_t *page_pool_ethtool_stats_get_strings(uint8_t *data);

/**
 * page_pool_ethtool_stats_get() - copy the 11 values of @stats (a struct
 * page_pool_stats) in the order of the names.
 * Return: @data advanced past them.
 */
PP_API uint64_t *page_pool_ethtool_stats_get(uint64_t *data,
					     const void *stats);

/*
 * ---- The netmem API (Linux >= 6.12) -------------------------------------
 *
 * The kernel's page_pool now speaks netmem_ref (<pagepool/netmem.h>) and
 * keeps the struct page forms as wrappers. In pagepool a netmem_ref is a
 * page pointer, so each netmem form is its page form: inline where the
 * page form is inline here (pagepool inlines the allocation fast path the
 * kernel keeps out of line), exported where the kernel exports it and
 * pagepool's page form is out of line too.
 */

/**
 * page_pool_page_is_pp() - does @page carry the page_pool signature, i.e.
 * is it a page some pool owns (handed out or cached)? False for NULL.
 */
static inline bool
page_pool_page_is_pp(const struct page *page)
{
	return page != NULL && (page->pp_magic & PP_MAGIC_MASK) == PP_SIGNATURE;
}

/** page_pool_alloc_netmems() - page_pool_alloc_pages() as a netmem_ref. */
static inline netmem_ref
page_pool_alloc_netmems(struct page_pool *pool, gfp_t gfp)
{
	return page_to_netmem(page_pool_alloc_pages(pool, gfp));
}

/** page_pool_dev_alloc_netmems() - page_pool_alloc_netmems(GFP_ATOMIC | __GFP_NOWARN). */
static inline netmem_ref
page_pool_dev_alloc_netmems(struct page_pool *pool)
{
	return page_pool_alloc_netmems(pool, GFP_ATOMIC | __GFP_NOWARN);
}

/**
 * page_pool_alloc_frag_netmem() - page_pool_alloc_frag() as a netmem_ref.
 * Return: the netmem, or 0 (errno as page_pool_alloc_frag()).
 */
PP_API netmem_ref page_pool_alloc_frag_netmem(struct page_pool *pool,
					      unsigned int *offset,
					      unsigned int size, gfp_t gfp);

/** page_pool_fragment_netmem() - page_pool_fragment_page() of @netmem. */
static inline void
page_pool_fragment_netmem(netmem_ref netmem, long nr)
{
	page_pool_fragment_page(netmem_to_page(netmem), nr);
}

/** page_pool_unref_netmem() - page_pool_unref_page() of @netmem. */
static inline long
page_pool_unref_netmem(netmem_ref netmem, long nr)
{
	return page_pool_unref_page(netmem_to_page(netmem), nr);
}

/** page_pool_ref_netmem() - page_pool_ref_page() of @netmem. */
static inline void
page_pool_ref_netmem(netmem_ref netmem)
{
	page_pool_ref_page(netmem_to_page(netmem));
}

/** page_pool_put_unrefed_netmem() - page_pool_put_unrefed_page() of @netmem. */
static inline void
page_pool_put_unrefed_netmem(struct page_pool *pool, netmem_ref netmem,
			     int dma_sync_size, bool allow_direct)
{
	page_pool_put_unrefed_page(pool, netmem_to_page(netmem), dma_sync_size,
				   allow_direct);
}

/** page_pool_put_netmem() - page_pool_put_page() of @netmem. */
static inline void
page_pool_put_netmem(struct page_pool *pool, netmem_ref netmem,
		     int dma_sync_size, bool allow_direct)
{
	page_pool_put_page(pool, netmem_to_page(netmem), dma_sync_size,
			   allow_direct);
}

/** page_pool_put_full_netmem() - page_pool_put_full_page() of @netmem. */
static inline void
page_pool_put_full_netmem(struct page_pool *pool, netmem_ref netmem,
			  bool allow_direct)
{
	page_pool_put_full_page(pool, netmem_to_page(netmem), allow_direct);
}

/**
 * page_pool_recycle_direct_netmem() - page_pool_recycle_direct() of @netmem.
 * Context: the owner only.
 */
static inline void
page_pool_recycle_direct_netmem(struct page_pool *pool, netmem_ref netmem)
{
	page_pool_recycle_direct(pool, netmem_to_page(netmem));
}

/**
 * page_pool_put_netmem_bulk() - page_pool_put_page_bulk() of @count
 * netmems, possibly of different pools (the kernel's form since 6.14).
 * @data: the netmems (overwritten)
 */
PP_API void page_pool_put_netmem_bulk(netmem_ref *data, uint32_t count);

/** page_pool_get_dma_addr_netmem() - page_pool_get_dma_addr() of @netmem. */
static inline dma_addr_t
page_pool_get_dma_addr_netmem(netmem_ref netmem)
{
	return page_pool_get_dma_addr(netmem_to_page(netmem));
}

/**
 * page_pool_dma_sync_netmem_for_cpu() - page_pool_dma_sync_for_cpu() of
 * @netmem.
 */
static inline void
page_pool_dma_sync_netmem_for_cpu(const struct page_pool *pool,
				  netmem_ref netmem, uint32_t offset,
				  uint32_t dma_sync_size)
{
	page_pool_dma_sync_for_cpu(pool, netmem_to_page(netmem), offset,
				   dma_sync_size);
}

#ifdef __cplusplus
}
#endif

#endif /* PAGEPOOL_PAGE_POOL_H */
