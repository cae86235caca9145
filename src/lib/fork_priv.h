/* SPDX-License-Identifier: MIT */
/*
 * Copyright (c) 2026 The pagepool authors
 *
 * Private: fork safety (src/lib/fork.c). Each file owning global locks
 * gives fork.c one function taking them for fork (PP_FORK_PREPARE) and
 * releasing them after it, in the parent (PP_FORK_PARENT) or the child
 * (PP_FORK_CHILD), where it also puts its library-thread state right.
 * fork.c calls them in the documented lock order, and in reverse after.
 */
#ifndef PAGEPOOL_FORK_PRIV_H
#define PAGEPOOL_FORK_PRIV_H

#include <pthread.h>

enum pp_fork_phase {
	PP_FORK_PREPARE,
	PP_FORK_PARENT,
	PP_FORK_CHILD,
};

/* A global mutex that no thread holds across the fork: taken before it,
 * released after it in the parent and the child alike. */
static inline void
_pp_fork_mutex(pthread_mutex_t *lock, enum pp_fork_phase phase)
{
	if (phase == PP_FORK_PREPARE)
		pthread_mutex_lock(lock);
	else
		pthread_mutex_unlock(lock);
}

#ifndef PP_MODEL_CHECK
/*
 * Register the pthread_atfork() handlers, once per process. Called where
 * global state first comes into use (a pool registered, a memory source
 * registered), before the caller takes any lock. Context: any thread.
 */
void _pp_fork_register(void);
#else
/* The GenMC harnesses include single files and never fork. */
static inline void
_pp_fork_register(void)
{
}
#endif

/* page_pool.c: the deferred-release thread's defer_lock (waiting out a
 * pass in progress), then registry_lock. */
void _pp_pool_fork(enum pp_fork_phase phase);
/* dev.c: dev_lock. */
void _pp_dev_fork(enum pp_fork_phase phase);
/* xdp.c: mem_lock. */
void _pp_xdp_fork(enum pp_fork_phase phase);
/* page_pool_shm.c: shm_lock. */
void _pp_shm_fork(enum pp_fork_phase phase);
/* page_pool_stash.c: stash_list_lock, then every thread's stash lock. */
void _pp_stash_fork(enum pp_fork_phase phase);
/* page_pool_debug.c: leak_lock. */
void _pp_debug_fork(enum pp_fork_phase phase);
/* page_frag_cache.c: dbg_lock. */
void _pp_frag_fork(enum pp_fork_phase phase);
/* mem_source.c: default_lock, src_reg_lock, every source's zones'
 * grow_locks and its lock, map_lock (PP_FORK_PREPARE); the zone locks
 * come last, in _pp_source_zones_fork(). */
void _pp_source_fork(enum pp_fork_phase phase);
/* page_alloc.c: inbox_lock. */
void _pp_page_alloc_fork(enum pp_fork_phase phase);
/* mem_source.c: every zone's spinlock, innermost of all. */
void _pp_source_zones_fork(enum pp_fork_phase phase);

#endif /* PAGEPOOL_FORK_PRIV_H */
