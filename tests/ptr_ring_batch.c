/* SPDX-License-Identifier: MIT */
/*
 * Copyright (c) 2026 The pagepool authors
 *
 * ptr_ring batching: the batch clamp rule, the state of the slots during
 * and after tail zeroing in both orders (including the false "empty" of
 * the mainline order, observed from inside), consume_batched and
 * produce_batched, and the one-pass batched consume against single
 * consumes of the same entries.
 */
#include <errno.h>
#include <stdint.h>

#include <pagepool/ptr_ring.h>

#include "helpers.h"

#define P(v) ((void *)(uintptr_t)(v))

static void
test_batch_clamp(void)
{
	static const struct {
		int size, batch;
	} cases[] = {
		{ 0, 1 },  { 1, 1 },   { 2, 1 },   { 16, 1 },  { 31, 1 },
		{ 32, 16 }, { 33, 16 }, { 100, 16 }, { 1024, 16 },
	};
	unsigned int i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct ptr_ring r;

		CHECK_EQ(ptr_ring_init(&r, cases[i].size, GFP_KERNEL), 0);
		CHECK_EQ(r.batch, cases[i].batch);
		ptr_ring_cleanup(&r, NULL);
	}
}

/*
 * Consumed slots stay occupied until a whole batch has been consumed: the
 * producer sees "full" while up to batch - 1 entries are already taken.
 */
static void
test_lazy_zeroing(enum ptr_ring_zeroing order)
{
	struct ptr_ring r;
	int i;

	CHECK_EQ(ptr_ring_init(&r, 32, GFP_KERNEL), 0);
	CHECK_EQ(r.batch, 16);
	for (i = 1; i <= 32; i++)
		CHECK_EQ(__ptr_ring_produce(&r, P(i)), 0);
	CHECK(__ptr_ring_full(&r));
	for (i = 1; i <= 15; i++) {
		CHECK(__ptr_ring_consume_variant(&r, order) == P(i));
		CHECK(__ptr_ring_full(&r));
		CHECK_EQ(r.consumer_tail, 0);
	}
	/* The 16th consume zeroes slots 0..15 at once. */
	CHECK(__ptr_ring_consume_variant(&r, order) == P(16));
	CHECK_EQ(r.consumer_tail, 16);
	CHECK_EQ(r.consumer_head, 16);
	for (i = 0; i < 16; i++)
		CHECK(r.queue[i] == NULL);
	CHECK(!__ptr_ring_full(&r));
	/* Wrap: consuming slot 31 zeroes 16..31 and resets head and tail. */
	for (i = 17; i <= 32; i++)
		CHECK(__ptr_ring_consume_variant(&r, order) == P(i));
	CHECK_EQ(r.consumer_head, 0);
	CHECK_EQ(r.consumer_tail, 0);
	for (i = 0; i < 32; i++)
		CHECK(r.queue[i] == NULL);
	CHECK(__ptr_ring_empty(&r));
	ptr_ring_cleanup(&r, NULL);
}

/*
 * The seed-002 window, reproduced deterministically: stop the mainline
 * consume between its zeroing and its head store (by doing those two steps
 * by hand, as __ptr_ring_discard_one_variant() does) and ask
 * __ptr_ring_empty(). Mainline answers "empty" with 16 entries in the ring;
 * head-first, whose head is already past the zeroed slots, does not.
 */
static void
test_false_empty_window(void)
{
	struct ptr_ring r;
	int i, next;

	CHECK_EQ(ptr_ring_init(&r, 64, GFP_KERNEL), 0);
	for (i = 1; i <= 32; i++)
		CHECK_EQ(__ptr_ring_produce(&r, P(i)), 0);
	for (i = 1; i <= 15; i++)
		CHECK(__ptr_ring_consume(&r) == P(i));

	/* Mainline step 1: zero [tail, head + 1), head not yet stored. */
	CHECK(__ptr_ring_peek(&r) == P(16));
	next = r.consumer_head + 1;
	__ptr_ring_zero_tail(&r, next);
	CHECK(__ptr_ring_empty(&r));		/* the false "empty" */
	CHECK(r.queue[next] == P(17));		/* ... with entries queued */
	/* Mainline step 2: publish the head; the answer is right again. */
	r.consumer_head = next;
	CHECK(!__ptr_ring_empty(&r));
	ptr_ring_cleanup(&r, NULL);

	/* Head-first: the head is stored before the zeroing starts. */
	CHECK_EQ(ptr_ring_init(&r, 64, GFP_KERNEL), 0);
	for (i = 1; i <= 32; i++)
		CHECK_EQ(__ptr_ring_produce(&r, P(i)), 0);
	for (i = 1; i <= 15; i++)
		CHECK(__ptr_ring_consume_variant(&r, PTR_RING_ZERO_HEAD_FIRST) ==
		      P(i));
	CHECK(__ptr_ring_peek(&r) == P(16));
	next = r.consumer_head + 1;
	r.consumer_head = next;			/* step 1: head */
	CHECK(!__ptr_ring_empty(&r));		/* nothing zeroed yet */
	__ptr_ring_zero_tail(&r, next);		/* step 2: zero */
	CHECK(!__ptr_ring_empty(&r));
	ptr_ring_cleanup(&r, NULL);
}

