/* SPDX-License-Identifier: MIT */
/*
 * Copyright (c) 2026 The pagepool authors
 *
 * page_frag_cache: fragments cut from one cached block of the page
 * allocator, reference-counted per block (the kernel's mm/page_frag_cache.c,
 * behaviour of Linux 6.13, written anew).
 *
 * Reference accounting. Opening a block adds PAGE_FRAG_CACHE_MAX_SIZE
 * references to the one alloc_pages() gave, in one atomic add, and the
 * cache records that it holds all MAX_SIZE + 1 of them in pagecnt_bias.
 * Each fragment moves one of them from the cache to the caller by
 * decrementing the bias, a plain store in the cache, so the allocation fast
 * path writes nothing another thread reads. A block can never hand out more
 * than MAX_SIZE fragments (each is at least one byte), so the bias never
 * runs out. When the cache is done with a block it subtracts its bias in
 * one atomic operation: the result says whether fragments are still out
 * (the last page_frag_free() then frees the block) or none is, in which
 * case the cache owns the block exclusively and reuses it in place.
 *
 * Fall-back. The 32 KiB block is asked for without reclaim, warnings or
 * reserves, as the kernel does, and a single page with the caller's gfp
 * when it cannot be had. A request above PAGE_SIZE that does not fit is
 * refused without giving up the block: dropping it would only add to the
 * memory pressure that probably caused the fall-back.
 *
 * Rewind (pagepool's, not the kernel's). The kernel reuses a block only
 * when it is full, so a cache whose fragments each come back before the
 * next is cut (a request/response loop) still walks all 32 KiB, missing
 * the CPU's cache on every line, where the pre-seed struct page_frag
 * refill went back to offset 0 whenever its page was free. Once per
 * stride of offset (__PAGE_FRAG_CACHE_STRIDE), on the fast paths' test for
 * room (a request ending past nc->limit, the end of the stride where the
 * cache last looked; one longer than the stride, once it starts past it), the
 * cache looks at its block's count: equal to the bias
 * means no fragment is out, nobody else can reach the block, and the
 * cache starts it again from offset 0 (__page_frag_try_rewind(), inline in
 * the header, so the fast paths look without a call). One load
 * per stride, and the working set stays one stride plus a fragment. The
 * limit, not the stride of the last byte handed out, is what the test
 * compares with: a commit may take more than was reserved (a copy fills
 * the room a 32-byte probe found), and each stride such a commit ran past
 * must still be looked at once, or a socket's payloads walk the block.
 *
 * The prepare / probe / commit / abort calls are pagepool's extension (seed
 * 004, the unmerged part 2 of the series): the same block and accounting,
 * with the reservation split from the reference taking.
 */
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

#include <pagepool/atomic_pvt.h>
#include <pagepool/page_frag_cache.h>

#include "lib/fork_priv.h"
#include "mm/page_frag_cache_priv.h"

#define PFC_BIAS_FULL	((uint32_t)__PAGE_FRAG_CACHE_BIAS_FULL)

/*
 * __PAGE_FRAG_CACHE_STRIDE (the header's, which its inline fast paths and
 * this file share): how many bytes of offset the cache moves between two
 * looks at its block's count (the rewind). A power of two no larger than
 * a page, the smallest block: every block's end is then a stride
 * boundary, so one
 * test, "does this request end past the limit" (the end of the stride
 * where the cache last looked), catches both the stride left and the
 * block full. 4 KiB: in
 * tap_net_test it ran the fewest instructions of the strides this allows,
 * with 4.4 times fewer D1 misses than the walk of the whole block and 17%
 * more than a 1 KiB stride, which runs the slow path for nearly every
 * reply (docs/benchmarks.md). -DPFC_REWIND_STRIDE=N to measure another.
 */
_Static_assert((__PAGE_FRAG_CACHE_STRIDE &
		(__PAGE_FRAG_CACHE_STRIDE - 1)) == 0 &&
		       __PAGE_FRAG_CACHE_STRIDE <= PAGE_SIZE,
	       "the stride must be a power of two dividing every block");

/* As in pagepool/page_pool.h: 1 with meson -Ddebug_checks=true. */
#ifndef PP_DEBUG
#define PP_DEBUG 0
#endif

_Static_assert(PAGE_FRAG_CACHE_MAX_ORDER <= PAGE_FRAG_CACHE_ORDER_MASK ||
		       PAGE_FRAG_CACHE_ORDER_MASK == 0,
	       "the order must fit its field");

/*
 * ---- encoded_page ---------------------------------------------------------
 */

