/* SPDX-License-Identifier: MIT */
/*
 * Copyright (c) 2026 The pagepool authors
 *
 * The return stash: a thread that is not a pool's owner collects the pages
 * it returns in a small per-thread, per-pool stash and produces them into
 * the pool's ring PP_STASH_SIZE at a time, under one producer-lock
 * section, instead of taking that lock (and bouncing its line and the
 * ring's slots to the owner's CPU) once per page. This is what DPDK's
 * per-lcore mempool cache does for a remote put.
 *
 * A pagepool extension: the kernel's page_pool produces every non-direct
 * return into the ring at once. Here, for a pool with an owner (returns to
 * an ownerless pool still go to the ring at once), such a page reaches the
 * ring when one of these happens (the flush rules):
 *   - the stash of that pool fills (PP_STASH_SIZE pages, fewer for a small
 *     ring);
 *   - the thread returns a page of a pool that has no stash slot while all
 *     slots hold pages (the oldest slot is flushed and reused);
 *   - the thread calls the pool's allocation slow path, or
 *     pp_stash_flush();
 *   - the thread exits (a thread-specific-data destructor);
 *   - the pool is destroyed: page_pool_release() takes the pool's pages
 *     out of every thread's stash and releases them (_pp_stash_steal()),
 *     on destroy and on each deferred retry, so a page sitting in the
 *     stash of a thread that never returns another page is not stranded.
 *
 * Why the pool stays alive: a stashed page was neither produced into the
 * ring nor released, so it is still counted in flight (hold count minus
 * release count), and page_pool_release() frees a pool only when nothing
 * is in flight. A thread touches a pool only while its stash holds pages
 * of it: the key of an empty slot is a stale pointer that is compared,
 * never followed.
 *
 * Concurrency. Each slot is a single-producer ring of page pointers: only
 * its thread appends (head), with no lock and no read-modify-write, so a
 * remote put costs a few plain loads and stores. Taking pages out (tail)
 * happens only under the thread's stash lock, by the thread itself when
 * it flushes or by a destroying thread when it steals, so a page is taken
 * out exactly once. Pages taken out are handed on after the lock is
 * dropped; they are in flight meanwhile, which keeps their pool alive.
 * A thread flushing its own slot only moves tail under the lock and reads
 * the entries after it (slot_flush()): past tail no steal reads them, and
 * only that thread writes them again.
 * Lock order: stash_list_lock, then a thread's stash lock; the ring's
 * producer lock is never taken under either.
 * tests/model/page_pool_destroy.pml models the stash with the destroy
 * protocol; tests/page_pool_stash_race.c races a flush with a steal;
 * tests/genmc/page_pool_stash.c runs this file under the weak memory
 * models (each ordering below names the configuration that needs it).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include <pagepool/spinlock_pvt.h>

#include "lib/fork_priv.h"
#include "lib/test_hooks.h"
#include "lib/tls_priv.h"
#include "page_pool_priv.h"

/* Pages per slot: a power of two. 32 is DPDK's default lcore cache flush
 * batch and the kernel's bulk-free size. The GenMC harness sets 2, so that
 * a slot's entries are written again within a few puts. */
#ifndef PP_STASH_SIZE
#define PP_STASH_SIZE 32u
#endif
#define PP_STASH_MASK (PP_STASH_SIZE - 1)
/* Pools a thread returns to without flushing on every switch (the GenMC
 * harness, with one pool, sets 1). */
#ifndef PP_STASH_SLOTS
#define PP_STASH_SLOTS 4
#endif

struct pp_stash_slot {
	/* Key: written by the thread under the stash lock while the slot is
	 * empty; a stale pointer once the slot is empty. */
	struct page_pool *pool;
	unsigned int cap;		/* flush at this many pages */
	unsigned int head;		/* appends: the thread only */
	unsigned int tail;		/* take-outs: under the stash lock */
	struct page *pages[PP_STASH_SIZE];
};

struct pp_stash {
	struct pp_spinlock lock;
	unsigned int victim;		/* next slot to reuse (thread only) */
	struct pp_stash *next;		/* stash_list, under stash_list_lock */
	struct pp_stash_slot slot[PP_STASH_SLOTS];
};

