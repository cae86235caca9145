/* SPDX-License-Identifier: MIT */
/*
 * Copyright (c) 2026 The pagepool authors
 *
 * skb over page_pool pages: an skb built on the pool's owner thread and
 * freed there returns its head and fragments to the alloc cache (counted
 * "cached"); freed on another thread they go through the ring ("ring");
 * an skb not marked for recycling holds released (ordinary) pages and
 * frees them with put_page(). Nothing is lost: zero pages in flight before
 * destroy. Also the skb helpers' bad input, pskb_expand_head() and the
 * per-thread skb cache across its refill and flush sizes.
 */
#include <errno.h>
#include <pthread.h>
#include <string.h>

#include <pagepool/page_pool.h>
#include <pagepool/skbuff.h>

#include "helpers.h"
#include "page_pool_helpers.h"

#define HEADROOM 256

static struct napi_struct napi;
static struct page_pool *pool;

/* An skb over one pool page, 100 bytes of data, plus @nfrags pool pages
 * as fragments. */
static struct sk_buff *
make_skb(int nfrags, bool recycle, bool napi_ctx)
{
	struct page *page = page_pool_dev_alloc_pages(pool);
	struct sk_buff *skb;
	unsigned char *p;
	int i;

	CHECK(page != NULL);
	if (!recycle)
		page_pool_release_page(pool, page);
	skb = napi_ctx ? napi_build_skb(page_address(page), PAGE_SIZE)
		       : build_skb(page_address(page), PAGE_SIZE);
	CHECK(skb != NULL);
	skb_reserve(skb, HEADROOM);
	CHECK_EQ(skb_headroom(skb), HEADROOM);
	p = skb_put(skb, 100);
	CHECK(p == (unsigned char *)page_address(page) + HEADROOM);
	memset(p, 0xab, 100);
	if (recycle)
		skb_mark_for_recycle(skb);
	for (i = 0; i < nfrags; i++) {
		struct page *f = page_pool_dev_alloc_pages(pool);

		CHECK(f != NULL);
		if (!recycle)
			page_pool_release_page(pool, f);
		CHECK_EQ(skb_add_rx_frag(skb, i, f, 0, 1000, PAGE_SIZE), 0);
	}
	CHECK_EQ(skb->len, 100 + 1000 * nfrags);
	CHECK_EQ(skb_headlen(skb), 100);
	CHECK_EQ(skb_is_nonlinear(skb), nfrags > 0);
	return skb;
}

static void *
free_elsewhere(void *arg)
{
	struct sk_buff **skbs = arg;
	int i;

	for (i = 0; skbs[i] != NULL; i++) {
		if (i & 1)
			kfree_skb(skbs[i]);
		else
			napi_consume_skb(skbs[i], 64);
	}
	pp_skb_cache_thread_drain();
	return NULL;
}

