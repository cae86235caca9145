/* SPDX-License-Identifier: MIT */
/*
 * Copyright (c) 2026 The pagepool authors
 *
 * ptr_ring resize, resize_multiple, unconsume and cleanup: order kept,
 * overflow destroyed, unconsume into a full ring, cleanup destroying each
 * remaining entry once, bad arguments, and allocation failure injected at
 * every allocation point (the ring must be left exactly as it was).
 */
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include <pagepool/fault.h>
#include <pagepool/ptr_ring.h>

#include "helpers.h"

#define P(v) ((void *)(uintptr_t)(v))
#define V(p) ((int)(uintptr_t)(p))

/* Records destroyed values; each value may be destroyed only once. */
static int destroyed[1024];
static int ndestroyed;

static void
destroy(void *ptr)
{
	int v = V(ptr);

	CHECK(v > 0 && v < 1024);
	CHECK_EQ(destroyed[v], 0);
	destroyed[v] = 1;
	ndestroyed++;
}

static void
reset_destroyed(void)
{
	memset(destroyed, 0, sizeof(destroyed));
	ndestroyed = 0;
}

/* Fill @r with first..last, after rotating its indices by @skew. */
static void
fill(struct ptr_ring *r, int skew, int first, int last)
{
	int i;

	for (i = 0; i < skew; i++) {
		CHECK_EQ(__ptr_ring_produce(r, P(1000)), 0);
		CHECK(__ptr_ring_consume(r) == P(1000));
	}
	for (i = first; i <= last; i++)
		CHECK_EQ(__ptr_ring_produce(r, P(i)), 0);
}

static void
drain_expect(struct ptr_ring *r, int first, int last)
{
	int i;

	for (i = first; i <= last; i++)
		CHECK(__ptr_ring_consume(r) == P(i));
	CHECK(__ptr_ring_consume(r) == NULL);
}

static void
test_resize_larger(void)
{
	struct ptr_ring r;

	CHECK_EQ(ptr_ring_init(&r, 40, GFP_KERNEL), 0);
	fill(&r, 32, 1, 30);	/* wraps inside the old queue */
	reset_destroyed();
	CHECK_EQ(ptr_ring_resize(&r, 100, GFP_KERNEL, destroy), 0);
	CHECK_EQ(ndestroyed, 0);
	CHECK_EQ(r.size, 100);
	CHECK_EQ(r.batch, 16);
	CHECK_EQ(r.producer, 30);
	/* There is room for 70 more. */
	fill(&r, 0, 31, 100);
	CHECK(__ptr_ring_full(&r));
	drain_expect(&r, 1, 100);
	ptr_ring_cleanup(&r, NULL);
}

static void
test_resize_smaller(void)
{
	struct ptr_ring r;
	int i;

	CHECK_EQ(ptr_ring_init(&r, 64, GFP_KERNEL), 0);
	fill(&r, 50, 1, 40);
	reset_destroyed();
	CHECK_EQ(ptr_ring_resize(&r, 10, GFP_KERNEL, destroy), 0);
	/* The oldest ten stay, the newest thirty are destroyed. */
	CHECK_EQ(ndestroyed, 30);
	for (i = 11; i <= 40; i++)
		CHECK(destroyed[i]);
	CHECK_EQ(r.size, 10);
	CHECK_EQ(r.batch, 1);
	CHECK(__ptr_ring_full(&r));
	drain_expect(&r, 1, 10);
	/* Exactly full before the resize: producer wraps to 0. */
	fill(&r, 3, 1, 10);
	CHECK_EQ(ptr_ring_resize(&r, 10, GFP_KERNEL, NULL), 0);
	CHECK_EQ(r.producer, 0);
	drain_expect(&r, 1, 10);
	/* To size 0: everything destroyed, ring valid and empty. */
	fill(&r, 0, 1, 5);
	reset_destroyed();
	CHECK_EQ(ptr_ring_resize(&r, 0, GFP_KERNEL, destroy), 0);
	CHECK_EQ(ndestroyed, 5);
	CHECK(__ptr_ring_empty(&r) && __ptr_ring_full(&r));
	ptr_ring_cleanup(&r, NULL);
}