/* Every live thread's stash, for _pp_stash_steal(). */
static pthread_mutex_t stash_list_lock = PTHREAD_MUTEX_INITIALIZER;
static struct pp_stash *stash_list;

#ifndef PP_MODEL_CHECK
/*
 * Fork (lib/fork.c, order 4): stash_list_lock, then every listed stash's
 * lock, as _pp_stash_steal() nests them. In the child the stashes of the
 * threads that did not come along stay listed, with their pages: a
 * destroy in the child steals them back into its copy of the pool as it
 * does from any stash; only their memory (one struct per thread) is never
 * freed, as those threads never exit there.
 */
void
_pp_stash_fork(enum pp_fork_phase phase)
{
	struct pp_stash *st;

	if (phase == PP_FORK_PREPARE)
		pthread_mutex_lock(&stash_list_lock);
	for (st = stash_list; st != NULL; st = st->next) {
		if (phase == PP_FORK_PREPARE)
			pp_spin_lock(&st->lock);
		else
			pp_spin_unlock(&st->lock);
	}
	if (phase != PP_FORK_PREPARE)
		pthread_mutex_unlock(&stash_list_lock);
}
#endif

static pthread_key_t stash_key;
static pthread_once_t stash_once = PTHREAD_ONCE_INIT;
static int stash_key_ok;

/* Initial-exec (lib/tls_priv.h): read on every remote return. */
/* This thread's stash; NULL before the first remote return and after the
 * exit flush. */
static __thread struct pp_stash *stash_self PP_TLS_IE;
/* < 0: the thread returns straight to the ring (no stash could be set
 * up, or the thread is exiting). */
static __thread int stash_state PP_TLS_IE;
/* The slot this thread last put into: a one-entry cache in front of the
 * slot search, keyed by the slot's own key (s->pool), which only this
 * thread writes. NULL before the first remote return and after the exit
 * flush. */
static __thread struct pp_stash_slot *stash_last PP_TLS_IE;

/*
 * Take the pages out of @s under the stash lock (held by the caller);
 * returns how many were copied to @out. The only place tail moves.
 */
static unsigned int
slot_take(struct pp_stash_slot *s, struct page **out)
{
	/* A_H: pairs with release R_H in _pp_stash_put(): the page
	 * pointers below were written before head covered them. Needed:
	 * relaxed, page_pool_stash_steal (tests/genmc/page_pool_stash.c)
	 * finds a race on the entry a steal reads. */
	unsigned int head = pp_load_acquire(&s->head);
	/* Relaxed: tail is only written here and in slot_flush(), under
	 * the stash lock, which the caller holds (its acquire orders the
	 * previous writer's store); pairs with nothing. */
	unsigned int tail = pp_load_relaxed(&s->tail);
	unsigned int n = 0;

	while (tail != head)
		out[n++] = s->pages[tail++ & PP_STASH_MASK];
	PP_TEST_DELAY(PP_TP_STASH_TAKEN);
	/* R_T: pairs with acquire A_T in _pp_stash_put(): the thread may
	 * overwrite these entries only after they were read here. Needed:
	 * relaxed, page_pool_stash_reuse (tests/genmc/page_pool_stash.c)
	 * finds the steal's read racing with the write of the next put. */
	pp_store_release(&s->tail, head);
	return n;
}

/*
 * Produce @n pages of one pool, taken out of a stash by their returning
 * thread, into the ring. They keep the pool alive until the produce;
 * recycle_ring_bulk() keeps the last-touch rule from there.
 */
static void
flush_pages(struct page **pages, unsigned int n)
{
	if (n > 0)
		_pp_recycle_ring_bulk(pages[0]->pp, pages, n, true);
}

/*
 * The calling thread flushes one of its slots. The take is the move of
 * tail under the stash lock, as in slot_take(); the entries are read
 * after the unlock, which is safe here only: once tail has passed them
 * no steal looks at them, and their one writer is this thread, busy
 * here. So a run that does not wrap (every flush of a slot that only
 * ever fills, PP_STASH_SIZE at a time) is produced straight from the
 * slot, with no copy.
 */
