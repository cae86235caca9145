/* SPDX-License-Identifier: MIT */
/*
 * Copyright (c) 2026 The pagepool authors
 *
 * DOC: page_frag_cache — the kernel's fragment allocator, in userspace
 *
 * A page_frag_cache carves small buffers (fragments) out of one cached
 * block of the page allocator, one after the other from its start, the way
 * the kernel's network stack allocates skb heads (netdev_alloc_frag(),
 * napi_alloc_frag()) and nvme/tcp its PDUs. The names and behaviour are the
 * merged kernel API (Linux 6.13, mm/page_frag_cache.c):
 *
 *  - the cache holds one block of PAGE_FRAG_CACHE_MAX_SIZE (32 KiB, order
 *    3), or a single page when that cannot be had; its address, order and
 *    pfmemalloc bit share one word, encoded_page;
 *  - each fragment holds one reference to the block. The cache takes a
 *    large number of references in one atomic add when it opens a block and
 *    hands them out by decrementing a plain counter, pagecnt_bias, so an
 *    allocation touches no shared cache line;
 *  - page_frag_free() drops a fragment's reference from any thread, given
 *    any address inside the fragment; the last reference frees the block;
 *  - when a request does not fit, the cache gives back its unused
 *    references: if every fragment has already come back the block is
 *    reused in place, otherwise it is left to its last fragment and a new
 *    block is opened;
 *  - a request larger than a page that does not fit in what is left fails
 *    without dropping the cached block.
 *
 * pagepool's difference in behaviour, the rewind: each time the offset
 * has moved past the 4 KiB stride of the block where the cache last
 * looked (a request crossing a boundary, or a commit longer than what was
 * reserved running past one), the cache reads the block's reference count
 * (one acquire load, pairing with the release of each page_frag_free()),
 * and if no fragment is out it starts the block again from offset 0. A request/response loop, whose fragments come back before
 * the next is cut, then works in a few KiB that stay in the CPU's cache,
 * as the kernel's skb_page_frag_refill() does for struct page_frag, rather
 * than walking all 32 KiB. Addresses repeat sooner than in the kernel; one
 * fragment out keeps the cache walking on.
 *
 * pagepool's extension beyond the merged API, after Yunsheng Lin's
 * "replace page_frag with page_frag_cache" series (seed 004; its part 2 was
 * never merged): prepare / probe / commit / abort. A writer reserves space
 * with page_frag_alloc_refill_prepare(), fills it (for instance with
 * page_frag_copy_to_va_nocache()), and commits only what it used with
 * page_frag_commit(); page_frag_alloc_refill_probe() tells whether the
 * space right after the previous fragment is still free, so data can be
 * appended to that fragment (page_frag_commit_noref()) instead of taking a
 * new one; page_frag_alloc_abort() undoes the latest allocation. As in the
 * series, the fast paths of prepare, probe and commit are inline in this
 * header (except in PP_DEBUG builds), the rest is the library's.
 *
 * Per-thread caches: netdev_alloc_frag() and friends allocate from a cache
 * owned by the calling thread (the kernel's per-CPU netdev_alloc_cache),
 * drained when the thread exits.
 *
 * Frees on the owner thread (pagepool's): page_frag_cache_bind() lets the
 * thread that owns a cache give a fragment of its current block back to
 * the cache's bias when it frees it, with no atomic, as page_pool's direct
 * recycling does for a pool's owner. Per-thread caches are bound.
 *
 * Errors. Allocation functions return NULL and set errno: EINVAL for bad
 * arguments, ENOMEM when no memory could be had or a request larger than a
 * page does not fit. int functions return a non-negative value or -errno.
 * void functions ignore bad input and set errno to EINVAL (the kernel
 * WARNs). Nothing is printed, except the page allocator's debug-build
 * diagnostics on a double free, and, in PP_DEBUG builds (meson
 * -Ddebug_checks=true), a refused second page_frag_free() of a fragment
 * (page_frag_debug_errors()).
 *
 * Concurrency. A cache has one owner at a time: the page_frag_* calls on a
 * cache need no lock but must not run concurrently on the same cache (the
 * kernel disables bottom halves or preemption around them).
 * page_frag_free() and __page_frag_cache_drain() may run on any thread at
 * any time, concurrently with the owner.
 */
