/* SPDX-License-Identifier: MIT */
/*
 * Copyright (c) 2026 The pagepool authors
 *
 * page_pool_destroy.pml - a spin model of page_pool's put-versus-destroy
 * protocol (seed 000, bug 2; the kernel's 271683bb2cf3): returners giving
 * pages back from other threads (src/net/core/page_pool_put.c, the inline
 * page_pool_put_unrefed_page()) race with page_pool_destroy(),
 * page_pool_release() and the deferred retry (src/net/core/page_pool.c). See
 * docs/page_pool-destroy-model.md for the step-by-step mapping to the C
 * code.
 *
 * Parameters (spin -DNAME=value; defaults below):
 *   NRET       returner threads, each putting one page: 0..3
 *   RING       ring slots (pool->ring.size): 1..3
 *   BULK       1 = one more thread returning two pages with
 *              page_pool_put_page_bulk() (recycle_ring_bulk())
 *   OWNER      1 = the owner (NAPI) thread holds one page too and gives it
 *              back on the direct path (alloc cache), then stops
 *   USERS      user_cnt at destroy: 1, or 2 (page_pool_use_xdp_mem(): a
 *              second destroyer thread drops the other reference)
 *   BARRIER    1 = page_pool_release() takes and drops the producer lock
 *              after computing in-flight (the fix); 0 = it does not
 *   STATS_AFTER_UNLOCK
 *              1 = the ring statistics are counted after the producer
 *              unlock (before the fix); 0 = inside the lock
 *   RELEASE_NOT_LAST
 *              1 = _pp_return_page() touches the pool once more after its
 *              release-count increment
 *   OWNER_RACE 1 = destroy does not wait for the owner to stop (breaks
 *              the API contract; with OWNER=1)
 *   DMA        1 = a PP_FLAG_DMA_MAP | PP_FLAG_DMA_SYNC_DEV pool with DMA
 *              tracking (src/net/core/page_pool_dma.c): every page has a
 *              tracking slot, a release unmaps it, a ring put syncs it,
 *              the destroy scrub unmaps what is still tracked, and the
 *              driver unbinds the device as soon as destroy returns
 *   DMA_WAIT   with DMA: 1 = releasers count themselves as users of the
 *              device and the scrub waits for them (the fix of issue 8,
 *              section 1); 0 = only syncs are counted (before the fix)
 *   STASH      1 = one more thread, not the owner, returning two pages
 *              through its return stash (src/net/core/page_pool_stash.c):
 *              appends without a lock, then either flushes (takes the
 *              pages out under the stash lock, produces them into the
 *              ring in one producer-lock section) or stays idle with
 *              the pages stashed; every page_pool_release() takes the
 *              pool's pages out of the stash under its lock and releases
 *              them (_pp_stash_steal())
 *   STASH_NOLOCK
 *              with STASH: 1 = the takeover does not take the stash lock
 *              (pages would leave a stash twice)
 *   STASH_NOSTEAL
 *              with STASH: 1 = page_pool_release() does not take pages
 *              out of stashes (an idle thread's pages would be stranded)
 *
 * Properties:
 *   1. no thread accesses pool memory after the pool is freed: every
 *      access to a field of struct page_pool (the ring and its producer
 *      lock included) is a step that asserts "alive", as is a spin on the
 *      producer lock's word while the pool is gone;
 *   2. the pool is freed exactly once, and when every thread is done every
 *      page was released (given back by _pp_return_page()) exactly once:
 *      a second release of a page or a second free trips an assertion; a
 *      state where no thread can move while pages are still in flight
 *      (the pool would never be freed) trips assert(inflight == 0); the
 *      freeing thread finally checks the ghost counts. Every run of the
 *      model is finite (see the retry below), so this safety search also
 *      shows that the pool is always eventually freed;
 *   3. with DMA: no DMA op (sync or unmap) runs once the device is gone
 *      (after destroy returned), no mapping is live when it goes, a sync
 *      or unmap only ever finds its page mapped, and every page is
 *      unmapped exactly once.
 *
 * Abstractions:
 *   - sequential consistency, one shared access per step (accesses of
 *     one thread that cannot enable the free may share one); reads whose
 *     value the model does not need are a bare assert(alive);
 *   - a returner's decision "ring or release" (page_ref_count(page) != 1,
 *     pfmemalloc) is a nondeterministic choice;
 *   - a spin on a held lock blocks (no busy loop), but wakes up to fail if
 *     the pool is freed under it;
 *   - the deferred retry: page_pool_release() runs again once something
 *     it could act on has changed (release count moved, or a page sits in
 *     the ring). A real retry in between either frees, and then the model
 *     can run the same retry a little later, or changes nothing but
 *     destroy_cnt and holds the producer lock for an instant (the argument
 *     is in the doc). So this loses no behaviour, and it makes every run
 *     finite;
 *   - hold_cnt is fixed: every page was allocated before the model starts.
 */

