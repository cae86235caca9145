/* SPDX-License-Identifier: MIT */
/*
 * Copyright (c) 2026 The pagepool authors
 *
 * page_frag_cache_bind(): a fragment of a bound cache's current block
 * freed on the cache's thread (page_frag_free(), or kfree_skb() of an skb
 * holding it as a page fragment) goes back to the cache's bias and leaves
 * the block's count alone; everything else drops the count as before. The
 * argument checks and the binding table's limit; the rewind after local
 * frees; a block that is no longer the cache's current one; frees on
 * another thread; the per-thread cache, bound from the start; a second
 * free still refused in PP_DEBUG builds; nothing leaked.
 */
#include <errno.h>
#include <pthread.h>
#include <string.h>

#include <pagepool/page_frag_cache.h>
#include <pagepool/page_pool.h>	/* PP_DEBUG */
#include <pagepool/skbuff.h>

#include "page_helpers.h"

#define MAX_SIZE ((unsigned int)PAGE_FRAG_CACHE_MAX_SIZE)

static int
count_of(const struct page_frag_cache *nc)
{
	return page_ref_count(nc->page);
}

static void
test_args(void)
{
	struct page_frag_cache nc[PAGE_FRAG_CACHE_BIND_MAX + 1];
	int i;

	memset(nc, 0, sizeof(nc));
	CHECK_EQ(page_frag_cache_bind(NULL), -EINVAL);
	CHECK_EQ(page_frag_cache_unbind(NULL), -EINVAL);
	CHECK_EQ(page_frag_cache_unbind(&nc[0]), -EINVAL);
	for (i = 0; i < PAGE_FRAG_CACHE_BIND_MAX; i++)
		CHECK_EQ(page_frag_cache_bind(&nc[i]), 0);
	/* Twice is one binding: no slot taken, one unbind ends it. */
	CHECK_EQ(page_frag_cache_bind(&nc[0]), 0);
	CHECK_EQ(page_frag_cache_bind(&nc[PAGE_FRAG_CACHE_BIND_MAX]),
		 -ENOSPC);
	CHECK_EQ(page_frag_cache_unbind(&nc[1]), 0);
	CHECK_EQ(page_frag_cache_unbind(&nc[1]), -EINVAL);
	CHECK_EQ(page_frag_cache_bind(&nc[PAGE_FRAG_CACHE_BIND_MAX]), 0);
	for (i = 0; i <= PAGE_FRAG_CACHE_BIND_MAX; i++)
		if (i != 1)
			CHECK_EQ(page_frag_cache_unbind(&nc[i]), 0);
	/* All unbound: a free of an empty cache's page (NULL) is not
	 * taken for one of theirs. */
	page_frag_free(NULL);
}

/* page_frag_free() on the owner: bias up, count untouched. */
static void
test_local_free(void)
{
	struct page_frag_cache nc = { 0 };
	char *a, *b, *c;
	int count;

	a = page_frag_alloc(&nc, 100, GFP_KERNEL);
	CHECK(a != NULL);
	CHECK_EQ(page_frag_cache_bind(&nc), 0);
	b = page_frag_alloc(&nc, 200, GFP_KERNEL);
	c = page_frag_alloc(&nc, 300, GFP_KERNEL);
	CHECK(b != NULL && c != NULL);
	count = count_of(&nc);
	CHECK_EQ(count, MAX_SIZE + 1);
	CHECK_EQ(nc.pagecnt_bias, MAX_SIZE + 1 - 3);
	page_frag_free(b + 199);	/* any address inside */
	CHECK_EQ(count_of(&nc), count);
	CHECK_EQ(nc.pagecnt_bias, MAX_SIZE + 1 - 2);
	/* Unbound: the atomic drop again. */
	CHECK_EQ(page_frag_cache_unbind(&nc), 0);
	page_frag_free(c);
	CHECK_EQ(count_of(&nc), count - 1);
	CHECK_EQ(nc.pagecnt_bias, MAX_SIZE + 1 - 2);
	CHECK_EQ(page_frag_cache_bind(&nc), 0);
	page_frag_free(a);
	CHECK_EQ(count_of(&nc), count - 1);
	CHECK_EQ(nc.pagecnt_bias, MAX_SIZE + 1 - 1);
	/* Every fragment back: the count is the bias, and the next request
	 * past the stride rewinds to the block's start. */
	CHECK_EQ(count_of(&nc), (int)nc.pagecnt_bias);
	a = page_frag_alloc(&nc, __PAGE_FRAG_CACHE_STRIDE, GFP_KERNEL);
	CHECK(a != NULL);
	CHECK_EQ(nc.offset, __PAGE_FRAG_CACHE_STRIDE);
	page_frag_free(a);
	CHECK_EQ(page_frag_cache_unbind(&nc), 0);
	page_frag_cache_drain(&nc);
}

/* A fragment of a block the cache has left is dropped from the count:
 * the reference is not the current block's to take. */
