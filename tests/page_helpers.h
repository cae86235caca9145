/* SPDX-License-Identifier: MIT */
/*
 * Copyright (c) 2026 The pagepool authors
 *
 * Shared by the page allocator tests: capped sources whose whole state is
 * known, and checks on the zone introspection (free blocks per order) that
 * src/mm/page_alloc_priv.h exposes to white-box tests.
 */
#ifndef PAGEPOOL_TESTS_PAGE_HELPERS_H
#define PAGEPOOL_TESTS_PAGE_HELPERS_H

#include <errno.h>

#include <pagepool/page.h>

#include "../src/mm/page_alloc_priv.h"
#include "helpers.h"

/* An anonymous source that maps at most @regions regions. */
static inline struct pp_mem_source *
t_capped_source(int kind, unsigned long regions)
{
	PP_OPTS(pp_mem_source_opts, o, .kind = kind,
		.max_bytes = regions * PP_REGION_SIZE);
	struct pp_mem_source *src = pp_mem_source_create(&o);

	CHECK(src != NULL);
	return src;
}

static inline struct _pp_zone_stats
t_stats(struct pp_mem_source *src)
{
	struct _pp_zone_stats st;

	CHECK_EQ(_pp_zone_stats(src, NUMA_NO_NODE, &st), 0);
	return st;
}

/* Pages of @src's local zone that are allocated (not free anywhere). */
static inline unsigned long
t_in_use(struct pp_mem_source *src)
{
	struct _pp_zone_stats st = t_stats(src);

	return st.managed_pages - st.free_pages -
	       _pp_thread_cache_count(src, NUMA_NO_NODE);
}

/*
 * After draining this thread's cache, every region of @src's local zone is
 * one free block of MAX_PAGE_ORDER again: nothing leaked, everything merged.
 */
static inline void
t_check_whole(struct pp_mem_source *src)
{
	struct _pp_zone_stats st;
	int o;

	pp_thread_cache_drain();
	st = t_stats(src);
	CHECK_EQ(st.free_pages, st.managed_pages);
	CHECK_EQ(st.managed_pages, st.nr_regions << MAX_PAGE_ORDER);
	for (o = 0; o < MAX_PAGE_ORDER; o++)
		CHECK_EQ(st.nr_free[o], 0);
	CHECK_EQ(st.nr_free[MAX_PAGE_ORDER], st.nr_regions);
}

#endif /* PAGEPOOL_TESTS_PAGE_HELPERS_H */
