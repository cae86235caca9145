/* SPDX-License-Identifier: MIT */
/*
 * Copyright (c) 2026 The pagepool authors
 *
 * Two-thread SPSC stress of the lockless ring: one producer using
 * __ptr_ring_produce(), one consumer using __ptr_ring_consume() (and the
 * batched form), pinned to different CPUs, for both zeroing orders and for
 * ring sizes that exercise batch 1 and batch 16. Every value 1..N must
 * arrive exactly once and in order, and each object's payload, written
 * before it was produced, must be visible to the consumer (the release/
 * acquire pair of the ring is what guarantees it; TSan checks it).
 */
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdlib.h>

#include <pagepool/ptr_ring.h>

#include "cpu.h"
#include "helpers.h"

struct item {
	long seq;
	long check;	/* ~seq, written with seq before publication */
};

struct run {
	struct ptr_ring ring;
	struct item *items;
	long count;
	enum ptr_ring_zeroing order;
	int batch;
};

static void *
producer(void *arg)
{
	struct run *run = arg;
	long i;

	pp_tool_pin_nth_cpu(1);
	for (i = 0; i < run->count; i++) {
		struct item *it = &run->items[i];

		it->seq = i + 1;
		it->check = ~(i + 1);
		while (__ptr_ring_produce(&run->ring, it) == -ENOSPC)
			sched_yield();
	}
	return NULL;
}

static PP_ALWAYS_INLINE long
consume_all(struct run *run, enum ptr_ring_zeroing order)
{
	struct item *buf[64];
	long expect = 1, errors = 0;

	while (expect <= run->count) {
		int n, k;

		if (run->batch > 1) {
			n = __ptr_ring_consume_batched_variant(
				&run->ring, (void **)buf, run->batch, order);
		} else {
			buf[0] = __ptr_ring_consume_variant(&run->ring, order);
			n = buf[0] != NULL;
		}
		if (n == 0) {
			sched_yield();
			continue;
		}
		for (k = 0; k < n; k++, expect++) {
			if (buf[k]->seq != expect || buf[k]->check != ~expect)
				errors++;
		}
	}
	return errors;
}

static void
run_one(int size, enum ptr_ring_zeroing order, int batch, long count)
{
	struct run run = { .count = count, .order = order, .batch = batch };
	pthread_t prod;
	long errors;

	run.items = calloc((size_t)count, sizeof(*run.items));
	CHECK(run.items != NULL);
	CHECK_EQ(ptr_ring_init(&run.ring, size, GFP_KERNEL), 0);
	CHECK_EQ(pthread_create(&prod, NULL, producer, &run), 0);
	pp_tool_pin_nth_cpu(0);
	if (order == PTR_RING_ZERO_HEAD_FIRST)
		errors = consume_all(&run, PTR_RING_ZERO_HEAD_FIRST);
	else
		errors = consume_all(&run, PTR_RING_ZERO_MAINLINE);
	CHECK_EQ(pthread_join(prod, NULL), 0);
	CHECK_EQ(errors, 0);
	CHECK(__ptr_ring_empty(&run.ring));
	ptr_ring_cleanup(&run.ring, NULL);
	free(run.items);
}

int
main(void)
{
	static const int sizes[] = { 1, 2, 33, 1000 };
	long count = t_scale(2000000);
	unsigned int s;
	int order;

	for (order = 0; order < 2; order++) {
		for (s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
			long n = sizes[s] < 8 ? count / 8 : count;

			run_one(sizes[s], (enum ptr_ring_zeroing)order, 1, n);
			run_one(sizes[s], (enum ptr_ring_zeroing)order, 16, n);
		}
	}
	return T_EXIT_PASS;
}
