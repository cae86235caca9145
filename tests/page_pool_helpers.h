/* SPDX-License-Identifier: MIT */
/*
 * Copyright (c) 2026 The pagepool authors
 *
 * Shared by the page_pool tests: a counter snapshot, and knowing when a
 * destroyed pool has really been freed (its memory-model disconnect
 * callback runs right before the free, possibly on the release thread).
 */
#ifndef PAGEPOOL_TESTS_PAGE_POOL_HELPERS_H
#define PAGEPOOL_TESTS_PAGE_POOL_HELPERS_H

#include <string.h>
#include <unistd.h>

#include <pagepool/page_pool.h>

#include "helpers.h"

static inline struct page_pool_stats
pp_test_stats(struct page_pool *pool)
{
	struct page_pool_stats s;

	memset(&s, 0, sizeof(s));
	CHECK(page_pool_get_stats(pool, &s));
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
