/* SPDX-License-Identifier: MIT */
/*
 * Copyright (c) 2026 The pagepool authors
 *
 * alloc_pages_bulk() with the kernel's newest semantics: only NULL slots are
 * filled, populated ones are left alone and counted, the return value is the
 * number of populated slots up to where filling stopped; a shortfall stops
 * at the first slot that could not be filled.
 */
#include <string.h>

#include "page_helpers.h"

#define NPAGES (1UL << MAX_PAGE_ORDER)

static void
check_distinct(struct page **v, unsigned long n)
{
	unsigned long i, j;

	for (i = 0; i < n; i++) {
		CHECK(v[i] != NULL);
		for (j = i + 1; j < n; j++)
			CHECK(v[i] != v[j]);
	}
}

int
main(void)
{
	static struct page *big[NPAGES + 64];
	struct pp_mem_source *src = t_capped_source(PP_MEM_ANON, 1);
	struct page *arr[16], *a, *b, *outsider;
	unsigned long i, n;

	/* Holes in the middle are filled, existing entries untouched. */
	memset(arr, 0, sizeof(arr));
	a = alloc_pages(GFP_KERNEL, 0);
	b = alloc_pages(GFP_KERNEL, 0);
	CHECK(a != NULL && b != NULL);
	arr[0] = a;
	arr[7] = b;
	CHECK_EQ(alloc_pages_bulk_src(src, NUMA_NO_NODE, GFP_KERNEL, 16, arr),
		 16);
	CHECK(arr[0] == a && arr[7] == b);
	check_distinct(arr, 16);
	for (i = 0; i < 16; i++) {
		CHECK_EQ(page_ref_count(arr[i]), 1);
		if (arr[i] != a && arr[i] != b) {
			CHECK(pp_page_source(arr[i]) == src);
			CHECK_EQ(compound_order(arr[i]), 0);
		}
	}
	CHECK_EQ(t_in_use(src), 14);
	/* A full array: nothing to do, all counted. */
	CHECK_EQ(alloc_pages_bulk_src(src, NUMA_NO_NODE, GFP_KERNEL, 16, arr),
		 16);
	CHECK_EQ(t_in_use(src), 14);
	/* nr_pages bounds the work. */
	CHECK_EQ(alloc_pages_bulk_src(src, NUMA_NO_NODE, GFP_KERNEL, 0, arr),
		 0);
	for (i = 0; i < 16; i++)
		if (arr[i] != a && arr[i] != b)
			put_page(arr[i]);
	CHECK_EQ(t_in_use(src), 0);

	/* Exhaustion: the count stops at the first slot left empty, even if
	 * populated slots follow (they are not counted). */
	memset(big, 0, sizeof(big));
	outsider = a;
	big[NPAGES + 10] = outsider;
	errno = 0;
	n = alloc_pages_bulk_src(src, NUMA_NO_NODE, GFP_KERNEL, NPAGES + 64,
				 big);
	CHECK_EQ(n, NPAGES);
	CHECK_EQ(errno, ENOMEM);
	CHECK(big[NPAGES] == NULL);
	CHECK(big[NPAGES + 10] == outsider);
	CHECK_EQ(t_in_use(src), NPAGES);
	for (i = 0; i < NPAGES; i++)
		__free_pages(big[i], 0);
	t_check_whole(src);

	/* Default source, more than one cache refill's worth. */
	memset(big, 0, sizeof(big));
	CHECK_EQ(alloc_pages_bulk(GFP_KERNEL, 700, big), 700);
	check_distinct(big, 700);
	for (i = 0; i < 700; i++)
		put_page(big[i]);
	memset(big, 0, sizeof(big));
	CHECK_EQ(alloc_pages_bulk_node(GFP_KERNEL, 0, 100, big), 100);
	for (i = 0; i < 100; i++) {
		CHECK_EQ(page_to_nid(big[i]), 0);
		put_page(big[i]);
	}

	/* Bad arguments: nothing filled. */
	memset(arr, 0, sizeof(arr));
	errno = 0;
	CHECK_EQ(alloc_pages_bulk(GFP_KERNEL, 4, NULL), 0);
	CHECK_EQ(errno, EINVAL);
	errno = 0;
	CHECK_EQ(alloc_pages_bulk_node(GFP_KERNEL, 4096, 4, arr), 0);
	CHECK_EQ(errno, EINVAL);
	errno = 0;
	CHECK_EQ(alloc_pages_bulk_src(NULL, NUMA_NO_NODE, GFP_KERNEL, 4, arr),
		 0);
	CHECK_EQ(errno, EINVAL);
	for (i = 0; i < 16; i++)
		CHECK(arr[i] == NULL);

	put_page(a);
	put_page(b);
	CHECK_EQ(pp_mem_source_destroy(src), 0);
	return T_EXIT_PASS;
}