#ifndef PAGEPOOL_PAGE_FRAG_CACHE_H
#define PAGEPOOL_PAGE_FRAG_CACHE_H

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/uio.h>

#include <pagepool/kcompat.h>
#include <pagepool/page.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Size of the block a cache tries first: 32 KiB rounded up to pages. */
#define PAGE_FRAG_CACHE_MAX_SIZE \
	((32768UL + PAGE_SIZE - 1) & PAGE_MASK)
/* Its order (3 with 4 KiB pages). */
#define PAGE_FRAG_CACHE_MAX_ORDER \
	(PAGE_SHIFT >= 15 ? 0 : 15 - PAGE_SHIFT)

/*
 * encoded_page: the block's address in the bits above the page offset, its
 * order in the low byte and the pfmemalloc flag just above (a whole byte
 * for the order, as the kernel chose, for simpler code).
 */
#define PAGE_FRAG_CACHE_ORDER_MASK \
	(PAGE_SIZE < PAGE_FRAG_CACHE_MAX_SIZE ? 0xffUL : 0UL)
#define PAGE_FRAG_CACHE_PFMEMALLOC_BIT	(PAGE_FRAG_CACHE_ORDER_MASK + 1)

PP_STATIC_ASSERT(PAGE_FRAG_CACHE_PFMEMALLOC_BIT < PAGE_SIZE,
	       "encoded_page flags must fit below page alignment");

/**
 * struct page_frag_cache - a fragment allocator. ABI: callers embed it.
 * @encoded_page: address | order | pfmemalloc of the cached block; 0 when
 *	none is cached.
 * @offset: where the next fragment starts in the block.
 * @pagecnt_bias: references of the block the cache still holds and has not
 *	handed out.
 * @page: head page of the cached block; NULL when none is cached.
 *	pagepool's, not the kernel's: the kernel's virt_to_page() is
 *	arithmetic, ours a region lookup, so the cache keeps what the
 *	lookup would find for the prepare, probe and commit fast paths.
 * @limit: pagepool's: a request ending at or below it is served by the
 *	fast paths (one longer than the stride also if it starts below it
 *	and fits, __page_frag_room_fast()); past it, the library looks at
 *	the block's count (the rewind) and moves it to the end of the stride
 *	the request ends in (nothing out) or starts in (a fragment out: a
 *	request crossing it looks again). At most the block's size; 0 when
 *	no block is cached.
 *
 * Zero-filled (or page_frag_cache_init()) is an empty cache. The first
 * three members are the kernel's, at the kernel's offsets.
 */
struct page_frag_cache {
	unsigned long encoded_page;
	uint32_t offset;
	uint32_t pagecnt_bias;
	struct page *page;
	uint32_t limit;
};

/*
 * The rewind's stride (see the DOC above): the fast paths send a request
 * that ends past @limit, the end of the 4 KiB stride where the library
 * last looked at the block's count, to the library, which looks again
 * (a request longer than the stride: only once it starts past @limit,
 * __page_frag_room_fast()). A
 * power of two no larger than a page, so the block's end is a stride
 * boundary and the first test also catches a request that does not fit. An enum, not a macro,
 * it is no API; the library may be built with another stride
 * (-DPFC_REWIND_STRIDE=N), which its inline callers then share if they
 * define the same.
 */
enum {
#ifdef PFC_REWIND_STRIDE
	__PAGE_FRAG_CACHE_STRIDE = PFC_REWIND_STRIDE,
#else
	__PAGE_FRAG_CACHE_STRIDE = PAGE_SIZE < 4096 ? PAGE_SIZE : 4096,
#endif
	/* The references a cache holds of a block it has just opened or
	 * rewound: alloc_pages()'s and one for each byte it could cut. */
	__PAGE_FRAG_CACHE_BIAS_FULL = PAGE_FRAG_CACHE_MAX_SIZE + 1
};

