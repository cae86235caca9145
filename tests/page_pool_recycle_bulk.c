/* SPDX-License-Identifier: MIT */
/*
 * Copyright (c) 2026 The pagepool authors
 *
 * page_pool_recycle_direct_bulk(), the owner's trusted bulk recycle: the
 * pages come back into the alloc cache in order, counted in cached, and
 * the next bulk allocation hands the same pages out again (through the
 * header's inline path and through the exported function); bad
 * arguments (NULL pages, a NULL pool, n = 0); and every batch-level test
 * that fails falls back to the checked page_pool_put_page_bulk() with
 * nothing lost: a cache without room for the batch (or a batch larger
 * than the cache), a call from a thread that is not the owner, an
 * ownerless pool, and a pool that syncs for the device (each page
 * synced, as a single put syncs it). Debug builds' detection of pages
 * that break the contract is tests/page_pool_recycle_bulk_debug.c.
 */
#include <errno.h>
#include <pthread.h>
#include <string.h>

#include <pagepool/opts.h>
#include <pagepool/page_pool.h>

#include "page_pool_helpers.h"

#define BATCH 32

/* Calls the header's inline path, or (@outline) the exported function. */
static void
recycle(struct page_pool *pool, struct page **pages, unsigned int n,
	bool outline)
{
	if (outline)
		(page_pool_recycle_direct_bulk)(pool, pages, n);
	else
		page_pool_recycle_direct_bulk(pool, pages, n);
}

/* The owner's fast path: one copy into the cache, in order. */
static void
test_owner(bool outline)
{
	struct napi_struct napi;
	struct page_pool *pool = pp_test_owned_pool(&napi, 256, 0);
	struct page *pages[BATCH], *copy[BATCH];
	struct page_pool_stats st;
	unsigned int i, c0;
	int inflight;

	CHECK_EQ(page_pool_alloc_pages_bulk(pool, GFP_ATOMIC, pages, BATCH),
		 BATCH);
	memcpy(copy, pages, sizeof(pages));
	c0 = pool->alloc.count;
	st = pp_test_stats(pool);
	inflight = page_pool_inflight(pool);
	errno = 0;
	recycle(pool, pages, BATCH, outline);
	CHECK_EQ(errno, 0);
	CHECK_EQ(pool->alloc.count, c0 + BATCH);
	for (i = 0; i < BATCH; i++)
		CHECK(pool->alloc.cache[c0 + i] == copy[i]);
	CHECK_EQ(pp_test_stats(pool).recycle_stats.cached,
		 st.recycle_stats.cached + BATCH);
	CHECK_EQ(pp_test_stats(pool).recycle_stats.ring,
		 st.recycle_stats.ring);
	CHECK_EQ(page_pool_inflight(pool), inflight);
	/* The same pages come out again, each as the pool hands one out. */
	CHECK_EQ(page_pool_alloc_pages_bulk(pool, GFP_ATOMIC, pages, BATCH),
		 BATCH);
	for (i = 0; i < BATCH; i++) {
		CHECK(pages[i] == copy[i]);
		CHECK(pages[i]->pp == pool);
		CHECK_EQ(page_ref_count(pages[i]), 1);
		CHECK_EQ(pages[i]->pp_ref_count, 1);
	}
	CHECK_EQ(pp_test_stats(pool).alloc_stats.slow, st.alloc_stats.slow);
	recycle(pool, pages, BATCH, outline);
	CHECK_EQ(pool->alloc.count, c0 + BATCH);
	/* Pages handed out one by one are as good. */
	for (i = 0; i < 8; i++) {
		pages[i] = page_pool_alloc_pages(pool, GFP_ATOMIC);
		CHECK(pages[i] != NULL);
	}
	recycle(pool, pages, 8, outline);
	CHECK_EQ(pool->alloc.count, c0 + BATCH);
	CHECK_EQ(page_pool_inflight(pool), inflight);
	pp_test_destroy_owned(pool);
}