#ifndef NRET
#define NRET 2
#endif
#ifndef RING
#define RING 1
#endif
#ifndef BULK
#define BULK 0
#endif
#ifndef OWNER
#define OWNER 0
#endif
#ifndef USERS
#define USERS 1
#endif
#ifndef BARRIER
#define BARRIER 1
#endif
#ifndef STATS_AFTER_UNLOCK
#define STATS_AFTER_UNLOCK 0
#endif
#ifndef RELEASE_NOT_LAST
#define RELEASE_NOT_LAST 0
#endif
#ifndef OWNER_RACE
#define OWNER_RACE 0
#endif
#ifndef DMA
#define DMA 0
#endif
#ifndef DMA_WAIT
#define DMA_WAIT 1
#endif
#ifndef STASH
#define STASH 0
#endif
#ifndef STASH_NOLOCK
#define STASH_NOLOCK 0
#endif
#ifndef STASH_NOSTEAL
#define STASH_NOSTEAL 0
#endif

#if NRET < 0 || NRET > 3
#error "NRET must be 0..3"
#endif
#if RING < 1 || RING > 3
#error "RING must be 1..3"
#endif
#if BULK < 0 || BULK > 1
#error "BULK must be 0 or 1"
#endif
#if OWNER < 0 || OWNER > 1
#error "OWNER must be 0 or 1"
#endif
#if USERS < 1 || USERS > 2
#error "USERS must be 1 or 2"
#endif
#if OWNER_RACE && !OWNER
#error "OWNER_RACE needs OWNER=1"
#endif
#if DMA < 0 || DMA > 1
#error "DMA must be 0 or 1"
#endif
#if STASH < 0 || STASH > 1
#error "STASH must be 0 or 1"
#endif
#if STASH_NOLOCK && !STASH
#error "STASH_NOLOCK needs STASH=1"
#endif

/* Pages: returner i has page i; the bulk returner pages NRET, NRET + 1;
 * the owner the next one; the stasher the last two. */
#define BULK_PAGE	NRET
#define OWNER_PAGE	(NRET + 2 * BULK)
#define STASH_PAGE	(NRET + 2 * BULK + OWNER)
#define NPAGES		(NRET + 2 * BULK + OWNER + 2 * STASH)
/* Threads besides the one that frees the pool. */
#define NOTHERS		(NRET + BULK + OWNER + STASH + USERS - 1)

#if NPAGES < 1
#error "no pages"
#endif

/* ---- struct page_pool (the fields the protocol uses) ---- */

bool alive = true;	/* the pool's memory exists (free_pool() clears) */
byte hold = NPAGES;	/* pages_state_hold_cnt: all pages handed out */
byte release;		/* pages_state_release_cnt (atomic) */
byte user_cnt = USERS;	/* user_cnt */
bool plock;		/* ring.producer_lock.locked */
byte queue[RING];	/* ring.queue[]: 0 = NULL, else page + 1 */
byte producer;		/* ring.producer (under producer_lock) */
byte chead;		/* ring.consumer_head (the releasing thread only) */
byte cache_cnt;		/* alloc.count */
byte cache[1];		/* alloc.cache[]: page + 1 (only the owner's page) */

/* ---- Environment and ghost state (not pool memory) ---- */

#if OWNER
bool owner_stopped;		/* the driver has stopped its owner */
#else
bool owner_stopped = true;
#endif
byte released[NPAGES];	/* times each page went through _pp_return_page() */
byte ndone;		/* threads finished, besides the freeing one */

#if STASH
/* ---- The stasher's return stash: thread memory, not pool memory ---- */
byte sq[2];		/* slot->pages[]: page + 1 */
byte shead;		/* slot->head: the stasher only (R_H) */
byte stail;		/* slot->tail: under the stash lock (R_T) */
bool slock;		/* the stash's spinlock */
#endif