/**
 * struct page_frag - space reserved by the prepare/probe calls.
 * @page: head page of the cache's block.
 * @offset: where the space starts in the block.
 * @size: bytes available from @offset to the end of the block.
 */
struct page_frag {
	struct page *page;
	uint32_t offset;
	uint32_t size;
};

/**
 * page_frag_cache_init() - make @nc an empty cache.
 * Context: before first use; NULL is ignored (errno EINVAL).
 */
PP_API void page_frag_cache_init(struct page_frag_cache *nc);

/**
 * page_frag_cache_is_pfmemalloc() - was the cached block taken from
 * emergency reserves? False for an empty cache or NULL.
 * Context: the cache's owner.
 */
PP_API bool page_frag_cache_is_pfmemalloc(const struct page_frag_cache *nc);

/**
 * page_frag_cache_drain() - give back the cached block: drop the cache's
 * remaining references (freeing the block if no fragment is out) and leave
 * @nc empty. Outstanding fragments stay valid until freed.
 * Context: the cache's owner; NULL is ignored (errno EINVAL).
 */
PP_API void page_frag_cache_drain(struct page_frag_cache *nc);

/**
 * __page_frag_cache_drain() - drop @count references to the block of
 * @page, freeing it if they were the last.
 * Context: any thread holding those references. NULL, @count 0 or more
 * than the block's reference count: ignored, errno EINVAL.
 */
PP_API void __page_frag_cache_drain(struct page *page, unsigned int count);

/**
 * __page_frag_alloc_align() - allocate @fragsz bytes at an offset that is
 * a multiple of the alignment given as a mask (-align; ~0u for none).
 * @gfp: passed to the page allocator when a block is opened.
 *
 * Context: the cache's owner.
 * Return: the fragment; NULL with errno EINVAL (NULL @nc, @fragsz 0 or
 * above PAGE_FRAG_CACHE_MAX_SIZE, @align_mask not -2^k with 2^k at most
 * PAGE_SIZE) or ENOMEM (no memory; or @fragsz above PAGE_SIZE and not
 * fitting in the cached block while a fragment of it is out).
 */
PP_API void *__page_frag_alloc_align(struct page_frag_cache *nc,
				     unsigned int fragsz, gfp_t gfp,
				     unsigned int align_mask);

/**
 * page_frag_alloc_align() - __page_frag_alloc_align() with the alignment
 * @align, a power of two up to PAGE_SIZE (EINVAL otherwise; the kernel
 * WARNs).
 */
static inline void *
page_frag_alloc_align(struct page_frag_cache *nc, unsigned int fragsz,
		      gfp_t gfp, unsigned int align)
{
	if (PP_UNLIKELY(align == 0 || (align & (align - 1)) != 0)) {
		errno = EINVAL;
		return NULL;
	}
	return __page_frag_alloc_align(nc, fragsz, gfp, -align);
}

/** page_frag_alloc() - allocate @fragsz bytes with no alignment. */
static inline void *
page_frag_alloc(struct page_frag_cache *nc, unsigned int fragsz, gfp_t gfp)
{
	return __page_frag_alloc_align(nc, fragsz, gfp, ~0u);
}

/**
 * page_frag_free() - free the fragment containing @addr (any address
 * inside it), once.
 * Context: any thread. An address not from the page allocator is ignored
 * with errno EINVAL. PP_DEBUG builds also refuse, report and count a second
 * free of a fragment and a free of an address in no fragment; a reference
 * dropped by page (put_page()) cannot say which fragment it frees and is
 * not checked.
 */
PP_API void page_frag_free(void *addr);

/**
 * page_frag_debug_errors() - fragment frees refused so far by the debug
 * checks (PP_DEBUG builds: a second free of a fragment, a free of an
 * address no fragment covers); always 0 in other builds.
 * Context: any thread.
 */
PP_API uint64_t page_frag_debug_errors(void);

/*
 * ---- pagepool extension: prepare / probe / commit / abort ---------------
 */