static void
slot_flush(struct pp_stash *st, struct pp_stash_slot *s)
{
	struct page *pages[PP_STASH_SIZE];
	/* Plain: this thread is head's only writer. */
	unsigned int head = s->head, tail, n, i;

	pp_spin_lock(&st->lock);
	/* Relaxed: tail is only written under the stash lock, which we
	 * hold (its acquire orders a steal's store); pairs with nothing. */
	tail = pp_load_relaxed(&s->tail);
	PP_TEST_DELAY(PP_TP_STASH_TAKEN);
	/* Relaxed: the entries are read by this thread, which alone writes
	 * them again, and a steal reads tail under the lock; pairs with
	 * nothing. */
	pp_store_relaxed(&s->tail, head);
	pp_spin_unlock(&st->lock);
	n = head - tail;
	if ((tail & PP_STASH_MASK) + n <= PP_STASH_SIZE) {
		flush_pages(&s->pages[tail & PP_STASH_MASK], n);
		return;
	}
	for (i = 0; i < n; i++)
		pages[i] = s->pages[(tail + i) & PP_STASH_MASK];
	flush_pages(pages, n);
}

static void
stash_unlink(struct pp_stash *st)
{
	struct pp_stash **pp;

	pthread_mutex_lock(&stash_list_lock);
	for (pp = &stash_list; *pp != NULL; pp = &(*pp)->next) {
		if (*pp == st) {
			*pp = st->next;
			break;
		}
	}
	pthread_mutex_unlock(&stash_list_lock);
}

/* Thread exit: flush everything, then leave the list (a concurrent steal
 * holds stash_list_lock while it looks at this stash). */
static void
stash_destructor(void *arg)
{
	struct pp_stash *st = arg;
	unsigned int i;

	/* Another key's destructor may still return pages: they go straight
	 * to the ring from now on. */
	stash_state = -1;
	stash_self = NULL;
	stash_last = NULL;
	for (i = 0; i < PP_STASH_SLOTS; i++)
		slot_flush(st, &st->slot[i]);
	stash_unlink(st);
	free(st);
}

static void
stash_key_init(void)
{
	stash_key_ok = pthread_key_create(&stash_key, stash_destructor) == 0;
}

static __attribute__((noinline, cold)) struct pp_stash *
stash_create(void)
{
	struct pp_stash *st = NULL;

	pthread_once(&stash_once, stash_key_init);
	/*
	 * posix_memalign, not _pp_zalloc_aligned(): the allocation fault
	 * injector counts the library's allocations, and a put must not
	 * shift the count a test armed. Failing is harmless: the thread
	 * returns straight to the ring.
	 */
	if (!stash_key_ok ||
	    posix_memalign((void **)&st, PP_CACHELINE_SIZE, sizeof(*st)) != 0) {
		stash_state = -1;
		return NULL;
	}
	memset(st, 0, sizeof(*st));
	pp_spin_lock_init(&st->lock);
	if (pthread_setspecific(stash_key, st) != 0) {
		free(st);
		stash_state = -1;
		return NULL;
	}
	pthread_mutex_lock(&stash_list_lock);
	st->next = stash_list;
	stash_list = st;
	pthread_mutex_unlock(&stash_list_lock);
	stash_state = 1;
	stash_self = st;
	return st;
}

/* A slot for @pool: a free one, or the next victim flushed. */
static __attribute__((noinline)) struct pp_stash_slot *
slot_claim(struct pp_stash *st, struct page_pool *pool)
{
	struct page *pages[PP_STASH_SIZE];
	struct pp_stash_slot *s = NULL;
	unsigned int i, n, ring = (unsigned int)pool->ring.size;

	for (i = 0; i < PP_STASH_SLOTS; i++) {
		/* Relaxed, pairs with nothing: only picks a slot. Whatever
		 * it reads, slot_take() below empties the slot under the
		 * stash lock, which orders a steal's reads before it, and
		 * the put's A_T orders its write (tests/genmc/weaken.sh:
		 * no harness needs more). */
		if (pp_load_relaxed(&st->slot[i].tail) == st->slot[i].head) {
			s = &st->slot[i];
			break;
		}
	}
	if (s == NULL) {
		s = &st->slot[st->victim];
		st->victim = (st->victim + 1) % PP_STASH_SLOTS;
	}
	pp_spin_lock(&st->lock);
	n = slot_take(s, pages);
	s->pool = pool;
	/* A small ring would overflow on a full flush: a quarter of it. */
	s->cap = ring / 4 < PP_STASH_SIZE ? ring / 4 : PP_STASH_SIZE;
	pp_spin_unlock(&st->lock);
	/* Pages of the slot's previous pool, which they keep alive. */
	flush_pages(pages, n);
	return s;
}

