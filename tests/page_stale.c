/* SPDX-License-Identifier: MIT */
/*
 * Copyright (c) 2026 The pagepool authors
 *
 * Pages of a destroyed source: their descriptors are gone, so a page
 * pointer kept past pp_mem_source_destroy() points into freed (or unmapped)
 * memory. Every entry point that takes a page must recognise it as not the
 * allocator's without reading it: __free_pages(), put_page() and
 * free_frozen_pages() ignore it with errno EINVAL, pp_page_source() returns
 * NULL with EINVAL, pp_mem_source_page_offset() -EINVAL. Under ASan any read
 * of the freed descriptors is a heap-use-after-free report; in other builds
 * a large user region's descriptors are unmapped, so a read crashes.
 */
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>

#include "page_helpers.h"

static void
check_stale(struct page *p, unsigned int order,
	    struct pp_mem_source *live)
{
	uint64_t off = 0;

	errno = 0;
	CHECK(pp_page_source(p) == NULL);
	CHECK_EQ(errno, EINVAL);
	errno = 0;
	__free_pages(p, order);
	CHECK_EQ(errno, EINVAL);
	errno = 0;
	put_page(p);
	CHECK_EQ(errno, EINVAL);
	errno = 0;
	free_frozen_pages(p, order);
	CHECK_EQ(errno, EINVAL);
	CHECK_EQ(pp_mem_source_page_offset(live, p, &off), -EINVAL);
}

int
main(void)
{
	const size_t len = 64UL << 20;	/* 1 MiB of descriptors */
	struct pp_mem_source *src, *live;
	struct page *p, *q, *t;
	void *addr, *map;

	/* A live memfd source, to ask pp_mem_source_page_offset() about
	 * pages that are not its own. */
	live = t_capped_source(PP_MEM_MEMFD, 1);

	/* A source we map: an order-0 page and the tail of a compound
	 * block, both freed before the source goes. */
	src = t_capped_source(PP_MEM_ANON, 1);
	p = alloc_pages_src(src, NUMA_NO_NODE, GFP_KERNEL, 0);
	CHECK(p != NULL);
	q = alloc_pages_src(src, NUMA_NO_NODE, GFP_KERNEL, 3);
	CHECK(q != NULL);
	t = q + 5;
	addr = page_address(p);
	put_page(p);
	put_page(q);
	CHECK_EQ(pp_mem_source_destroy(src), 0);
	CHECK(virt_to_page(addr) == NULL);
	check_stale(p, 0, live);
	check_stale(q, 3, live);
	check_stale(t, 0, live);

	/* A user region: the region outlives the source, its descriptors do
	 * not. */
	map = mmap(NULL, len, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	CHECK(map != MAP_FAILED);
	{
		PP_OPTS(pp_mem_source_opts, o, .kind = PP_MEM_USER,
			.addr = map, .len = len);
		src = pp_mem_source_create(&o);
		CHECK(src != NULL);
	}
	p = alloc_pages_src(src, NUMA_NO_NODE, GFP_KERNEL, 0);
	CHECK(p != NULL);
	put_page(p);
	/* A page of the region never handed out, from its address. */
	q = virt_to_page((char *)map + len - PAGE_SIZE);
	CHECK(q != NULL);
	CHECK_EQ(pp_mem_source_destroy(src), 0);
	CHECK(virt_to_page(map) == NULL);
	check_stale(p, 0, live);
	check_stale(q, 0, live);

	CHECK_EQ(munmap(map, len), 0);
	CHECK_EQ(pp_mem_source_destroy(live), 0);
	return T_EXIT_PASS;
}