/**
 * __page_frag_room_fast() - may the fast paths serve a request from @off to
 * @end without the library? Yes if it ends at or below @nc's limit (the
 * common case, one compare). Also, for a request longer than the stride,
 * if it starts below the limit and ends inside the block: with a fragment
 * out the limit lies less than a stride past the offset, so such a
 * request (a receive prepared for a 9000-byte frame) would otherwise go
 * to the library on every call; for it the look at the count is due when
 * the offset leaves the stride. No: no block, a look due, or no room.
 * Context: the cache's owner.
 */
static PP_ALWAYS_INLINE bool
__page_frag_room_fast(const struct page_frag_cache *nc, unsigned long off,
		      unsigned long end)
{
	if (PP_LIKELY(end <= nc->limit))
		return true;
	/* limit > off >= 0: a block is cached. */
	return end - off > (unsigned long)__PAGE_FRAG_CACHE_STRIDE &&
	       off < nc->limit &&
	       end <= (PAGE_SIZE << (nc->encoded_page &
				     PAGE_FRAG_CACHE_ORDER_MASK));
}

/**
 * __page_frag_fill() - describe in @pfrag the space of @nc's cached block
 * from @off to the block's end, and return its address: the one place the
 * prepare and probe calls, inline and in the library, fill a struct
 * page_frag. No checks: @nc holds a block and @off lies in it.
 * Context: the cache's owner.
 */
static PP_ALWAYS_INLINE void *
__page_frag_fill(const struct page_frag_cache *nc, unsigned long off,
		 struct page_frag *pfrag)
{
	unsigned long enc = nc->encoded_page;

	pfrag->page = nc->page;
	pfrag->offset = (uint32_t)off;
	pfrag->size = (uint32_t)((PAGE_SIZE
				  << (enc & PAGE_FRAG_CACHE_ORDER_MASK)) -
				 off);
	return (char *)(enc & PAGE_MASK) + off;
}

/**
 * __page_frag_try_rewind() - the look at the cached block's count that a
 * request past @nc's limit is due: if no fragment of the block is out,
 * start the block again from offset 0 (the rewind, see the DOC above) and
 * return true. Never at offset 0 (nothing cut since the block was
 * opened or rewound) nor for a block from the reserves (they go back when
 * full, as the kernel's). The fast paths' inline look (__page_frag_look())
 * and the library's slow paths share it.
 * Context: the cache's owner, with a block cached.
 */
static PP_ALWAYS_INLINE bool
__page_frag_try_rewind(struct page_frag_cache *nc)
{
	struct page *page = nc->page;

	if (nc->offset == 0 ||
	    PP_UNLIKELY((nc->encoded_page & PAGE_FRAG_CACHE_PFMEMALLOC_BIT) !=
			0))
		return false;
	/*
	 * A3: acquire, pairs with the release half of R2 in the
	 * page_frag_free() or put_page() that dropped each fragment's
	 * reference (a release sequence: every later drop is a
	 * read-modify-write). Seeing the count at our
	 * bias means every fragment came back, and what their holders did
	 * with the bytes happens before we hand the bytes out again. No one
	 * can raise the count meanwhile: that takes a reference, and we hold
	 * them all. Needed: relaxed, the page_frag_rewind GenMC harness
	 * (tests/genmc/page_frag.c) and TSan on tests/page_frag_rewind.c
	 * find a race.
	 */
	if (pp_load_acquire(&page->_refcount) != (int)nc->pagecnt_bias)
		return false;
	/*
	 * Back to a full bias, so the next pass cannot run out of it (up to
	 * one reference a byte). A plain store, as the kernel's set_page_count()
	 * once its drop reaches zero: every reference is ours and pagepool has
	 * no speculative taker (no get_page_unless_zero()), so no other thread
	 * writes the count until a fragment is handed out again. A locked add
	 * cost a full fence, once a rewind, on a line the freeing thread had
	 * just written. Relaxed: it follows every drop A3 read in the count's
	 * order (a load and a later store of one thread), and whoever reads
	 * it next got a fragment from us after it, or is us.
	 */
	set_page_count(page, (int)__PAGE_FRAG_CACHE_BIAS_FULL);
	nc->pagecnt_bias = __PAGE_FRAG_CACHE_BIAS_FULL;
	nc->offset = 0;
	nc->limit = 0;
	return true;
}

