/* SPDX-License-Identifier: MIT */
/*
 * Copyright (c) 2026 The pagepool authors
 *
 * Private: delay injection points for the race tests. A race between a
 * put and page_pool_destroy() lasts a few instructions and is hit once in
 * thousands of rounds, if at all; a test that must fail without a fix
 * stretches the window instead, by making the thread inside it sleep.
 * Each point names a window that a known fix closes (the fix is named
 * next to it); the tests that arm them record which fix they guard.
 *
 * Compiled in only with meson -Dtest_hooks=true (CI's test builds); in any
 * other build PP_TEST_DELAY() is nothing and the setters report ENOSYS, so
 * a test can tell that it cannot run. The state lives in src/lib/mem.c,
 * next to the allocation fault injector. Tests reach the hidden setters
 * through the static archive.
 */
#ifndef PAGEPOOL_TEST_HOOKS_H
#define PAGEPOOL_TEST_HOOKS_H

#include <pagepool/kcompat.h>

enum pp_test_point {
	/*
	 * recycle_in_ring() and recycle_ring_bulk(): the page is in the ring,
	 * the producer lock is still held. Guards the producer-lock barrier
	 * in page_pool_release() (the kernel's 271683bb2cf3): without it the
	 * release frees the pool under the producer.
	 */
	PP_TP_RING_PRODUCED,
	/*
	 * Right after the producer unlock in the same two functions: the pool
	 * may already be freed. Guards "statistics counted inside the lock"
	 * (the other half of 271683bb2cf3).
	 */
	PP_TP_RING_UNLOCKED,
	/*
	 * _pp_return_page(): right after the release-count increment, the
	 * pool may be freed. Guards "the increment is the last touch".
	 */
	PP_TP_RETURN_RELEASED,
	/*
	 * _pp_dma_unmap(): the page's tracking slot is taken, the device
	 * unmap has not run yet. Guards destroy waiting for unmappers (seed
	 * 003's second window: destroy must not return while an unmap of
	 * the pool's device is pending).
	 */
	PP_TP_DMA_UNMAP,
	/*
	 * slot_take() in page_pool_stash.c: the stashed pages are copied out,
	 * the slot's tail not yet moved past them. Guards "pages leave a
	 * stash only under its lock": without it a flushing thread and a
	 * destroy stealing the pool's pages both hand on the same pages.
	 */
	PP_TP_STASH_TAKEN,
	/*
	 * defer_pass() in page_pool.c: the release thread has picked the
	 * pools due, defer_lock still held. Guards the fork handlers
	 * (lib/fork.c): without them a child forked now inherits the lock
	 * held and hangs at its first deferred destroy.
	 */
	PP_TP_DEFER_PASS,
	/*
	 * page_pool_release(): inside the producer-lock barrier, the pool's
	 * producer lock held. Reached by the release thread in its pass,
	 * with defer_lock dropped: guards the fork prepare handler waiting
	 * for a pass to end (without the wait a child inherits the pool's
	 * lock held, and its release thread spins on it forever).
	 */
	PP_TP_RELEASE_LOCKED,
	/*
	 * _pp_dma_scrub(): the device is revoked and the ops in progress
	 * have drained; no slot taken yet. Guards dev_enter()'s test of
	 * revoked: without it an op that starts now takes its slot before
	 * the scrub does and is still running when destroy returns.
	 */
	PP_TP_DMA_SCRUB_REVOKED,
	PP_TP_NR
};

/*
 * _pp_test_delay_set() - make every @every-th thread that reaches @point
 * sleep @usec microseconds (usec 0: disarm). Arm before starting the
 * threads that should see it. Returns 0, -EINVAL (bad point or every 0),
 * or -ENOSYS when the library was built without -Dtest_hooks=true.
 */
int _pp_test_delay_set(unsigned int point, unsigned int usec,
		       unsigned int every);

/*
 * _pp_test_delay_self() - make the calling thread sleep @usec microseconds
 * each time it reaches @point (usec 0: disarm), whatever other threads do:
 * for a test that knows which of its threads must sleep. Takes precedence
 * over _pp_test_delay_set() on this thread. 0, -EINVAL or -ENOSYS.
 */
int _pp_test_delay_self(unsigned int point, unsigned int usec);

/* Delays served at @point (by either kind of arming) since it was last
 * set with _pp_test_delay_set(); 0 without hooks. */
unsigned long _pp_test_delay_hits(unsigned int point);

#if PP_TEST_HOOKS
/* Non-zero while some point is armed, for some thread or for all: lets
 * PP_TEST_DELAY() cost one load while none is. */
extern unsigned int _pp_test_delays_armed;
void _pp_test_delay(unsigned int point) __attribute__((cold));

/* Relaxed: a switch armed before the threads start (pthread_create()
 * orders it); pairs with nothing. */
#define PP_TEST_HOOKS_ARMED()                                                \
	PP_UNLIKELY(__atomic_load_n(&_pp_test_delays_armed, __ATOMIC_RELAXED))

#define PP_TEST_DELAY(point)                                                 \
	do {                                                                 \
		if (PP_TEST_HOOKS_ARMED())                                   \
			_pp_test_delay(point);                               \
	} while (0)
#else
#define PP_TEST_HOOKS_ARMED() 0
#define PP_TEST_DELAY(point) do { } while (0)
#endif

#endif /* PAGEPOOL_TEST_HOOKS_H */
