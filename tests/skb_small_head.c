/* SPDX-License-Identifier: MIT */
/*
 * Copyright (c) 2026 The pagepool authors
 *
 * alloc_skb()'s small heads: a head of up to 384 bytes of data comes from
 * the thread's stack of equal buffers, as the kernel's comes from
 * skb_small_head_cache, and the skb gets all of it; a larger one from the
 * general allocator, sized to the request. Freed heads go back to the
 * freeing thread's stack (last in, first out), and past its 64 to the
 * allocator; pskb_expand_head() moves between the two kinds; a thread's
 * stack is freed when it exits (the general allocator's bytes in use come
 * back to where they were).
 */
#include <malloc.h>
#include <pthread.h>
#include <stdint.h>
#include <string.h>

#include <pagepool/skbuff.h>

#include "helpers.h"

#define SMALL_ROOM 384u		/* SKB_WITH_OVERHEAD of a small head */

static void *
free_here(void *arg)
{
	struct sk_buff **skbs = arg;

	for (int i = 0; i < 8; i++)
		kfree_skb(skbs[i]);
	return NULL;		/* the stack goes with the thread */
}

/* A thread that takes 16 small heads and frees them: they stay on its
 * stack until it exits. */
static void *
churn(void *arg)
{
	struct sk_buff *skbs[16];

	(void)arg;
	for (int i = 0; i < 16; i++)
		skbs[i] = alloc_skb(100, GFP_KERNEL);
	for (int i = 0; i < 16; i++)
		kfree_skb(skbs[i]);
	return NULL;
}

int
main(void)
{
	struct sk_buff *a, *b, *c, *big, *many[100], *other[8];
	unsigned int old_end, old_truesize;
	unsigned char *head_a, *head_b;
	pthread_t th;

	/* The whole small head, whatever was asked, on a cache line. */
	a = alloc_skb(128, GFP_KERNEL);
	b = alloc_skb(0, GFP_KERNEL);
	CHECK(a != NULL && b != NULL);
	CHECK_EQ(skb_tailroom(a), SMALL_ROOM);
	CHECK_EQ(skb_tailroom(b), SMALL_ROOM);
	CHECK_EQ((uintptr_t)a->head % SMP_CACHE_BYTES, 0);
	head_a = a->head;
	head_b = b->head;
	kfree_skb(a);
	kfree_skb(b);

	/* Last in, first out, from this thread's stack. */
	c = alloc_skb(SMALL_ROOM, GFP_KERNEL);
	CHECK(c != NULL && c->head == head_b);
	CHECK_EQ(skb_tailroom(c), SMALL_ROOM);

	/* One byte more: the general allocator, the room asked for. */
	big = alloc_skb(SMALL_ROOM + 1, GFP_KERNEL);
	CHECK(big != NULL && big->head != head_a);
	CHECK_EQ(skb_tailroom(big), SKB_DATA_ALIGN(SMALL_ROOM + 1));
	kfree_skb(big);
	a = alloc_skb(1, GFP_KERNEL);
	CHECK(a != NULL && a->head == head_a);

	/* Growing a small head moves the data to a general one and gives
	 * the small head back; shrinking cannot happen. */
	memset(skb_put(a, 100), 0x5a, 100);
	old_end = a->end;
	old_truesize = a->truesize;
	CHECK_EQ(pskb_expand_head(a, 64, 512, GFP_KERNEL), 0);
	CHECK(a->head != head_a);
	/* The skb owns no socket: its truesize grows with its head, as
	 * the kernel's does for such skbs. */
	CHECK_EQ(a->truesize, old_truesize + (a->end - old_end));
	CHECK(skb_headroom(a) == 64 && a->len == 100 &&
	      a->data[0] == 0x5a && a->data[99] == 0x5a);
	b = alloc_skb(10, GFP_KERNEL);
	CHECK(b != NULL && b->head == head_a);
	kfree_skb(a);
	kfree_skb(b);
	kfree_skb(c);

	/* More than the stack holds: the rest to the allocator, none lost. */
	for (int i = 0; i < 100; i++) {
		many[i] = alloc_skb(64, GFP_KERNEL);
		CHECK(many[i] != NULL);
	}
	for (int i = 0; i < 100; i++)
		kfree_skb(many[i]);

	/* Freed on another thread: its stack, freed at its exit. */
	for (int i = 0; i < 8; i++) {
		other[i] = alloc_skb(200, GFP_KERNEL);
		CHECK(other[i] != NULL);
	}
	CHECK_EQ(pthread_create(&th, NULL, free_here, other), 0);
	CHECK_EQ(pthread_join(th, NULL), 0);

	/* A thread's stack of heads goes back when it exits: after a first
	 * thread has set up what a thread costs, another one leaves the
	 * bytes in use where they were, not 16 heads (11 KiB) higher. */
	if (!T_SANITIZED) {	/* their allocators keep no glibc counts */
		size_t before;

		CHECK_EQ(pthread_create(&th, NULL, churn, NULL), 0);
		CHECK_EQ(pthread_join(th, NULL), 0);
		before = mallinfo2().uordblks;
		CHECK_EQ(pthread_create(&th, NULL, churn, NULL), 0);
		CHECK_EQ(pthread_join(th, NULL), 0);
		CHECK(mallinfo2().uordblks < before + 4096);
	}

	pp_skb_cache_thread_drain();
	return T_EXIT_PASS;
}