/**
 * __page_frag_set_limit() - after a look at the count (or a block opened),
 * for a request from @start to @end: where may the fast paths serve up
 * to? With a fragment out (the offset not 0 after the look), the end of
 * the stride @start lies in: a request crossing it, again or after this
 * one was committed, looks again, as one that was not committed (a probe
 * repeated until the fragments come back) must; one longer than the
 * stride, once it starts past it. With none (a block just opened,
 * rewound or renewed), the end of the stride @end lies in: nothing is
 * out to wait for. At most the block's end, a stride boundary, as @end
 * lies in the block.
 * Context: the cache's owner.
 */
static PP_ALWAYS_INLINE void
__page_frag_set_limit(struct page_frag_cache *nc, unsigned long start,
		      unsigned long end)
{
	unsigned long at = nc->offset != 0 ? start + 1 : end;

	nc->limit = (uint32_t)((at + __PAGE_FRAG_CACHE_STRIDE - 1) &
			       ~((unsigned long)__PAGE_FRAG_CACHE_STRIDE - 1));
}

/**
 * __page_frag_look() - the inline fast paths' answer to a request of
 * @fragsz bytes past the limit, at an offset aligned by the mask ~@low:
 * the look at the count (__page_frag_try_rewind()), then, if the request
 * fits in the block at the offset it leaves, the limit moved past it and
 * the offset in *@offp. Once per stride of offset, so worth no call: a
 * request/response loop crosses a stride every few frames. False (a
 * rewind may be done) with no block cached or no room: the library's.
 * Context: the cache's owner.
 */
static PP_ALWAYS_INLINE bool
__page_frag_look(struct page_frag_cache *nc, unsigned int fragsz,
		 unsigned long low, unsigned long *offp)
{
	unsigned long size, off;

	if (PP_UNLIKELY(nc->page == NULL))
		return false;
	size = PAGE_SIZE << (nc->encoded_page & PAGE_FRAG_CACHE_ORDER_MASK);
	if (PP_UNLIKELY(fragsz > size))
		return false;
	__page_frag_try_rewind(nc);
	off = (nc->offset + low) & ~low;
	if (PP_UNLIKELY(off + fragsz > size))
		return false;
	__page_frag_set_limit(nc, off, off + fragsz);
	*offp = off;
	return true;
}

/**
 * __page_frag_alloc_refill_prepare_align() - make at least @fragsz bytes
 * available at an offset aligned by @align_mask, opening a block if needed,
 * and describe all the space available there in @pfrag. Nothing is
 * allocated until page_frag_commit().
 *
 * Context: the cache's owner.
 * Return: the address of the space; NULL with errno as
 * __page_frag_alloc_align() (EINVAL also for a NULL @pfrag).
 */
PP_API void *
__page_frag_alloc_refill_prepare_align(struct page_frag_cache *nc,
				       unsigned int fragsz,
				       struct page_frag *pfrag, gfp_t gfp,
				       unsigned int align_mask);

#if !(defined(PP_DEBUG) && PP_DEBUG) && !defined(PAGEPOOL_BUILDING_LIB)
/*
 * The inline fast path, which calls of
 * __page_frag_alloc_refill_prepare_align() (and so of the prepare
 * wrappers below) reach through the macro after it, as the kernel's
 * prepare/probe/commit calls are inline: room below the cache's @limit
 * is described without a call, and so is a request past it that the
 * look at the count (__page_frag_look(), the rewind included) finds
 * room for. Anything else (no block, no room, bad input) is the exported
 * function's, which the name in parentheses still calls. The argument
 * checks are compares that fold away for constant arguments.
 */