#if DMA
/* ---- DMA tracking (struct pp_dma_track, freed with the pool) ---- */
bool slot[NPAGES];	/* the page's slot holds its mapping */
byte users;		/* non-owner DMA ops in progress (dev_enter()) */
bool revoked;		/* set by the scrub */
/* ---- The device (not pool memory) and ghosts ---- */
bool dev_alive = true;	/* bound; the driver unbinds once destroy returned */
bool mapped[NPAGES];	/* ghost: the device holds the page's mapping */
#endif

/* One access to pool memory. */
#define ACCESS()	assert(alive)

/* pp_spin_lock(&pool->ring.producer_lock): xchg on the lock word. A
 * spinner reads the word until it is free; if the pool were freed under
 * it, that read is a use after free, hence the wake-up on !alive. */
inline spin_lock()
{
	atomic { (!plock || !alive) -> ACCESS(); plock = true }
}

/* pp_spin_unlock(): a store to the lock word, in pool memory. */
inline spin_unlock()
{
	d_step { ACCESS(); plock = false }
}

#if DMA
/* A DMA op of the device on page pg: the device must still exist, and
 * the page be mapped. */
#define DEV_OP(pg)	assert(dev_alive && mapped[pg])

/* track_take(): the cmpxchg of the page's slot to NULL. */
#define track_take(pg)	took = slot[pg]; slot[pg] = false

/*
 * _pp_dma_unmap(pool, page), any thread releasing a page.
 *
 * DMA_WAIT=1: dev_enter()'s increment (S1) is a step of its own, since the
 * scrub's revoke and wait (S2, S3) may come between it and the read of
 * revoked. The read and the slot take are one step: nothing between them
 * can matter, as the scrub is kept waiting and the slot is this thread's
 * or the scrub's. The unmap and dev_exit()'s decrement (R8) are one step
 * for the same reason: the scrub, and so destroy's return, wait for the
 * decrement. rv: counted in.
 *
 * DMA_WAIT=0: take the slot, then unmap: the step between is the bug.
 */
inline dma_unmap(pg)
{
#if DMA_WAIT
	d_step { ACCESS(); users++ };
	d_step {
		ACCESS();
		if
		:: revoked -> users--	/* the scrub unmaps the page */
		:: else -> track_take(pg); rv = true
		fi
	};
	if
	:: rv ->
		d_step {
			if
			:: took -> DEV_OP(pg); mapped[pg] = false; took = false
			:: else -> skip	/* lost to the scrub */
			fi;
			ACCESS();
			users--;
			rv = false
		}
	:: else -> skip
	fi
#else
	d_step { ACCESS(); track_take(pg) };
	if
	:: took -> d_step { DEV_OP(pg); mapped[pg] = false; took = false }
	:: else -> skip	/* lost to the scrub */
	fi
#endif
}

/*
 * _pp_dma_sync_for_device(), non-owner (a ring put): the increment, then
 * the read of revoked, the sync and the decrement in one step (the scrub
 * waits for the decrement). Counted in both variants: the syncer count
 * predates the fix.
 */
inline dma_sync(pg)
{
	d_step { ACCESS(); users++ };
	d_step {
		ACCESS();
		if
		:: !revoked -> DEV_OP(pg)
		:: else -> skip
		fi;
		users--
	}
}
#endif

#if DMA
#define DMA_LOCALS	bool took; bool rv;
#else
#define DMA_LOCALS
#endif

/* _pp_return_page(pool, page). */
inline return_page(pg)
{
#if DMA
	dma_unmap(pg);
#else
	ACCESS();		/* pool->dma_map, _pp_dma_unmap() */
#endif
	/* R4: __atomic_fetch_add(&pool->pages_state_release_cnt, 1): the
	 * last access; after it the pool may be freed. */
	d_step {
		ACCESS();
		assert(released[pg] == 0);
		released[pg]++;
		release++
	};
#if RELEASE_NOT_LAST
	ACCESS()		/* one more touch of the pool */
#else
	skip			/* page->pp_magic, pp, dma_addr, put_page():
				 * the page, not the pool */
#endif
}

/* __ptr_ring_produce(): __ptr_ring_full() reads queue[producer]; if free,
 * store the page (from here the ring owns it), then the new index. */
inline ring_produce(pg, nospace)
{
	d_step { ACCESS(); nospace = (queue[producer] != 0) };
	if
	:: !nospace ->
		d_step { ACCESS(); queue[producer] = pg + 1 };
		d_step { ACCESS(); producer = (producer + 1) % RING }
	:: else -> skip
	fi
}

