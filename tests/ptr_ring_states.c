/* SPDX-License-Identifier: MIT */
/*
 * Copyright (c) 2026 The pagepool authors
 *
 * Every state a consume passes through, as a lockless reader would see it.
 * The consumer's stores to the ring (tail zeroing, the consumer_head
 * update) are relaxed stores; this program redefines pp_store_relaxed()
 * before it includes <pagepool/ptr_ring.h> so that each such store, in the
 * real inline code, is followed by a look at the whole ring, as if another
 * thread had taken a snapshot there. Two properties, in both zeroing
 * orders, for ring sizes 1 to 8 and every zeroing batch up to the size:
 *
 *  - the published consumer_head is always a valid slot (0 .. size - 1):
 *    the consumer wraps the head before it publishes it, or a concurrent
 *    __ptr_ring_empty() or __ptr_ring_peek() reads one slot past the
 *    array;
 *  - head-first (seed 002) never shows a false "empty": the head is
 *    published before the batch is zeroed, so the slot it names is never
 *    one just cleared. Mainline, which zeroes first, does show it (the
 *    window seed 002 describes, found here as a check that the observer
 *    sees the states in between).
 *
 * The spin model (tests/model/ptr_ring.pml) proves the same for a model of
 * the algorithm; this checks that the code does what the model says, so a
 * reordering of the real statements is caught (tests/mutation reverts
 * both orders and this test catches each).
 */
#include <stdint.h>

#include <pagepool/atomic_pvt.h>

static void observe(void);

#undef pp_store_relaxed
#define pp_store_relaxed(p, v)                                               \
	do {                                                                 \
		__atomic_store_n((p), (v), __ATOMIC_RELAXED);                \
		observe();                                                   \
	} while (0)

#include <pagepool/ptr_ring.h>

#include "helpers.h"

#define P(v) ((void *)(uintptr_t)(v))

static struct ptr_ring *watched;	/* NULL: not inside a consume */
static long remaining;			/* entries not taken, the one being
					 * taken excluded */
static long false_empty;		/* snapshots that said "empty" */
static long snapshots;

static void
observe(void)
{
	struct ptr_ring *r = watched;
	int head;

	if (r == NULL)
		return;
	snapshots++;
	head = r->consumer_head;
	if (head < 0 || head >= r->size) {
		fprintf(stderr, "consumer_head %d published on a ring of %d "
			"slots (batch %d)\n", head, r->size, r->batch);
		exit(T_EXIT_FAIL);
	}
	if (r->queue[head] == NULL && remaining > 0)
		false_empty++;
}

/* One run: fill and drain the ring in uneven steps, so that consumes meet
 * the batch boundary and the wrap at every offset. Returns the false
 * "empty" snapshots. */
static long
run(int size, int batch, enum ptr_ring_zeroing order, int batched)
{
	struct ptr_ring r;
	long produced = 0, taken = 0, total = 6L * size + 5;
	int step;

	CHECK_EQ(ptr_ring_init(&r, size, GFP_KERNEL), 0);
	r.batch = batch;
	false_empty = 0;
	for (step = 0; taken < total; step++) {
		int burst = step % 3 + 1, i;

		for (i = 0; i < burst && produced < total; i++) {
			if (__ptr_ring_produce(&r, P(produced + 1)) != 0)
				break;
			produced++;
		}
		for (i = 0; i < (step % 2 + 1) && taken < produced; i++) {
			void *got, *arr[1];

			remaining = produced - taken - 1;
			watched = &r;
			if (batched) {
				CHECK_EQ(__ptr_ring_consume_batched_variant(
						 &r, arr, 1, order), 1);
				got = arr[0];
			} else {
				got = __ptr_ring_consume_variant(&r, order);
			}
			watched = NULL;
			CHECK(got == P(taken + 1));
			taken++;
		}
	}
	CHECK(__ptr_ring_empty(&r));
	ptr_ring_cleanup(&r, NULL);
	return false_empty;
}

int
main(void)
{
	long mainline_seen = 0;
	int size, batch, batched;

	for (size = 1; size <= 8; size++) {
		for (batch = 1; batch <= size; batch++) {
			for (batched = 0; batched <= 1; batched++) {
				long fe;

				fe = run(size, batch, PTR_RING_ZERO_HEAD_FIRST,
					 batched);
				if (fe != 0) {
					fprintf(stderr,
						"head-first: %ld false \"empty\" "
						"snapshots, size %d batch %d\n",
						fe, size, batch);
					return T_EXIT_FAIL;
				}
				mainline_seen += run(size, batch,
						     PTR_RING_ZERO_MAINLINE,
						     batched);
			}
		}
	}
	/* Mainline's window exists from size 2 on: if the observer never
	 * saw it, it is not seeing the states between the stores. */
	CHECK(mainline_seen > 0);
	fprintf(stderr, "%ld snapshots; mainline's false \"empty\" seen %ld "
		"times, head-first's never\n", snapshots, mainline_seen);
	return T_EXIT_PASS;
}