static PP_ALWAYS_INLINE void *
__page_frag_alloc_refill_prepare_align_inline(struct page_frag_cache *nc,
					      unsigned int fragsz,
					      struct page_frag *pfrag,
					      gfp_t gfp,
					      unsigned int align_mask)
{
	unsigned long off, low = ~align_mask;

	if (PP_LIKELY(nc != NULL && pfrag != NULL &&
		      fragsz - 1 < (unsigned long)PAGE_FRAG_CACHE_MAX_SIZE &&
		      (low & (low + 1)) == 0 && low < PAGE_SIZE)) {
		off = (nc->offset + low) & ~low;
		if (PP_LIKELY(__page_frag_room_fast(nc, off, off + fragsz)) ||
		    __page_frag_look(nc, fragsz, low, &off))
			return __page_frag_fill(nc, off, pfrag);
	}
	return (__page_frag_alloc_refill_prepare_align)(nc, fragsz, pfrag, gfp,
							align_mask);
}
#define __page_frag_alloc_refill_prepare_align(nc, fragsz, pfrag, gfp, mask)  \
	__page_frag_alloc_refill_prepare_align_inline(nc, fragsz, pfrag, gfp,  \
						      mask)
#endif

/** page_frag_alloc_refill_prepare_align() - with a power-of-two @align. */
static inline void *
page_frag_alloc_refill_prepare_align(struct page_frag_cache *nc,
				     unsigned int fragsz,
				     struct page_frag *pfrag, gfp_t gfp,
				     unsigned int align)
{
	if (PP_UNLIKELY(align == 0 || (align & (align - 1)) != 0)) {
		errno = EINVAL;
		return NULL;
	}
	return __page_frag_alloc_refill_prepare_align(nc, fragsz, pfrag, gfp,
						      -align);
}

/** page_frag_alloc_refill_prepare() - with no alignment. */
static inline void *
page_frag_alloc_refill_prepare(struct page_frag_cache *nc,
			       unsigned int fragsz, struct page_frag *pfrag,
			       gfp_t gfp)
{
	return __page_frag_alloc_refill_prepare_align(nc, fragsz, pfrag, gfp,
						      ~0u);
}

/**
 * page_frag_alloc_refill_probe() - is there room for @fragsz bytes right
 * after the last fragment, in the cached block? Never opens a block, but
 * rewinds it, as the other allocation calls do, when the offset has left
 * the 4 KiB stride where the cache last looked and no fragment of the
 * block is out: the space is then at the block's start.
 *
 * If the returned address is where the caller's previous fragment ends, the
 * caller may extend that fragment with page_frag_commit_noref().
 * Context: the cache's owner.
 * Return: the address and @pfrag filled; NULL with errno ENOSPC (no block,
 * or less room) or EINVAL (NULL argument, @fragsz 0).
 */
PP_API void *page_frag_alloc_refill_probe(struct page_frag_cache *nc,
					  unsigned int fragsz,
					  struct page_frag *pfrag);

#if !(defined(PP_DEBUG) && PP_DEBUG) && !defined(PAGEPOOL_BUILDING_LIB)
/*
 * The inline fast path (through the macro below, as for prepare): room
 * below @limit, or past it after the look at the count, is described
 * without a call; no block or no room is the exported function's.
 */
static PP_ALWAYS_INLINE void *
__page_frag_alloc_refill_probe_inline(struct page_frag_cache *nc,
				      unsigned int fragsz,
				      struct page_frag *pfrag)
{
	unsigned long off;

	if (PP_LIKELY(nc != NULL && pfrag != NULL && fragsz != 0)) {
		off = nc->offset;
		if (PP_LIKELY(__page_frag_room_fast(nc, off, off + fragsz)) ||
		    __page_frag_look(nc, fragsz, 0, &off))
			return __page_frag_fill(nc, off, pfrag);
	}
	return (page_frag_alloc_refill_probe)(nc, fragsz, pfrag);
}
#define page_frag_alloc_refill_probe(nc, fragsz, pfrag)                       \
	__page_frag_alloc_refill_probe_inline(nc, fragsz, pfrag)
#endif