/*
 * SYNC_FOR_DEVICE(pg): put_decide()'s read of pool->dma_sync and, with DMA,
 * the sync (its first step stands for the read too). STAT_THEN_RETURN(pg):
 * the released_refcnt statistic, then _pp_return_page(); with DMA the
 * statistic is merged into the first step of the unmap. Both merges join
 * an access that cannot enable the free with the next one (see the doc).
 */
#if DMA
#define SYNC_FOR_DEVICE(pg)	dma_sync(pg)
#define STAT_THEN_RETURN(pg)	return_page(pg)
#else
#define SYNC_FOR_DEVICE(pg)	ACCESS()
#define STAT_THEN_RETURN(pg)	ACCESS(); return_page(pg)
#endif

/*
 * A non-owner thread returning its page: page_pool_put_full_page(pool,
 * page, false) -> page_pool_put_unrefed_page() -> __page_pool_put_page().
 */
proctype Returner(byte pg)
{
	bool nospace;
	DMA_LOCALS

	ACCESS();		/* allow_direct = pool->owner == self: no */
	if
	:: /* put_decide(): refcount 1, not pfmemalloc -> the ring */
		SYNC_FOR_DEVICE(pg);	/* pool->dma_sync, the sync */
		/* recycle_in_ring() */
		spin_lock();
		ring_produce(pg, nospace);
#if !STATS_AFTER_UNLOCK
		ACCESS();	/* ring or ring_full stat, inside the lock */
#endif
		spin_unlock();
#if STATS_AFTER_UNLOCK
		ACCESS();	/* ring or ring_full stat, after the unlock */
#endif
		if
		:: nospace ->	/* ring full: the page is still ours */
			return_page(pg)
		:: else -> skip
		fi
	:: /* put_decide(): someone else holds a reference -> release */
		STAT_THEN_RETURN(pg)	/* _pp_released_refcnt_inc() */
	fi;
	d_step { nospace = false; ndone++ }
}

#if BULK
/*
 * A non-owner thread returning two pages with page_pool_put_page_bulk():
 * put_decide() for each, then recycle_ring_bulk() for the ring
 * candidates: one producer-lock section, the pages that did not fit
 * released after the unlock.
 */
proctype Bulk()
{
	byte cand[2];		/* ring candidates: page + 1 */
	byte nb;		/* how many */
	byte i;
	bool nospace;
	DMA_LOCALS

	ACCESS();		/* allow_direct = pool->owner == self: no */
	i = 0;
	do
	:: i < 2 ->
		if
		:: SYNC_FOR_DEVICE(BULK_PAGE + i);	/* ring candidate */
			cand[nb] = BULK_PAGE + i + 1;
			nb++
		:: STAT_THEN_RETURN(BULK_PAGE + i)	/* released_refcnt */
		fi;
		i++
	:: else -> break
	od;
	if
	:: nb > 0 ->
		spin_lock();
		i = 0;
		do
		:: i < nb ->
			ring_produce(cand[i] - 1, nospace);
			if
			:: nospace ->
#if !STATS_AFTER_UNLOCK
				ACCESS();	/* ring_full stat */
#endif
				break
			:: else -> i++
			fi
		:: else -> break
		od;
#if !STATS_AFTER_UNLOCK
		ACCESS();	/* ring stat += i */
#endif
		spin_unlock();
#if STATS_AFTER_UNLOCK
		ACCESS();	/* the stats, after the unlock */
#endif
		do
		:: i < nb -> return_page(cand[i] - 1); i++
		:: else -> break
		od
	:: else -> skip
	fi;
	atomic { cand[0] = 0; cand[1] = 0; nb = 0; i = 0; nospace = false;
		 ndone++ }
}
#endif

#if STASH
/*
 * A non-owner thread returning two pages through its return stash: for
 * each, put_decide() (a ring candidate), then _pp_stash_put()'s append:
 * the entry, then head (R_H). From the append on the page is the stash's
 * and the thread no longer touches the pool for it. Then the thread
 * flushes (a full stash, pp_stash_flush(), its exit: slot_flush()) or
 * stays idle for good with the pages stashed.
 */
