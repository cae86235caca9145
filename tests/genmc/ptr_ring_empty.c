/* SPDX-License-Identifier: MIT */
/*
 * Copyright (c) 2026 The pagepool authors
 *
 * GenMC: what the lockless __ptr_ring_empty() may and may not answer while
 * the consumer runs, under weak memory (docs/ptr_ring-model.md has the
 * sequentially consistent picture from spin).
 *
 * CHECK=1, "no false empty": the ring holds A and B; the consumer takes A
 * while an observer tests for empty. B is in the ring throughout, so
 * "empty" is wrong; the header documents that it can happen in both
 * zeroing orders (with a zeroing batch smaller than the ring). This
 * assertion is expected to FAIL: the test passes when GenMC finds the
 * false "empty".
 *
 * CHECK=2, "no false non-empty once the consume is visible": the ring
 * holds A; the consumer takes it and then raises a flag (release); an
 * observer that sees the flag (acquire) must be told "empty", in both
 * orders and with deferred zeroing. This must hold.
 */
#include "harness.h"

#ifndef CHECK
#define CHECK 1
#endif

static struct item a = { 1 }, b = { 2 };
static int consumed;

static void *
consumer(void *arg)
{
	(void)arg;
	assert(__ptr_ring_consume(&ring) == &a);
	/* Harness-only flag: release, read with acquire by the observer. */
	__atomic_store_n(&consumed, 1, __ATOMIC_RELEASE);
	return NULL;
}

static void *
observer(void *arg)
{
	(void)arg;
#if CHECK == 1
	assert(!__ptr_ring_empty(&ring));
#else
	if (__atomic_load_n(&consumed, __ATOMIC_ACQUIRE))
		assert(__ptr_ring_empty(&ring));
#endif
	return NULL;
}

int
main(void)
{
	pthread_t c, o;

	harness_ring_init();
	assert(__ptr_ring_produce(&ring, &a) == 0);
#if CHECK == 1
	assert(__ptr_ring_produce(&ring, &b) == 0);
#endif
	pthread_create(&c, NULL, consumer, NULL);
	pthread_create(&o, NULL, observer, NULL);
	pthread_join(c, NULL);
	pthread_join(o, NULL);
	return 0;
}