static void
test_resize_errors(void)
{
	struct ptr_ring r;
	long n;

	CHECK_EQ(ptr_ring_resize(NULL, 4, GFP_KERNEL, NULL), -EINVAL);
	CHECK_EQ(ptr_ring_init(&r, 16, GFP_KERNEL), 0);
	fill(&r, 5, 1, 12);
	CHECK_EQ(ptr_ring_resize(&r, -3, GFP_KERNEL, NULL), -EINVAL);
	CHECK_EQ(ptr_ring_resize(&r, PTR_RING_SIZE_MAX + 1, GFP_KERNEL, NULL),
		 -ENOMEM);
	/* The single allocation of resize fails: nothing changes. */
	for (n = 0;; n++) {
		int ret;

		pp_fault_inject_alloc(n, 1);
		ret = ptr_ring_resize(&r, 24, GFP_KERNEL, NULL);
		if (pp_fault_injected() == 0) {
			CHECK_EQ(ret, 0);
			break;
		}
		CHECK_EQ(ret, -ENOMEM);
		CHECK_EQ(r.size, 16);
		CHECK_EQ(r.producer, 1);	/* (5 + 12) % 16 */
	}
	pp_fault_inject_alloc(-1, 0);
	CHECK_EQ(n, 1);
	CHECK_EQ(r.size, 24);
	drain_expect(&r, 1, 12);
	ptr_ring_cleanup(&r, NULL);
}

static void
test_init_fault(void)
{
	struct ptr_ring r;

	memset(&r, 0x5a, sizeof(r));
	pp_fault_inject_alloc(0, 1);
	CHECK_EQ(ptr_ring_init(&r, 16, GFP_KERNEL), -ENOMEM);
	CHECK_EQ(pp_fault_injected(), 1);
	CHECK_EQ(r.size, 0x5a5a5a5a);
	CHECK_EQ(ptr_ring_init(&r, 16, GFP_KERNEL), 0);
	pp_fault_inject_alloc(-1, 0);
	ptr_ring_cleanup(&r, NULL);
}

static void
test_resize_multiple(void)
{
	struct ptr_ring a, b, c;
	struct ptr_ring *rings[] = { &a, &b, &c };
	struct ptr_ring *bad[] = { &a, NULL };
	long n;

	CHECK_EQ(ptr_ring_init(&a, 8, GFP_KERNEL), 0);
	CHECK_EQ(ptr_ring_init(&b, 8, GFP_KERNEL), 0);
	CHECK_EQ(ptr_ring_init(&c, 8, GFP_KERNEL), 0);
	fill(&a, 0, 1, 8);
	fill(&b, 3, 101, 104);
	fill(&c, 7, 201, 206);

	CHECK_EQ(ptr_ring_resize_multiple(NULL, 1, 4, GFP_KERNEL, NULL),
		 -EINVAL);
	CHECK_EQ(ptr_ring_resize_multiple(bad, 2, 4, GFP_KERNEL, NULL),
		 -EINVAL);
	CHECK_EQ(ptr_ring_resize_multiple(rings, 3, -1, GFP_KERNEL, NULL),
		 -EINVAL);
	CHECK_EQ(ptr_ring_resize_multiple(rings, 0, 4, GFP_KERNEL, NULL), 0);

	/* Any of the four allocations failing leaves all three alone. */
	for (n = 0;; n++) {
		int ret;

		pp_fault_inject_alloc(n, 1);
		ret = ptr_ring_resize_multiple_bh(rings, 3, 5, GFP_KERNEL,
						  destroy);
		if (pp_fault_injected() == 0) {
			CHECK_EQ(ret, 0);
			break;
		}
		CHECK_EQ(ret, -ENOMEM);
		CHECK(a.size == 8 && b.size == 8 && c.size == 8);
	}
	pp_fault_inject_alloc(-1, 0);
	CHECK_EQ(n, 4);
	CHECK(a.size == 5 && b.size == 5 && c.size == 5);
	drain_expect(&a, 1, 5);
	drain_expect(&b, 101, 104);
	drain_expect(&c, 201, 205);
	CHECK(destroyed[6] && destroyed[7] && destroyed[8] && destroyed[206]);
	ptr_ring_cleanup(&a, NULL);
	ptr_ring_cleanup(&b, NULL);
	ptr_ring_cleanup(&c, NULL);
	reset_destroyed();
}

