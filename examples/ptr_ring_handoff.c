/* SPDX-License-Identifier: MIT */
/*
 * Copyright (c) 2026 The pagepool authors
 *
 * Example: hand buffers from a worker thread to the main thread through a
 * ptr_ring, the shape of a packet path's completion queue. One producer and
 * one consumer, so both sides use the lockless __ forms.
 *
 *   cc ptr_ring_handoff.c $(pkg-config --cflags --libs pagepool)
 */
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>

#include <pagepool/ptr_ring.h>

#define NBUF 100000

struct buf {
	int id;
	char data[60];
};

static struct ptr_ring ring;

static void *
worker(void *arg)
{
	int i;

	(void)arg;
	for (i = 0; i < NBUF; i++) {
		struct buf *b = malloc(sizeof(*b));

		if (b == NULL)
			abort();
		b->id = i;
		/* Full: the main thread has not caught up; wait. */
		while (__ptr_ring_produce(&ring, b) == -ENOSPC)
			sched_yield();
	}
	return NULL;
}

int
main(void)
{
	pthread_t th;
	long sum = 0;
	int got = 0, err;

	err = ptr_ring_init(&ring, 256, GFP_KERNEL);
	if (err != 0) {
		fprintf(stderr, "ptr_ring_init: %d\n", err);
		return 1;
	}
	if (pthread_create(&th, NULL, worker, NULL) != 0)
		return 1;
	while (got < NBUF) {
		struct buf *b = __ptr_ring_consume(&ring);

		if (b == NULL) {
			sched_yield();
			continue;
		}
		sum += b->id;
		free(b);
		got++;
	}
	pthread_join(th, NULL);
	ptr_ring_cleanup(&ring, free);
	printf("received %d buffers, id sum %ld (expected %ld)\n", got, sum,
	       (long)NBUF * (NBUF - 1) / 2);
	return sum == (long)NBUF * (NBUF - 1) / 2 ? 0 : 1;
}
