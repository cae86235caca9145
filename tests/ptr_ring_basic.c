/* SPDX-License-Identifier: MIT */
/*
 * Copyright (c) 2026 The pagepool authors
 *
 * ptr_ring single-threaded API: init edges, produce/consume order, full and
 * empty transitions in every variant, NULL rejection, peek and the
 * PEEK_CALL family, size 0, 1 and 2, and wrap-around.
 */
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include <pagepool/ptr_ring.h>

#include "helpers.h"

#define P(v) ((void *)(uintptr_t)(v))

static void
test_init_errors(void)
{
	struct ptr_ring r;

	memset(&r, 0xa5, sizeof(r));
	CHECK_EQ(ptr_ring_init(NULL, 4, GFP_KERNEL), -EINVAL);
	CHECK_EQ(ptr_ring_init(&r, -1, GFP_KERNEL), -EINVAL);
	CHECK_EQ(ptr_ring_init(&r, PTR_RING_SIZE_MAX + 1, GFP_KERNEL),
		 -ENOMEM);
	/* Untouched on error. */
	CHECK_EQ(r.size, (int)0xa5a5a5a5);
}

static void
test_size_zero(void)
{
	struct ptr_ring r;

	CHECK_EQ(ptr_ring_init(&r, 0, GFP_KERNEL), 0);
	CHECK(__ptr_ring_full(&r));
	CHECK(ptr_ring_full(&r));
	CHECK(__ptr_ring_empty(&r));
	CHECK(ptr_ring_empty(&r));
	CHECK_EQ(__ptr_ring_produce(&r, P(1)), -ENOSPC);
	CHECK_EQ(ptr_ring_produce(&r, P(1)), -ENOSPC);
	CHECK(__ptr_ring_peek(&r) == NULL);
	CHECK(__ptr_ring_consume(&r) == NULL);
	CHECK(ptr_ring_consume(&r) == NULL);
	ptr_ring_cleanup(&r, NULL);
}

static void
test_size_one(void)
{
	struct ptr_ring r;
	int i;

	CHECK_EQ(ptr_ring_init(&r, 1, GFP_KERNEL), 0);
	CHECK_EQ(r.batch, 1);
	for (i = 1; i <= 5; i++) {
		CHECK(__ptr_ring_empty(&r));
		CHECK(!__ptr_ring_full(&r));
		CHECK_EQ(__ptr_ring_produce(&r, P(i)), 0);
		CHECK(__ptr_ring_full(&r));
		CHECK(!__ptr_ring_empty(&r));
		CHECK_EQ(__ptr_ring_produce(&r, P(100)), -ENOSPC);
		CHECK(__ptr_ring_peek(&r) == P(i));
		CHECK(__ptr_ring_consume(&r) == P(i));
		CHECK(__ptr_ring_consume(&r) == NULL);
	}
	ptr_ring_cleanup(&r, NULL);
}

static void
test_size_two(void)
{
	struct ptr_ring r;
	int i;

	CHECK_EQ(ptr_ring_init(&r, 2, GFP_KERNEL), 0);
	CHECK_EQ(r.batch, 1);
	for (i = 0; i < 7; i++) {
		CHECK_EQ(ptr_ring_produce(&r, P(2 * i + 1)), 0);
		CHECK_EQ(ptr_ring_produce(&r, P(2 * i + 2)), 0);
		CHECK(ptr_ring_full(&r));
		CHECK_EQ(ptr_ring_produce(&r, P(99)), -ENOSPC);
		CHECK(ptr_ring_consume(&r) == P(2 * i + 1));
		/* batch 1: the slot is free again at once. */
		CHECK(!ptr_ring_full(&r));
		CHECK(ptr_ring_consume(&r) == P(2 * i + 2));
		CHECK(ptr_ring_empty(&r));
	}
	ptr_ring_cleanup(&r, NULL);
}

static void
test_null_rejected(void)
{
	struct ptr_ring r;

	CHECK_EQ(ptr_ring_init(&r, 8, GFP_KERNEL), 0);
	CHECK_EQ(__ptr_ring_produce(&r, NULL), -EINVAL);
	CHECK_EQ(ptr_ring_produce(&r, NULL), -EINVAL);
	CHECK_EQ(ptr_ring_produce_bh(&r, NULL), -EINVAL);
	CHECK(__ptr_ring_empty(&r));
	CHECK_EQ(r.producer, 0);
	ptr_ring_cleanup(&r, NULL);
}

