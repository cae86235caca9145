/* SPDX-License-Identifier: MIT */
/*
 * Copyright (c) 2026 The pagepool authors
 *
 * The library's per-thread state that is made on a thread's first use -
 * the page allocator's cache slots, the skb cache, XDP's redirect state
 * (on the heap, so that the library's thread-local storage stays small:
 * tests/dlopen_lib.c) - when that first use finds no memory (injected):
 *  - the page allocator works uncached, and caches once memory is back
 *    (the slots are asked for again at the next free or refill);
 *  - alloc_skb() and kfree_skb() work through the general allocator;
 *  - bpf_redirect() gives XDP_ABORTED (its verdict cannot be recorded),
 *    and XDP_REDIRECT once memory is back;
 * and the thread's exit frees it all (LSan in the ASan build).
 */
#include <pthread.h>

#include <pagepool/fault.h>
#include <pagepool/skbuff.h>
#include <pagepool/xdp.h>

#include "page_helpers.h"

static struct pp_mem_source *src;

static void
pages_round_trip(void)
{
	struct page *p = alloc_pages_src(src, NUMA_NO_NODE, GFP_KERNEL, 0);

	CHECK(p != NULL);
	put_page(p);
}

static void *
first_use_without_memory(void *arg)
{
	struct sk_buff *skb;
	struct page *p;

	(void)arg;
	/* The block handed out is an injection point of its own: let it
	 * pass, fail the next allocation, the cache's slots. */
	pp_fault_inject_alloc(1, 1);
	p = alloc_pages_src(src, NUMA_NO_NODE, GFP_KERNEL, 0);
	CHECK(p != NULL);	/* from the zone, uncached */
	CHECK_EQ(pp_fault_injected(), 1);
	CHECK_EQ(_pp_thread_cache_count(src, NUMA_NO_NODE), 0);
	/* Asked again when the block is freed, and made: it is cached. */
	pp_fault_inject_alloc(-1, 0);
	put_page(p);
	CHECK_EQ(_pp_thread_cache_count(src, NUMA_NO_NODE), 1);
	pages_round_trip();

	/* The skb cache is made on the first free. */
	skb = alloc_skb(128, GFP_KERNEL);
	CHECK(skb != NULL);
	memset(skb_put(skb, 100), 0x5a, 100);
	pp_fault_inject_alloc(0, -1);
	kfree_skb(skb);		/* the head and the struct, uncached */
	CHECK(pp_fault_injected() >= 1);
	pp_fault_inject_alloc(-1, 0);
	for (int i = 0; i < 3; i++) {
		skb = alloc_skb(128, GFP_KERNEL);
		CHECK(skb != NULL);
		kfree_skb(skb);
	}

	pp_fault_inject_alloc(0, 1);
	CHECK_EQ(bpf_redirect(1, 0), XDP_ABORTED);
	CHECK_EQ(pp_fault_injected(), 1);
	xdp_do_flush();		/* no state: nothing to do */
	pp_fault_inject_alloc(-1, 0);
	CHECK_EQ(bpf_redirect(1, 0), XDP_REDIRECT);
	xdp_do_flush();
	return NULL;		/* the exit destructors free the state */
}

int
main(void)
{
	pthread_t t;

	src = t_capped_source(PP_MEM_ANON, 1);
	/* Grow the source's region here: the thread's injector would fail
	 * that too, and this test is about the thread's own state. */
	pages_round_trip();
	pp_thread_cache_drain();

	CHECK_EQ(pthread_create(&t, NULL, first_use_without_memory, NULL), 0);
	CHECK_EQ(pthread_join(t, NULL), 0);

	t_check_whole(src);
	CHECK_EQ(pp_mem_source_destroy(src), 0);
	return T_EXIT_PASS;
}