static inline unsigned long
encode_page(void *va, unsigned int order, bool pfmemalloc)
{
	return (unsigned long)va | (order & PAGE_FRAG_CACHE_ORDER_MASK) |
	       (pfmemalloc ? PAGE_FRAG_CACHE_PFMEMALLOC_BIT : 0);
}

static inline unsigned int
encoded_order(unsigned long enc)
{
	return (unsigned int)(enc & PAGE_FRAG_CACHE_ORDER_MASK);
}

static inline void *
encoded_va(unsigned long enc)
{
	return (void *)(enc & PAGE_MASK);
}

static inline bool
encoded_pfmemalloc(unsigned long enc)
{
	return (enc & PAGE_FRAG_CACHE_PFMEMALLOC_BIT) != 0;
}

/* Is @mask of the form -2^k, 2^k <= PAGE_SIZE? */
static inline bool
align_mask_ok(unsigned int mask)
{
	unsigned int low = ~mask;

	return (low & (low + 1)) == 0 && low < PAGE_SIZE;
}

/*
 * ---- Caches bound to their owner thread (pagepool's) -----------------------
 *
 * page_frag_cache_bind(): the caches whose owner is this thread, so a free
 * on it of a fragment of one of their current blocks can hand the
 * reference back to that cache's bias instead of dropping it from the
 * block's count (_pp_frag_put_local(), in page_frag_cache_priv.h). The
 * count stays bias + references out either way, which is all the rewind,
 * the renewal and the drain rely on.
 */
__thread struct page_frag_cache *_pp_bound_nc[PAGE_FRAG_CACHE_BIND_MAX];
__thread unsigned int _pp_nr_bound_nc;

int
page_frag_cache_bind(struct page_frag_cache *nc)
{
	unsigned int i;

	if (nc == NULL)
		return -EINVAL;
	for (i = 0; i < _pp_nr_bound_nc; i++)
		if (_pp_bound_nc[i] == nc)
			return 0;
	if (_pp_nr_bound_nc == PAGE_FRAG_CACHE_BIND_MAX)
		return -ENOSPC;
	_pp_bound_nc[_pp_nr_bound_nc++] = nc;
	return 0;
}

int
page_frag_cache_unbind(struct page_frag_cache *nc)
{
	unsigned int i;

	if (nc == NULL)
		return -EINVAL;
	for (i = 0; i < _pp_nr_bound_nc; i++) {
		if (_pp_bound_nc[i] == nc) {
			_pp_bound_nc[i] = _pp_bound_nc[--_pp_nr_bound_nc];
			return 0;
		}
	}
	return -EINVAL;
}

/*
 * ---- Debug builds: which fragments are live ---------------------------------
 *
 * A block's reference count says how many fragments are out, not which, so
 * a second page_frag_free() of one fragment silently takes the reference of
 * a live sibling, and the block is freed (or reused in place by the cache)
 * under it. PP_DEBUG builds keep, per block a cache opened, a record of
 * where each fragment starts and whether it is still out; a free is matched
 * to the fragment starting at or before its address, and refused if that
 * one is already back or the address lies past the last fragment's end.
 * The record is keyed by the block's address and dropped when the block
 * goes back to the page allocator through this file; a cache reopening or
 * rewinding the block starts a fresh one. One mutex covers all records:
 * debug builds trade speed for the check. The functions exist in every
 * build; only PP_DEBUG code calls them.
 *
 * What a record cannot see: references dropped by page (put_page(),
 * __page_frag_cache_drain()), which do not say which fragment they free,
 * and a free after the block was reused or rewound, when a new fragment
 * may start at the same address (until one does, such a free is refused
 * as an address in no fragment).
 */

#define DBG_BITS	((size_t)PAGE_FRAG_CACHE_MAX_SIZE)
#define DBG_WORDS	((DBG_BITS + 63) / 64)
#define DBG_BUCKETS	256

struct frag_dbg {
	struct frag_dbg *next;		/* hash chain */
	const char *va;			/* the block */
	uint32_t end;			/* end of the last fragment */
	uint64_t start[DBG_WORDS];	/* a fragment starts at this offset */
	uint64_t live[DBG_WORDS];	/* ... and has not come back */
};

static pthread_mutex_t dbg_lock = PTHREAD_MUTEX_INITIALIZER;
static struct frag_dbg *dbg_hash[DBG_BUCKETS];
static uint64_t dbg_errors;

#ifndef PP_MODEL_CHECK
/* Fork (lib/fork.c, order 6): dbg_lock is held by no other thread across
 * the fork; the child releases it as the parent does. */