static void
test_unconsume(void)
{
	struct ptr_ring r;
	void *batch[8];
	int i;

	/* batch 1, so every consumed slot is free at once */
	CHECK_EQ(ptr_ring_init(&r, 30, GFP_KERNEL), 0);
	fill(&r, 25, 1, 20);
	for (i = 0; i < 6; i++)
		batch[i] = __ptr_ring_consume(&r);
	CHECK(batch[0] == P(1) && batch[5] == P(6));
	reset_destroyed();
	ptr_ring_unconsume(&r, batch, 6, destroy);
	CHECK_EQ(ndestroyed, 0);
	drain_expect(&r, 1, 20);

	/* Into a full ring: everything given back is destroyed. */
	fill(&r, 0, 1, 30);
	CHECK(__ptr_ring_full(&r));
	batch[0] = P(500);
	batch[1] = P(501);
	ptr_ring_unconsume(&r, batch, 2, destroy);
	CHECK_EQ(ndestroyed, 2);
	CHECK(destroyed[500] && destroyed[501]);
	drain_expect(&r, 1, 30);

	/* Partly full: the newest of the batch go back, the oldest are
	 * destroyed. Two slots free at the head after consuming two. */
	reset_destroyed();
	fill(&r, 0, 1, 30);
	batch[0] = __ptr_ring_consume(&r);
	batch[1] = __ptr_ring_consume(&r);
	{
		/* 600 is the oldest and cannot fit: destroyed. */
		void *order[3] = { P(600), batch[0], batch[1] };

		ptr_ring_unconsume(&r, order, 3, destroy);
	}
	CHECK_EQ(ndestroyed, 1);
	CHECK(destroyed[600]);
	drain_expect(&r, 1, 30);

	/* NULL entries are skipped, never stored. */
	reset_destroyed();
	batch[0] = P(700);
	batch[1] = NULL;
	ptr_ring_unconsume(&r, batch, 2, destroy);
	CHECK_EQ(ndestroyed, 0);
	drain_expect(&r, 700, 700);

	/* Bad arguments are ignored. */
	ptr_ring_unconsume(NULL, batch, 1, destroy);
	ptr_ring_unconsume(&r, NULL, 1, destroy);
	ptr_ring_unconsume(&r, batch, 0, destroy);
	CHECK(__ptr_ring_empty(&r));
	ptr_ring_cleanup(&r, NULL);
}

static void
test_cleanup(void)
{
	struct ptr_ring r;
	int i;

	reset_destroyed();
	CHECK_EQ(ptr_ring_init(&r, 32, GFP_KERNEL), 0);
	fill(&r, 20, 1, 25);
	for (i = 0; i < 3; i++)
		CHECK(__ptr_ring_consume(&r) == P(i + 1));
	ptr_ring_cleanup(&r, destroy);
	CHECK_EQ(ndestroyed, 22);
	for (i = 4; i <= 25; i++)
		CHECK(destroyed[i]);
	/* A cleaned-up ring is a size-0 ring: safe to use and clean again. */
	CHECK(__ptr_ring_empty(&r) && __ptr_ring_full(&r));
	CHECK_EQ(ptr_ring_produce(&r, P(1)), -ENOSPC);
	ptr_ring_cleanup(&r, destroy);
	ptr_ring_cleanup(NULL, destroy);
	CHECK_EQ(ndestroyed, 22);
}

int
main(void)
{
	test_resize_larger();
	test_resize_smaller();
	test_resize_errors();
	test_init_fault();
	test_resize_multiple();
	test_unconsume();
	test_cleanup();
	return T_EXIT_PASS;
}
