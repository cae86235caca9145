/* SPDX-License-Identifier: MIT */
/*
 * Copyright (c) 2026 The pagepool authors
 *
 * GenMC: two producers on the locked ptr_ring_produce() (the ring's own
 * spinlock, pagepool/spinlock_pvt.h) and one consumer on the lockless
 * __ptr_ring_consume(), four items through four slots. Checks: the
 * producer lock orders the producers' plain accesses to r->producer (a
 * lock too weak shows as a race on it), every payload is visible to the
 * consumer, each producer's items arrive in its order, none is lost or
 * duplicated.
 */
#include "harness.h"

#define PER_PRODUCER 2

static struct item items[2][PER_PRODUCER];

static void *
producer(void *arg)
{
	int id = (int)(long)arg, i;

	for (i = 0; i < PER_PRODUCER; i++) {
		items[id][i].val = 10 * (id + 1) + i;
		AWAIT(ptr_ring_produce(&ring, &items[id][i]) == 0);
	}
	return NULL;
}

static void *
consumer(void *arg)
{
	int next[2] = { 0, 0 }, i;

	(void)arg;
	for (i = 0; i < 2 * PER_PRODUCER; i++) {
		struct item *it = __ptr_ring_consume(&ring);
		int id;

		AWAIT(it != NULL);
		id = it >= &items[1][0] ? 1 : 0;
		assert(it == &items[id][next[id]]);
		assert(it->val == 10 * (id + 1) + next[id]);
		next[id]++;
	}
	assert(next[0] == PER_PRODUCER && next[1] == PER_PRODUCER);
	return NULL;
}

int
main(void)
{
	pthread_t p0, p1, c;

	harness_ring_init();
	pthread_create(&p0, NULL, producer, (void *)0L);
	pthread_create(&p1, NULL, producer, (void *)1L);
	pthread_create(&c, NULL, consumer, NULL);
	pthread_join(p0, NULL);
	pthread_join(p1, NULL);
	pthread_join(c, NULL);
	assert(__ptr_ring_empty(&ring));
	return 0;
}