void
_pp_frag_fork(enum pp_fork_phase phase)
{
	_pp_fork_mutex(&dbg_lock, phase);
}
#endif

static struct frag_dbg **
dbg_slot(const void *va)
{
	struct frag_dbg **pp;

	pp = &dbg_hash[((uintptr_t)va >> PAGE_SHIFT) % DBG_BUCKETS];
	while (*pp != NULL && (*pp)->va != va)
		pp = &(*pp)->next;
	return pp;
}

/* A cache (re)opened the block at @va: no fragment of it is out. */
static void
dbg_open(const void *va)
{
	struct frag_dbg **pp, *d;

	pthread_mutex_lock(&dbg_lock);
	pp = dbg_slot(va);
	d = *pp;
	if (d == NULL) {
		/* Not the library's allocator: a debug record must not
		 * change what fault injection counts. Without memory the
		 * block goes unwatched. */
		d = calloc(1, sizeof(*d));
		if (d != NULL) {
			d->va = va;
			*pp = d;
		}
	} else {
		memset(d->start, 0, sizeof(d->start));
		memset(d->live, 0, sizeof(d->live));
		d->end = 0;
	}
	pthread_mutex_unlock(&dbg_lock);
}

/* The block at @va went back to the page allocator. Called with the lock. */
static void
dbg_close_locked(const void *va)
{
	struct frag_dbg **pp = dbg_slot(va), *d = *pp;

	if (d != NULL) {
		*pp = d->next;
		free(d);
	}
}

/*
 * The fragment [off, off + size) of the block at @va is handed out (@ref:
 * with its own reference) or, without one, extends the fragment before it.
 */
static void
dbg_alloc(const void *va, uint32_t off, uint32_t size, bool ref)
{
	struct frag_dbg *d;

	pthread_mutex_lock(&dbg_lock);
	d = *dbg_slot(va);
	if (d != NULL && off < DBG_BITS) {
		if (ref) {
			d->start[off / 64] |= 1ULL << (off % 64);
			d->live[off / 64] |= 1ULL << (off % 64);
		}
		if (off + size > d->end)
			d->end = off + size;
	}
	pthread_mutex_unlock(&dbg_lock);
}

/* page_frag_alloc_abort() took back the fragment at @off. */
static void
dbg_abort(const void *va, uint32_t off)
{
	struct frag_dbg *d;

	pthread_mutex_lock(&dbg_lock);
	d = *dbg_slot(va);
	if (d != NULL && off < DBG_BITS) {
		d->start[off / 64] &= ~(1ULL << (off % 64));
		d->live[off / 64] &= ~(1ULL << (off % 64));
		d->end = off;
	}
	pthread_mutex_unlock(&dbg_lock);
}

/* The start of the fragment holding @off: the last start at or below it,
 * or -1. */
static long
dbg_start_of(const struct frag_dbg *d, uint32_t off)
{
	long w = off / 64;
	uint64_t bits = d->start[w] & (~0ULL >> (63 - off % 64));

	for (;;) {
		if (bits != 0)
			return w * 64 + 63 - __builtin_clzll(bits);
		if (--w < 0)
			return -1;
		bits = d->start[w];
	}
}

static void
dbg_report(const void *addr, const char *what)
{
	pp_fetch_add_relaxed(&dbg_errors, 1);
	fprintf(stderr, "page_frag: %s: address %p\n", what, addr);
}

/*
 * page_frag_free() in debug builds: drop @addr's fragment from its block's
 * record and the block's reference, or refuse. Record and count change
 * under one lock hold, so a block freed here cannot be reopened by a cache
 * before its record is gone.
 */
static void
dbg_free(void *addr, struct page *head)
{
	const char *va = page_address(head);
	struct frag_dbg *d;
	bool last = false;
	long s;

	pthread_mutex_lock(&dbg_lock);
	d = *dbg_slot(va);
	if (d != NULL) {
		uint32_t off = (uint32_t)((const char *)addr - va);

		s = off < d->end ? dbg_start_of(d, off) : -1;
		if (s < 0) {
			pthread_mutex_unlock(&dbg_lock);
			dbg_report(addr, "free of an address in no fragment");
			errno = EINVAL;
			return;
		}
		if (!(d->live[s / 64] & (1ULL << (s % 64)))) {
			pthread_mutex_unlock(&dbg_lock);
			dbg_report(addr, "double free of a fragment");
			errno = EINVAL;
			return;
		}
		d->live[s / 64] &= ~(1ULL << (s % 64));
		/* R2/A2, as put_page(). A bound cache's block keeps at
		 * least the cache's bias: never the last. */
		last = !_pp_frag_put_local(head) &&
		       page_ref_sub_and_test(head, 1);
		if (last)
			dbg_close_locked(va);
	}
	pthread_mutex_unlock(&dbg_lock);
	if (d == NULL)
		put_page(head);		/* not a cache's block, or unwatched */
	else if (last)
		free_frozen_pages(head, compound_order(head));
}

