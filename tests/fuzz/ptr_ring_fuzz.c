/* SPDX-License-Identifier: MIT */
/*
 * Copyright (c) 2026 The pagepool authors
 *
 * libFuzzer harness for ptr_ring: each input is a sequence of calls on one
 * ring - produce and consume in their locked, lockless and batched forms
 * and in both tail-zeroing orders, peek, empty and full, resize (direct
 * and through resize_multiple), unconsume, cleanup and init - checked
 * after every call against a reference FIFO of the same entries. The ring
 * holds fake pointers (tokens, never dereferenced), so what is checked is
 * the ring's bookkeeping: entries come out once, in order, none is lost or
 * invented, resize keeps the oldest and hands the newest to destroy,
 * unconsume puts the newest of a batch back ahead of the rest, and "full"
 * is exactly "the next slot is taken", which tail zeroing allows to happen
 * up to batch - 1 entries early and never later.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pagepool/ptr_ring.h>

#define MAX_SIZE	96	/* largest ring the fuzzer makes */
#define MAX_BATCH	16	/* largest produce/consume/unconsume batch */

/* The reference FIFO: tokens oldest first. */
static uintptr_t ref[MAX_SIZE];
static int ref_head, ref_count;

/* Entries handed to a destroy callback, in call order. */
static uintptr_t destroyed[MAX_SIZE + MAX_BATCH];
static int ndestroyed;

/* The latest entries consumed, oldest first, for unconsume. */
static void *recent[MAX_BATCH];
static int nrecent;

static uintptr_t next_token;

static void
fail(const char *why)
{
	fprintf(stderr, "ptr_ring_fuzz: %s\n", why);
	__builtin_trap();
}

static void *
tok2ptr(uintptr_t t)
{
	return (void *)(t << 4);
}

static uintptr_t
ptr2tok(void *p)
{
	return (uintptr_t)p >> 4;
}

static void
destroy_cb(void *p)
{
	if (p == NULL)
		fail("destroy called with NULL");
	if (ndestroyed == (int)(sizeof(destroyed) / sizeof(destroyed[0])))
		fail("destroy called too often");
	destroyed[ndestroyed++] = ptr2tok(p);
}

static uintptr_t
ref_at(int i)
{
	return ref[(ref_head + i) % MAX_SIZE];
}

static void
ref_push(uintptr_t t)
{
	if (ref_count == MAX_SIZE)
		fail("reference overflow: the ring took more than its size");
	ref[(ref_head + ref_count) % MAX_SIZE] = t;
	ref_count++;
}

static uintptr_t
ref_pop(void)
{
	uintptr_t t = ref[ref_head];

	ref_head = (ref_head + 1) % MAX_SIZE;
	ref_count--;
	return t;
}

static void
ref_push_front(uintptr_t t)
{
	ref_head = (ref_head + MAX_SIZE - 1) % MAX_SIZE;
	ref[ref_head] = t;
	ref_count++;
}

/* Drop the newest @n of the reference (they were destroyed). */
static void
ref_drop_newest(int n)
{
	ref_count -= n;
}

static void
remember(void *p)
{
	if (nrecent == MAX_BATCH) {
		memmove(recent, recent + 1, sizeof(recent[0]) * (MAX_BATCH - 1));
		nrecent--;
	}
	recent[nrecent++] = p;
}

/*
 * Consumed slots not yet zeroed: [consumer_tail, consumer_head). Read from
 * the ring's ABI fields, which is what "full" depends on.
 */
static int
unzeroed(const struct ptr_ring *r)
{
	if (r->size == 0)
		return 0;
	return (r->consumer_head - r->consumer_tail + r->size) % r->size;
}

/* What the ring must look like between calls. */
static void
check_ring(struct ptr_ring *r)
{
	int lag = unzeroed(r);
	bool full;

	if (r->size < 0 || r->size > MAX_SIZE)
		fail("size out of range");
	if (ref_count > r->size)
		fail("more entries than slots");
	if (r->size > 0) {
		if (r->producer < 0 || r->producer >= r->size ||
		    r->consumer_head < 0 || r->consumer_head >= r->size ||
		    r->consumer_tail < 0 || r->consumer_tail >= r->size)
			fail("index out of range");
		if (r->batch < 1 || r->batch > r->size)
			fail("batch out of range");
		if (lag >= r->batch)
			fail("a whole batch of consumed slots is not zeroed");
		if ((r->consumer_head + ref_count) % r->size != r->producer)
			fail("producer index is not head + entries");
	}
	full = __ptr_ring_full(r);
	if (full != (ref_count + lag >= r->size))
		fail("full disagrees with entries + unzeroed slots");
	if (ptr_ring_full(r) != full)
		fail("ptr_ring_full disagrees with __ptr_ring_full");
	if (__ptr_ring_empty(r) != (ref_count == 0) ||
	    ptr_ring_empty(r) != (ref_count == 0))
		fail("empty disagrees with the reference");
	if (ref_count > 0 && __ptr_ring_peek(r) != tok2ptr(ref_at(0)))
		fail("peek is not the oldest entry");
}