/**
 * page_frag_commit() - allocate the first @used_sz bytes of the space
 * @pfrag describes, as a fragment holding its own reference.
 *
 * Context: the cache's owner, with @pfrag from the latest prepare or probe.
 * Return: the bytes the cache advanced (@used_sz plus alignment padding,
 * the fragment's truesize); -EINVAL for a NULL argument, @used_sz 0 or
 * above @pfrag->size, or a @pfrag that is not the cache's current space
 * (also one whose offset + @used_sz runs past the block: in PP_DEBUG
 * builds and by the parenthesised name only, see the inline fast path).
 */
PP_API int page_frag_commit(struct page_frag_cache *nc,
			    const struct page_frag *pfrag,
			    unsigned int used_sz);

/**
 * page_frag_commit_noref() - page_frag_commit() without a reference: the
 * bytes extend the previous fragment of the block, whose reference covers
 * them (coalescing after page_frag_alloc_refill_probe()).
 * Return: as page_frag_commit(); -EINVAL also when no fragment of the
 * cached block is out yet.
 */
PP_API int page_frag_commit_noref(struct page_frag_cache *nc,
				  const struct page_frag *pfrag,
				  unsigned int used_sz);

#if !(defined(PP_DEBUG) && PP_DEBUG) && !defined(PAGEPOOL_BUILDING_LIB)
/*
 * The inline fast path of both commits (through the macros below; @ref:
 * page_frag_commit(), else page_frag_commit_noref()). Kept in every build,
 * a compare each, are the checks of what a caller gets wrong: a NULL
 * argument, @used_sz 0 or above @pfrag->size, a @pfrag of another block
 * or of an empty cache, one already committed (its offset behind the
 * cache's), and for _noref a block with no fragment out. That
 * @pfrag->offset + @used_sz lies in the block, which holds for any
 * @pfrag the prepare and probe calls filled, is checked by the exported
 * functions, which PP_DEBUG builds call (the kernel's VM_BUG_ON, in debug
 * kernels only). A call that fails a check goes to the exported function,
 * which refuses it.
 */
static PP_ALWAYS_INLINE int
__page_frag_commit_inline(struct page_frag_cache *nc,
			  const struct page_frag *pfrag, unsigned int used_sz,
			  bool ref)
{
	uint32_t old;

	if (PP_LIKELY(nc != NULL && pfrag != NULL && nc->page != NULL &&
		      pfrag->page == nc->page && used_sz - 1 < pfrag->size &&
		      pfrag->offset >= (old = nc->offset) &&
		      (ref || nc->pagecnt_bias <=
				      (uint32_t)PAGE_FRAG_CACHE_MAX_SIZE))) {
		if (ref)
			nc->pagecnt_bias--;
		nc->offset = pfrag->offset + used_sz;
		return (int)(nc->offset - old);
	}
	return ref ? (page_frag_commit)(nc, pfrag, used_sz)
		   : (page_frag_commit_noref)(nc, pfrag, used_sz);
}
#define page_frag_commit(nc, pfrag, used_sz)                                  \
	__page_frag_commit_inline(nc, pfrag, used_sz, true)
#define page_frag_commit_noref(nc, pfrag, used_sz)                            \
	__page_frag_commit_inline(nc, pfrag, used_sz, false)
#endif

/**
 * page_frag_alloc_abort() - undo the latest allocation, the @fragsz bytes
 * at @va: the space and its reference go back to the cache.
 * Context: the cache's owner, before any other allocation from it.
 * Return: 0; -EINVAL if @va/@fragsz are not the latest allocation of the
 * cached block.
 */
PP_API int page_frag_alloc_abort(struct page_frag_cache *nc, void *va,
				 unsigned int fragsz);

/**
 * page_frag_copy_to_va_nocache() - copy the bytes of @iov (@iovcnt
 * entries), after skipping the first @skip, into the space @pfrag
 * describes, with non-temporal stores where the CPU has them (the data is
 * for a device or another thread, not for this CPU's cache), as the
 * kernel's skb_copy_to_va_nocache() copies user data into a prepared
 * fragment. At most @pfrag->size bytes are copied.
 *
 * Context: any thread owning the space (between prepare and commit).
 * Return: bytes copied (then commit them); -EINVAL for NULL arguments or a
 * negative @iovcnt, a NULL iov_base with a non-zero length, or a @pfrag
 * whose offset + size runs past its block.
 */
