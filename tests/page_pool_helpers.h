/* SPDX-License-Identifier: MIT */
/*
 * Copyright (c) 2026 The pagepool authors
 *
 * Shared by the page_pool tests: the pools the bulk tests set up (owned
 * by the calling thread, or by no thread), snapshots of a pool's and of a
 * DMA device's counters, and knowing when a destroyed pool has really
 * been freed (its memory-model disconnect callback runs right before the
 * free, possibly on the release thread).
 */
#ifndef PAGEPOOL_TESTS_PAGE_POOL_HELPERS_H
#define PAGEPOOL_TESTS_PAGE_POOL_HELPERS_H

#include <string.h>
#include <unistd.h>

#include <pagepool/opts.h>
#include <pagepool/page_pool.h>

#include "helpers.h"

/* A pool of 2^@order-page blocks owned by the calling thread through
 * @napi, its NAPI context, with a ring of @pool_size (0: the default). */
static inline struct page_pool *
pp_test_owned_pool(struct napi_struct *napi, unsigned int pool_size,
		   unsigned int order)
{
	struct page_pool_params pp;
	struct page_pool *pool;

	napi_init_current(napi);
	memset(&pp, 0, sizeof(pp));
	pp.nid = NUMA_NO_NODE;
	pp.napi = napi;
	pp.pool_size = pool_size;
	pp.order = order;
	pool = page_pool_create(&pp);
	CHECK(pool != NULL);
	return pool;
}

/* A pool with no owner: every caller puts to it as a non-owner. */
static inline struct page_pool *
pp_test_ownerless_pool(void)
{
	struct page_pool_params pp;
	struct page_pool *pool;

	memset(&pp, 0, sizeof(pp));
	pp.nid = NUMA_NO_NODE;
	pool = page_pool_create(&pp);
	CHECK(pool != NULL);
	return pool;
}

/* Destroy a pool of pp_test_owned_pool() from its owner, as a driver
 * does: direct recycling off first. */
static inline void
pp_test_destroy_owned(struct page_pool *pool)
{
	page_pool_disable_direct_recycling(pool);
	page_pool_destroy(pool);
}

static inline struct page_pool_stats
pp_test_stats(struct page_pool *pool)
{
	struct page_pool_stats s;

	memset(&s, 0, sizeof(s));
	CHECK(page_pool_get_stats(pool, &s));
	return s;
}

/* A snapshot of @dev's counters (pp_dma_dev_get_stats()). */
static inline struct pp_dma_stats
pp_test_dev_stats(struct device *dev)
{
	PP_OPTS(pp_dma_stats, s);

	CHECK_EQ(pp_dma_dev_get_stats(dev, &s), 0);
	return s;
}

/* Set by pp_test_on_free(); read with acquire, the release thread writes. */
static int pp_test_freed;

static inline void
pp_test_on_free(void *pool)
{
	(void)pool;
	__atomic_store_n(&pp_test_freed, 1, __ATOMIC_RELEASE);
}

/* Give @pool the test's disconnect callback; pp_test_freed turns 1 when
 * the pool is freed. Takes no lasting reference. */
static inline void
pp_test_watch_free(struct page_pool *pool)
{
	page_pool_use_xdp_mem(pool, pp_test_on_free, NULL);
	page_pool_destroy(pool);	/* drop the memory model's reference */
	__atomic_store_n(&pp_test_freed, 0, __ATOMIC_RELEASE);
}

static inline int
pp_test_is_freed(void)
{
	return __atomic_load_n(&pp_test_freed, __ATOMIC_ACQUIRE);
}

static inline void
pp_test_wait_freed(int max_ms)
{
	int waited;

	for (waited = 0; !pp_test_is_freed(); waited++) {
		CHECK(waited < max_ms);
		usleep(1000);
	}
}

#endif /* PAGEPOOL_TESTS_PAGE_POOL_HELPERS_H */
