/* SPDX-License-Identifier: MIT */
/*
 * Copyright (c) 2026 The pagepool authors
 *
 * The page allocator: a binary buddy allocator per zone (source and node),
 * with per-thread caches of small blocks in front of it.
 *
 * Buddy. Free blocks of order k sit on the zone's free_area[k] list, their
 * head page marked PP_PG_BUDDY with the order in page->private. Allocation
 * takes the smallest free block of at least the wanted order and splits it,
 * returning the upper halves to the lists; freeing merges a block with its
 * buddy (frame number XOR 2^k) while that buddy is free, of the same order
 * and inside the same region. All of it runs under the zone's spinlock:
 * critical sections are a few list operations, and the per-thread caches
 * keep most callers away from them. When the lists run dry the zone grows by
 * one region (mem_source.c), under a mutex, outside the spinlock.
 *
 * Per-thread caches (the kernel's per-CPU page lists). Each thread has
 * PP_PCP_SLOTS slots, each caching free blocks of orders 0..PP_PCP_MAX_ORDER
 * for one zone, LIFO so the most recently freed (cache-hot) block is reused
 * first: order 0 on a stack of descriptor pointers, prepared for their next
 * allocation on the way in, the higher orders on lists. Only the owning
 * thread touches its slots, so a thread's alloc/free pair costs no lock and
 * no atomic read-modify-write on shared state. Caches refill from the zone
 * and spill back to it in batches, one lock hold per batch. A thread that
 * uses more zones than it has slots falls back to the zone's lists for the
 * extra ones. The fast paths reach the cache through an initial-exec
 * pointer (tc_self) and, on free, find the page's region in a one-entry
 * per-thread cache before the address tables.
 *
 * Cross-thread frees go home: a block of order 0..3 freed by a thread
 * other than the one that allocated it is batched for that thread's inbox
 * and taken into its cache at its next refill (see struct pp_inbox), as
 * mimalloc's thread-free lists do, rather than through the buddy lists.
 *
 * The slots (17 KiB a thread) live on the heap, allocated when the thread
 * first caches a block and freed at its exit; only the cache's small
 * bookkeeping is thread-local, so that the library's thread-local storage
 * stays small enough for dlopen() (lib/tls_priv.h).
 *
 * Thread exit drains the thread's cache to the zones (a pthread key
 * destructor). Slots keep the zone pointer of the last zone they served
 * after being emptied; an empty slot is never dereferenced, so a destroyed
 * zone left there is harmless, and the slot is reused for any zone.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include <pagepool/atomic_pvt.h>
#include <pagepool/page.h>
#include <pagepool/page_pool_types.h>

#include "lib/fork_priv.h"
#include "lib/mem_priv.h"
#include "lib/tls_priv.h"
#include "page_alloc_priv.h"

/* The sizes below are overridable so that the GenMC harness
 * (tests/genmc/page_alloc_inbox.c) runs the real code on small ones. */
#ifndef PP_PCP_SLOTS
#define PP_PCP_SLOTS		8
#endif
#define PP_PCP_ORDERS		(PP_PCP_MAX_ORDER + 1)

/*
 * Cache sizes per order, in blocks: up to 1 MiB of order-0 pages and
 * 256 KiB..1 MiB of each higher cached order per thread and zone. The
 * refill/spill batch is a quarter of that, so one lock hold serves 64
 * order-0 allocations (the kernel's pcp batch is 63 by default).
 */
#ifndef PCP_HIGH0
#define PCP_HIGH0		256
#define PCP_BATCH0		64
#endif
static const unsigned int pcp_high[PP_PCP_ORDERS] = { PCP_HIGH0, 32, 32, 32 };
static const unsigned int pcp_batch[PP_PCP_ORDERS] = { PCP_BATCH0, 8, 8, 8 };

struct pp_pcp_list {
	struct pp_list_head *head;	/* singly linked through lru.next */
	unsigned int count;
};

/*
 * One slot of the thread cache. Order 0, the common case, is a stack of
 * descriptors rather than a list: a hit is a load, a decrement and a store
 * on each side, and neither side reads the page's list link. A page on the
 * stack is already prepared for its next allocation (first word 0, order
 * 0, _pcp_owner the thread's inbox id, count 0); the allocation only sets
 * the count to 1. Higher orders keep lists (@lists[0] is unused).
 */
struct pp_pcp {
	struct pp_zone *zone;
	unsigned int nr0;
	struct pp_pcp_list lists[PP_PCP_ORDERS];
	struct page *stack0[PCP_HIGH0];
};

/*
 * Remote frees (mimalloc's thread-free lists). A thread with a cache owns
 * an inbox, named by a small id stored in every block it allocates
 * (page->_pcp_owner). Another thread freeing such a block does not put it
 * in its own cache: it gathers blocks bound for one owner in a private
 * batch and pushes the batch onto the owner's inbox with one CAS (an MPSC
 * stack). The owner takes the whole inbox with one exchange on its slow
 * path (a refill, a drain) into its cache. Blocks go home without touching
 * the buddy lists: no merge on free, no split on the next refill.
 *
 * An inbox outlives its thread: at exit the thread flushes its batch,
 * empties its inbox and marks it INBOX_CLOSED; a batch pushed to a closed
 * inbox goes to the zones instead, and the id is given to the next thread
 * that registers. A block freed after its owner's id was reused simply
 * goes to the new owner, which takes blocks of any zone.
 */
#ifndef PP_INBOXES
#define PP_INBOXES		1024	/* ids 1..1023; 0: no inbox */
#define REMOTE_BATCH		32
#endif
#define INBOX_CLOSED		((struct pp_list_head *)1)

struct pp_inbox {
	struct pp_list_head *head;	/* atomic; NULL, a list or CLOSED */
} PP_CACHELINE_ALIGNED;

static struct pp_inbox inboxes[PP_INBOXES];
static unsigned short inbox_free_ids[PP_INBOXES];
static unsigned int inbox_nr_free, inbox_next_id = 1;
static pthread_mutex_t inbox_lock = PTHREAD_MUTEX_INITIALIZER;

#ifndef PP_MODEL_CHECK
/* Fork (lib/fork.c, order 8): inbox_lock is held by no other thread across
 * the fork; the child releases it as the parent does. */
void
_pp_page_alloc_fork(enum pp_fork_phase phase)
{
	_pp_fork_mutex(&inbox_lock, phase);
}
#endif

struct pp_remote_batch {
	struct pp_list_head *head, *tail;	/* through lru.next */
	unsigned int n;
	unsigned short owner;
};

struct pp_thread_cache {
#ifndef PP_MODEL_CHECK
	/* PP_PCP_SLOTS of them, while registered (tcache_register()). */
	struct pp_pcp *slots;
#else
	struct pp_pcp slots[PP_PCP_SLOTS];
#endif
	int registered;		/* destructor armed (1) or impossible (-1) */
	unsigned short inbox_id;	/* 0: none */
	struct pp_remote_batch rb;
	struct pp_pcp *last;		/* the slot pcp_slot() found last */
	struct pp_zone *def_zone;	/* the default source's one zone */
	/* The region the freeing path looked up last (page_region()):
	 * its descriptors [vr_lo, vr_lo + vr_len), valid while
	 * _pp_region_gen reads vr_gen. vr_len 0: none. */
	uintptr_t vr_lo;
	uintptr_t vr_len;
	struct pp_region *vr_region;
	unsigned long vr_gen;
	/* The same region's data, [vd_lo, vd_lo + vd_len), for
	 * virt_to_page(); valid while vr_gen is (vd_len 0: none). */
	uintptr_t vd_lo;
	uintptr_t vd_len;
};