/* A block about to lose @count references by page: drop its record if they
 * are the last. True if the caller must free it. */
static bool
dbg_drain(struct page *head, unsigned int count)
{
	bool last;

	pthread_mutex_lock(&dbg_lock);
	/* R2/A2: as in frag_cache_renew(). */
	last = page_ref_sub_and_test(head, (int)count);
	if (last)
		dbg_close_locked(page_address(head));
	pthread_mutex_unlock(&dbg_lock);
	return last;
}

uint64_t
page_frag_debug_errors(void)
{
	return pp_load_relaxed(&dbg_errors);
}

/*
 * ---- Core -----------------------------------------------------------------
 */

/*
 * Open a new block: 32 KiB if the allocator has one at hand, else a page.
 * False with errno (from the allocator) and the cache left empty.
 */
static bool
frag_cache_refill(struct page_frag_cache *nc, gfp_t gfp)
{
	unsigned int order = PAGE_FRAG_CACHE_MAX_ORDER;
	struct page *page = NULL;

	/* Empty, offset 0 included: the fast paths' test relies on it. */
	nc->encoded_page = 0;
	nc->offset = 0;
	nc->limit = 0;
	nc->page = NULL;
	if (PAGE_FRAG_CACHE_MAX_ORDER > 0)
		page = alloc_pages_node(NUMA_NO_NODE,
					gfp | __GFP_COMP | __GFP_NOWARN |
						__GFP_NORETRY |
						__GFP_NOMEMALLOC,
					PAGE_FRAG_CACHE_MAX_ORDER);
	if (PP_UNLIKELY(page == NULL)) {
		order = 0;
		page = alloc_pages_node(NUMA_NO_NODE, gfp, 0);
		if (page == NULL)
			return false;
	}
	nc->encoded_page = encode_page(page_address(page), order,
				       page_is_pfmemalloc(page));
	nc->page = page;
	/* An add, not a set, as the kernel: a speculative reference taken
	 * meanwhile (get_page_unless_zero() there) must not be lost.
	 * Relaxed: we hold a reference, see page_ref_add(). */
	page_ref_add(page, (int)PAGE_FRAG_CACHE_MAX_SIZE);
	nc->pagecnt_bias = PFC_BIAS_FULL;
	nc->offset = 0;
	nc->limit = 0;
	if (PP_DEBUG)
		dbg_open(page_address(page));
	return true;
}

/*
 * The cached block has no room for @fragsz at the aligned offset: give back
 * the cache's references and reuse the block if nobody else holds it, else
 * open a new one. Returns the block's address with nc->offset 0, or NULL
 * with errno.
 */
static void *
frag_cache_renew(struct page_frag_cache *nc, unsigned int fragsz, gfp_t gfp)
{
	unsigned long enc = nc->encoded_page;
	struct page *page;
	bool last;

	/* Refused without dropping the block (see the file comment). */
	if (fragsz > PAGE_SIZE) {
		errno = ENOMEM;
		return NULL;
	}
	page = nc->page;
	/*
	 * R2/A2 (page_ref_sub_and_test()): the release half publishes our
	 * writes to fragments we still hold in bias to whoever frees last;
	 * the acquire half pairs with the releases of page_frag_free() on
	 * other threads, so when we see zero their writes precede our reuse.
	 */
	last = PP_DEBUG ? dbg_drain(page, nc->pagecnt_bias)
			: page_ref_sub_and_test(page, (int)nc->pagecnt_bias);
	if (!last)
		goto refill;
	if (PP_UNLIKELY(encoded_pfmemalloc(enc))) {
		/* Reserves go back at once, never reused for normal data. */
		free_frozen_pages(page, encoded_order(enc));
		goto refill;
	}
	/* Nobody else can see the count (it is zero): a plain set. */
	set_page_count(page, (int)PFC_BIAS_FULL);
	nc->pagecnt_bias = PFC_BIAS_FULL;
	nc->offset = 0;
	nc->limit = 0;
	if (PP_DEBUG)
		dbg_open(encoded_va(enc));
	return encoded_va(enc);

refill:
	if (!frag_cache_refill(nc, gfp))
		return NULL;
	return encoded_va(nc->encoded_page);
}

