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
 *      shows that the pool is always eventually freed.
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

/* Pages: returner i has page i; the bulk returner pages NRET, NRET + 1;
 * the owner the last one. */
#define BULK_PAGE	NRET
#define OWNER_PAGE	(NRET + 2 * BULK)
#define NPAGES		(NRET + 2 * BULK + OWNER)
/* Threads besides the one that frees the pool. */
#define NOTHERS		(NRET + BULK + OWNER + USERS - 1)

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

/* _pp_return_page(pool, page). */
inline return_page(pg)
{
	ACCESS();		/* pool->dma_map, _pp_dma_unmap() */
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
 * A non-owner thread returning its page: page_pool_put_full_page(pool,
 * page, false) -> page_pool_put_unrefed_page() -> __page_pool_put_page().
 */
proctype Returner(byte pg)
{
	bool nospace;

	ACCESS();		/* allow_direct = pool->owner == self: no */
	if
	:: /* put_decide(): refcount 1, not pfmemalloc -> the ring */
		ACCESS();	/* pool->dma_sync */
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
		ACCESS();	/* _pp_released_refcnt_inc() */
		return_page(pg)
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

	ACCESS();		/* allow_direct = pool->owner == self: no */
	i = 0;
	do
	:: i < 2 ->
		if
		:: ACCESS();	/* pool->dma_sync: ring candidate */
			cand[nb] = BULK_PAGE + i + 1;
			nb++
		:: ACCESS();	/* _pp_released_refcnt_inc() */
			return_page(BULK_PAGE + i)
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

	if
	:: /* page_pool_put_unrefed_page(): the direct fast path */
		ACCESS();	/* pool->dma_sync */
		d_step { ACCESS(); c = cache_cnt };
		d_step { ACCESS(); cache[c] = OWNER_PAGE + 1 };
		d_step { ACCESS(); cache_cnt = c + 1; c = 0 };
		ACCESS()	/* owner_recycle_stats.cached */
	:: /* put_decide(): refcount != 1 -> release */
		ACCESS();	/* _pp_released_refcnt_inc() */
		return_page(OWNER_PAGE)
	fi;
	d_step { owner_stopped = true; ndone++ }
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
again:
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
	:: else ->
		/* defer_release(): the retry thread calls
		 * page_pool_release() again once something changed. Each
		 * retry sees a higher release count than the one before
		 * (a page found in the ring is released first): at most
		 * NPAGES retries, so every run of the model is finite. If
		 * no thread can move any more (timeout) with pages still in
		 * flight, the pool would never be freed. */
		if
		:: atomic { release != seen || queue[chead] != 0 ->
				retries++;
				assert(retries <= NPAGES) };
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
done:
	skip
}

init
{
	byte n;

	atomic {
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
		n = 0;
		do
		:: n < USERS -> run Destroyer(); n++
		:: else -> break
		od
	}
}