int
main(void)
{
	struct page_pool_params pp = {
		.pool_size = 256, .nid = NUMA_NO_NODE, .napi = &napi,
	};
	struct page_pool_stats s0, s1;
	struct sk_buff *skbs[9], *skb;
	pthread_t th;
	int i, inflight0;

	napi_init_current(&napi);
	pool = page_pool_create(&pp);
	CHECK(pool != NULL);

	/* Owner thread, NAPI free: head + 2 fragments back into the cache. */
	s0 = pp_test_stats(pool);
	skb = make_skb(2, true, true);
	napi_consume_skb(skb, 64);
	s1 = pp_test_stats(pool);
	CHECK_EQ(s1.recycle_stats.cached - s0.recycle_stats.cached, 3);
	CHECK_EQ(s1.recycle_stats.ring - s0.recycle_stats.ring, 0);

	/* Owner thread, kfree_skb / consume_skb / budget 0: still direct,
	 * since the pool's owner check decides, as napi_pp_put_page() does. */
	s0 = s1;
	kfree_skb(make_skb(1, true, false));
	consume_skb(make_skb(0, true, true));
	napi_consume_skb(make_skb(0, true, true), 0);
	s1 = pp_test_stats(pool);
	CHECK_EQ(s1.recycle_stats.cached - s0.recycle_stats.cached, 4);
	CHECK_EQ(s1.recycle_stats.ring - s0.recycle_stats.ring, 0);

	/* Another thread frees: everything through the ring. */
	s0 = s1;
	for (i = 0; i < 8; i++)
		skbs[i] = make_skb(i % 3, true, i & 1);
	skbs[8] = NULL;
	CHECK_EQ(pthread_create(&th, NULL, free_elsewhere, skbs), 0);
	CHECK_EQ(pthread_join(th, NULL), 0);
	s1 = pp_test_stats(pool);
	CHECK_EQ(s1.recycle_stats.ring - s0.recycle_stats.ring,
		 8 + (0 + 1 + 2 + 0 + 1 + 2 + 0 + 1));
	CHECK_EQ(s1.recycle_stats.cached - s0.recycle_stats.cached, 0);

	/* Released pages: they leave the pool at once and are put_page()d
	 * by the free; the pool never sees them again. */
	inflight0 = page_pool_inflight(pool);
	s0 = s1;
	skb = make_skb(2, false, true);
	CHECK_EQ(page_pool_inflight(pool), inflight0 - 3);
	napi_consume_skb(skb, 64);
	s1 = pp_test_stats(pool);
	CHECK_EQ(s1.recycle_stats.cached - s0.recycle_stats.cached, 0);
	CHECK_EQ(s1.recycle_stats.ring - s0.recycle_stats.ring, 0);
	CHECK_EQ(page_pool_inflight(pool), inflight0 - 3);

	/* pskb_expand_head: the data moves, the pool head is recycled. */
	s0 = s1;
	skb = make_skb(1, true, true);
	skb_reset_mac_header(skb);
	CHECK_EQ(pskb_expand_head(skb, 64, 0, GFP_ATOMIC), 0);
	CHECK_EQ(skb_headroom(skb), HEADROOM + 64);
	CHECK_EQ(skb->data[0], 0xab);
	CHECK_EQ(skb->data[99], 0xab);
	CHECK_EQ(skb->mac_header, HEADROOM + 64);
	CHECK_EQ(skb->head_frag, 0);
	s1 = pp_test_stats(pool);
	CHECK_EQ(s1.recycle_stats.cached - s0.recycle_stats.cached, 1);
	kfree_skb(skb);
	s1 = pp_test_stats(pool);
	CHECK_EQ(s1.recycle_stats.cached - s0.recycle_stats.cached, 2);

	/* skb_get: the second free does the work. */
	skb = make_skb(0, true, true);
	skb_get(skb);
	kfree_skb(skb);
	CHECK_EQ(skb->users, 1);
	kfree_skb(skb);

	/* The skb cache across refills (16) and flushes (at 64). */
	for (i = 0; i < 200; i++) {
		struct sk_buff *many[70];
		int j, n = 1 + i % 70;

		for (j = 0; j < n; j++)
			many[j] = make_skb(0, true, true);
		for (j = 0; j < n; j++)
			napi_consume_skb(many[j], 64);
	}

	/* Bad input: a clear error, nothing changed. */
	errno = 0;
	CHECK(build_skb(NULL, PAGE_SIZE) == NULL && errno == EINVAL);
	skb = make_skb(0, true, true);
	errno = 0;
	CHECK(napi_build_skb(skb->head, 64) == NULL && errno == EINVAL);
	CHECK(skb_put(skb, PAGE_SIZE) == NULL && errno == EINVAL);
	CHECK_EQ(skb->len, 100);
	CHECK(skb_push(skb, HEADROOM + 1) == NULL);
	CHECK(skb_pull(skb, 101) == NULL);
	CHECK_EQ(skb->len, 100);
	CHECK(skb_push(skb, 14) != NULL && skb->len == 114);
	CHECK(skb_pull(skb, 14) != NULL && skb->len == 100);
	CHECK_EQ(skb_add_rx_frag(skb, MAX_SKB_FRAGS, skb->head_frag ?
				 virt_to_page(skb->head) : NULL, 0, 1, 1),
		 -EINVAL);
	CHECK_EQ(skb_add_rx_frag(skb, -1, virt_to_page(skb->head), 0, 1, 1),
		 -EINVAL);
	CHECK_EQ(skb->len, 100);
	CHECK_EQ(pskb_expand_head(skb, -1, 0, GFP_ATOMIC), -EINVAL);
	CHECK(!napi_pp_put_page(NULL));
	kfree_skb(skb);
	kfree_skb(NULL);
	consume_skb(NULL);
	napi_consume_skb(NULL, 64);
	page_pool_release_page(NULL, NULL);

	/* alloc_skb: a head of the general allocator. */
	skb = alloc_skb(NET_SKB_PAD + 1500, GFP_ATOMIC);
	CHECK(skb != NULL && skb->head_frag == 0);
	skb_reserve(skb, NET_SKB_PAD);
	CHECK(skb_put(skb, 1500) != NULL);
	kfree_skb(skb);
	errno = 0;
	CHECK(alloc_skb(1u << 20, GFP_ATOMIC) == NULL && errno == EINVAL);

	/* Nothing lost: every page is back, so the pool is freed at once. */
	page_pool_disable_direct_recycling(pool);
	pp_test_watch_free(pool);
	page_pool_destroy(pool);
	pp_test_wait_freed(5000);
	pp_skb_cache_thread_drain();
	return T_EXIT_PASS;
}