/* Bad arguments and n = 0. */
static void
test_args(bool outline)
{
	struct napi_struct napi;
	struct page_pool *pool = pp_test_owned_pool(&napi, 256, 0);
	struct page *pages[BATCH];
	struct page_pool_stats st;
	unsigned int c0;
	int inflight;

	CHECK_EQ(page_pool_alloc_pages_bulk(pool, GFP_ATOMIC, pages, BATCH),
		 BATCH);
	c0 = pool->alloc.count;
	st = pp_test_stats(pool);
	inflight = page_pool_inflight(pool);

	errno = 0;
	recycle(pool, pages, 0, outline);
	CHECK_EQ(errno, 0);
	recycle(pool, NULL, 0, outline);
	CHECK_EQ(errno, 0);
	CHECK_EQ(pool->alloc.count, c0);

	recycle(pool, NULL, 5, outline);
	CHECK_EQ(errno, EINVAL);
	errno = 0;
	recycle(NULL, NULL, 0, outline);
	CHECK_EQ(errno, EINVAL);
	CHECK_EQ(pool->alloc.count, c0);
	CHECK_EQ(pp_test_stats(pool).recycle_stats.cached,
		 st.recycle_stats.cached);

	/* A NULL pool: the pages still go home, checked (this thread is
	 * their pool's owner, so into its cache). */
	errno = 0;
	recycle(NULL, pages, BATCH, outline);
	CHECK_EQ(errno, EINVAL);
	CHECK_EQ(pool->alloc.count, c0 + BATCH);
	CHECK_EQ(pp_test_stats(pool).recycle_stats.cached,
		 st.recycle_stats.cached + BATCH);
	CHECK_EQ(page_pool_inflight(pool), inflight);
	/* Debug builds report the NULL pool, counted without a pool. */
	CHECK_EQ(page_pool_debug_errors(pool), 0);
	pp_test_destroy_owned(pool);
}

/*
 * No room in the cache for the batch: the checked path fills the cache and
 * sends the rest to the ring (cache_full per page, as single puts count
 * it); a batch larger than the cache does the same. All come back.
 */
static void
test_full_cache(bool outline)
{
	struct napi_struct napi;
	struct page_pool *pool = pp_test_owned_pool(&napi, 256, 0);
	struct page *many[200], **pages = many;
	struct page_pool_stats st;
	unsigned int i, room;
	int inflight;

	/* The batch, and pages recycled one by one until the cache has
	 * room for 10. */
	CHECK_EQ(page_pool_alloc_pages_bulk(pool, GFP_ATOMIC, many, 200), 200);
	for (i = BATCH; pool->alloc.count < PP_ALLOC_CACHE_SIZE - 10; i++) {
		CHECK(i < 200);
		page_pool_recycle_direct(pool, many[i]);
	}
	st = pp_test_stats(pool);
	inflight = page_pool_inflight(pool);
	recycle(pool, pages, BATCH, outline);
	CHECK_EQ(pool->alloc.count, PP_ALLOC_CACHE_SIZE);
	CHECK_EQ(pp_test_stats(pool).recycle_stats.cached,
		 st.recycle_stats.cached + 10);
	CHECK_EQ(pp_test_stats(pool).recycle_stats.cache_full,
		 st.recycle_stats.cache_full + BATCH - 10);
	CHECK_EQ(pp_test_stats(pool).recycle_stats.ring,
		 st.recycle_stats.ring + BATCH - 10);
	CHECK_EQ(page_pool_inflight(pool), inflight);
	page_pool_put_page_bulk(many + i, 200 - i);

	/* Larger than the whole cache. */
	CHECK_EQ(page_pool_alloc_pages_bulk(pool, GFP_ATOMIC, pages, 200),
		 200);
	room = PP_ALLOC_CACHE_SIZE - pool->alloc.count;
	st = pp_test_stats(pool);
	inflight = page_pool_inflight(pool);
	recycle(pool, pages, 200, outline);
	CHECK_EQ(pool->alloc.count, PP_ALLOC_CACHE_SIZE);
	CHECK_EQ(pp_test_stats(pool).recycle_stats.cached,
		 st.recycle_stats.cached + room);
	CHECK_EQ(pp_test_stats(pool).recycle_stats.ring,
		 st.recycle_stats.ring + 200 - room);
	CHECK_EQ(page_pool_inflight(pool), inflight);
	pp_test_destroy_owned(pool);
}

struct remote {
	struct page_pool *pool;
	struct page **pages;
	unsigned int n;
	bool outline;
};

static void *
remote_recycle(void *arg)
{
	struct remote *r = arg;

	recycle(r->pool, r->pages, r->n, r->outline);
	pp_stash_flush();
	return NULL;
}