static void
test_consume_batched(enum ptr_ring_zeroing order)
{
	struct ptr_ring r;
	void *out[40];
	int i, n, expect = 1;

	CHECK_EQ(ptr_ring_init(&r, 50, GFP_KERNEL), 0);
	CHECK_EQ(__ptr_ring_consume_batched_variant(&r, out, 40, order), 0);
	for (i = 1; i <= 45; i++)
		CHECK_EQ(__ptr_ring_produce(&r, P(i)), 0);
	n = __ptr_ring_consume_batched_variant(&r, out, 40, order);
	CHECK_EQ(n, 40);
	for (i = 0; i < n; i++)
		CHECK(out[i] == P(expect++));
	n = ptr_ring_consume_batched(&r, out, 40);
	CHECK_EQ(n, 5);
	for (i = 0; i < n; i++)
		CHECK(out[i] == P(expect++));
	CHECK_EQ(ptr_ring_consume_batched_bh(&r, out, 40), 0);
	CHECK_EQ(ptr_ring_consume_batched_irq(&r, out, 0), 0);
	CHECK_EQ(ptr_ring_consume_batched_any(&r, out, 40), 0);
	ptr_ring_cleanup(&r, NULL);
}

static void
test_produce_batched(void)
{
	struct ptr_ring r;
	void *in[10];
	int i;

	for (i = 0; i < 10; i++)
		in[i] = P(i + 1);
	CHECK_EQ(ptr_ring_init(&r, 8, GFP_KERNEL), 0);
	CHECK_EQ(__ptr_ring_produce_batched(&r, in, 0), 0);
	CHECK_EQ(__ptr_ring_produce_batched(&r, in, 5), 5);
	/* Only three slots left. */
	CHECK_EQ(ptr_ring_produce_batched(&r, in + 5, 5), 3);
	CHECK(ptr_ring_full(&r));
	for (i = 0; i < 8; i++)
		CHECK(__ptr_ring_consume(&r) == P(i + 1));
	/* Stops at a NULL entry. */
	in[2] = NULL;
	CHECK_EQ(ptr_ring_produce_batched(&r, in, 5), 2);
	ptr_ring_cleanup(&r, NULL);
}

/* Occupied slots: entries not yet consumed plus consumed ones whose
 * slots are not yet zeroed. */
static int
occupied(const struct ptr_ring *r)
{
	int i, n = 0;

	for (i = 0; i < r->size; i++)
		n += r->queue[i] != NULL;
	return n;
}

/*
 * The batched consume reads a run and retires it once, where single
 * consumes retire entry by entry: the same entries in the same order, the
 * head where single consumes would leave it, and the retirement rule kept
 * (fewer than @batch consumed entries hold slots after every call, no
 * other slot is taken, so a produce finds every other slot free). Every
 * ring size from 1 to 10 and every batch up to the size, with bursts that
 * meet the wrap, an empty ring, n = 0 and n beyond the size.
 */
static void
test_batched_vs_single(enum ptr_ring_zeroing order)
{
	int size, batch;

	for (size = 1; size <= 10; size++) {
		for (batch = 1; batch <= size; batch++) {
			struct ptr_ring b;
			unsigned int seed = (unsigned int)(size * 31 + batch);
			long produced = 0, taken = 0, step;

			CHECK_EQ(ptr_ring_init(&b, size, GFP_KERNEL), 0);
			b.batch = batch;
			for (step = 0; step < 400; step++) {
				void *in[16], *out[16];
				int k, want, got, i, room;

				seed = seed * 1103515245u + 12345u;
				k = (int)((seed >> 16) % (unsigned int)(size + 3));
				for (i = 0; i < k; i++)
					in[i] = P(produced + 1 + i);
				room = size - occupied(&b);
				got = __ptr_ring_produce_batched(&b, in, k);
				CHECK_EQ(got, k < room ? k : room);
				produced += got;

				seed = seed * 1103515245u + 12345u;
				want = (int)((seed >> 16) % (unsigned int)(size + 4));
				got = __ptr_ring_consume_batched_variant(
					&b, out, want, order);
				CHECK_EQ(got, (int)(produced - taken < want ?
						    produced - taken : want));
				for (i = 0; i < got; i++)
					CHECK(out[i] == P(taken + 1 + i));
				taken += got;
				CHECK_EQ(b.consumer_head, (int)(taken % size));
				CHECK(b.consumer_head - b.consumer_tail >= 0 &&
				      b.consumer_head - b.consumer_tail < batch);
				CHECK_EQ(occupied(&b),
					 (int)(produced - taken) +
						 b.consumer_head -
						 b.consumer_tail);
			}
			ptr_ring_cleanup(&b, NULL);
		}
	}
}

int
main(void)
{
	test_batch_clamp();
	test_lazy_zeroing(PTR_RING_ZERO_MAINLINE);
	test_lazy_zeroing(PTR_RING_ZERO_HEAD_FIRST);
	test_false_empty_window();
	test_consume_batched(PTR_RING_ZERO_MAINLINE);
	test_consume_batched(PTR_RING_ZERO_HEAD_FIRST);
	test_produce_batched();
	test_batched_vs_single(PTR_RING_ZERO_MAINLINE);
	test_batched_vs_single(PTR_RING_ZERO_HEAD_FIRST);
	return T_EXIT_PASS;
}
