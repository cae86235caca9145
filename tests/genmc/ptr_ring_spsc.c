/* SPDX-License-Identifier: MIT */
/*
 * Copyright (c) 2026 The pagepool authors
 *
 * GenMC: one producer and one consumer on the lockless __ptr_ring_produce()
 * and __ptr_ring_consume(), six items through four slots, so the ring wraps
 * and the consumer zeroes its tail in batches of two while the producer
 * waits for free slots. Checks: every payload is visible to the consumer
 * (no race on it), items arrive in order, none lost or duplicated, and the
 * ring is empty at the end. Built with the zeroing order chosen by
 * -DPTR_RING_ZEROING (both orders are run).
 */
#include "harness.h"

#define N_ITEMS 6

static struct item items[N_ITEMS];

static void *
producer(void *arg)
{
	int i;

	(void)arg;
	for (i = 0; i < N_ITEMS; i++) {
		items[i].val = i + 1;
		AWAIT(__ptr_ring_produce(&ring, &items[i]) == 0);
	}
	return NULL;
}

static void *
consumer(void *arg)
{
	int i;

	(void)arg;
	for (i = 0; i < N_ITEMS; i++) {
		struct item *it;

		it = __ptr_ring_consume(&ring);
		AWAIT(it != NULL);
		assert(it == &items[i]);
		assert(it->val == i + 1);
	}
	return NULL;
}

int
main(void)
{
	pthread_t p, c;

	harness_ring_init();
	pthread_create(&p, NULL, producer, NULL);
	pthread_create(&c, NULL, consumer, NULL);
	pthread_join(p, NULL);
	pthread_join(c, NULL);
	assert(__ptr_ring_empty(&ring));
	return 0;
}