static void
test_old_block(void)
{
	struct page_frag_cache nc = { 0 };
	struct page *old;
	char *a, *b;

	CHECK_EQ(page_frag_cache_bind(&nc), 0);
	a = page_frag_alloc(&nc, 100, GFP_KERNEL);
	CHECK(a != NULL);
	old = nc.page;
	/* Fill the block while @a is out: the next one is a new block. */
	b = page_frag_alloc(&nc, MAX_SIZE - 100, GFP_KERNEL);
	CHECK(b != NULL);
	page_frag_free(b);
	b = page_frag_alloc(&nc, 64, GFP_KERNEL);
	CHECK(b != NULL);
	CHECK(nc.page != old);
	/* @a's block: the cache gave back its bias, @a holds the last
	 * reference, and freeing it frees the block. */
	CHECK_EQ(page_ref_count(old), 1);
	page_frag_free(a);
	CHECK_EQ(page_ref_count(old), 0);
	page_frag_free(b);
	CHECK_EQ(page_frag_cache_unbind(&nc), 0);
	page_frag_cache_drain(&nc);
}

/* kfree_skb() of an skb whose page fragment is a bound cache's. */
static void
test_skb_frag(void)
{
	struct page_frag_cache nc = { 0 };
	struct sk_buff *skb;
	struct page_frag pf;
	int count;
	char *va;

	CHECK_EQ(page_frag_cache_bind(&nc), 0);
	va = page_frag_alloc_refill_prepare(&nc, 500, &pf, GFP_KERNEL);
	CHECK(va != NULL);
	memset(va, 0x5a, 500);
	CHECK(page_frag_commit(&nc, &pf, 500) > 0);
	count = count_of(&nc);
	skb = alloc_skb(128, GFP_KERNEL);
	CHECK(skb != NULL);
	CHECK_EQ(skb_add_rx_frag(skb, 0, pf.page, (int)pf.offset, 500, 500),
		 0);
	kfree_skb(skb);
	CHECK_EQ(count_of(&nc), count);
	CHECK_EQ(nc.pagecnt_bias, MAX_SIZE + 1);
	CHECK_EQ(page_frag_cache_unbind(&nc), 0);
	page_frag_cache_drain(&nc);
}

/* The cache's fragment freed on a thread it is not bound to. */
static void *
free_elsewhere(void *va)
{
	page_frag_free(va);
	return NULL;
}

static void
test_other_thread(void)
{
	struct page_frag_cache nc = { 0 };
	pthread_t t;
	char *a;
	int count;

	CHECK_EQ(page_frag_cache_bind(&nc), 0);
	a = page_frag_alloc(&nc, 100, GFP_KERNEL);
	CHECK(a != NULL);
	count = count_of(&nc);
	CHECK_EQ(pthread_create(&t, NULL, free_elsewhere, a), 0);
	CHECK_EQ(pthread_join(t, NULL), 0);
	CHECK_EQ(count_of(&nc), count - 1);
	CHECK_EQ(nc.pagecnt_bias, MAX_SIZE);
	CHECK_EQ(page_frag_cache_unbind(&nc), 0);
	page_frag_cache_drain(&nc);
}

/* netdev_alloc_frag(): the thread's own cache is bound from the start. */
static void *
thread_cache(void *arg)
{
	struct page_frag_cache *nc;
	char *a;
	int count;

	(void)arg;
	a = netdev_alloc_frag(256);
	CHECK(a != NULL);
	nc = pp_frag_cache_thread();
	count = count_of(nc);
	page_frag_free(a);
	CHECK_EQ(count_of(nc), count);
	CHECK_EQ(nc->pagecnt_bias, MAX_SIZE + 1);
	/* Bound already: a second binding is the same one. */
	CHECK_EQ(page_frag_cache_bind(nc), 0);
	CHECK_EQ(page_frag_cache_unbind(nc), 0);
	CHECK_EQ(page_frag_cache_unbind(nc), -EINVAL);
	CHECK_EQ(page_frag_cache_bind(nc), 0);
	pp_thread_cache_drain();
	return NULL;	/* the thread's exit drains its cache */
}

/* A second free of a fragment is still refused in debug builds: the
 * local path must not skip the record. */
static void
test_debug_double_free(void)
{
	struct page_frag_cache nc = { 0 };
	uint64_t before = page_frag_debug_errors();
	char *a, *b;

	CHECK_EQ(page_frag_cache_bind(&nc), 0);
	a = page_frag_alloc(&nc, 100, GFP_KERNEL);
	b = page_frag_alloc(&nc, 100, GFP_KERNEL);
	CHECK(a != NULL && b != NULL);
	page_frag_free(a);
	CHECK_EQ(nc.pagecnt_bias, MAX_SIZE);
	t_capture_start();
	page_frag_free(a);
	t_capture_expect("double free of a fragment");
	CHECK_EQ(page_frag_debug_errors(), before + 1);
	CHECK_EQ(nc.pagecnt_bias, MAX_SIZE);
	page_frag_free(b);
	CHECK_EQ(page_frag_cache_unbind(&nc), 0);
	page_frag_cache_drain(&nc);
}

int
main(void)
{
	struct pp_mem_source *src = pp_mem_source_default();
	unsigned long base;
	pthread_t t;

	CHECK(src != NULL);
	pp_thread_cache_drain();
	base = t_in_use(src);
	test_args();
	test_local_free();
	test_old_block();
	test_skb_frag();
	test_other_thread();
	CHECK_EQ(pthread_create(&t, NULL, thread_cache, NULL), 0);
	CHECK_EQ(pthread_join(t, NULL), 0);
	if (PP_DEBUG)
		test_debug_double_free();
	pp_thread_cache_drain();
	CHECK_EQ(t_in_use(src), base);
	return T_EXIT_PASS;
}
