/* SPDX-License-Identifier: MIT */
/*
 * Copyright (c) 2026 The pagepool authors
 *
 * Fork safety. A child of a threaded process starts with one thread, a
 * copy of the one that called fork(), and with every lock as it was at
 * that moment: a lock another thread held is held forever in the child,
 * and the child's first call that needs it hangs. POSIX lets such a child
 * call only async-signal-safe functions; allocators do better (glibc
 * malloc and jemalloc take their locks around fork), and so do we, so a
 * child may use the library as its parent did.
 *
 * pthread_atfork() handlers, registered once when a pool or a memory
 * source first comes to exist: before the fork, the forking thread takes
 * every global lock of the library, so no other thread is inside a
 * critical section the child would inherit half done; after it, the
 * parent releases them in reverse order and the child releases them and
 * puts the library's own threads' state right. The deferred-release
 * thread's pass drops its lock while it frees pools, so the prepare
 * handler also waits for a pass in progress to end (page_pool.c).
 *
 * The order below is the order in which the code nests them elsewhere,
 * outermost first, so the prepare handler cannot deadlock with a thread
 * holding one of them and waiting for another:
 *
 *   1. page_pool.c defer_lock (and no release pass running), registry_lock
 *   2. dev.c dev_lock, xdp.c mem_lock          (leaves)
 *   3. page_pool_shm.c shm_lock                (leaf)
 *   4. page_pool_stash.c stash_list_lock, then each thread's stash lock;
 *      a destroy steals stashed pages and returns them to the page
 *      allocator under both, so they come before 5-9
 *   5. page_pool_debug.c leak_lock             (taken under 4)
 *   6. page_frag_cache.c dbg_lock              (leaf)
 *   7. mem_source.c default_lock, src_reg_lock (creating the default
 *      source registers it; pp_mem_purge() purges under the registry
 *      lock), then every registered source's zones' grow_locks and the
 *      source's lock (growth maps under grow_lock), then map_lock
 *   8. page_alloc.c inbox_lock                 (leaf)
 *   9. every zone's spinlock                   (innermost)
 *
 * Per-object locks that only the user's own threads take - a pool's ring
 * locks, a device's DMA tracking, a netsim queue, a CPU map - are the
 * user's business, as with any POSIX object: a child must not use an
 * object another thread of the parent was using at fork. The library's
 * own threads hold none at fork: the release thread is between passes,
 * NAPI threads and the live-view publisher are not carried over (see
 * pagepool(7), FORK).
 */
#include <pthread.h>

#include "fork_priv.h"

static void (*const fork_order[])(enum pp_fork_phase) = {
	_pp_pool_fork,
	_pp_dev_fork,
	_pp_xdp_fork,
	_pp_shm_fork,
	_pp_stash_fork,
	_pp_debug_fork,
	_pp_frag_fork,
	_pp_source_fork,
	_pp_page_alloc_fork,
	_pp_source_zones_fork,
};

#define FORK_NR (sizeof(fork_order) / sizeof(fork_order[0]))

static void
fork_prepare(void)
{
	unsigned int i;

	for (i = 0; i < FORK_NR; i++)
		fork_order[i](PP_FORK_PREPARE);
}

static void
fork_parent(void)
{
	unsigned int i;

	for (i = FORK_NR; i-- > 0;)
		fork_order[i](PP_FORK_PARENT);
}

static void
fork_child(void)
{
	unsigned int i;

	for (i = FORK_NR; i-- > 0;)
		fork_order[i](PP_FORK_CHILD);
}

static pthread_once_t fork_once = PTHREAD_ONCE_INIT;

static void
fork_init(void)
{
	/* Fails only without memory for glibc's handler list: the library
	 * then behaves as before (a child must not call into it), which no
	 * caller could do anything about. */
	(void)pthread_atfork(fork_prepare, fork_parent, fork_child);
}

void
_pp_fork_register(void)
{
	pthread_once(&fork_once, fork_init);
}
