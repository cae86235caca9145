/* SPDX-License-Identifier: MIT */
/*
 * Copyright (c) 2026 The pagepool authors
 *
 * The page_pool counters as one line, printed by every benchmark after a
 * test so a reader sees which path really ran (cached vs ring vs slow).
 */
#ifndef PAGEPOOL_TOOLS_POOL_REPORT_H
#define PAGEPOOL_TOOLS_POOL_REPORT_H

#include <stdio.h>

struct page_pool;

/* "<lead>alloc fast N slow N ... | recycle cached N ... released_refcnt N";
 * nothing if the library was built without statistics. */
void pp_tool_print_pool_stats(FILE *out, const char *lead,
			      const struct page_pool *pool);

#endif /* PAGEPOOL_TOOLS_POOL_REPORT_H */