#ifndef PP_MODEL_CHECK
static __thread struct pp_thread_cache tcache;
#else
/* GenMC runs no thread-local struct: the harness keeps one cache per
 * thread and names the calling thread's. */
static struct pp_thread_cache *_pp_model_tcache(void);
#define tcache (*_pp_model_tcache())
#endif

/*
 * &tcache while the thread's cache is armed (registered > 0), else NULL.
 * The fast paths reach the cache through it: initial-exec
 * (lib/tls_priv.h), so one load relative to the thread pointer, where the
 * default model of a shared library's tcache calls __tls_get_addr() on
 * every access.
 */
static __thread struct pp_thread_cache *tc_self PP_TLS_IE;

#ifndef PP_MODEL_CHECK
#define tcache_has_slots()	(tcache.slots != NULL)
#else
#define tcache_has_slots()	1
#endif

static pthread_key_t tcache_key;
static pthread_once_t tcache_once = PTHREAD_ONCE_INIT;
static int tcache_key_ok;

#define lru_to_page(l) \
	((struct page *)((char *)(l) - offsetof(struct page, lru)))

/*
 * ---- Diagnostics --------------------------------------------------------
 */

/* Misuse that a void function cannot return: errno, and stderr in debug
 * builds. */
static void
report_bad_page(const char *fn, const struct page *page, const char *why)
{
#ifndef NDEBUG
	fprintf(stderr, "pagepool: %s(%p): %s\n", fn, (const void *)page, why);
#else
	(void)fn;
	(void)page;
	(void)why;
#endif
	errno = EINVAL;
}

/* Blocks leaked by free_page_is_bad(); read by _pp_bad_page_count(). */
static unsigned long bad_pages;

/*
 * The kernel's free-time check of a block whose count reached zero, for
 * the one bad state this allocator can see: a page_pool still owns it (its
 * signature is set), so the pool counts it in flight and will hand it out
 * or return it again. Freeing it would give it a second owner. As the
 * kernel does with a "page_pool leak", report it (in every build: this is
 * memory corruption averted, not a refused argument) and never free it;
 * the block stays out of circulation and its source stays busy.
 * One load on the freeing path; the report is the slow path.
 */
static int
free_page_is_bad(const char *fn, struct page *page)
{
	if (PP_LIKELY((page->pp_magic & PP_MAGIC_MASK) != PP_SIGNATURE))
		return 0;
	/* Relaxed: a statistic read after the fact; it orders nothing and
	 * pairs with nothing. */
	pp_fetch_add_relaxed(&bad_pages, 1);
	fprintf(stderr,
		"pagepool: %s(%p): bad page state: page_pool leak "
		"(still owned by pool %p); leaked, not freed\n",
		fn, (const void *)page, (const void *)page->pp);
	errno = EINVAL;
	return 1;
}

/*
 * ---- Buddy lists (caller holds z->lock) ---------------------------------
 */

static void
list_add(struct pp_list_head *head, struct pp_list_head *n)
{
	n->next = head->next;
	n->prev = head;
	head->next->prev = n;
	head->next = n;
}

static void
list_del(struct pp_list_head *n)
{
	n->prev->next = n->next;
	n->next->prev = n->prev;
	n->next = NULL;
	n->prev = NULL;
}

static void
buddy_insert(struct pp_zone *z, struct page *page, unsigned int order)
{
	page->flags |= PP_PG_BUDDY;
	page->private = order;
	list_add(&z->free_area[order], &page->lru);
	z->nr_free[order]++;
}

/*
 * ---- Returning memory to the system --------------------------------------
 *
 * A region we mapped that becomes one free block again by merging (its
 * pages were used and are all back) is "dirty": mapped, resident, unused.
 * After the source's dirty_decay_ms it is unmapped, descriptors and all
 * (_pp_region_release()), and the zone maps a fresh one when it needs
 * memory again. The decay is checked on the allocator's slow paths (a
 * cache refill or spill, a free that bypasses the cache), never on a fast
 * path and never by a thread of ours: with a decay of 0 the free that
 * completes the region returns it; with a longer one the first slow path
 * after it expires does, or pp_mem_purge() at once. Regions never used
 * since they were mapped are not dirty (nothing of them is resident but
 * what their descriptors take), which also keeps a region a thread has
 * just mapped from being taken back before it allocates from it.
 */