static void
test_order_and_wrap(void)
{
	struct ptr_ring r;
	int size = 100, i, next_in = 1, next_out = 1;

	CHECK_EQ(ptr_ring_init(&r, size, GFP_KERNEL), 0);
	CHECK_EQ(r.batch, 16);
	/* Keep a varying fill level across many wraps. */
	for (i = 0; i < 5000; i++) {
		int burst = (i * 7) % 37 + 1, k;

		for (k = 0; k < burst; k++) {
			if (__ptr_ring_produce(&r, P(next_in)) != 0)
				break;
			next_in++;
		}
		for (k = 0; k < (i * 5) % 41 + 1; k++) {
			void *p = __ptr_ring_consume(&r);

			if (p == NULL)
				break;
			CHECK(p == P(next_out));
			next_out++;
		}
	}
	while (next_out < next_in)
		CHECK(__ptr_ring_consume(&r) == P(next_out++));
	CHECK(__ptr_ring_empty(&r));
	ptr_ring_cleanup(&r, NULL);
}

static int peek_calls;

static int
peek_len(void *ptr)
{
	peek_calls++;
	return ptr == NULL ? -1 : (int)(uintptr_t)ptr;
}

static void
test_peek_call(void)
{
	struct ptr_ring r;

	CHECK_EQ(ptr_ring_init(&r, 4, GFP_KERNEL), 0);
	CHECK_EQ(__PTR_RING_PEEK_CALL(&r, peek_len), -1);
	CHECK_EQ(ptr_ring_produce(&r, P(42)), 0);
	CHECK_EQ(__PTR_RING_PEEK_CALL(&r, peek_len), 42);
	CHECK_EQ(PTR_RING_PEEK_CALL(&r, peek_len), 42);
	CHECK_EQ(PTR_RING_PEEK_CALL_IRQ(&r, peek_len), 42);
	CHECK_EQ(PTR_RING_PEEK_CALL_BH(&r, peek_len), 42);
	CHECK_EQ(PTR_RING_PEEK_CALL_ANY(&r, peek_len), 42);
	CHECK_EQ(peek_calls, 6);
	/* Peeking consumes nothing. */
	CHECK(ptr_ring_consume(&r) == P(42));
	CHECK(ptr_ring_consume(&r) == NULL);
	ptr_ring_cleanup(&r, NULL);
}

static void
test_lock_flavours(void)
{
	struct ptr_ring r;

	CHECK_EQ(ptr_ring_init(&r, 4, GFP_ATOMIC | __GFP_NOWARN), 0);
	CHECK(ptr_ring_empty_irq(&r) && ptr_ring_empty_any(&r) &&
	      ptr_ring_empty_bh(&r));
	CHECK_EQ(ptr_ring_produce_irq(&r, P(1)), 0);
	CHECK_EQ(ptr_ring_produce_any(&r, P(2)), 0);
	CHECK_EQ(ptr_ring_produce_bh(&r, P(3)), 0);
	CHECK_EQ(ptr_ring_produce(&r, P(4)), 0);
	CHECK(ptr_ring_full_irq(&r) && ptr_ring_full_any(&r) &&
	      ptr_ring_full_bh(&r));
	CHECK(ptr_ring_consume_irq(&r) == P(1));
	CHECK(ptr_ring_consume_any(&r) == P(2));
	CHECK(ptr_ring_consume_bh(&r) == P(3));
	CHECK(!ptr_ring_empty(&r));
	CHECK(ptr_ring_consume(&r) == P(4));
	CHECK(ptr_ring_empty(&r));
	ptr_ring_cleanup(&r, NULL);
}

int
main(void)
{
	test_init_errors();
	test_size_zero();
	test_size_one();
	test_size_two();
	test_null_rejected();
	test_order_and_wrap();
	test_peek_call();
	test_lock_flavours();
	return T_EXIT_PASS;
}