/*
 * The fast paths' test (__page_frag_room_fast()), negated: must a request
 * from @off to @end come here? Yes for an empty cache or a block just
 * opened, rewound or renewed (limit 0), once the request leaves the stride
 * where the slow path last looked (for one longer than the stride: once
 * it starts past it), by a request or after a commit longer than its
 * reservation, and, as the limit is at most the block's end, whenever
 * the request does not fit. In unsigned long, so that a probe's unchecked
 * size cannot wrap the sum.
 */
static inline bool
frag_crosses(const struct page_frag_cache *nc, unsigned long off,
	     unsigned long end)
{
	return !__page_frag_room_fast(nc, off, end);
}

/*
 * Start the cached block again from offset 0 if no fragment of it is out
 * (__page_frag_try_rewind(), which the header's inline look shares). True
 * if it did. Runs once per stride of offset (each time the limit is
 * passed).
 */
static PP_ALWAYS_INLINE bool
frag_cache_try_rewind(struct page_frag_cache *nc)
{
	if (!__page_frag_try_rewind(nc))
		return false;
	if (PP_DEBUG)
		dbg_open(encoded_va(nc->encoded_page));
	return true;
}

/*
 * The reservation's slow path (frag_crosses() said so): open a block,
 * rewind the cached one, or renew it when the request does not fit. Makes
 * room for @fragsz bytes at an offset aligned by @align_mask, *@offset;
 * the rest (block, size, head page) is the cache's own state, where the
 * callers, __page_frag_fill() among them, read it. False with errno if no
 * room could be had. Caller validated. Inlined into the two out-of-line
 * slow paths below.
 */
static PP_ALWAYS_INLINE bool
frag_cache_reserve_slow(struct page_frag_cache *nc, unsigned int fragsz,
			gfp_t gfp, unsigned int align_mask,
			unsigned int *offset)
{
	unsigned int off, sz;

	if (PP_UNLIKELY(nc->encoded_page == 0)) {
		if (!frag_cache_refill(nc, gfp))
			return false;
	} else {
		frag_cache_try_rewind(nc);
	}
	sz = (unsigned int)(PAGE_SIZE << encoded_order(nc->encoded_page));
	off = (nc->offset + ~align_mask) & align_mask;
	if (PP_UNLIKELY(off + fragsz > sz)) {
		/* A page fall-back may shrink the block; a request up to
		 * PAGE_SIZE fits at offset 0 of any block. */
		if (frag_cache_renew(nc, fragsz, gfp) == NULL)
			return false;
		off = 0;
	}
	__page_frag_set_limit(nc, off, off + fragsz);
	*offset = off;
	return true;
}

/* __page_frag_alloc_align()'s slow path, whole: a tail call from there. */
static __attribute__((noinline)) void *
frag_alloc_slow(struct page_frag_cache *nc, unsigned int fragsz, gfp_t gfp,
		unsigned int align_mask)
{
	unsigned int off;
	char *va;

	if (PP_UNLIKELY(!frag_cache_reserve_slow(nc, fragsz, gfp, align_mask,
						 &off)))
		return NULL;
	va = encoded_va(nc->encoded_page);
	nc->pagecnt_bias--;
	nc->offset = off + fragsz;
	if (PP_DEBUG)
		dbg_alloc(va, off, fragsz, true);
	return va + off;
}

static inline bool
frag_args_ok(const struct page_frag_cache *nc, unsigned int fragsz,
	     unsigned int align_mask)
{
	if (PP_UNLIKELY(nc == NULL || fragsz == 0 ||
			fragsz > PAGE_FRAG_CACHE_MAX_SIZE ||
			!align_mask_ok(align_mask))) {
		errno = EINVAL;
		return false;
	}
	return true;
}

void *
__page_frag_alloc_align(struct page_frag_cache *nc, unsigned int fragsz,
			gfp_t gfp, unsigned int align_mask)
{
	unsigned int off;
	char *va;

	if (!frag_args_ok(nc, fragsz, align_mask))
		return NULL;
	off = (nc->offset + ~align_mask) & align_mask;
	if (PP_UNLIKELY(frag_crosses(nc, off, off + fragsz)))
		return frag_alloc_slow(nc, fragsz, gfp, align_mask);
	va = encoded_va(nc->encoded_page);
	nc->pagecnt_bias--;
	nc->offset = off + fragsz;
	if (PP_DEBUG)
		dbg_alloc(va, off, fragsz, true);
	return va + off;
}