proctype Stasher()
{
	byte got[2];		/* pages taken out: page + 1 */
	byte n;			/* how many */
	byte h;
	byte i;
	bool nospace;
	DMA_LOCALS

	i = 0;
	do
	:: i < 2 ->
		ACCESS();	/* allow_direct: pool->owner */
		SYNC_FOR_DEVICE(STASH_PAGE + i);
		sq[shead] = STASH_PAGE + i + 1;
		shead++;	/* R_H: the page is in the stash */
		i++
	:: else -> break
	od;
	if
	:: /* slot_flush(): the take (tail moved) under the stash lock; the
	    * code reads the entries after the unlock, which is the same
	    * values: past tail no steal reads them and only this thread
	    * writes them again, so they are copied here under the lock */
		atomic { !slock -> slock = true };
		d_step {
			h = shead; i = stail; n = 0;
			do
			:: i < h -> got[n] = sq[i]; n++; i++
			:: else -> break
			od
		};
		/* PP_TP_STASH_TAKEN: tail read, not moved */
		stail = h;	/* the tail store under the lock */
		slock = false;
		/* flush_pages(): _pp_recycle_ring_bulk(), as Bulk */
		if
		:: n > 0 ->
			spin_lock();
			i = 0;
			do
			:: i < n ->
				ring_produce(got[i] - 1, nospace);
				if
				:: nospace -> ACCESS(); break	/* ring_full */
				:: else -> i++
				fi
			:: else -> break
			od;
			ACCESS();	/* ring stat += i */
			spin_unlock();
			do
			:: i < n -> return_page(got[i] - 1); i++
			:: else -> break
			od
		:: else -> skip
		fi
	:: /* idle for good: the pages wait in the stash */
		skip
	fi;
	atomic { got[0] = 0; got[1] = 0; n = 0; h = 0; i = 0;
		 nospace = false; ndone++ }
}

/*
 * _pp_stash_steal(pool), in page_pool_release(): under the stash lock,
 * take the pool's pages out of the stash and release them.
 */
inline stash_steal()
{
#if !STASH_NOLOCK
	atomic { !slock -> slock = true };
#endif
	d_step {
		v = shead; p = stail; sn = 0;
		do
		:: p < v -> sgot[sn] = sq[p]; sn++; p++
		:: else -> break
		od
	};
	d_step { stail = v; v = 0; p = 0 };
	do
	:: sn > 0 -> sn--; return_page(sgot[sn] - 1); sgot[sn] = 0
	:: else -> break
	od;
#if !STASH_NOLOCK
	slock = false
#endif
}
#endif

#if OWNER
/*
 * The owner (the NAPI thread) giving its page back with
 * page_pool_recycle_direct(): the inline direct path into the alloc
 * cache, or, if the page is still referenced elsewhere, release. Then the
 * driver stops the owner (napi_disable(), joining the thread) before it
 * destroys the pool: the API contract.
 */
proctype Owner()
{
	byte c;
	DMA_LOCALS

	if
	:: /* page_pool_put_unrefed_page(): the direct fast path */
		ACCESS();	/* pool->dma_sync */
		d_step { ACCESS(); c = cache_cnt };
		d_step { ACCESS(); cache[c] = OWNER_PAGE + 1 };
		d_step { ACCESS(); cache_cnt = c + 1; c = 0 };
		ACCESS()	/* owner_recycle_stats.cached */
	:: /* put_decide(): refcount != 1 -> release */
		STAT_THEN_RETURN(OWNER_PAGE)	/* _pp_released_refcnt_inc() */
	fi;
	d_step { owner_stopped = true; ndone++ }
}
#endif

#if DMA
/*
 * The first time page_pool_destroy() returns (freed or deferred), the
 * driver unbinds and frees the device (seed 003's sequence): no mapping
 * may be live then, and no DMA op may run afterwards (DEV_OP()).
 */
inline unbind()
{
	if
	:: !unbound ->
		d_step {
			v = 0;
			do
			:: v < NPAGES -> assert(!mapped[v]); v++
			:: else -> break
			od;
			v = 0;
			dev_alive = false;
			unbound = true
		}
	:: else -> skip
	fi
}
#endif

/*
 * page_pool_destroy(), run by each user (USERS = 2: the driver and the
 * XDP memory model); the last one releases, and it or the deferred retry
 * frees the pool.
 */