static void *
peek_cb(void *p)
{
	return p;
}

static void
consume_expect(void *got)
{
	if (ref_count == 0) {
		if (got != NULL)
			fail("consume from an empty ring returned an entry");
		return;
	}
	if (got == NULL)
		fail("consume returned NULL from a non-empty ring");
	if (ptr2tok(got) != ref_pop())
		fail("consume returned an entry out of order");
	remember(got);
}

/* Destroyed entries must be exactly @want[0..n), in any order. */
static void
check_destroyed(const uintptr_t *want, int n)
{
	int i, j;

	if (ndestroyed != n)
		fail("destroy called a wrong number of times");
	for (i = 0; i < n; i++) {
		for (j = 0; j < ndestroyed; j++) {
			if (destroyed[j] == want[i])
				break;
		}
		if (j == ndestroyed)
			fail("destroy missed an entry");
	}
	ndestroyed = 0;
}

static void
do_resize(struct ptr_ring *r, int size, bool multiple)
{
	uintptr_t want[MAX_SIZE];
	int keep = ref_count < size ? ref_count : size, i, ret;

	for (i = keep; i < ref_count; i++)
		want[i - keep] = ref_at(i);
	ndestroyed = 0;
	if (multiple) {
		struct ptr_ring *rings[1] = { r };

		ret = ptr_ring_resize_multiple_bh(rings, 1, size, GFP_KERNEL,
						  destroy_cb);
	} else {
		ret = ptr_ring_resize(r, size, GFP_KERNEL, destroy_cb);
	}
	if (ret != 0)
		fail("resize failed");
	check_destroyed(want, ref_count - keep);
	ref_drop_newest(ref_count - keep);
	/* The ring restarts at slot 0 with nothing to zero. */
	if (r->size != size || r->consumer_head != 0 || r->consumer_tail != 0)
		fail("resize left the indices elsewhere");
}