PP_API ssize_t page_frag_copy_to_va_nocache(const struct page_frag *pfrag,
					    const struct iovec *iov,
					    int iovcnt, size_t skip);

/*
 * ---- Per-thread caches ---------------------------------------------------
 */

/**
 * pp_frag_cache_thread() - the calling thread's own cache, created on
 * first use and drained when the thread exits (the kernel's per-CPU
 * netdev_alloc_cache).
 * Context: the calling thread only.
 * Return: the cache (never NULL).
 */
PP_API struct page_frag_cache *pp_frag_cache_thread(void);

/**
 * pp_frag_cache_thread_drain() - drain the calling thread's cache now (the
 * block goes to the page allocator; pp_thread_cache_drain() empties that
 * thread's allocator cache too, if wanted). Threads drain at exit.
 * Context: the calling thread only.
 */
PP_API void pp_frag_cache_thread_drain(void);

/*
 * ---- pagepool extension: frees on the owner thread ----------------------
 */

/* How many caches one thread may have bound at a time. */
#define PAGE_FRAG_CACHE_BIND_MAX	4

/**
 * page_frag_cache_bind() - make the calling thread @nc's owner for its
 * frees: from now on, a fragment of @nc's current block freed on this
 * thread (page_frag_free(), or kfree_skb() dropping an skb's page
 * fragment or fragment head) gives its reference back to the cache's
 * pagecnt_bias, a plain increment, instead of dropping it from the block's
 * count with an atomic. page_pool's direct recycling does the same for the
 * pool's owner; the kernel's page_frag_cache has no such path, so each of
 * its frees is an atomic. Frees of other blocks, and frees on other
 * threads, are unchanged. The rewind finds such a block with nothing out
 * as it does after atomic frees.
 *
 * The promise the caller makes: until page_frag_cache_unbind() (or the
 * thread's exit), no other thread uses @nc, and @nc's memory stays valid.
 * Unbind before handing the cache to another thread or freeing it. A
 * signal handler on the bound thread must not free the cache's fragments
 * if it may interrupt a call on the cache: the bias is no atomic.
 * pp_frag_cache_thread() caches are bound to their thread already.
 * Binding a cache twice is one binding.
 *
 * Context: the cache's owner thread.
 * Return: 0; -EINVAL for NULL; -ENOSPC with PAGE_FRAG_CACHE_BIND_MAX
 * caches bound to the thread already.
 */
PP_API int page_frag_cache_bind(struct page_frag_cache *nc);

/**
 * page_frag_cache_unbind() - end page_frag_cache_bind() of @nc on the
 * calling thread: its frees of @nc's fragments are atomic drops again.
 * Context: the thread @nc is bound to.
 * Return: 0; -EINVAL for NULL or a cache not bound to this thread.
 */
PP_API int page_frag_cache_unbind(struct page_frag_cache *nc);

/**
 * __netdev_alloc_frag_align() - __page_frag_alloc_align() from the calling
 * thread's cache, with GFP_ATOMIC. Free with page_frag_free().
 */
PP_API void *__netdev_alloc_frag_align(unsigned int fragsz,
				       unsigned int align_mask);

/** netdev_alloc_frag_align() - with a power-of-two @align (EINVAL else). */
static inline void *
netdev_alloc_frag_align(unsigned int fragsz, unsigned int align)
{
	if (PP_UNLIKELY(align == 0 || (align & (align - 1)) != 0)) {
		errno = EINVAL;
		return NULL;
	}
	return __netdev_alloc_frag_align(fragsz, -align);
}

/** netdev_alloc_frag() - @fragsz bytes from the calling thread's cache. */
static inline void *
netdev_alloc_frag(unsigned int fragsz)
{
	return __netdev_alloc_frag_align(fragsz, ~0u);
}

#ifdef __cplusplus
}
#endif

#endif /* PAGEPOOL_PAGE_FRAG_CACHE_H */
