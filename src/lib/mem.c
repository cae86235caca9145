/* SPDX-License-Identifier: MIT */
/*
 * Copyright (c) 2026 The pagepool authors
 *
 * Bookkeeping allocations and the allocation fault injector. The injector
 * state is thread-local, so arming it in one test thread leaves every other
 * thread's allocations alone.
 *
 * Also the race tests' delay points (test_hooks.h), compiled in with
 * -Dtest_hooks=true only. Their state is global: the thread to delay is
 * one the test started, not the one arming the point.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <pagepool/fault.h>

#include "mem_priv.h"
#include "test_hooks.h"

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

void *
_pp_zalloc_thread(pthread_key_t key, size_t size)
{
	void *ptr = _pp_zalloc_aligned(size, SMP_CACHE_BYTES);
	int err;

	if (ptr == NULL)
		return NULL;
	err = pthread_setspecific(key, ptr);
	if (err != 0) {
		_pp_free(ptr);
		errno = err;
		return NULL;
	}
	return ptr;
}

/* ---- Delay points (tests only) ---- */

#if PP_TEST_HOOKS
struct pp_test_delay {
	unsigned int usec;	/* 0: disarmed */
	unsigned int every;
	unsigned long reached;	/* threads that reached the point */
	unsigned long hits;	/* delays served (either kind of arming) */
};

static struct pp_test_delay test_delays[PP_TP_NR];
/* Armed for the calling thread only: usec per point. */
static __thread unsigned int self_delays[PP_TP_NR];
static __thread bool self_armed;
static bool global_armed;
/* 1 if a point is armed for every thread, plus the threads with a point
 * armed for themselves. */
unsigned int _pp_test_delays_armed;

/*
 * Every access to the knobs and counters is relaxed: they are set before
 * the threads that should see them start (pthread_create() orders them)
 * or by the thread itself, and read after those threads were joined; they
 * pair with nothing.
 */

static void
sleep_us(unsigned int usec)
{
	struct timespec ts;

	ts.tv_sec = usec / 1000000;
	ts.tv_nsec = (long)(usec % 1000000) * 1000;
	nanosleep(&ts, NULL);
}

void
_pp_test_delay(unsigned int point)
{
	struct pp_test_delay *d = &test_delays[point];
	unsigned int usec = self_delays[point], every;

	if (usec != 0) {
		__atomic_fetch_add(&d->hits, 1, __ATOMIC_RELAXED);
		sleep_us(usec);
		return;
	}
	usec = __atomic_load_n(&d->usec, __ATOMIC_RELAXED);
	every = __atomic_load_n(&d->every, __ATOMIC_RELAXED);
	if (usec == 0)
		return;
	if (__atomic_fetch_add(&d->reached, 1, __ATOMIC_RELAXED) % every != 0)
		return;
	__atomic_fetch_add(&d->hits, 1, __ATOMIC_RELAXED);
	sleep_us(usec);
}

/* Count a change between "nothing armed" and "something armed". */
static void
armed_update(bool *was, bool now)
{
	if (now && !*was)
		__atomic_fetch_add(&_pp_test_delays_armed, 1, __ATOMIC_RELAXED);
	else if (!now && *was)
		__atomic_fetch_sub(&_pp_test_delays_armed, 1, __ATOMIC_RELAXED);
	*was = now;
}

int
_pp_test_delay_set(unsigned int point, unsigned int usec, unsigned int every)
{
	struct pp_test_delay *d;
	unsigned int i;
	bool armed = false;

	if (point >= PP_TP_NR || every == 0)
		return -EINVAL;
	d = &test_delays[point];
	__atomic_store_n(&d->usec, usec, __ATOMIC_RELAXED);
	__atomic_store_n(&d->every, every, __ATOMIC_RELAXED);
	__atomic_store_n(&d->reached, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&d->hits, 0, __ATOMIC_RELAXED);
	for (i = 0; i < PP_TP_NR; i++)
		armed |= __atomic_load_n(&test_delays[i].usec,
					 __ATOMIC_RELAXED) != 0;
	armed_update(&global_armed, armed);
	return 0;
}

int
_pp_test_delay_self(unsigned int point, unsigned int usec)
{
	unsigned int i;
	bool armed = false;

	if (point >= PP_TP_NR)
		return -EINVAL;
	self_delays[point] = usec;
	for (i = 0; i < PP_TP_NR; i++)
		armed |= self_delays[i] != 0;
	armed_update(&self_armed, armed);
	return 0;
}

unsigned long
_pp_test_delay_hits(unsigned int point)
{
	if (point >= PP_TP_NR)
		return 0;
	return __atomic_load_n(&test_delays[point].hits, __ATOMIC_RELAXED);
}
#else
int
_pp_test_delay_set(unsigned int point, unsigned int usec, unsigned int every)
{
	(void)point;
	(void)usec;
	(void)every;
	return -ENOSYS;
}

int
_pp_test_delay_self(unsigned int point, unsigned int usec)
{
	(void)point;
	(void)usec;
	return -ENOSYS;
}

unsigned long
_pp_test_delay_hits(unsigned int point)
{
	(void)point;
	return 0;
}
#endif
