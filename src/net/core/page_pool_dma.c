/* SPDX-License-Identifier: MIT */
/*
 * Copyright (c) 2026 The pagepool authors
 *
 * page_pool DMA: map once when a page enters the pool, sync for the device
 * on recycle, unmap when the page leaves, and the tracking that fixes the
 * seed-003 crash: every mapped page has a slot, its id kept in the page's
 * pp_magic (as Linux >= 6.16 keeps its xarray index), and destroy unmaps
 * every page still tracked, in flight or not. A page returned afterwards
 * finds its slot empty and never touches the device.
 *
 * Exactly one party unmaps a page: the releasing thread and the destroy
 * scrub both try to swap the slot's page pointer for NULL, and only the one
 * that succeeds unmaps. The slot also holds the DMA address, so the winner
 * never reads the page descriptor another thread may be clearing.
 *
 * Slots live in fixed chunks reached through a directory that never moves,
 * so a thread releasing a page can find its slot while the allocation side
 * adds chunks. Free slots form a list threaded through the slots themselves
 * (odd values: a page pointer is always even).
 *
 * Device users versus destroy. After page_pool_destroy() returns, no thread
 * may be inside or enter a DMA op of the pool's device: the driver may
 * unbind or free it at once (seed 003's sequence). Every non-owner DMA op
 * (a sync for the device on recycle, an unmap on release, a sync for the
 * CPU) therefore announces itself in a user count and then checks that
 * the device is not revoked; the scrub revokes it and waits for the count
 * to drain before it unmaps what is left (both sides sequentially
 * consistent, so at least one sees the other). A releasing thread that
 * finds the device revoked leaves its slot to the scrub. Without the wait
 * a releaser that took its slot before the scrub reached it would still be
 * unmapping, or about to, when destroy returned. The owner's syncs and
 * maps need no announcement: destroy runs only once the owner has stopped.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>

#include "lib/mem_priv.h"
#include "lib/test_hooks.h"
#include "page_pool_priv.h"

/* Overridable for the GenMC harnesses (tests/genmc/page_pool_env.h),
 * which step through the whole directory at every free. */
#ifndef TRACK_CHUNK_SHIFT
#define TRACK_CHUNK_SHIFT 10
#endif
#define TRACK_CHUNK (1u << TRACK_CHUNK_SHIFT)
#ifndef TRACK_DIR
#define TRACK_DIR 4096u
#endif
/* Ids 1 .. TRACK_DIR * TRACK_CHUNK - 1: four million pages in flight per
 * pool (16 GiB of 4 KiB pages) before a map fails with ENOSPC. */
#define TRACK_MAX_ID (TRACK_DIR * TRACK_CHUNK - 1)

struct pp_dma_slot {
	struct page *page;	/* mapped page; odd: free-list link; NULL */
	dma_addr_t addr;
};

struct pp_dma_track {
	struct pp_spinlock lock;	/* free list, next_unused, chunks */
	uint32_t free_head;		/* 0: empty */
	uint32_t next_unused;		/* ids below were handed out once */
	uint32_t users;			/* non-owner DMA ops in progress */
	uint32_t revoked;		/* set by the scrub: no op may start */
	struct pp_dma_slot *chunks[TRACK_DIR];
};

#define SLOT_FREE(next) ((struct page *)(((uintptr_t)(next) << 1) | 1))
#define SLOT_IS_FREE(p) (((uintptr_t)(p) & 1) != 0)
#define SLOT_NEXT(p) ((uint32_t)((uintptr_t)(p) >> 1))

static struct pp_dma_slot *
slot_of(struct pp_dma_track *t, uint32_t id)
{
	/* A6: pairs with release R6 in track_alloc(). No GenMC harness
	 * needs it (every reader reaches the id through an ordered handover);
	 * kept, see tests/genmc/weaken-keep.txt. */
	struct pp_dma_slot *chunk =
		pp_load_acquire(&t->chunks[id >> TRACK_CHUNK_SHIFT]);

	return chunk == NULL ? NULL : &chunk[id & (TRACK_CHUNK - 1)];
}