/*
 * The put's rare cases, out of line so that the common one (the cached
 * slot, room after this page) is a leaf with no frame. Each ends in
 * _pp_stash_put() again, which then takes its common path.
 */

/* No cached slot for @pool: find or claim one (or there is no stash). */
static __attribute__((noinline)) bool
stash_put_lookup(struct page_pool *pool, struct page *page)
{
	struct pp_stash *st = stash_self;
	struct pp_stash_slot *s;
	unsigned int i;

	if (PP_UNLIKELY(st == NULL)) {
		if (stash_state < 0)
			return false;
		st = stash_create();
		if (st == NULL)
			return false;
	}
	for (i = 0; i < PP_STASH_SLOTS; i++) {
		s = &st->slot[i];
		/* Our own key: written by this thread only. */
		if (s->pool == pool)
			goto found;
	}
	s = slot_claim(st, pool);
found:
	if (PP_UNLIKELY(s->cap < 2))
		return false;
	stash_last = s;
	return _pp_stash_put(pool, page);
}

/* The cached slot @s is full before the put (never, as a put that fills
 * it flushes it; kept for safety): flush, then put. */
static __attribute__((noinline, cold)) bool
stash_put_full(struct pp_stash_slot *s, struct page_pool *pool,
	       struct page *page)
{
	slot_flush(stash_self, s);
	return _pp_stash_put(pool, page);
}

/* The put filled the cached slot @s: produce it into the ring. */
static __attribute__((noinline)) bool
stash_put_filled(struct pp_stash_slot *s)
{
	slot_flush(stash_self, s);
	return true;
}

/* No slot for @pool, from _pp_stash_put_remote(): when the thread has
 * no stash to put into, the page goes to the ring. */
static __attribute__((noinline)) bool
stash_put_lookup_ring(struct page_pool *pool, struct page *page)
{
	if (!stash_put_lookup(pool, page))
		_pp_put_in_ring(pool, page);
	return true;
}

/*
 * The put itself, one source for both entries (so each ordered access
 * below has one site): @ring, a constant, says what a thread with no
 * stash does: false, tell the caller (_pp_stash_put()); true, produce
 * the page into the ring (_pp_stash_put_remote()), so that the caller
 * can reach this with a tail call.
 */
static PP_ALWAYS_INLINE bool
stash_put(struct page_pool *pool, struct page *page, bool ring)
{
	struct pp_stash_slot *s = stash_last;
	unsigned int head, tail, used;
	bool filled;

	/* The slot's key: our own, written by this thread only. */
	if (PP_UNLIKELY(s == NULL || s->pool != pool))
		return ring ? stash_put_lookup_ring(pool, page) :
			      stash_put_lookup(pool, page);
	/* Plain: this thread is head's only writer. */
	head = s->head;
	/* A_T: pairs with release R_T in slot_take(): the entry about to
	 * be written was read out before tail passed it (a tail that
	 * slot_flush() stored was this thread's own, read by it). Needed:
	 * relaxed, page_pool_stash_reuse (tests/genmc/page_pool_stash.c)
	 * finds a steal's read of the entry racing with this write. */
	tail = pp_load_acquire(&s->tail);
	/* The pages with this one: one compare sends both rare cases, a
	 * slot full before the put and one this put fills, out of the
	 * common path, which then tests nothing after the publication. */
	used = head + 1 - tail;
	filled = false;
	if (PP_UNLIKELY(used >= s->cap)) {
		if (used != s->cap)
			return stash_put_full(s, pool, page);
		filled = true;
	}
	s->pages[head & PP_STASH_MASK] = page;
	/* R_H: pairs with acquire A_H in slot_take(): publishes the entry.
	 * After it the page may be stolen, and the pool freed: nothing
	 * below touches either. Needed: relaxed, page_pool_stash_steal
	 * (tests/genmc/page_pool_stash.c) finds a race on the entry a
	 * steal reads. */
	pp_store_release(&s->head, head + 1);
	/* Full now? Judged with the tail read above: a steal since then
	 * only moved it on (fewer pages), and the flush takes whatever the
	 * slot holds under the stash lock, so a stale tail at worst
	 * flushes a slot a steal emptied. */
	if (PP_UNLIKELY(filled))
		return stash_put_filled(s);
	return true;
}