void
page_frag_free(void *addr)
{
	struct page *page = virt_to_page(addr);
	int old;

	if (PP_UNLIKELY(page == NULL)) {
		errno = EINVAL;
		return;
	}
	page = compound_head(page);
	if (PP_DEBUG) {
		dbg_free(addr, page);
		return;
	}
	if (_pp_frag_put_local(page))
		return;
	/*
	 * The kernel's put_page_testzero() + free_frozen_pages() on the head.
	 * Not put_page(): virt_to_page() already proved @page ours, and
	 * put_page() would look its region up a second time, on every free.
	 * R2/A2, as page_ref_sub_and_test(): the release publishes this
	 * holder's writes, the acquire orders the last dropper (here, or
	 * the cache in frag_cache_renew()) after all of them. Needed:
	 * relaxed, the page_frag GenMC harness finds a race.
	 */
	old = pp_fetch_sub_acq_rel(&page->_refcount, 1);
	if (PP_LIKELY(old > 1))
		return;
	if (PP_UNLIKELY(old < 1)) {
		/* A block nobody holds: undo, and let put_page() report it
		 * as it reports any drop below zero. Relaxed: pairs with
		 * nothing, the count was already wrong. */
		pp_fetch_add_relaxed(&page->_refcount, 1);
		put_page(page);
		return;
	}
	free_frozen_pages(page, compound_order(page));
}

void
page_frag_cache_init(struct page_frag_cache *nc)
{
	if (nc == NULL) {
		errno = EINVAL;
		return;
	}
	nc->encoded_page = 0;
	nc->offset = 0;
	nc->limit = 0;
	nc->pagecnt_bias = 0;
	nc->page = NULL;
}

bool
page_frag_cache_is_pfmemalloc(const struct page_frag_cache *nc)
{
	return nc != NULL && encoded_pfmemalloc(nc->encoded_page);
}

void
__page_frag_cache_drain(struct page *page, unsigned int count)
{
	if (page == NULL || count == 0 || count > (unsigned int)INT32_MAX) {
		errno = EINVAL;
		return;
	}
	page = compound_head(page);
	/* The caller holds @count references, which no one else can drop:
	 * fewer in the count means a wrong @count, never a race. */
	if (PP_UNLIKELY(page_ref_count(page) < (int)count)) {
		errno = EINVAL;
		return;
	}
	/* R2/A2: as in frag_cache_renew(). */
	if (PP_DEBUG ? dbg_drain(page, count)
		     : page_ref_sub_and_test(page, (int)count))
		free_frozen_pages(page, compound_order(page));
}

void
page_frag_cache_drain(struct page_frag_cache *nc)
{
	if (nc == NULL) {
		errno = EINVAL;
		return;
	}
	if (nc->encoded_page == 0)
		return;
	__page_frag_cache_drain(nc->page, nc->pagecnt_bias);
	nc->encoded_page = 0;
	nc->offset = 0;
	nc->limit = 0;
	nc->pagecnt_bias = 0;
	nc->page = NULL;
}

/*
 * ---- Extension: prepare / probe / commit / abort ----------------------------
 */

/*
 * prepare's slow path: no block yet, or no room for @fragsz in it. Inlined
 * into the exported function, which the header's inline fast path calls
 * only for this (PP_DEBUG builds and calls of the parenthesised name for
 * everything).
 */
static PP_ALWAYS_INLINE void *
frag_prepare_slow(struct page_frag_cache *nc, unsigned int fragsz,
		  struct page_frag *pfrag, gfp_t gfp, unsigned int align_mask)
{
	unsigned int off;

	if (PP_UNLIKELY(!frag_cache_reserve_slow(nc, fragsz, gfp, align_mask,
						 &off)))
		return NULL;
	return __page_frag_fill(nc, off, pfrag);
}

/* The exported functions the header's inline fast paths fall back to
 * (and PP_DEBUG builds call): the names in parentheses, so that a
 * translation unit that sees the header's macros (the GenMC harnesses
 * include this file) still defines them. */
void *
(__page_frag_alloc_refill_prepare_align)(struct page_frag_cache *nc,
					 unsigned int fragsz,
					 struct page_frag *pfrag, gfp_t gfp,
					 unsigned int align_mask)
{
	unsigned int off;

	if (PP_UNLIKELY(pfrag == NULL || !frag_args_ok(nc, fragsz,
							align_mask))) {
		errno = EINVAL;
		return NULL;
	}
	off = (nc->offset + ~align_mask) & align_mask;
	if (PP_UNLIKELY(frag_crosses(nc, off, off + fragsz)))
		return frag_prepare_slow(nc, fragsz, pfrag, gfp, align_mask);
	return __page_frag_fill(nc, off, pfrag);
}

