/* SPDX-License-Identifier: MIT */
/*
 * Copyright (c) 2026 The pagepool authors
 *
 * What the test configurations of the real sources (page_alloc_env.h,
 * page_pool_env.h) both supply, included first by each:
 *
 *  - AWAIT(), the harnesses' wait: GenMC explores only the executions in
 *    which the condition holds;
 *  - pthread_once() and one thread-specific key, which GenMC's <pthread.h>
 *    lacks: the key's destructor and each thread's value are kept here,
 *    and a harness thread calls env_thread_exit() where it would return,
 *    which runs the destructor as the thread's exit does. env_tid() is
 *    the calling thread's index (GenMC numbers threads from 0);
 *  - fault injection (src/lib/mem.c): never armed.
 */
#ifndef PAGEPOOL_GENMC_ENV_COMMON_H
#define PAGEPOOL_GENMC_ENV_COMMON_H

#include <assert.h>
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <time.h>

#include <genmc.h>

#define AWAIT(cond) __VERIFIER_assume(cond)

#define ENV_THREADS 8

/* GenMC's <pthread.h> has no pthread_once nor thread-specific keys. */
typedef int pthread_once_t;
#define PTHREAD_ONCE_INIT 0
typedef unsigned int pthread_key_t;
int pthread_once(pthread_once_t *once, void (*fn)(void));
int pthread_key_create(pthread_key_t *key, void (*destructor)(void *));
int pthread_setspecific(pthread_key_t key, const void *value);

int
_pp_fault_should_fail(void)
{
	return 0;
}

static void (*env_key_dtor)(void *);
/* Each thread's value of the one key, written by that thread only. */
static void *env_key_value[ENV_THREADS];

static inline int
env_tid(void)
{
	int i = (int)pthread_self();

	assert(i >= 0 && i < ENV_THREADS);
	return i;
}

int
pthread_once(pthread_once_t *once, void (*fn)(void))
{
	/* In every harness one thread makes the first call alone: no wait
	 * for a concurrent first caller is needed. */
	if (__atomic_exchange_n(once, 1, __ATOMIC_ACQ_REL) == 0)
		fn();
	return 0;
}

int
pthread_key_create(pthread_key_t *key, void (*destructor)(void *))
{
	*key = 0;
	env_key_dtor = destructor;
	return 0;
}

int
pthread_setspecific(pthread_key_t key, const void *value)
{
	(void)key;
	env_key_value[env_tid()] = (void *)value;
	return 0;
}

/* The calling thread exits: its key's destructor runs, as pthread's. */
static inline void
env_thread_exit(void)
{
	void *value = env_key_value[env_tid()];

	if (value != NULL && env_key_dtor != NULL) {
		env_key_value[env_tid()] = NULL;
		env_key_dtor(value);
	}
}

#endif /* PAGEPOOL_GENMC_ENV_COMMON_H */