int
_pp_dma_track_init(struct page_pool *pool)
{
	struct pp_dma_track *t;

	if (pool->p.dma_untracked)
		return 0;
	t = _pp_zalloc_aligned(sizeof(*t), PP_CACHELINE_SIZE);
	if (t == NULL)
		return -ENOMEM;
	pp_spin_lock_init(&t->lock);
	t->next_unused = 1;
	pool->dma_track = t;
	return 0;
}

void
_pp_dma_track_free(struct page_pool *pool)
{
	struct pp_dma_track *t = pool->dma_track;
	unsigned int i;

	if (t == NULL)
		return;
	for (i = 0; i < TRACK_DIR; i++)
		_pp_free(t->chunks[i]);
	_pp_free(t);
	pool->dma_track = NULL;
}

/* A slot for @page at @addr; its id, or 0 with errno. Allocation side. */
static uint32_t
track_alloc(struct pp_dma_track *t, struct page *page, dma_addr_t addr)
{
	struct pp_dma_slot *slot, *chunk;
	uint32_t id;

	pp_spin_lock(&t->lock);
	id = t->free_head;
	if (id != 0) {
		slot = slot_of(t, id);
		t->free_head = SLOT_NEXT(pp_load_relaxed(&slot->page));
		goto publish;
	}
	if (t->next_unused > TRACK_MAX_ID) {
		pp_spin_unlock(&t->lock);
		errno = ENOSPC;
		return 0;
	}
	id = t->next_unused;
	if (t->chunks[id >> TRACK_CHUNK_SHIFT] == NULL) {
		chunk = _pp_zalloc_aligned(sizeof(*chunk) * TRACK_CHUNK,
					   PP_CACHELINE_SIZE);
		if (chunk == NULL) {
			pp_spin_unlock(&t->lock);
			return 0;
		}
		/* R6: pairs with acquire A6 in slot_of(). Kept without a
		 * harness that needs it: tests/genmc/weaken-keep.txt. */
		pp_store_release(&t->chunks[id >> TRACK_CHUNK_SHIFT], chunk);
	}
	t->next_unused++;
	slot = slot_of(t, id);
publish:
	slot->addr = addr;
	/* R7: pairs with the acquire of the winning exchange in
	 * track_take(): the winner sees addr. Kept without a harness that
	 * needs it: tests/genmc/weaken-keep.txt. */
	pp_store_release(&slot->page, page);
	pp_spin_unlock(&t->lock);
	return id;
}

/*
 * Try to take @id's mapping of @page: true (and *addr) for exactly one of
 * the racing callers; the slot goes back to the free list if @recycle.
 */
