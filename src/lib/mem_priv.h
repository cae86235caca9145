/* SPDX-License-Identifier: MIT */
/*
 * Copyright (c) 2026 The pagepool authors
 *
 * Private: the one place pagepool takes memory for its own bookkeeping
 * (ring queues, pool structs). Every such allocation goes through here so
 * the fault injector (pagepool/fault.h) reaches all of them.
 */
#ifndef PAGEPOOL_MEM_PRIV_H
#define PAGEPOOL_MEM_PRIV_H

#include <pthread.h>
#include <stddef.h>

#include <pagepool/kcompat.h>

/*
 * _pp_zalloc_aligned() - zeroed memory aligned to @align (a power of two,
 * at least sizeof(void *)). NULL with errno ENOMEM on failure, injected or
 * real. Free with _pp_free().
 */
void *_pp_zalloc_aligned(size_t size, size_t align);
void _pp_free(void *ptr);

/*
 * _pp_zalloc_thread() - the calling thread's per-thread state, made on
 * its first use: _pp_zalloc_aligned(@size, SMP_CACHE_BYTES), set as the
 * thread's value of @key, so the key's destructor gets it when the thread
 * exits. NULL (errno ENOMEM, or pthread_setspecific()'s error) with
 * nothing kept. The caller keeps the pointer in its own initial-exec
 * variable (lib/tls_priv.h) for its fast paths.
 */
void *_pp_zalloc_thread(pthread_key_t key, size_t size);

/* True if the injector says this allocation must fail (counts it). */
int _pp_fault_should_fail(void);

/* Threads with an armed injector; lets hot allocation paths skip the
 * thread-local lookup (a call in a shared library) when none is armed. */
extern int _pp_fault_armed_threads;

/*
 * _pp_fault_check() - _pp_fault_should_fail() for fast paths: one relaxed
 * load of a global while no thread has the injector armed.
 */
static inline int
_pp_fault_check(void)
{
	if (PP_LIKELY(__atomic_load_n(&_pp_fault_armed_threads,
				      __ATOMIC_RELAXED) == 0))
		return 0;
	return _pp_fault_should_fail();
}

#endif /* PAGEPOOL_MEM_PRIV_H */
