/* SPDX-License-Identifier: MIT */
/*
 * Copyright (c) 2026 The pagepool authors
 *
 * Multi-producer stress: N producers with the locked ptr_ring_produce()
 * (page_pool's return path, pfifo_fast's enqueue) and
 *  - one lockless consumer (__ptr_ring_consume: the page_pool alloc side),
 *  - or two locked consumers (ptr_ring_consume), while
 *  - a resizer thread grows and shrinks the ring under both locks,
 *    destroying what does not fit.
 * Every item must be consumed or destroyed exactly once, and each
 * producer's items must reach any single consumer in that producer's order.
 * More threads than CPUs on purpose (the overcommitted case).
 */
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <pagepool/ptr_ring.h>

#include "cpu.h"
#include "helpers.h"

#define NPROD 3
#define MAXCONS 2

struct item {
	int producer;
	long seq;
	int taken;	/* consumed or destroyed: must go 0 -> 1 once */
};

struct run {
	struct ptr_ring ring;
	struct item *items[NPROD];
	long per_producer;
	int nconsumers;
	bool lockless_consumer;
	bool resize;
	int producers_done;
	int consumers_done;
	long taken;
	long order_errors;
};

static void
take(struct run *run, struct item *it)
{
	/* Relaxed RMW: the ring's own acquire already ordered the item's
	 * fields; this only detects a second taker. */
	if (pp_fetch_add_relaxed(&it->taken, 1) != 0)
		pp_fetch_add_relaxed(&run->order_errors, 1);
	pp_fetch_add_relaxed(&run->taken, 1);
}

static struct run *destroy_run;

static void
destroy(void *ptr)
{
	take(destroy_run, ptr);
}

struct producer_arg {
	struct run *run;
	int id;
};

static void *
producer(void *arg)
{
	struct producer_arg *pa = arg;
	struct run *run = pa->run;
	long i;

	pp_tool_pin_nth_cpu(pa->id + 1);
	for (i = 0; i < run->per_producer; i++) {
		struct item *it = &run->items[pa->id][i];

		it->producer = pa->id;
		it->seq = i;
		while (ptr_ring_produce(&run->ring, it) == -ENOSPC)
			sched_yield();
	}
	pp_fetch_add_relaxed(&run->producers_done, 1);
	return NULL;
}

static void *
consumer(void *arg)
{
	struct run *run = arg;
	long last[NPROD];
	long total = run->per_producer * NPROD;
	int p;

	pp_tool_pin_nth_cpu(0);
	for (p = 0; p < NPROD; p++)
		last[p] = -1;
	while (pp_load_relaxed(&run->taken) < total) {
		struct item *it = run->lockless_consumer
					  ? __ptr_ring_consume(&run->ring)
					  : ptr_ring_consume(&run->ring);

		if (it == NULL) {
			sched_yield();
			continue;
		}
		/* Destroyed items leave gaps, so only "increasing" holds. */
		if (it->seq <= last[it->producer])
			pp_fetch_add_relaxed(&run->order_errors, 1);
		last[it->producer] = it->seq;
		take(run, it);
	}
	pp_fetch_add_relaxed(&run->consumers_done, 1);
	return NULL;
}

static void *
resizer(void *arg)
{
	struct run *run = arg;
	static const int sizes[] = { 7, 64, 2, 300, 31 };
	unsigned int i = 0;

	while (pp_load_relaxed(&run->consumers_done) < run->nconsumers) {
		CHECK_EQ(ptr_ring_resize(&run->ring,
					 sizes[i++ % (sizeof(sizes) /
						      sizeof(sizes[0]))],
					 GFP_KERNEL, destroy),
			 0);
		sched_yield();
	}
	return NULL;
}

static void
run_one(int nconsumers, bool lockless, bool resize, long per_producer)
{
	struct run run;
	struct producer_arg pa[NPROD];
	pthread_t prod[NPROD], cons[MAXCONS], rs;
	long i;
	int p, c;

	memset(&run, 0, sizeof(run));
	run.per_producer = per_producer;
	run.nconsumers = nconsumers;
	run.lockless_consumer = lockless;
	run.resize = resize;
	destroy_run = &run;
	CHECK_EQ(ptr_ring_init(&run.ring, 64, GFP_KERNEL), 0);
	for (p = 0; p < NPROD; p++) {
		run.items[p] = calloc((size_t)per_producer, sizeof(struct item));
		CHECK(run.items[p] != NULL);
	}
	for (c = 0; c < nconsumers; c++)
		CHECK_EQ(pthread_create(&cons[c], NULL, consumer, &run), 0);
	for (p = 0; p < NPROD; p++) {
		pa[p].run = &run;
		pa[p].id = p;
		CHECK_EQ(pthread_create(&prod[p], NULL, producer, &pa[p]), 0);
	}
	if (resize)
		CHECK_EQ(pthread_create(&rs, NULL, resizer, &run), 0);
	for (p = 0; p < NPROD; p++)
		CHECK_EQ(pthread_join(prod[p], NULL), 0);
	for (c = 0; c < nconsumers; c++)
		CHECK_EQ(pthread_join(cons[c], NULL), 0);
	if (resize)
		CHECK_EQ(pthread_join(rs, NULL), 0);

	CHECK_EQ(run.order_errors, 0);
	CHECK_EQ(run.taken, per_producer * NPROD);
	for (p = 0; p < NPROD; p++) {
		for (i = 0; i < per_producer; i++)
			CHECK_EQ(run.items[p][i].taken, 1);
		free(run.items[p]);
	}
	CHECK(ptr_ring_empty(&run.ring));
	ptr_ring_cleanup(&run.ring, NULL);
}

int
main(void)
{
	long n = t_scale(300000);

	run_one(1, true, false, n);	/* page_pool's shape */
	run_one(2, false, false, n);	/* MPMC with locks */
	run_one(2, false, true, n / 4);	/* ... while resizing */
	return T_EXIT_PASS;
}
