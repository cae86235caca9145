/* SPDX-License-Identifier: MIT */
/*
 * Copyright (c) 2026 The pagepool authors
 *
 * page_pool statistics readers: page_pool_get_stats() and the ethtool-style
 * helpers, with the kernel's 11 names in the kernel's order.
 *
 * Where each counter lives decides how it is written without atomics on
 * the fast path: allocation counters and the owner's recycle counters
 * (cached, cache_full) have one writer, the owner; ring and ring_full are
 * written under the ring's producer lock; released_refcnt comes from any
 * thread without a lock and is an atomic add. Readers load each one
 * atomically, so a reader on another thread races with nothing.
 */
#include <string.h>

#include "page_pool_priv.h"

#define ETH_GSTRING_LEN 32

static const char pp_stats_names[][ETH_GSTRING_LEN] = {
	"rx_pp_alloc_fast",
	"rx_pp_alloc_slow",
	"rx_pp_alloc_slow_ho",
	"rx_pp_alloc_empty",
	"rx_pp_alloc_refill",
	"rx_pp_alloc_waive",
	"rx_pp_recycle_cached",
	"rx_pp_recycle_cache_full",
	"rx_pp_recycle_ring",
	"rx_pp_recycle_ring_full",
	"rx_pp_recycle_released_ref",
};

#define PP_NR_STATS ((int)(sizeof(pp_stats_names) / sizeof(pp_stats_names[0])))

_Static_assert(sizeof(struct page_pool_stats) ==
		       PP_NR_STATS * sizeof(uint64_t),
	       "one name per counter");

#define ADD(dst, src) ((dst) += pp_load_relaxed(&(src)))

bool
page_pool_get_stats(const struct page_pool *pool, struct page_pool_stats *stats)
{
	struct page_pool_alloc_stats *a;
	struct page_pool_recycle_stats *r;

	if (pool == NULL || stats == NULL || !PAGE_POOL_STATS)
		return false;
	a = &stats->alloc_stats;
	r = &stats->recycle_stats;
	ADD(a->fast, pool->alloc_stats.fast);
	ADD(a->slow, pool->alloc_stats.slow);
	ADD(a->slow_high_order, pool->alloc_stats.slow_high_order);
	ADD(a->empty, pool->alloc_stats.empty);
	ADD(a->refill, pool->alloc_stats.refill);
	ADD(a->waive, pool->alloc_stats.waive);
	ADD(r->cached, pool->owner_recycle_stats.cached);
	ADD(r->cache_full, pool->owner_recycle_stats.cache_full);
	ADD(r->ring, pool->ring_recycle_stats.ring);
	ADD(r->ring_full, pool->ring_recycle_stats.ring_full);
	ADD(r->released_refcnt, pool->released_refcnt);
	return true;
}

int
page_pool_ethtool_stats_get_count(void)
{
	return PP_NR_STATS;
}

uint8_t *
page_pool_ethtool_stats_get_strings(uint8_t *data)
{
	if (data == NULL)
		return NULL;
	memcpy(data, pp_stats_names, sizeof(pp_stats_names));
	return data + sizeof(pp_stats_names);
}

uint64_t *
page_pool_ethtool_stats_get(uint64_t *data, const void *stats)
{
	const struct page_pool_stats *s = stats;

	if (data == NULL || s == NULL)
		return data;
	*data++ = s->alloc_stats.fast;
	*data++ = s->alloc_stats.slow;
	*data++ = s->alloc_stats.slow_high_order;
	*data++ = s->alloc_stats.empty;
	*data++ = s->alloc_stats.refill;
	*data++ = s->alloc_stats.waive;
	*data++ = s->recycle_stats.cached;
	*data++ = s->recycle_stats.cache_full;
	*data++ = s->recycle_stats.ring;
	*data++ = s->recycle_stats.ring_full;
	*data++ = s->recycle_stats.released_refcnt;
	return data;
}