/*
 * The probe's slow path (frag_crosses() said so): no block, a request
 * larger than the block, the stride crossed (rewind if all is back) or no
 * room. The header's inline look, whole; a debug build also reopens the
 * block's record when the look rewound it.
 */
static __attribute__((noinline)) void *
frag_probe_slow(struct page_frag_cache *nc, unsigned int fragsz,
		struct page_frag *pfrag)
{
	unsigned long off;
	bool ok;

	if (PP_DEBUG) {
		unsigned int was = nc->offset;

		ok = __page_frag_look(nc, fragsz, 0, &off);
		/* Only a rewind takes the offset from non-zero to 0. */
		if (was != 0 && nc->offset == 0)
			dbg_open(encoded_va(nc->encoded_page));
	} else {
		ok = __page_frag_look(nc, fragsz, 0, &off);
	}
	if (!ok) {
		errno = ENOSPC;
		return NULL;
	}
	return __page_frag_fill(nc, off, pfrag);
}

void *
(page_frag_alloc_refill_probe)(struct page_frag_cache *nc,
			       unsigned int fragsz, struct page_frag *pfrag)
{
	unsigned int off;

	if (nc == NULL || pfrag == NULL || fragsz == 0) {
		errno = EINVAL;
		return NULL;
	}
	off = nc->offset;
	if (PP_UNLIKELY(frag_crosses(nc, off, off + (unsigned long)fragsz)))
		return frag_probe_slow(nc, fragsz, pfrag);
	return __page_frag_fill(nc, off, pfrag);
}

/*
 * Is @pfrag space of the cached block, after its last fragment? Every
 * field is checked, in as few branches as the common case allows: this
 * runs once per fragment (the kernel checks the same with VM_BUG_ON, in
 * debug kernels only).
 */
static inline int
commit_check(const struct page_frag_cache *nc, const struct page_frag *pfrag,
	     unsigned int used_sz)
{
	unsigned long enc, end;

	if (PP_UNLIKELY(nc == NULL || pfrag == NULL || pfrag->page == NULL))
		return -EINVAL;
	enc = nc->encoded_page;
	end = (unsigned long)pfrag->offset + used_sz;
	if (PP_UNLIKELY(enc == 0 || (used_sz - 1) >= pfrag->size ||
			pfrag->page != nc->page ||
			pfrag->offset < nc->offset ||
			end > (PAGE_SIZE << encoded_order(enc))))
		return -EINVAL;
	return 0;
}

int
(page_frag_commit)(struct page_frag_cache *nc, const struct page_frag *pfrag,
		   unsigned int used_sz)
{
	unsigned int old;
	int err = commit_check(nc, pfrag, used_sz);

	if (err != 0)
		return err;
	old = nc->offset;
	nc->pagecnt_bias--;
	nc->offset = pfrag->offset + used_sz;
	if (PP_DEBUG)
		dbg_alloc(encoded_va(nc->encoded_page), pfrag->offset, used_sz,
			  true);
	return (int)(nc->offset - old);
}

int
(page_frag_commit_noref)(struct page_frag_cache *nc,
			 const struct page_frag *pfrag, unsigned int used_sz)
{
	unsigned int old;
	int err = commit_check(nc, pfrag, used_sz);

	if (err != 0)
		return err;
	/* Some fragment of this block must be out to cover the bytes. */
	if (nc->pagecnt_bias >= PFC_BIAS_FULL)
		return -EINVAL;
	old = nc->offset;
	nc->offset = pfrag->offset + used_sz;
	if (PP_DEBUG)
		dbg_alloc(encoded_va(nc->encoded_page), pfrag->offset, used_sz,
			  false);
	return (int)(nc->offset - old);
}

int
page_frag_alloc_abort(struct page_frag_cache *nc, void *va,
		      unsigned int fragsz)
{
	unsigned long enc;
	char *base;

	if (nc == NULL || va == NULL || fragsz == 0)
		return -EINVAL;
	enc = nc->encoded_page;
	if (enc == 0 || nc->pagecnt_bias >= PFC_BIAS_FULL ||
	    fragsz > nc->offset)
		return -EINVAL;
	base = encoded_va(enc);
	if ((char *)va != base + nc->offset - fragsz)
		return -EINVAL;
	nc->pagecnt_bias++;
	nc->offset -= fragsz;
	if (PP_DEBUG)
		dbg_abort(base, nc->offset);
	return 0;
}

/*
 * Copy with non-temporal stores on x86-64 (movnti, 8 bytes each, then one
 * sfence so the data is ordered before whatever publishes the fragment).
 * Sanitizers do not see such stores; their builds use memcpy.
 */
