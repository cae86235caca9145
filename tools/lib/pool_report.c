/* SPDX-License-Identifier: MIT */
/*
 * Copyright (c) 2026 The pagepool authors
 *
 * page_pool counter lines for the benchmarks (see pool_report.h). The
 * executables that use it link pagepool themselves; this helper library only
 * needs the headers.
 */
#include <string.h>

#include <pagepool/page_pool.h>

#include "pool_report.h"

void
pp_tool_print_pool_stats(FILE *out, const char *lead,
			 const struct page_pool *pool)
{
	struct page_pool_stats s;

	memset(&s, 0, sizeof(s));
	if (!page_pool_get_stats(pool, &s))
		return;
	fprintf(out,
		"%salloc fast %llu slow %llu slow_high_order %llu empty %llu "
		"refill %llu waive %llu | recycle cached %llu cache_full %llu "
		"ring %llu ring_full %llu released_refcnt %llu\n",
		lead, (unsigned long long)s.alloc_stats.fast,
		(unsigned long long)s.alloc_stats.slow,
		(unsigned long long)s.alloc_stats.slow_high_order,
		(unsigned long long)s.alloc_stats.empty,
		(unsigned long long)s.alloc_stats.refill,
		(unsigned long long)s.alloc_stats.waive,
		(unsigned long long)s.recycle_stats.cached,
		(unsigned long long)s.recycle_stats.cache_full,
		(unsigned long long)s.recycle_stats.ring,
		(unsigned long long)s.recycle_stats.ring_full,
		(unsigned long long)s.recycle_stats.released_refcnt);
}