static void
do_unconsume(struct ptr_ring *r, int n)
{
	uintptr_t want[MAX_BATCH];
	void *batch[MAX_BATCH];
	int room = r->size - ref_count, back, i, nonnull = 0;

	if (n > nrecent)
		n = nrecent;
	/* The latest n consumed, in consume order; a NULL among them is
	 * skipped by unconsume. */
	for (i = 0; i < n; i++)
		batch[i] = recent[nrecent - n + i];
	if (n > 1 && (n & 1))
		batch[n / 2] = NULL;
	for (i = 0; i < n; i++)
		if (batch[i] != NULL)
			nonnull++;
	back = nonnull < room ? nonnull : room;
	/* The newest entries go back, the earliest are destroyed. */
	ndestroyed = 0;
	{
		int nd = 0, seen = 0;

		for (i = 0; i < n; i++) {
			if (batch[i] == NULL)
				continue;
			if (seen++ < nonnull - back)
				want[nd++] = ptr2tok(batch[i]);
		}
		ptr_ring_unconsume(r, batch, n, destroy_cb);
		check_destroyed(want, nd);
	}
	for (i = n - 1; i >= 0 && back > 0; i--) {
		if (batch[i] == NULL)
			continue;
		ref_push_front(ptr2tok(batch[i]));
		back--;
	}
	nrecent -= n;
	if (unzeroed(r) != 0)
		fail("unconsume did not flush the zeroing batch");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct ptr_ring r;
	enum ptr_ring_zeroing order = PTR_RING_ZERO_MAINLINE;
	size_t i;

	ref_head = ref_count = ndestroyed = nrecent = 0;
	if (size > 0 && (data[0] & 0x80))
		order = PTR_RING_ZERO_HEAD_FIRST;
	if (ptr_ring_init(&r, size > 0 ? data[0] % 33 : 4, GFP_KERNEL) != 0)
		fail("init");
	check_ring(&r);
	for (i = 1; i + 1 < size; i += 2) {
		uint8_t op = data[i], arg = data[i + 1];
		void *array[MAX_BATCH];
		int n = arg % MAX_BATCH + 1, k, ret;

		switch (op % 12) {
		case 0:	/* produce, locked or lockless */
		case 1: {
			bool full = __ptr_ring_full(&r);
			void *p = tok2ptr(++next_token);

			ret = op % 12 ? __ptr_ring_produce(&r, p)
				      : ptr_ring_produce(&r, p);
			if (ret == 0) {
				if (full)
					fail("produce into a full ring");
				ref_push(next_token);
			} else if (ret != -ENOSPC || !full) {
				fail("produce failed on a ring with room");
			}
			break;
		}
		case 2:	/* produce a batch */
			for (k = 0; k < n; k++)
				array[k] = tok2ptr(next_token + 1 + (unsigned)k);
			ret = arg & 0x80
				? __ptr_ring_produce_batched(&r, array, n)
				: ptr_ring_produce_batched(&r, array, n);
			if (ret < 0 || ret > n)
				fail("produce_batched count out of range");
			for (k = 0; k < ret; k++)
				ref_push(++next_token);
			next_token += (unsigned)(n - ret);
			if (ret < n && !__ptr_ring_full(&r))
				fail("produce_batched stopped short of full");
			break;
		case 3:	/* NULL is refused and changes nothing */
			if (ptr_ring_produce(&r, NULL) != -EINVAL)
				fail("produce(NULL) not refused");
			break;
		case 4:	/* consume, in every form */
			switch (arg % 4) {
			case 0:
				consume_expect(ptr_ring_consume(&r));
				break;
			case 1:
				consume_expect(__ptr_ring_consume(&r));
				break;
			default:
				consume_expect(order == PTR_RING_ZERO_HEAD_FIRST
					? __ptr_ring_consume_variant(
						  &r, PTR_RING_ZERO_HEAD_FIRST)
					: __ptr_ring_consume_variant(
						  &r, PTR_RING_ZERO_MAINLINE));
				break;
			}
			break;
		case 5: {	/* consume a batch */
			int want = ref_count < n ? ref_count : n;

			if (arg & 0x80)
				ret = ptr_ring_consume_batched(&r, array, n);
			else if (arg & 0x40)
				/* The order is a constant in every caller. */
				ret = order == PTR_RING_ZERO_HEAD_FIRST
					? __ptr_ring_consume_batched_variant(
						  &r, array, n,
						  PTR_RING_ZERO_HEAD_FIRST)
					: __ptr_ring_consume_batched_variant(
						  &r, array, n,
						  PTR_RING_ZERO_MAINLINE);
			else
				ret = __ptr_ring_consume_batched(&r, array, n);
			if (ret != want)
				fail("consume_batched returned a wrong count");
			for (k = 0; k < ret; k++)
				consume_expect(array[k]);
			break;
		}
		case 6:	/* discard the head without returning it */
			if (ref_count == 0)
				break;
			if (__ptr_ring_peek(&r) != tok2ptr(ref_at(0)))
				fail("peek is not the oldest entry");
			__ptr_ring_discard_one(&r);
			remember(tok2ptr(ref_pop()));
			break;
		case 7:
			if (PTR_RING_PEEK_CALL(&r, peek_cb) !=
			    (ref_count ? tok2ptr(ref_at(0)) : NULL))
				fail("PTR_RING_PEEK_CALL saw another entry");
			break;
		case 8:
		case 9:
			do_resize(&r, arg % (MAX_SIZE + 1), op % 12 == 9);
			break;
		case 10:
			do_unconsume(&r, n);
			break;
		case 11: {	/* clean up, oldest first, and start again */
			uintptr_t want[MAX_SIZE];

			for (k = 0; k < ref_count; k++)
				want[k] = ref_at(k);
			ndestroyed = 0;
			ptr_ring_cleanup(&r, destroy_cb);
			if (ndestroyed != ref_count ||
			    memcmp(want, destroyed,
				   sizeof(want[0]) * (size_t)ref_count) != 0)
				fail("cleanup did not destroy every entry in order");
			ref_head = ref_count = ndestroyed = nrecent = 0;
			if (ptr_ring_init(&r, arg % 33, GFP_KERNEL) != 0)
				fail("init after cleanup");
			break;
		}
		}
		check_ring(&r);
	}
	ptr_ring_cleanup(&r, NULL);
	return 0;
}