#if defined(PP_MODEL_CHECK)
/* Model checkers (tests/genmc) know no streaming stores or fences. */
#elif defined(__x86_64__) && !defined(__SANITIZE_ADDRESS__) && \
	!defined(__SANITIZE_THREAD__) && !defined(__has_feature)
#define PFC_HAVE_NT 1
#elif defined(__x86_64__) && defined(__has_feature)
#if !__has_feature(address_sanitizer) && !__has_feature(thread_sanitizer)
#define PFC_HAVE_NT 1
#endif
#endif

static void
copy_nocache(char *dst, const char *src, size_t len)
{
#ifdef PFC_HAVE_NT
	size_t head = (size_t)(-(uintptr_t)dst & 7);
	long long w;

	if (len < 64) {
		memcpy(dst, src, len);
		return;
	}
	memcpy(dst, src, head);
	dst += head;
	src += head;
	len -= head;
	while (len >= 8) {
		memcpy(&w, src, 8);
		_mm_stream_si64((long long *)(void *)dst, w);
		dst += 8;
		src += 8;
		len -= 8;
	}
	memcpy(dst, src, len);
#else
	memcpy(dst, src, len);
#endif
}

ssize_t
page_frag_copy_to_va_nocache(const struct page_frag *pfrag,
			     const struct iovec *iov, int iovcnt, size_t skip)
{
	size_t room, done = 0, n;
	struct page *head;
	char *dst;
	int i;

	if (pfrag == NULL || pfrag->page == NULL || iovcnt < 0 ||
	    (iov == NULL && iovcnt > 0))
		return -EINVAL;
	/* The space must lie in its block: pfrag is the caller's to fill,
	 * and a wrong size would have us write past the block. (@page is
	 * the head by contract; a tail is measured from the head too.) */
	head = compound_head(pfrag->page);
	if ((size_t)((char *)page_address(pfrag->page) -
		     (char *)page_address(head)) +
		    pfrag->offset + pfrag->size >
	    (PAGE_SIZE << compound_order(head)))
		return -EINVAL;
	for (i = 0; i < iovcnt; i++)
		if (iov[i].iov_base == NULL && iov[i].iov_len != 0)
			return -EINVAL;
	dst = (char *)page_address(pfrag->page) + pfrag->offset;
	room = pfrag->size;
	for (i = 0; i < iovcnt && done < room; i++) {
		if (skip >= iov[i].iov_len) {
			skip -= iov[i].iov_len;
			continue;
		}
		n = iov[i].iov_len - skip;
		if (n > room - done)
			n = room - done;
		copy_nocache(dst + done, (const char *)iov[i].iov_base + skip,
			     n);
		skip = 0;
		done += n;
	}
#ifdef PFC_HAVE_NT
	_mm_sfence();
#endif
	if (done > (size_t)SSIZE_MAX)
		return -EINVAL;
	return (ssize_t)done;
}

/*
 * ---- Per-thread caches ------------------------------------------------------
 */

static __thread struct page_frag_cache thread_nc;
static __thread int thread_nc_registered;

static pthread_key_t thread_nc_key;
static pthread_once_t thread_nc_once = PTHREAD_ONCE_INIT;
static int thread_nc_key_ok;

void
pp_frag_cache_thread_drain(void)
{
	/* At thread exit the page allocator's cache may already have been
	 * drained; freeing into it registers it for another drain round. */
	page_frag_cache_drain(&thread_nc);
}

static void
thread_nc_destructor(void *arg)
{
	(void)arg;
	pp_frag_cache_thread_drain();
}

static void
thread_nc_key_init(void)
{
	thread_nc_key_ok =
		pthread_key_create(&thread_nc_key, thread_nc_destructor) == 0;
}

struct page_frag_cache *
pp_frag_cache_thread(void)
{
	if (PP_UNLIKELY(thread_nc_registered == 0)) {
		pthread_once(&thread_nc_once, thread_nc_key_init);
		/* Only this thread can reach its cache. With the thread's
		 * bindings all taken, its frees stay atomic drops. */
		(void)page_frag_cache_bind(&thread_nc);
		/* Without a destructor the block would outlive the thread
		 * until pp_frag_cache_thread_drain(); still usable. */
		if (thread_nc_key_ok)
			pthread_setspecific(thread_nc_key, &thread_nc);
		thread_nc_registered = 1;
	}
	return &thread_nc;
}

void *
__netdev_alloc_frag_align(unsigned int fragsz, unsigned int align_mask)
{
	return __page_frag_alloc_align(pp_frag_cache_thread(), fragsz,
				       GFP_ATOMIC, align_mask);
}
