/* SPDX-License-Identifier: MIT */
/*
 * Copyright (c) 2026 The pagepool authors
 *
 * GenMC: the batched paths, __ptr_ring_produce_batched() against
 * __ptr_ring_consume_batched(), six items through four slots in bursts of
 * up to three on the producer side and two on the consumer side, so a
 * burst meets a full ring and the consumer's batch meets both an empty
 * ring and the wrap. Checks: payloads visible, order kept, nothing lost or
 * duplicated, empty at the end.
 */
#include "harness.h"

#define N_ITEMS 6

static struct item items[N_ITEMS];

static void *
producer(void *arg)
{
	void *burst[N_ITEMS];
	int i, done = 0;

	(void)arg;
	for (i = 0; i < N_ITEMS; i++) {
		items[i].val = 100 + i;
		burst[i] = &items[i];
	}
	while (done < N_ITEMS) {
		int n = N_ITEMS - done < 3 ? N_ITEMS - done : 3;
		int got = __ptr_ring_produce_batched(&ring, &burst[done], n);

		AWAIT(got > 0);
		done += got;
	}
	return NULL;
}

static void *
consumer(void *arg)
{
	void *batch[2];
	int done = 0;

	(void)arg;
	while (done < N_ITEMS) {
		int got = __ptr_ring_consume_batched(&ring, batch, 2), i;

		AWAIT(got > 0);
		for (i = 0; i < got; i++) {
			struct item *it = batch[i];

			assert(it == &items[done + i]);
			assert(it->val == 100 + done + i);
		}
		done += got;
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