static bool
track_take(struct pp_dma_track *t, uint32_t id, struct page *page,
	   dma_addr_t *addr, bool recycle)
{
	struct pp_dma_slot *slot = slot_of(t, id);
	struct page *expected = page;

	if (slot == NULL)
		return false;
	/* A7: pairs with release R7 in track_alloc(). Kept without a
	 * harness that needs it: tests/genmc/weaken-keep.txt. */
	if (!__atomic_compare_exchange_n(&slot->page, &expected, NULL, false,
					 __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
		return false;
	*addr = slot->addr;
	if (recycle) {
		pp_spin_lock(&t->lock);
		pp_store_relaxed(&slot->page, SLOT_FREE(t->free_head));
		t->free_head = id;
		pp_spin_unlock(&t->lock);
	}
	return true;
}

static size_t
pool_block_size(const struct page_pool *pool)
{
	return PAGE_SIZE << pool->p.order;
}

static void
do_sync_for_device(struct page_pool *pool, struct page *page,
		   unsigned int len)
{
	_pp_pool_dma_sync(pool, page, pool->p.offset, len, false);
}

static void
do_unmap(struct page_pool *pool, dma_addr_t addr)
{
	pp_dma_unmap(pool->p.dev, addr, pool_block_size(pool),
		     pool->p.dma_dir,
		     DMA_ATTR_SKIP_CPU_SYNC | DMA_ATTR_WEAK_ORDERING);
}

/* Leave a DMA op begun with dev_enter(). */
static void
dev_exit(struct pp_dma_track *t)
{
	/* R8: pairs with acquire S3 in _pp_dma_scrub(): the op's work on
	 * the device happens before destroy returns. Needed: relaxed,
	 * tests/genmc/page_pool_destroy.c (DMA) finds the op racing with
	 * the device's unbind. */
	__atomic_fetch_sub(&t->users, 1, __ATOMIC_RELEASE);
}

/*
 * Announce a non-owner DMA op on the pool's device: true if it may run
 * (then call dev_exit() after it), false once destroy revoked the device.
 */
static bool
dev_enter(struct pp_dma_track *t)
{
	/* S1: sequentially consistent with S2 in _pp_dma_scrub(): either
	 * the scrub sees this count and waits, or this sees revoked. Needed:
	 * either access relaxed (or both acq_rel/acquire), GenMC's
	 * tests/genmc/page_pool_destroy.c (DMA) finds a DMA op after destroy
	 * returned. */
	__atomic_fetch_add(&t->users, 1, __ATOMIC_SEQ_CST);
	if (!__atomic_load_n(&t->revoked, __ATOMIC_SEQ_CST))
		return true;
	dev_exit(t);
	return false;
}

int
_pp_dma_map(struct page_pool *pool, struct page *page, gfp_t gfp)
{
	struct pp_dma_track *t = pool->dma_track;
	dma_addr_t addr;
	uint32_t id = 0;

	(void)gfp;
	addr = pp_dma_map(pool->p.dev, page_address(page),
			  pool_block_size(pool), pool->p.dma_dir,
			  DMA_ATTR_SKIP_CPU_SYNC | DMA_ATTR_WEAK_ORDERING);
	if (addr == DMA_MAPPING_ERROR)
		return -errno;
	/* The kernel refuses addresses it cannot store page-aligned. */
	if (addr & (PAGE_SIZE - 1)) {
		if (!(gfp & __GFP_NOWARN))
			fprintf(stderr,
				"page_pool: id %u: DMA address %#llx is not "
				"page-aligned\n",
				pool->id, (unsigned long long)addr);
		goto err_unmap;
	}
	if (t != NULL) {
		id = track_alloc(t, page, addr);
		if (id == 0)
			goto err_unmap;
	}
	page->dma_addr = (unsigned long)addr;
	page->pp_magic = (page->pp_magic & ~PP_DMA_INDEX_MASK) |
			 ((unsigned long)id << PP_DMA_INDEX_SHIFT);
	if (pool->dma_sync)
		do_sync_for_device(pool, page, pool->p.max_len);
	return 0;

err_unmap:
	pp_dma_unmap(pool->p.dev, addr, pool_block_size(pool),
		     pool->p.dma_dir,
		     DMA_ATTR_SKIP_CPU_SYNC | DMA_ATTR_WEAK_ORDERING);
	return -ENOMEM;
}

void
_pp_dma_unmap(struct page_pool *pool, struct page *page)
{
	struct pp_dma_track *t = pool->dma_track;
	uint32_t id = (uint32_t)((page->pp_magic & PP_DMA_INDEX_MASK) >>
				 PP_DMA_INDEX_SHIFT);
	dma_addr_t addr = (dma_addr_t)page->dma_addr;

	page->pp_magic &= ~PP_DMA_INDEX_MASK;
	if (t == NULL) {
		do_unmap(pool, addr);
		return;
	}
	/* Revoked: the scrub unmaps (or unmapped) the page. */
	if (id == 0 || !dev_enter(t))
		return;
	/* Lost to the destroy scrub: already unmapped. */
	if (track_take(t, id, page, &addr, true)) {
		PP_TEST_DELAY(PP_TP_DMA_UNMAP);
		do_unmap(pool, addr);
	}
	dev_exit(t);
}

void
_pp_dma_sync_for_device(struct page_pool *pool, struct page *page,
			int dma_sync_size, bool owner)
{
	struct pp_dma_track *t = pool->dma_track;
	unsigned int len = _pp_dma_sync_len(pool, dma_sync_size);

	if (owner || t == NULL) {
		if (pp_load_relaxed(&pool->dma_sync))
			do_sync_for_device(pool, page, len);
		return;
	}
	if (dev_enter(t)) {
		do_sync_for_device(pool, page, len);
		dev_exit(t);
	}
}

void
_pp_dma_scrub(struct page_pool *pool)
{
	struct pp_dma_track *t = pool->dma_track;
	uint32_t id, end;

	if (t == NULL)
		return;
	/* The recycle paths' cheap test: stop calling in to sync. Relaxed:
	 * a hint; the revocation below is what excludes a late sync. */
	pp_store_relaxed(&pool->dma_sync, 0u);
	/* S2: sequentially consistent with S1 in dev_enter(): no DMA op
	 * starts after this (needed: relaxed, or S2/S3 release/acquire,
	 * tests/genmc/page_pool_destroy.c (DMA) finds an op after destroy)
	 * ... */
	__atomic_store_n(&t->revoked, 1, __ATOMIC_SEQ_CST);
	/* ... and those already started end before the scrub goes on. S3:
	 * also the acquire that pairs with release R8 in dev_exit(), so
	 * their device work happens before destroy returns. Needed, as S2. */
	while (__atomic_load_n(&t->users, __ATOMIC_SEQ_CST) != 0)
		pp_cpu_relax();
	PP_TEST_DELAY(PP_TP_DMA_SCRUB_REVOKED);

	pp_spin_lock(&t->lock);
	end = t->next_unused;
	pp_spin_unlock(&t->lock);
	for (id = 1; id < end; id++) {
		struct pp_dma_slot *slot = slot_of(t, id);
		struct page *page;
		dma_addr_t addr;

		if (slot == NULL)
			continue;
		page = pp_load_relaxed(&slot->page);
		if (page == NULL || SLOT_IS_FREE(page))
			continue;
		if (track_take(t, id, page, &addr, false))
			do_unmap(pool, addr);
	}
}

void
page_pool_dma_sync_for_cpu(const struct page_pool *pool,
			   const struct page *page, unsigned int offset,
			   unsigned int size)
{
	struct pp_dma_track *t;
	size_t start;

	if (pool == NULL || page == NULL) {
		errno = EINVAL;
		return;
	}
	if (!pool->dma_map)
		return;
	/*
	 * Only a page of this pool has a mapping to sync, and only inside
	 * its block: anything else would reach the device as a fault, or
	 * touch another page's mapping. Sizes are added in 64 bits, so no
	 * sum wraps.
	 */
	start = (size_t)pool->p.offset + offset;
	if ((page->pp_magic & PP_MAGIC_MASK) != PP_SIGNATURE ||
	    page->pp != pool || start + size > pool_block_size(pool)) {
		errno = EINVAL;
		return;
	}
	/* The kernel's dma_sync_single_range_for_cpu() does nothing on a
	 * device that needs no syncs (dma_dev_need_sync()): so here. */
	if (!_pp_pool_dma_need_sync(pool))
		return;
	t = pool->dma_track;
	/*
	 * Any thread may sync a page it holds, destroy or not: after the
	 * scrub the page is unmapped and the device may be gone. The owner
	 * (the pool's NAPI thread) never races with destroy, which needs it
	 * stopped, so it syncs without announcing itself, as the recycle
	 * path's sync for the device does. Relaxed: the owner's own field
	 * or a stopped owner's (see page_pool_put.c).
	 */
	if (t != NULL && pp_load_relaxed(&pool->owner) == pp_thread_self())
		t = NULL;
	if (t != NULL && !dev_enter(t))
		return;
	_pp_pool_dma_sync(pool, page, start, size, true);
	if (t != NULL)
		dev_exit(t);
}
