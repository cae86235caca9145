/* SPDX-License-Identifier: MIT */
/*
 * Copyright (c) 2026 The pagepool authors
 *
 * Reference counts: get_page()/put_page() on head and tail pages, a block
 * freed exactly when its count reaches zero (by put_page(), __free_pages()
 * or page_ref_sub_and_test() + free_frozen_pages()), page_frag-style bias
 * with page_ref_add(), and the pfmemalloc bit.
 */
#include "page_helpers.h"

int
main(void)
{
	struct pp_mem_source *src = t_capped_source(PP_MEM_ANON, 1);
	struct page *p, *tail;
	unsigned int order;

	/* Order 0: free at zero, not before. */
	p = alloc_pages_src(src, NUMA_NO_NODE, GFP_KERNEL, 0);
	CHECK(p != NULL);
	CHECK_EQ(page_ref_count(p), 1);
	get_page(p);
	CHECK_EQ(page_ref_count(p), 2);
	put_page(p);
	CHECK_EQ(page_ref_count(p), 1);
	CHECK_EQ(t_in_use(src), 1);
	put_page(p);
	CHECK_EQ(page_ref_count(p), 0);
	CHECK_EQ(t_in_use(src), 0);

	/* __free_pages() drops one reference, like put_page(). */
	p = alloc_pages_src(src, NUMA_NO_NODE, GFP_KERNEL, 0);
	get_page(p);
	__free_pages(p, 0);
	CHECK_EQ(t_in_use(src), 1);
	CHECK_EQ(page_ref_count(p), 1);
	__free_pages(p, 0);
	CHECK_EQ(t_in_use(src), 0);

	/* Compound blocks: references through any tail act on the head. */
	for (order = 1; order <= MAX_PAGE_ORDER; order++) {
		p = alloc_pages_src(src, NUMA_NO_NODE, GFP_KERNEL, order);
		CHECK(p != NULL);
		tail = p + (1UL << order) - 1;
		CHECK(PageTail(tail));
		CHECK(compound_head(tail) == p);
		get_page(tail);
		CHECK_EQ(page_ref_count(p), 2);
		CHECK_EQ(page_ref_count(tail), 0);
		put_page(tail);
		CHECK_EQ(page_ref_count(p), 1);
		CHECK_EQ(t_in_use(src), 1UL << order);
		put_page(p + 1);
		CHECK_EQ(t_in_use(src), 0);
	}
	t_check_whole(src);

	/* page_frag's pattern: a large bias, fragments dropped one by one,
	 * the last drop frees with free_frozen_pages(). */
	p = alloc_pages_src(src, NUMA_NO_NODE, GFP_KERNEL, 3);
	page_ref_add(p, 1023);
	CHECK_EQ(page_ref_count(p), 1024);
	CHECK(!page_ref_sub_and_test(p, 1000));
	CHECK(!page_ref_sub_and_test(p, 23));
	CHECK(page_ref_sub_and_test(p, 1));
	CHECK_EQ(t_in_use(src), 8);
	free_frozen_pages(p, 3);
	CHECK_EQ(t_in_use(src), 0);

	/* set_page_count() on a block one owns, then reuse. */
	p = alloc_pages_src(src, NUMA_NO_NODE, GFP_KERNEL, 0);
	page_ref_inc(p);
	set_page_count(p, 1);
	put_page(p);
	CHECK_EQ(t_in_use(src), 0);

	/* pfmemalloc: never set by the allocator; a fresh page clears it. */
	p = alloc_pages_src(src, NUMA_NO_NODE, GFP_KERNEL, 0);
	CHECK(!page_is_pfmemalloc(p));
	set_page_pfmemalloc(p);
	CHECK(page_is_pfmemalloc(p));
	CHECK(!PageTail(p));
	put_page(p);
	p = alloc_pages_src(src, NUMA_NO_NODE, GFP_KERNEL, 0);
	CHECK(!page_is_pfmemalloc(p));
	clear_page_pfmemalloc(p);
	put_page(p);

	t_check_whole(src);
	CHECK_EQ(pp_mem_source_destroy(src), 0);
	return T_EXIT_PASS;
}