/* Another thread: the owner test fails, the pages reach the ring (through
 * the thread's return stash) and none touches the owner's cache. */
static void
test_non_owner(bool outline)
{
	struct napi_struct napi;
	struct page_pool *pool = pp_test_owned_pool(&napi, 256, 0);
	struct page *pages[64];
	struct remote r = { pool, pages, 64, outline };
	struct page_pool_stats st;
	uint32_t count;
	int inflight;
	pthread_t t;

	CHECK_EQ(page_pool_alloc_pages_bulk(pool, GFP_ATOMIC, pages, 64), 64);
	count = pool->alloc.count;
	st = pp_test_stats(pool);
	inflight = page_pool_inflight(pool);
	CHECK_EQ(pthread_create(&t, NULL, remote_recycle, &r), 0);
	CHECK_EQ(pthread_join(t, NULL), 0);
	CHECK_EQ(pool->alloc.count, count);
	CHECK_EQ(pp_test_stats(pool).recycle_stats.cached,
		 st.recycle_stats.cached);
	CHECK_EQ(pp_test_stats(pool).recycle_stats.ring,
		 st.recycle_stats.ring + 64);
	CHECK_EQ(page_pool_inflight(pool), inflight);
	pp_test_destroy_owned(pool);
}

/* A pool with no owner: every caller is a non-owner; to the ring. */
static void
test_ownerless(bool outline)
{
	struct page_pool *pool;
	struct page *pages[BATCH];
	struct page_pool_stats st;
	uint32_t count;

	pool = pp_test_ownerless_pool();
	CHECK_EQ(page_pool_alloc_pages_bulk(pool, GFP_ATOMIC, pages, BATCH),
		 BATCH);
	count = pool->alloc.count;
	st = pp_test_stats(pool);
	recycle(pool, pages, BATCH, outline);
	CHECK_EQ(pool->alloc.count, count);
	CHECK_EQ(pp_test_stats(pool).recycle_stats.ring,
		 st.recycle_stats.ring + BATCH);
	page_pool_destroy(pool);
}

/* A pool that syncs for the device: the checked path syncs each page
 * (max_len, as page_pool_put_full_page()) and caches it. */
static void
test_dma_sync(bool outline)
{
	struct device *dev = pp_dma_identity_create(NULL);
	struct napi_struct napi;
	struct page_pool_params pp = {
		.flags = PP_FLAG_DMA_MAP | PP_FLAG_DMA_SYNC_DEV,
		.dma_dir = DMA_FROM_DEVICE,
		.max_len = 1500,
		.nid = NUMA_NO_NODE,
		.napi = &napi,
	};
	struct page_pool *pool;
	struct page *pages[BATCH];
	struct page_pool_stats st;
	struct pp_dma_stats ds;
	unsigned int c0;

	CHECK(dev != NULL);
	pp.dev = dev;
	napi_init_current(&napi);
	pool = page_pool_create(&pp);
	CHECK(pool != NULL);
	CHECK(pool->dma_sync);
	CHECK_EQ(page_pool_alloc_pages_bulk(pool, GFP_ATOMIC, pages, BATCH),
		 BATCH);
	c0 = pool->alloc.count;
	st = pp_test_stats(pool);
	ds = pp_test_dev_stats(dev);
	recycle(pool, pages, BATCH, outline);
	CHECK_EQ(pool->alloc.count, c0 + BATCH);
	CHECK_EQ(pp_test_stats(pool).recycle_stats.cached,
		 st.recycle_stats.cached + BATCH);
	CHECK_EQ(pp_test_dev_stats(dev).syncs_for_device,
		 ds.syncs_for_device + BATCH);
	CHECK_EQ(pp_test_dev_stats(dev).bytes_synced_for_device,
		 ds.bytes_synced_for_device + BATCH * 1500);
	pp_test_destroy_owned(pool);
	CHECK_EQ(pp_test_dev_stats(dev).live_mappings, 0);
	pp_dma_dev_destroy(dev);
}

int
main(void)
{
	int outline;

	for (outline = 0; outline < 2; outline++) {
		test_owner(outline);
		test_args(outline);
		test_full_cache(outline);
		test_non_owner(outline);
		test_ownerless(outline);
		test_dma_sync(outline);
	}
	return T_EXIT_PASS;
}