proctype Destroyer()
{
	byte v;			/* user_cnt after the decrement; counts */
	byte p;			/* a page taken from the cache or the ring */
	byte inflight;
	byte seen;		/* release count at the last try */
	byte retries;		/* ghost: deferred retries so far */
	DMA_LOCALS
#if DMA
	bool unbound;		/* destroy has returned once */
#endif
#if STASH
	byte sgot[2];		/* pages taken out of the stash: page + 1 */
	byte sn;
#endif

#if !OWNER_RACE
	owner_stopped;		/* contract: the owner has stopped */
#endif
	/* __atomic_sub_fetch(&pool->user_cnt, 1) */
	d_step { ACCESS(); user_cnt--; v = user_cnt };
	if
	:: v != 0 ->		/* not the last user */
		d_step { v = 0; ndone++ };
		goto done
	:: else -> skip
	fi;
	ACCESS();		/* page_pool_disable_direct_recycling() */

	/* page_pool_release(), destroy_cnt == 0: empty the alloc cache */
	do
	:: d_step { ACCESS(); v = cache_cnt };
		if
		:: v > 0 ->
			d_step { ACCESS(); p = cache[v - 1] - 1;
				 cache_cnt = v - 1; v = 0 };
			return_page(p)
		:: else -> break
		fi
	od;
#if DMA
	/* _pp_dma_scrub(): revoke (S2), wait for the users to drain (S3),
	 * then take and unmap every slot still holding a mapping. */
	atomic { ACCESS(); revoked = true };
	atomic { ACCESS(); users == 0 };
	v = 0;
	do
	:: v < NPAGES ->
		d_step { ACCESS(); track_take(v) };
		if
		:: took -> d_step { DEV_OP(v); mapped[v] = false; took = false }
		:: else -> skip
		fi;
		v++
	:: else -> v = 0; break
	od;
#endif
again:
#if STASH && !STASH_NOSTEAL
	stash_steal();
#endif
	/* empty_ring(): ptr_ring_consume() until NULL */
	do
	:: atomic { ACCESS(); p = queue[chead] };
		if
		:: p != 0 ->
			d_step { ACCESS(); queue[chead] = 0;
				 chead = (chead + 1) % RING };
			return_page(p - 1)
		:: else -> break
		fi
	od;
	/* page_pool_inflight(): A4, acquire load of the release count */
	atomic {
		ACCESS();
		assert(release <= hold);
		inflight = hold - release;
		seen = release;
		p = 0
	};
#if BARRIER
	/* wait out a producer between its produce and its unlock */
	spin_lock();
	spin_unlock();
#endif
	if
	:: inflight == 0 ->
		/* destroy_cnt++; free_pool(): the free */
		d_step { ACCESS(); alive = false }
#if DMA
		; unbind()
#endif
	:: else ->
#if DMA
		unbind();
#endif
		/* defer_release(): the retry thread calls
		 * page_pool_release() again once something changed. Each
		 * retry sees a higher release count than the one before
		 * (a page found in the ring is released first): at most
		 * NPAGES retries, so every run of the model is finite (with
		 * STASH, two more: a retry woken by a non-empty stash finds
		 * it empty if the stasher took its pages out first, and the
		 * stasher flushes once). If
		 * no thread can move any more (timeout) with pages still in
		 * flight, the pool would never be freed. */
		if
		:: atomic { (release != seen || queue[chead] != 0
#if STASH && !STASH_NOSTEAL
			     || shead != stail
#endif
			    ) ->
				retries++;
				assert(retries <= NPAGES + 2 * STASH) };
			goto again
		:: timeout -> assert(inflight == 0)
		fi
	fi;

	/* Once everyone is done: each page released exactly once. */
	ndone == NOTHERS;
	d_step {
		assert(release == hold);
		v = 0;
		do
		:: v < NPAGES -> assert(released[v] == 1); v++
		:: else -> break
		od
	};
#if DMA
	d_step {
		v = 0;
		do
		:: v < NPAGES -> assert(!mapped[v] && !slot[v]); v++
		:: else -> v = 0; break
		od
	};
#endif
done:
	skip
}

init
{
	byte n;

	atomic {
#if DMA
		/* Every page was mapped and tracked when it entered. */
		n = 0;
		do
		:: n < NPAGES -> slot[n] = true; mapped[n] = true; n++
		:: else -> break
		od;
#endif
		n = 0;
		do
		:: n < NRET -> run Returner(n); n++
		:: else -> break
		od;
#if BULK
		run Bulk();
#endif
#if OWNER
		run Owner();
#endif
#if STASH
		run Stasher();
#endif
		n = 0;
		do
		:: n < USERS -> run Destroyer(); n++
		:: else -> break
		od
	}
}
