/* SPDX-License-Identifier: MIT */
/*
 * Copyright (c) 2026 The pagepool authors
 *
 * __GFP_ZERO: a block that was dirtied, freed and handed out again is
 * zeroed when (and only when) __GFP_ZERO is asked for. The caches reuse the
 * most recently freed block first, so the same block comes back and the test
 * sees both outcomes.
 */
#include <string.h>

#include "page_helpers.h"

static int
all_bytes(const unsigned char *p, size_t n, unsigned char v)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (p[i] != v)
			return 0;
	return 1;
}

int
main(void)
{
	static const unsigned int orders[] = { 0, 2, 3, 5, MAX_PAGE_ORDER };
	struct pp_mem_source *src = t_capped_source(PP_MEM_ANON, 1);
	struct page *p, *q;
	size_t size, i;

	for (i = 0; i < sizeof(orders) / sizeof(orders[0]); i++) {
		size = PAGE_SIZE << orders[i];
		p = alloc_pages_src(src, NUMA_NO_NODE, GFP_KERNEL, orders[i]);
		CHECK(p != NULL);
		memset(page_address(p), 0xab, size);
		__free_pages(p, orders[i]);
		/* Without __GFP_ZERO the old bytes are still there. */
		q = alloc_pages_src(src, NUMA_NO_NODE, GFP_KERNEL, orders[i]);
		CHECK(q == p);
		CHECK(all_bytes(page_address(q), size, 0xab));
		__free_pages(q, orders[i]);
		q = alloc_pages_src(src, NUMA_NO_NODE, GFP_KERNEL | __GFP_ZERO,
				    orders[i]);
		CHECK(q == p);
		CHECK(all_bytes(page_address(q), size, 0));
		__free_pages(q, orders[i]);
	}
	/* Also through the default source and the bulk path. */
	p = alloc_pages(GFP_KERNEL, 0);
	memset(page_address(p), 0x5a, PAGE_SIZE);
	put_page(p);
	q = NULL;
	CHECK_EQ(alloc_pages_bulk(GFP_KERNEL | __GFP_ZERO, 1, &q), 1);
	CHECK(q == p);
	CHECK(all_bytes(page_address(q), PAGE_SIZE, 0));
	put_page(q);

	t_check_whole(src);
	CHECK_EQ(pp_mem_source_destroy(src), 0);
	return T_EXIT_PASS;
}
