/* SPDX-License-Identifier: MIT */
/*
 * Copyright (c) 2026 The pagepool authors
 *
 * struct page descriptors and the O(1) conversions: the descriptor fits 64
 * bytes; for blocks of every order, virt_to_page() of any address inside
 * gives that page's descriptor (compound_head() the block's), and
 * page_address() gives the page back; blocks are naturally aligned; foreign
 * addresses give NULL.
 */
#include <stdint.h>
#include <stdlib.h>

#include <pagepool/page.h>

#include "helpers.h"

static void
check_block(struct page *head, unsigned int order)
{
	size_t size = PAGE_SIZE << order;
	char *base = page_address(head);
	size_t off, step;
	struct page *p;

	CHECK(base != NULL);
	CHECK_EQ((uintptr_t)base & (size - 1), 0);
	CHECK_EQ(compound_order(head), order);
	CHECK_EQ(page_ref_count(head), 1);
	CHECK(!PageTail(head));
	CHECK(!page_is_pfmemalloc(head));
	/* Every byte of an order-0 page; an odd stride (so every offset
	 * within a page is eventually hit) plus both ends of each page for
	 * larger blocks. */
	step = order == 0 ? 1 : 61;
	for (off = 0; off < size; off += step) {
		p = virt_to_page(base + off);
		CHECK(p == head + off / PAGE_SIZE);
		CHECK(compound_head(p) == head);
		CHECK(page_address(p) == base + (off & PAGE_MASK));
		CHECK_EQ(page_to_nid(p), page_to_nid(head));
	}
	for (off = 0; off < size; off += PAGE_SIZE) {
		p = head + off / PAGE_SIZE;
		CHECK(virt_to_page(base + off) == p);
		CHECK(virt_to_page(base + off + PAGE_SIZE - 1) == p);
		CHECK_EQ(PageTail(p), off != 0);
		if (off != 0)
			CHECK_EQ(page_ref_count(p), 0);
	}
	/* The memory is really there. */
	base[0] = 1;
	base[size - 1] = 2;
}

int
main(void)
{
	struct page *blocks[NR_PAGE_ORDERS];
	unsigned int order;
	int on_stack;
	void *heap;

	CHECK(sizeof(struct page) <= 64);
	CHECK_EQ(sizeof(struct page), 64);

	for (order = 0; order <= MAX_PAGE_ORDER; order++) {
		blocks[order] = alloc_pages(GFP_KERNEL, order);
		CHECK(blocks[order] != NULL);
		check_block(blocks[order], order);
	}
	/* Check all again while all are live: no lookup was disturbed by
	 * later allocations. */
	for (order = 0; order <= MAX_PAGE_ORDER; order++)
		check_block(blocks[order], order);
	for (order = 0; order <= MAX_PAGE_ORDER; order++)
		__free_pages(blocks[order], order);

	/* Addresses the allocator does not own. */
	heap = malloc(64);
	CHECK(heap != NULL);
	CHECK(virt_to_page(NULL) == NULL);
	CHECK(virt_to_page(&on_stack) == NULL);
	CHECK(virt_to_page(heap) == NULL);
	CHECK(virt_to_page((void *)main) == NULL);
	CHECK(virt_to_page((void *)~(uintptr_t)0) == NULL);
	CHECK(virt_to_page((void *)((uintptr_t)1 << 52)) == NULL);
	free(heap);
	return T_EXIT_PASS;
}
