/* SPDX-License-Identifier: MIT */
/*
 * Copyright (c) 2026 The pagepool authors
 *
 * Bookkeeping allocations and the allocation fault injector. The injector
 * state is thread-local, so arming it in one test thread leaves every other
 * thread's allocations alone.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <pagepool/fault.h>

#include "mem_priv.h"

static __thread long fault_after = -1;	/* < 0: disarmed */
static __thread long fault_count;	/* < 0: fail forever */
static __thread unsigned long fault_injected;

int _pp_fault_armed_threads;

void
pp_fault_inject_alloc(long after, long count)
{
	bool was_armed = fault_after >= 0, armed = after >= 0;

	/* Relaxed: only this thread's own allocations must see its state,
	 * and those are ordered by program order. */
	if (armed && !was_armed)
		__atomic_fetch_add(&_pp_fault_armed_threads, 1,
				   __ATOMIC_RELAXED);
	else if (!armed && was_armed)
		__atomic_fetch_sub(&_pp_fault_armed_threads, 1,
				   __ATOMIC_RELAXED);
	fault_after = after;
	fault_count = count;
	fault_injected = 0;
}

unsigned long
pp_fault_injected(void)
{
	return fault_injected;
}

int
_pp_fault_should_fail(void)
{
	if (PP_LIKELY(fault_after < 0))
		return 0;
	if (fault_after > 0) {
		fault_after--;
		return 0;
	}
	if (fault_count == 0)
		return 0;
	if (fault_count > 0)
		fault_count--;
	fault_injected++;
	return 1;
}

void *
_pp_zalloc_aligned(size_t size, size_t align)
{
	void *ptr;

	if (_pp_fault_should_fail()) {
		errno = ENOMEM;
		return NULL;
	}
	if (size == 0)
		size = align;
	/* Round up: aligned_alloc() requires a multiple of the alignment. */
	size = (size + align - 1) & ~(align - 1);
	ptr = aligned_alloc(align, size);
	if (ptr == NULL) {
		errno = ENOMEM;
		return NULL;
	}
	memset(ptr, 0, size);
	return ptr;
}

void
_pp_free(void *ptr)
{
	free(ptr);
}