bool
_pp_stash_put(struct page_pool *pool, struct page *page)
{
	return stash_put(pool, page, false);
}

void
_pp_stash_put_remote(struct page_pool *pool, struct page *page)
{
	stash_put(pool, page, true);
}

/*
 * The batch form of _pp_stash_put_remote(): while the cached slot is
 * @pool's, as many pages as it has room for are written and published
 * with one head store (A_T and R_H as in stash_put(), whose rules hold
 * here: after the store those pages may be stolen, but the pool stays
 * alive while pages[i..n) are still ours, and after the last store
 * nothing touches it but the flush, as after a single put). Anything
 * else (no slot cached for @pool, no room) is a single put of one page,
 * which finds or claims the slot for the rest.
 */
void
_pp_stash_put_remote_bulk(struct page_pool *pool, struct page **pages,
			  unsigned int n)
{
	unsigned int i = 0;

	while (i < n) {
		struct pp_stash_slot *s = stash_last;
		unsigned int head, tail, k, j;

		/* The slot's key: our own, written by this thread only. */
		if (PP_UNLIKELY(s == NULL || s->pool != pool)) {
			stash_put(pool, pages[i++], true);
			continue;
		}
		/* Plain: this thread is head's only writer. */
		head = s->head;
		/* A_T: pairs with release R_T in slot_take(), as in
		 * stash_put(). Needed: relaxed, page_pool_stash_reuse_rbulk
		 * (tests/genmc/page_pool_stash.c) finds the steal's read of an
		 * entry racing with this batch's write of it. */
		tail = pp_load_acquire(&s->tail);
		k = s->cap - (head - tail);
		if (PP_UNLIKELY(k - 1 >= s->cap)) {	/* no room (or none) */
			stash_put(pool, pages[i++], true);
			continue;
		}
		if (k > n - i)
			k = n - i;
		for (j = 0; j < k; j++)
			s->pages[(head + j) & PP_STASH_MASK] = pages[i + j];
		i += k;
		/* R_H: pairs with acquire A_H in slot_take(), as in
		 * stash_put(): publishes the k entries. Needed: relaxed,
		 * page_pool_stash_reuse_rbulk finds the steal's read of an
		 * entry racing with its write. */
		pp_store_release(&s->head, head + k);
		if (PP_UNLIKELY(head + k - tail >= s->cap))
			stash_put_filled(s);
	}
}

void
_pp_stash_flush_self(struct page_pool *pool)
{
	struct pp_stash *st = stash_self;
	unsigned int i;

	if (st == NULL)
		return;
	for (i = 0; i < PP_STASH_SLOTS; i++) {
		/* Own key; a slot with a stale key equal to @pool is empty. */
		if (st->slot[i].pool == pool)
			slot_flush(st, &st->slot[i]);
	}
}

void
pp_stash_flush(void)
{
	struct pp_stash *st = stash_self;
	unsigned int i;

	if (st == NULL)
		return;
	for (i = 0; i < PP_STASH_SLOTS; i++)
		slot_flush(st, &st->slot[i]);
}

unsigned int
_pp_stash_steal(struct page_pool *pool)
{
	struct page *pages[PP_STASH_SIZE];
	struct pp_stash *st;
	unsigned int i, n, total = 0;

	pthread_mutex_lock(&stash_list_lock);
	for (st = stash_list; st != NULL; st = st->next) {
		pp_spin_lock(&st->lock);
		for (i = 0; i < PP_STASH_SLOTS; i++) {
			/* Key read under the lock, as it is written. A slot
			 * with a stale key equal to @pool (an earlier pool at
			 * this address) is empty. */
			if (st->slot[i].pool != pool)
				continue;
			n = slot_take(&st->slot[i], pages);
			total += n;
			/* Released under the locks: this is the pool's
			 * release path, it cannot be freed under us, and
			 * _pp_return_page() takes no stash lock. */
			while (n > 0)
				_pp_return_page(pool, pages[--n]);
		}
		pp_spin_unlock(&st->lock);
	}
	pthread_mutex_unlock(&stash_list_lock);
	return total;
}