uint64_t
_pp_decay_clock(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static uint64_t
decay_ns(const struct pp_zone *z)
{
	/* Relaxed: a setting, read whole; pairs with the relaxed store in
	 * pp_mem_source_set_dirty_decay_ms(). Nothing is published by it. */
	long ms = pp_load_relaxed(&z->src->dirty_decay_ms);

	return ms < 0 ? UINT64_MAX : (uint64_t)ms * 1000000ULL;
}

/* @r just became one free block by merging. Caller holds z->lock. */
static void
region_mark_dirty(struct pp_zone *z, struct pp_region *r)
{
	uint64_t now = _pp_decay_clock(), d = decay_ns(z), due;

	r->free_since_ns = now | 1;	/* never 0 */
	due = d == UINT64_MAX ? UINT64_MAX : now + d;
	if (z->nr_dirty == 0 || due < z->purge_next_ns)
		/* Relaxed: a hint for zone_maybe_purge(), which reads it
		 * without the lock and checks again under it. */
		pp_store_relaxed(&z->purge_next_ns, due);
	/* Relaxed, as purge_next_ns. */
	pp_store_relaxed(&z->nr_dirty, z->nr_dirty + 1);
}

/* @r (dirty or not) leaves the free lists as a whole block. Caller holds
 * z->lock. */
static void
region_clear_dirty(struct pp_zone *z, struct pp_region *r)
{
	if (r->free_since_ns == 0)
		return;
	r->free_since_ns = 0;
	/* Relaxed: see region_mark_dirty(). */
	pp_store_relaxed(&z->nr_dirty, z->nr_dirty - 1);
}

/*
 * Return the block at @page, of @order, from region @r to the lists,
 * merging it with free buddies. Caller holds z->lock.
 */
static void
buddy_free(struct pp_zone *z, struct pp_region *r, struct page *page,
	   unsigned int order)
{
	unsigned long pfn = r->base_pfn + (unsigned long)(page - r->pages);
	unsigned long bpfn;
	struct page *buddy;

	z->free_pages += 1UL << order;
	while (order < MAX_PAGE_ORDER) {
		bpfn = pfn ^ (1UL << order);
		/* The buddy block must lie wholly inside the region. */
		if (bpfn < r->base_pfn || bpfn + (1UL << order) > r->end_pfn)
			break;
		buddy = &r->pages[bpfn - r->base_pfn];
		/* Only lock holders write flags, so this read is stable; an
		 * allocated or cached buddy never has PP_PG_BUDDY. */
		if (!(buddy->flags & PP_PG_BUDDY) || buddy->private != order)
			break;
		list_del(&buddy->lru);
		buddy->flags &= ~PP_PG_BUDDY;
		z->nr_free[order]--;
		pfn &= ~(1UL << order);
		order++;
	}
	buddy_insert(z, &r->pages[pfn - r->base_pfn], order);
	if (order == MAX_PAGE_ORDER && r->map_addr != NULL)
		region_mark_dirty(z, r);
}

/* Take a block of @order, splitting a larger one. Caller holds z->lock. */
static struct page *
buddy_take(struct pp_zone *z, unsigned int order)
{
	struct pp_list_head *l;
	struct page *page;
	unsigned int o;

	for (o = order; o < NR_PAGE_ORDERS; o++)
		if (z->free_area[o].next != &z->free_area[o])
			break;
	if (o == NR_PAGE_ORDERS)
		return NULL;
	l = z->free_area[o].next;
	list_del(l);
	page = lru_to_page(l);
	page->flags &= ~PP_PG_BUDDY;
	z->nr_free[o]--;
	if (o == MAX_PAGE_ORDER)
		region_clear_dirty(z, _pp_region_of(page->virtual));
	/* Split: the upper half of each level goes back to the lists. A
	 * block's descriptors are contiguous, as it lies in one region. */
	while (o > order) {
		o--;
		buddy_insert(z, page + (1UL << o), o);
	}
	z->free_pages -= 1UL << order;
	return page;
}

/*
 * Put pages [@pfn, @end) of @r into the lists, cut into the largest
 * naturally aligned blocks that fit; a region we mapped is exactly one
 * block of MAX_PAGE_ORDER. The pages are already counted in free_pages.
 * Caller holds z->lock.
 */
static void
zone_insert_range(struct pp_zone *z, struct pp_region *r, unsigned long pfn,
		  unsigned long end)
{
	unsigned int o;

	while (pfn < end) {
		o = MAX_PAGE_ORDER;
		while (o > 0 && ((pfn & ((1UL << o) - 1)) != 0 ||
				 pfn + (1UL << o) > end))
			o--;
		buddy_insert(z, &r->pages[pfn - r->base_pfn], o);
		pfn += 1UL << o;
	}
}

void
_pp_zone_add_region(struct pp_zone *z, struct pp_region *r)
{
	/* Caller holds grow_lock, which guards the region list. */
	r->next = z->regions;
	z->regions = r;

	pp_spin_lock(&z->lock);
	zone_insert_range(z, r, r->base_pfn, r->built_pfn);
	z->managed_pages += r->end_pfn - r->base_pfn;
	z->free_pages += r->end_pfn - r->base_pfn;
	pp_spin_unlock(&z->lock);
}

/*
 * Give @z more free blocks: the next chunk of a user region's descriptors,
 * or else a new region. 0, or an errno value. Caller holds grow_lock.
 */
static int
zone_grow_locked(struct pp_zone *z, gfp_t gfp)
{
	unsigned long from, to;
	struct pp_region *r;

	if (z->src->kind == PP_MEM_USER) {
		/* A user zone has its one region from creation on. The
		 * descriptors written here reach other threads through the
		 * lists, under z->lock. */
		r = z->regions;
		if (_pp_region_build_chunk(r, &from, &to) != 0)
			return ENOMEM;		/* fixed size: never grows */
		pp_spin_lock(&z->lock);
		zone_insert_range(z, r, from, to);
		pp_spin_unlock(&z->lock);
		return 0;
	}
	r = _pp_region_grow(z, gfp);
	if (r == NULL)
		return errno;
	_pp_zone_add_region(z, r);
	return 0;
}

/*
 * Grow @z by one region unless a block of @order became free meanwhile.
 * 0, or -1 with errno. Context: any thread; takes grow_lock, then z->lock.
 */
static int
zone_grow(struct pp_zone *z, unsigned int order, gfp_t gfp)
{
	int have = 0, err = 0;
	unsigned int o;

	pthread_mutex_lock(&z->grow_lock);
	pp_spin_lock(&z->lock);
	for (o = order; o < NR_PAGE_ORDERS; o++)
		have |= z->nr_free[o] != 0;
	pp_spin_unlock(&z->lock);
	if (!have)
		err = zone_grow_locked(z, gfp);
	pthread_mutex_unlock(&z->grow_lock);
	if (err != 0) {
		errno = err;
		return -1;
	}
	return 0;
}

#define PURGE_BATCH 16

size_t
_pp_zone_purge_locked(struct pp_zone *z, uint64_t now, uint64_t age_ns,
		      int all)
{
	struct pp_region *batch[PURGE_BATCH], *r;
	uint64_t next = UINT64_MAX, due;
	struct pp_list_head *l, *ln;
	unsigned int i, n;
	size_t bytes = 0;
	int failed = 0;

	do {
		n = 0;
		pp_spin_lock(&z->lock);
		for (l = z->free_area[MAX_PAGE_ORDER].next;
		     l != &z->free_area[MAX_PAGE_ORDER] && n < PURGE_BATCH;
		     l = ln) {
			ln = l->next;
			r = _pp_region_of(lru_to_page(l)->virtual);
			if (r->map_addr == NULL)
				continue;	/* the caller's memory */
			if (!all) {
				if (r->free_since_ns == 0)
					continue;
				if (now - r->free_since_ns < age_ns) {
					due = r->free_since_ns + age_ns;
					if (due < next)
						next = due;
					continue;
				}
			}
			list_del(l);
			lru_to_page(l)->flags &= ~PP_PG_BUDDY;
			z->nr_free[MAX_PAGE_ORDER]--;
			z->free_pages -= 1UL << MAX_PAGE_ORDER;
			z->managed_pages -= 1UL << MAX_PAGE_ORDER;
			region_clear_dirty(z, r);
			batch[n++] = r;
		}
		if (n < PURGE_BATCH)
			/* Relaxed: see region_mark_dirty(). */
			pp_store_relaxed(&z->purge_next_ns, next);
		pp_spin_unlock(&z->lock);

		for (i = 0; i < n; i++) {
			r = batch[i];
			if (_pp_region_release(r) == 0) {
				bytes += PP_REGION_SIZE;
				continue;
			}
			/* Not released (an injected failure): the region
			 * goes back to the lists as it was, dirty again, and
			 * this call takes no further batch, so a failing
			 * release cannot spin. */
			pp_spin_lock(&z->lock);
			z->managed_pages += 1UL << MAX_PAGE_ORDER;
			buddy_insert(z, r->pages, MAX_PAGE_ORDER);
			z->free_pages += 1UL << MAX_PAGE_ORDER;
			region_mark_dirty(z, r);
			pp_spin_unlock(&z->lock);
			failed = 1;
		}
	} while (n == PURGE_BATCH && !failed);
	return bytes;
}

/*
 * The decay check of the slow paths: return @z's regions whose decay has
 * expired. Costs one relaxed load when nothing is dirty. Skipped when
 * another thread holds grow_lock (it is growing or purging this zone):
 * the next slow path checks again. Context: any thread, no allocator
 * lock held.
 */
static void
zone_maybe_purge(struct pp_zone *z)
{
	uint64_t now, d;

	/* Relaxed hints (stored under z->lock by region_mark_dirty() and
	 * _pp_zone_purge_locked()); checked again under the lock. */
	if (PP_LIKELY(pp_load_relaxed(&z->nr_dirty) == 0))
		return;
	d = decay_ns(z);
	if (d == UINT64_MAX)
		return;
	now = _pp_decay_clock();
	if (d != 0 && now < pp_load_relaxed(&z->purge_next_ns))
		return;
	if (pthread_mutex_trylock(&z->grow_lock) != 0)
		return;
	_pp_zone_purge_locked(z, now, d, 0);
	pthread_mutex_unlock(&z->grow_lock);
}

static struct pp_pcp *pcp_slot_slow(struct pp_zone *z, int create);

/* The calling thread's slot for @z; with @create, claim an empty one.
 * NULL if none (the caller goes to the zone directly). A thread mostly
 * uses one zone: the slot found last is tried first, inline; slots hold
 * distinct zones, so it is the one the search would find. */
static PP_ALWAYS_INLINE struct pp_pcp *
pcp_slot(struct pp_zone *z, int create)
{
	struct pp_thread_cache *tc = tc_self;

	/* tc->last is set whenever tc is (tcache_register()). */
	if (PP_LIKELY(tc != NULL && tc->last->zone == z))
		return tc->last;
	return pcp_slot_slow(z, create);
}
static int pcp_empty(const struct pp_pcp *pcp);
static void pcp_drain(struct pp_pcp *pcp);

/*
 * Move up to @n blocks of @order from @z onto the singly linked @list,
 * growing the zone if it has none. When it cannot grow, the calling
 * thread's own cached blocks of @z (other orders, or the same order of a
 * list not being filled) go back to the lists once, so they can merge and
 * serve the request, as the kernel drains its per-CPU lists before failing.
 * Other threads' caches are out of reach: memory they hold is unavailable to
 * a capped source until they drain or exit.
 * Return how many; 0 with errno when nothing is left. Context: any thread.
 */
static unsigned int
zone_take_batch(struct pp_zone *z, unsigned int order, unsigned int n,
		struct pp_list_head **list, gfp_t gfp)
{
	unsigned long stolen;
	unsigned int got = 0;
	struct pp_pcp *pcp;
	int drained = 0, err;
	struct page *page;

	/* Expired regions go before any is taken: refilling from one would
	 * keep all of its memory resident for the sake of a few pages. */
	zone_maybe_purge(z);
	for (;;) {
		pp_spin_lock(&z->lock);
		while (got < n && (page = buddy_take(z, order)) != NULL) {
			page->lru.next = *list;
			*list = &page->lru;
			got++;
		}
		pp_spin_unlock(&z->lock);
		if (got != 0)
			return got;
		if (zone_grow(z, order, gfp) == 0)
			continue;
		if (drained)
			return 0;	/* errno from zone_grow() */
		/* Blocks other threads freed for their owners, and this
		 * thread's own cache, back to the lists once. */
		err = errno;
		stolen = _pp_inboxes_steal();
		errno = err;
		pcp = pcp_slot(z, 0);
		if (stolen == 0 && (pcp == NULL || pcp_empty(pcp)))
			return 0;
		/* The list being filled is empty (that is why we are here),
		 * so draining the slot leaves *list alone. */
		if (pcp != NULL)
			pcp_drain(pcp);
		drained = 1;
	}
}

/*
 * ---- Per-thread caches (owner thread only) ------------------------------
 */

static void remote_flush(void);
static void inbox_close(void);
static void inbox_collect(void);
static unsigned short inbox_claim(void);

/* The slots' memory: a thread's own, on the heap (see the file comment);
 * the GenMC harnesses keep them in their per-thread struct. */
static int
tcache_slots_get(void)
{
#ifndef PP_MODEL_CHECK
	if (tcache.slots == NULL)
		tcache.slots = _pp_zalloc_aligned(
			PP_PCP_SLOTS * sizeof(*tcache.slots), SMP_CACHE_BYTES);
	return tcache.slots != NULL;
#else
	return 1;
#endif
}

static void
tcache_slots_put(void)
{
#ifndef PP_MODEL_CHECK
	_pp_free(tcache.slots);
	tcache.slots = NULL;
#endif
}

static void
tcache_destructor(void *arg)
{
	(void)arg;
	remote_flush();
	inbox_close();
	pp_thread_cache_drain();
	/*
	 * Another key's destructor may still free pages into this cache
	 * (page_frag_cache's per-thread cache does). Registering again sets
	 * the key anew (and takes slots again), so POSIX runs this
	 * destructor once more, up to PTHREAD_DESTRUCTOR_ITERATIONS rounds.
	 */
	tcache.registered = 0;
	tc_self = NULL;
	tcache.last = NULL;
	tcache_slots_put();
}

static void
tcache_key_init(void)
{
	tcache_key_ok = pthread_key_create(&tcache_key, tcache_destructor) == 0;
}

/* Arm the exit-time drain for this thread; false if it cannot be. */
static int
tcache_register(void)
{
	if (PP_LIKELY(tcache.registered > 0))
		return 1;
	if (tcache.registered < 0)
		return 0;
	pthread_once(&tcache_once, tcache_key_init);
	if (tcache_key_ok) {
		/* No memory for the slots: uncached for now, and asked again
		 * at the next refill or free (not given up for good, as
		 * below). */
		if (!tcache_slots_get())
			return 0;
		if (pthread_setspecific(tcache_key, &tcache) == 0) {
			tcache.registered = 1;
			if (tcache.inbox_id == 0)
				tcache.inbox_id = inbox_claim();
			if (tcache.last == NULL)
				tcache.last = &tcache.slots[0];
			tc_self = &tcache;
			return 1;
		}
		tcache_slots_put();
	}
	/* Without a destructor, cached pages would outlive the thread:
	 * run this thread uncached instead. */
	tcache.registered = -1;
	return 0;
}

static int
pcp_empty(const struct pp_pcp *pcp)
{
	unsigned int o;

	if (pcp->nr0 != 0)
		return 0;
	for (o = 1; o < PP_PCP_ORDERS; o++)
		if (pcp->lists[o].count != 0)
			return 0;
	return 1;
}

/* pcp_slot() past the slot found last. */
static __attribute__((noinline)) struct pp_pcp *
pcp_slot_slow(struct pp_zone *z, int create)
{
	struct pp_pcp *pcp;
	int i;

	/* Every cache fill is preceded by a registration, so a destructor
	 * will drain it, even after an exit-time drain (see
	 * tcache_destructor()). */
	if (create && PP_UNLIKELY(tcache.registered <= 0) &&
	    !tcache_register())
		return NULL;
	if (!tcache_has_slots())
		return NULL;
	for (i = 0; i < PP_PCP_SLOTS; i++)
		if (tcache.slots[i].zone == z)
			return tcache.last = &tcache.slots[i];
	if (!create)
		return NULL;
	for (i = 0; i < PP_PCP_SLOTS; i++) {
		pcp = &tcache.slots[i];
		if (pcp->zone == NULL || pcp_empty(pcp)) {
			pcp->zone = z;
			return tcache.last = pcp;
		}
	}
	return NULL;
}

/* Give @n blocks of @order from @pcp back to its zone (n = -1u: all). */
static __attribute__((noinline)) void
pcp_spill(struct pp_pcp *pcp, unsigned int order, unsigned int n)
{
	struct pp_pcp_list *l = &pcp->lists[order];
	struct pp_zone *z = pcp->zone;
	struct pp_list_head *next;
	struct page *page;
	unsigned int i;

	if (order == 0) {
		/* The oldest (coldest) pages, at the bottom of the stack. */
		if (n > pcp->nr0)
			n = pcp->nr0;
		if (n == 0)
			return;
		pp_spin_lock(&z->lock);
		for (i = 0; i < n; i++) {
			page = pcp->stack0[i];
			buddy_free(z, _pp_region_of(page->virtual), page, 0);
		}
		pp_spin_unlock(&z->lock);
		pcp->nr0 -= n;
		for (i = 0; i < pcp->nr0; i++)
			pcp->stack0[i] = pcp->stack0[i + n];
		zone_maybe_purge(z);
		return;
	}
	if (l->count == 0)
		return;
	pp_spin_lock(&z->lock);
	while (n-- != 0 && l->head != NULL) {
		page = lru_to_page(l->head);
		next = l->head->next;
		l->count--;
		l->head = next;
		buddy_free(z, _pp_region_of(page->virtual), page, order);
	}
	pp_spin_unlock(&z->lock);
	zone_maybe_purge(z);
}

static void
pcp_drain(struct pp_pcp *pcp)
{
	unsigned int o;

	for (o = 0; o < PP_PCP_ORDERS; o++)
		pcp_spill(pcp, o, -1u);
}

/* Make @page (order 0, count 0, out of every list) a stack entry: what
 * the allocation would otherwise write, done once on the way in. The
 * first word may hold a list link or the last owner's bits (pfmemalloc):
 * a live head's must not look like a tail's. */
static PP_ALWAYS_INLINE void
stack0_prep(struct page *page, unsigned short owner)
{
	page->compound_head = 0;
	page->_order = 0;
	page->_pcp_owner = owner;
}

/* Put a block of @order into @pcp, spilling a batch first when full. */
static void
pcp_push(struct pp_pcp *pcp, struct page *page, unsigned int order)
{
	struct pp_pcp_list *l;

	if (order == 0) {
		if (PP_UNLIKELY(pcp->nr0 == PCP_HIGH0))
			pcp_spill(pcp, 0, pcp_batch[0]);
		stack0_prep(page, tcache.inbox_id);
		pcp->stack0[pcp->nr0++] = page;
		return;
	}
	l = &pcp->lists[order];
	page->lru.next = l->head;
	l->head = &page->lru;
	if (PP_UNLIKELY(++l->count > pcp_high[order]))
		pcp_spill(pcp, order, pcp_batch[order]);
}

/*
 * Refill @pcp's empty order-0 stack: blocks other threads freed for this
 * one first, else up to @n from the zone. Return the stack's count (0 with
 * errno when nothing is left).
 */
static __attribute__((noinline)) unsigned int
stack0_refill(struct pp_pcp *pcp, struct pp_zone *z, unsigned int n,
	      gfp_t gfp)
{
	struct pp_list_head *list = NULL, *next;

	/* cache_put() keeps this slot's zone, so the inbox's blocks of @z
	 * land on this stack. */
	inbox_collect();
	if (pcp->nr0 != 0)
		return pcp->nr0;
	if (n > PCP_HIGH0)
		n = PCP_HIGH0;
	zone_take_batch(z, 0, n, &list, gfp);
	/* zone_take_batch() drains this slot before it fails, never fills
	 * it, so the stack has room; pcp_push() would spill if not. */
	for (; list != NULL; list = next) {
		next = list->next;
		pcp_push(pcp, lru_to_page(list), 0);
	}
	return pcp->nr0;
}

/*
 * ---- Remote frees (see struct pp_inbox) ---------------------------------
 */

/* An id with its inbox open, or 0 when all are taken (the thread then
 * gets no remote frees: blocks it allocated go where they are freed). */
static unsigned short
inbox_claim(void)
{
	unsigned short id = 0;

	pthread_mutex_lock(&inbox_lock);
	if (inbox_nr_free != 0)
		id = inbox_free_ids[--inbox_nr_free];
	else if (inbox_next_id < PP_INBOXES)
		/* Relaxed: read without the lock by _pp_inboxes_steal(). */
		id = (unsigned short)__atomic_fetch_add(&inbox_next_id, 1,
							__ATOMIC_RELAXED);
	if (id != 0)
		/* Relaxed, pairs with nothing: reopens a CLOSED (or never
		 * used) inbox. No pusher writes a CLOSED head (they push
		 * only onto NULL or a list), so nothing is lost; pushes
		 * after this are published by their own release R6. */
		pp_store_relaxed(&inboxes[id].head, NULL);
	pthread_mutex_unlock(&inbox_lock);
	return id;
}

/*
 * A block of @r whose count is zero: into the calling thread's cache slot
 * for its zone (claiming one if @create, as pcp_slot()), else back into
 * the zone. Context: any thread.
 */
static void
free_to_cache_or_zone(struct pp_region *r, struct page *page,
		      unsigned int order, int create)
{
	struct pp_zone *z = r->zone;
	struct pp_pcp *pcp;

	pcp = order <= PP_PCP_MAX_ORDER ? pcp_slot(z, create) : NULL;
	if (PP_LIKELY(pcp != NULL)) {
		pcp_push(pcp, page, order);
		return;
	}
	pp_spin_lock(&z->lock);
	buddy_free(z, r, page, order);
	pp_spin_unlock(&z->lock);
	zone_maybe_purge(z);
}

/*
 * A block freed by another thread, or left by a closed inbox: into the
 * calling thread's cache if it has a slot for the zone (never claiming
 * one, so a slot being filled keeps its zone), else the zone.
 */
static void
cache_put(struct page *page)
{
	struct pp_region *r = _pp_region_of(page->virtual);

	free_to_cache_or_zone(r, page, page->_order, 0);
}

/* Take every block in the calling thread's inbox into its cache. */
static void
inbox_collect(void)
{
	struct pp_list_head *l, *next;
	struct pp_inbox *in;

	if (tcache.inbox_id == 0)
		return;
	in = &inboxes[tcache.inbox_id];
	/* Relaxed: a peek; the exchange below orders. */
	if (PP_LIKELY(pp_load_relaxed(&in->head) == NULL))
		return;
	/* A6: pairs with release R6 in remote_flush(): the freers' last
	 * writes to the blocks, and the links, precede their reuse here.
	 * Needed: page_alloc_inbox_collect finds the race without it. */
	l = pp_xchg_acquire(&in->head, NULL);
	for (; l != NULL; l = next) {
		next = l->next;
		cache_put(lru_to_page(l));
	}
}

/*
 * Take every open inbox's blocks, whoever owns them, into the calling
 * thread's cache or the zones: for pp_mem_purge(), a source's destroy and
 * a capped zone that ran dry, so blocks freed to a thread that stopped
 * allocating do not stay out of reach. Taking a whole list is safe for any
 * number of takers (pushes only add to it); a CLOSED inbox is left alone.
 * Context: any thread, no allocator lock held.
 */
unsigned long
_pp_inboxes_steal(void)
{
	struct pp_list_head *old, *next;
	unsigned long taken = 0;
	unsigned int id, n;

	/* Relaxed: a bound only; ids above it have never been claimed, and
	 * a thread claiming one now has nothing in it yet. Pairs with the
	 * increment under inbox_lock in inbox_claim(). */
	n = __atomic_load_n(&inbox_next_id, __ATOMIC_RELAXED);
	for (id = 1; id < n; id++) {
		/* Relaxed, pairs with nothing: a guess for the CAS. */
		old = pp_load_relaxed(&inboxes[id].head);
		while (old != NULL && old != INBOX_CLOSED) {
			/* A6'': as A6, pairs with release R6 of the pushes
			 * whose blocks it takes. Needed:
			 * page_alloc_inbox_steal. */
			if (__atomic_compare_exchange_n(&inboxes[id].head,
							&old, NULL, 1,
							__ATOMIC_ACQUIRE,
							__ATOMIC_RELAXED))
				break;
		}
		if (old == INBOX_CLOSED)
			continue;
		for (; old != NULL; old = next) {
			next = old->next;
			cache_put(lru_to_page(old));
			taken++;
		}
	}
	return taken;
}

/* Thread exit: take the inbox's blocks, close it, give the id back. */
static void
inbox_close(void)
{
	struct pp_list_head *l, *next;
	unsigned short id = tcache.inbox_id;

	if (id == 0)
		return;
	/* A6': as A6, for the blocks pushed before the close. Needed:
	 * page_alloc_inbox_collect (its owner exits), and
	 * page_alloc_inbox_close. */
	l = pp_xchg_acquire(&inboxes[id].head, INBOX_CLOSED);
	for (; l != NULL; l = next) {
		next = l->next;
		cache_put(lru_to_page(l));
	}
	tcache.inbox_id = 0;
	pthread_mutex_lock(&inbox_lock);
	inbox_free_ids[inbox_nr_free++] = id;
	pthread_mutex_unlock(&inbox_lock);
}

/* Push the calling thread's batch onto its owner's inbox (one CAS), or,
 * if that inbox is closed, put the blocks in the cache or the zones. */
static void
remote_flush(void)
{
	struct pp_remote_batch *rb = &tcache.rb;
	struct pp_list_head *old, *l, *next;
	struct pp_inbox *in;
	unsigned int i;

	if (rb->n == 0)
		return;
	in = &inboxes[rb->owner];
	/* Relaxed, pairs with nothing: only a guess for the CAS, which
	 * checks it (a push links to whatever head it replaces, so a stale
	 * or recycled head is harmless: no ABA for push and take-all). */
	old = pp_load_relaxed(&in->head);
	for (;;) {
		if (old == INBOX_CLOSED) {
			for (i = 0, l = rb->head; i < rb->n; i++, l = next) {
				next = l->next;
				cache_put(lru_to_page(l));
			}
			break;
		}
		rb->tail->next = old;
		/* R6: pairs with acquire A6/A6'/A6'' in inbox_collect(),
		 * inbox_close() and _pp_inboxes_steal(). On failure old is
		 * reloaded (relaxed: the loop only retries with it).
		 * Needed: page_alloc_inbox_collect. */
		if (__atomic_compare_exchange_n(&in->head, &old, rb->head, 1,
						__ATOMIC_RELEASE,
						__ATOMIC_RELAXED))
			break;
	}
	rb->head = NULL;
	rb->tail = NULL;
	rb->n = 0;
}

/* Free a block another thread allocated into the batch for its owner. */
static __attribute__((noinline)) void
remote_free(struct page *page, unsigned short owner)
{
	struct pp_remote_batch *rb = &tcache.rb;

	if (rb->n != 0 && rb->owner != owner)
		remote_flush();
	page->lru.next = rb->head;
	if (rb->n == 0)
		rb->tail = &page->lru;
	rb->head = &page->lru;
	rb->owner = owner;
	if (++rb->n == REMOTE_BATCH)
		remote_flush();
}

void
pp_thread_cache_drain(void)
{
	int i;

	remote_flush();
	inbox_collect();
	if (!tcache_has_slots())
		return;
	for (i = 0; i < PP_PCP_SLOTS; i++) {
		pcp_drain(&tcache.slots[i]);
		tcache.slots[i].zone = NULL;
	}
}

void
_pp_thread_cache_drain_source(struct pp_mem_source *src)
{
	int i, j;

	remote_flush();
	inbox_collect();
	if (!tcache_has_slots())
		return;
	/* Compare pointers only: a slot may hold a dead zone's address. */
	for (i = 0; i < PP_PCP_SLOTS; i++)
		for (j = 0; j < src->nr_zones; j++)
			if (tcache.slots[i].zone == src->zones[j]) {
				pcp_drain(&tcache.slots[i]);
				tcache.slots[i].zone = NULL;
			}
}

/*
 * ---- Allocation ---------------------------------------------------------
 */

/* Make a free block a live one: count 1, compound tails pointing home. */
static PP_ALWAYS_INLINE void
prep_new_page(struct page *page, unsigned int order, gfp_t gfp)
{
	unsigned long head = (unsigned long)page | 1UL;
	unsigned long i;

	/* Clear stale list links (and with them the pfmemalloc bit): the
	 * head's first word must not look like a tail's. */
	page->compound_head = 0;
	page->_order = (unsigned char)order;
	page->_pcp_owner = tcache.inbox_id;
	for (i = 1; i < (1UL << order); i++)
		page[i].compound_head = head;
	set_page_count(page, 1);
	if (gfp & __GFP_ZERO)
		memset(page_address(page), 0, PAGE_SIZE << order);
}

/* One block from @z, through the calling thread's cache when it can. */
static PP_ALWAYS_INLINE struct page *
zone_alloc(struct pp_zone *z, gfp_t gfp, unsigned int order)
{
	struct pp_list_head *list = NULL;
	struct pp_pcp_list *l;
	struct pp_pcp *pcp;
	struct page *page;

	/* Every block handed out is an injection point, so callers' slow
	 * paths (page_pool's refill) can be tested for failure. */
	if (PP_UNLIKELY(_pp_fault_check())) {
		errno = ENOMEM;
		return NULL;
	}
	pcp = order <= PP_PCP_MAX_ORDER ? pcp_slot(z, 1) : NULL;
	if (PP_LIKELY(pcp != NULL && order == 0)) {
		if (PP_UNLIKELY(pcp->nr0 == 0) &&
		    stack0_refill(pcp, z, pcp_batch[0], gfp) == 0)
			return NULL;
		page = pcp->stack0[--pcp->nr0];
		set_page_count(page, 1);
		if (gfp & __GFP_ZERO)
			memset(page_address(page), 0, PAGE_SIZE);
		return page;
	}
	if (PP_LIKELY(pcp != NULL)) {
		l = &pcp->lists[order];
		if (PP_UNLIKELY(l->count == 0)) {
			/* Blocks freed by other threads first (cache_put()
			 * keeps this slot's zone). */
			inbox_collect();
			if (l->count == 0)
				l->count = zone_take_batch(z, order,
							   pcp_batch[order],
							   &l->head, gfp);
			if (l->count == 0)
				return NULL;
		}
		page = lru_to_page(l->head);
		l->head = l->head->next;
		l->count--;
	} else {
		if (zone_take_batch(z, order, 1, &list, gfp) == 0)
			return NULL;
		page = lru_to_page(list);
	}
	prep_new_page(page, order, gfp);
	return page;
}

struct page *
alloc_pages_src(struct pp_mem_source *src, int nid, gfp_t gfp,
		unsigned int order)
{
	struct pp_zone *z;

	if (PP_UNLIKELY(order > MAX_PAGE_ORDER)) {
		errno = EINVAL;
		return NULL;
	}
	z = _pp_source_zone(src, nid);
	if (PP_UNLIKELY(z == NULL))
		return NULL;
	return zone_alloc(z, gfp, order);
}

static struct page *alloc_pages_node_slow(int nid, gfp_t gfp,
					  unsigned int order);

/*
 * The hit: order 0 of the default source's one zone from the stack of the
 * slot this thread used last, no frame, the rest a tail call. A thread
 * with no cache yet, a zone it does not cache (def_zone NULL matches no
 * slot with pages: a slot holding pages has its zone), or an armed fault
 * injector (checked on the slow path, per block) takes the slow path.
 */
static PP_ALWAYS_INLINE struct page *
alloc_pages_fast(int nid, gfp_t gfp, unsigned int order)
{
	struct pp_thread_cache *tc = tc_self;
	struct page *page;
	struct pp_pcp *pcp;
	unsigned int n;

	if (PP_LIKELY(tc != NULL && (order | (unsigned int)(nid + 1)) == 0)) {
		pcp = tc->last;
		n = pcp->nr0;
		/* Relaxed: see _pp_fault_check(). */
		if (PP_LIKELY(pcp->zone == tc->def_zone && n != 0 &&
			      __atomic_load_n(&_pp_fault_armed_threads,
					      __ATOMIC_RELAXED) == 0)) {
			page = pcp->stack0[--n];
			pcp->nr0 = n;
			set_page_count(page, 1);
			if (gfp & __GFP_ZERO)
				memset(page_address(page), 0, PAGE_SIZE);
			return page;
		}
	}
	return alloc_pages_node_slow(nid, gfp, order);
}

struct page *
alloc_pages_node(int nid, gfp_t gfp, unsigned int order)
{
	return alloc_pages_fast(nid, gfp, order);
}

static __attribute__((noinline)) struct page *
alloc_pages_node_slow(int nid, gfp_t gfp, unsigned int order)
{
	struct pp_mem_source *src;

	if (PP_UNLIKELY(order > MAX_PAGE_ORDER)) {
		errno = EINVAL;
		return NULL;
	}
	/* The default source is never destroyed, and with one zone every
	 * node-less request goes there: skip resolving it each time. */
	if (PP_LIKELY(nid == NUMA_NO_NODE && tcache.def_zone != NULL))
		return zone_alloc(tcache.def_zone, gfp, order);
	src = pp_mem_source_default();
	if (PP_UNLIKELY(src == NULL))
		return NULL;
	if (src->nr_zones == 1)
		tcache.def_zone = src->zones[0];
	return alloc_pages_src(src, nid, gfp, order);
}

struct page *
alloc_pages(gfp_t gfp, unsigned int order)
{
	return alloc_pages_fast(NUMA_NO_NODE, gfp, order);
}

unsigned long
alloc_pages_bulk_src(struct pp_mem_source *src, int nid, gfp_t gfp,
		     unsigned long nr_pages, struct page **page_array)
{
	struct pp_list_head *list;
	unsigned long i, want;
	struct pp_zone *z;
	struct pp_pcp *pcp;
	struct page *page;

	if (nr_pages == 0)
		return 0;
	if (page_array == NULL) {
		errno = EINVAL;
		return 0;
	}
	z = _pp_source_zone(src, nid);
	if (z == NULL)
		return 0;
	pcp = pcp_slot(z, 1);

	for (i = 0; i < nr_pages; i++) {
		if (page_array[i] != NULL)
			continue;
		if (PP_UNLIKELY(_pp_fault_check())) {
			errno = ENOMEM;
			break;
		}
		if (pcp != NULL) {
			if (pcp->nr0 == 0) {
				/* Refill for the rest of the array in one lock
				 * hold, up to the cache's high mark. */
				want = nr_pages - i;
				if (want < pcp_batch[0])
					want = pcp_batch[0];
				if (want > pcp_high[0])
					want = pcp_high[0];
				if (stack0_refill(pcp, z, (unsigned int)want,
						  gfp) == 0)
					break;
			}
			page = pcp->stack0[--pcp->nr0];
			set_page_count(page, 1);
			if (gfp & __GFP_ZERO)
				memset(page_address(page), 0, PAGE_SIZE);
		} else {
			list = NULL;
			if (zone_take_batch(z, 0, 1, &list, gfp) == 0)
				break;
			page = lru_to_page(list);
			prep_new_page(page, 0, gfp);
		}
		page_array[i] = page;
	}
	return i;
}

unsigned long
alloc_pages_bulk_node(gfp_t gfp, int nid, unsigned long nr_pages,
		      struct page **page_array)
{
	struct pp_mem_source *src;

	if (nr_pages == 0)
		return 0;
	src = pp_mem_source_default();
	if (src == NULL)
		return 0;
	return alloc_pages_bulk_src(src, nid, gfp, nr_pages, page_array);
}

unsigned long
alloc_pages_bulk(gfp_t gfp, unsigned long nr_pages, struct page **page_array)
{
	return alloc_pages_bulk_node(gfp, NUMA_NO_NODE, nr_pages, page_array);
}

/*
 * ---- Freeing ------------------------------------------------------------
 */

static void free_the_page_slow(struct pp_region *r, struct page *page,
			       unsigned int order);

/* Return a block whose count is zero, through the caller's cache. */
static PP_ALWAYS_INLINE void
free_the_page(struct pp_thread_cache *tc, struct pp_region *r,
	      struct page *page, unsigned int order)
{
	unsigned short owner = page->_pcp_owner;
	struct pp_zone *z = r->zone;
	struct pp_pcp *pcp;

	/* The hit: an order-0 block of this thread's last zone, allocated
	 * here (so _order and _pcp_owner are already the stack's), and room
	 * on the stack. */
	if (PP_LIKELY(tc != NULL && order == 0)) {
		pcp = tc->last;
		if (PP_LIKELY(pcp->zone == z && owner == tc->inbox_id &&
			      pcp->nr0 < PCP_HIGH0)) {
			page->compound_head = 0;
			pcp->stack0[pcp->nr0++] = page;
			return;
		}
	}
	free_the_page_slow(r, page, order);
}

static __attribute__((noinline)) void
free_the_page_slow(struct pp_region *r, struct page *page,
		   unsigned int order)
{
	unsigned short owner = page->_pcp_owner;

	/* Another thread's block goes home through its inbox; the batch
	 * needs this thread's exit-time flush, hence the registration. */
	if (PP_UNLIKELY(owner != tcache.inbox_id) && owner != 0 &&
	    order <= PP_PCP_MAX_ORDER &&
	    (tcache.registered > 0 || tcache_register())) {
		remote_free(page, owner);
		return;
	}
	free_to_cache_or_zone(r, page, order, 1);
}

/*
 * Drop one reference; true if it was the last. A count already at zero is
 * a double free: undone, reported, false.
 */
static PP_ALWAYS_INLINE int
put_page_testzero(struct page *page, const char *fn)
{
	int old;

	/*
	 * Sole holder: nobody else can raise the count (get_page() needs a
	 * reference), so the last drop needs no read-modify-write.
	 * A2': the acquire pairs with release R2 of the holders that dropped
	 * their references before, so their writes precede the reuse.
	 * Needed: page_alloc_inbox_shared.
	 */
	if (PP_LIKELY(pp_load_acquire(&page->_refcount) == 1)) {
		pp_store_relaxed(&page->_refcount, 0);
		return 1;
	}
	/* R2/A2: as in page_ref_sub_and_test(): every dropper releases its
	 * writes, the last acquires them all before the block is reused.
	 * Needed: page_alloc_inbox_shared. */
	old = pp_fetch_sub_acq_rel(&page->_refcount, 1);

	if (PP_LIKELY(old > 1))
		return 0;
	if (old == 1)
		return 1;
	pp_fetch_add_relaxed(&page->_refcount, 1);
	report_bad_page(fn, page, "reference count already zero");
	return 0;
}

/* Remember @r, found in the tables after reading @gen, as the thread's
 * last region: its descriptors for page_region(), its data for
 * virt_to_page(). */
static void
region_cache_fill(struct pp_thread_cache *tc, struct pp_region *r,
		  unsigned long gen)
{
	unsigned long npages = r->end_pfn - r->base_pfn;

	tc->vr_lo = (uintptr_t)r->pages;
	tc->vr_len = npages * sizeof(struct page);
	tc->vr_region = r;
	tc->vr_gen = gen;
	tc->vd_lo = r->base_pfn << PAGE_SHIFT;
	tc->vd_len = npages << PAGE_SHIFT;
}

/*
 * The removal count, read before a table lookup whose region is to be
 * cached under it (page_region_slow(), virt_to_page_slow()).
 */
static PP_ALWAYS_INLINE unsigned long
region_gen_before_lookup(void)
{
	/* A7: pairs with release R7 in map_remove() (mem_source.c), read
	 * before the lookup: if the region found is unpublished after this,
	 * the count has moved past the value returned and the cached copy
	 * is never used. Kept without a harness
	 * (tests/genmc/weaken-keep.txt): only a stale pointer can race with
	 * a removal. */
	return __atomic_load_n(&_pp_region_gen, __ATOMIC_ACQUIRE);
}

/* page_region() past the cached region: the tables, and the cache
 * refilled for @tc. */
static __attribute__((noinline)) struct pp_region *
page_region_slow(struct pp_thread_cache *tc, const struct page *page)
{
	unsigned long gen = region_gen_before_lookup();
	struct pp_region *r = _pp_page_region_inline(page);

	if (r != NULL && tc != NULL)
		region_cache_fill(tc, r, gen);
	return r;
}

/*
 * The region whose descriptor @page is, or NULL: _pp_page_region_inline()
 * with a one-entry per-thread cache in front. The pointer is checked
 * against the cached region's descriptor range before anything reads it,
 * as the tables would; a region unpublished since (released to the
 * system, its source destroyed) moved _pp_region_gen and misses.
 */
static PP_ALWAYS_INLINE int
page_region_hit(const struct pp_thread_cache *tc, const struct page *page)
{
	uintptr_t off = (uintptr_t)page - tc->vr_lo;

	/* Relaxed, pairs with release R7 in map_remove() by coherence: a
	 * caller that holds a reference to @page got it after any removal
	 * of the range it lies in, so it reads that removal's count or a
	 * later one. Only a stale pointer could race, and the tables are
	 * no better for it. NULL never hits (vr_lo is not 0 when vr_len
	 * is not). */
	return off < tc->vr_len && off % sizeof(struct page) == 0 &&
	       tc->vr_gen == __atomic_load_n(&_pp_region_gen,
					     __ATOMIC_RELAXED);
}

static PP_ALWAYS_INLINE struct pp_region *
page_region(struct pp_thread_cache *tc, const struct page *page)
{
	if (PP_LIKELY(tc != NULL && page_region_hit(tc, page)))
		return tc->vr_region;
	return page_region_slow(tc, page);
}

/* Validate @page as the head of a live block; its region, or NULL. */
static PP_ALWAYS_INLINE struct pp_region *
check_head(struct pp_thread_cache *tc, const char *fn, struct page *page)
{
	struct pp_region *r = page_region(tc, page);

	if (PP_UNLIKELY(r == NULL)) {
		report_bad_page(fn, page, "not a page of this allocator");
		return NULL;
	}
	if (PP_UNLIKELY(PageTail(page))) {
		report_bad_page(fn, page, "tail page of a compound block");
		return NULL;
	}
	return r;
}

/* __free_pages() of a page of region @r. */
static PP_ALWAYS_INLINE void
free_pages_checked(struct pp_thread_cache *tc, struct pp_region *r,
		   struct page *page, unsigned int order)
{
	static const char fn[] = "__free_pages";

	if (PP_UNLIKELY(PageTail(page))) {
		report_bad_page(fn, page, "tail page of a compound block");
		return;
	}
	if (PP_UNLIKELY(order != page->_order)) {
		report_bad_page(fn, page, "order is not the block's");
		return;
	}
	if (put_page_testzero(page, fn) && !free_page_is_bad(fn, page))
		free_the_page(tc, r, page, order);
}

/* __free_pages() past the cached region: NULL, the tables' answer. */
static __attribute__((noinline)) void
free_pages_slow(struct pp_thread_cache *tc, struct page *page,
		unsigned int order)
{
	struct pp_region *r;

	if (page == NULL)
		return;
	r = page_region_slow(tc, page);
	if (PP_UNLIKELY(r == NULL)) {
		report_bad_page("__free_pages", page,
				"not a page of this allocator");
		return;
	}
	free_pages_checked(tc, r, page, order);
}

void
__free_pages(struct page *page, unsigned int order)
{
	struct pp_thread_cache *tc = tc_self;

	if (PP_LIKELY(tc != NULL && page_region_hit(tc, page)))
		free_pages_checked(tc, tc->vr_region, page, order);
	else
		free_pages_slow(tc, page, order);
}

void
free_frozen_pages(struct page *page, unsigned int order)
{
	struct pp_thread_cache *tc = tc_self;
	struct pp_region *r;

	if (page == NULL)
		return;
	r = check_head(tc, __func__, page);
	if (r == NULL)
		return;
	if (PP_UNLIKELY(order != page->_order ||
			page_ref_count(page) != 0)) {
		report_bad_page(__func__, page,
				"order differs or count is not zero");
		return;
	}
	if (free_page_is_bad(__func__, page))
		return;
	free_the_page(tc, r, page, order);
}

void
put_page(struct page *page)
{
	struct pp_thread_cache *tc = tc_self;
	struct pp_region *r;

	if (page == NULL)
		return;
	/* Nothing of @page is read before it is known to be ours: it may
	 * point into the freed descriptors of a destroyed source. */
	r = page_region(tc, page);
	if (PP_UNLIKELY(r == NULL)) {
		report_bad_page(__func__, page, "not a page of this allocator");
		return;
	}
	if (PageTail(page)) {
		page = compound_head(page);
		r = check_head(tc, __func__, page);
		if (r == NULL)
			return;
	}
	if (put_page_testzero(page, __func__) &&
	    !free_page_is_bad(__func__, page))
		free_the_page(tc, r, page, page->_order);
}

/* virt_to_page() past the cached region: the tables, and the cache
 * refilled when the thread has one. */
static __attribute__((noinline)) struct page *
virt_to_page_slow(struct pp_thread_cache *tc, const void *addr)
{
	unsigned long gen = region_gen_before_lookup();
	struct pp_region *r = _pp_region_of(addr);

	if (r == NULL)
		return NULL;
	if (tc != NULL)
		region_cache_fill(tc, r, gen);
	return &r->pages[((uintptr_t)addr >> PAGE_SHIFT) - r->base_pfn];
}

/*
 * The thread's last region first (the one its frees and lookups found
 * last), checked by range and generation before anything of it is read,
 * as page_region() does for descriptors: page_frag_free() and the
 * fragment caches look up every fragment they are handed.
 */
struct page *
virt_to_page(const void *addr)
{
	struct pp_thread_cache *tc = tc_self;
	uintptr_t off;

	if (PP_LIKELY(tc != NULL)) {
		off = (uintptr_t)addr - tc->vd_lo;
		/* Relaxed: as in page_region_hit(), which it mirrors. */
		if (PP_LIKELY(off < tc->vd_len &&
			      tc->vr_gen == __atomic_load_n(&_pp_region_gen,
							    __ATOMIC_RELAXED)))
			return (struct page *)tc->vr_lo + (off >> PAGE_SHIFT);
	}
	return virt_to_page_slow(tc, addr);
}

/*
 * ---- Introspection ------------------------------------------------------
 */

unsigned long
_pp_bad_page_count(void)
{
	/* Relaxed: pairs with nothing, as the increment in
	 * free_page_is_bad(); a test reads it after the frees it counts. */
	return pp_load_relaxed(&bad_pages);
}

unsigned long
_pp_zone_pages_in_use(struct pp_zone *z)
{
	unsigned long n;

	pp_spin_lock(&z->lock);
	n = z->managed_pages - z->free_pages;
	pp_spin_unlock(&z->lock);
	return n;
}

int
_pp_zone_stats(struct pp_mem_source *src, int nid, struct _pp_zone_stats *st)
{
	struct pp_zone *z = _pp_source_zone(src, nid);
	struct pp_region *r;

	if (z == NULL || st == NULL)
		return -EINVAL;
	memset(st, 0, sizeof(*st));
	pthread_mutex_lock(&z->grow_lock);
	for (r = z->regions; r != NULL; r = r->next)
		st->nr_regions++;
	pp_spin_lock(&z->lock);
	memcpy(st->nr_free, z->nr_free, sizeof(st->nr_free));
	st->free_pages = z->free_pages;
	st->managed_pages = z->managed_pages;
	pp_spin_unlock(&z->lock);
	pthread_mutex_unlock(&z->grow_lock);
	return 0;
}

unsigned long
_pp_thread_cache_count(struct pp_mem_source *src, int nid)
{
	struct pp_zone *z = _pp_source_zone(src, nid);
	struct pp_pcp *pcp = z != NULL ? pcp_slot(z, 0) : NULL;
	unsigned long n = 0;
	unsigned int o;

	if (pcp != NULL)
		n = pcp->nr0;
	for (o = 1; pcp != NULL && o < PP_PCP_ORDERS; o++)
		n += (unsigned long)pcp->lists[o].count << o;
	return n;
}
