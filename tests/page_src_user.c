/* SPDX-License-Identifier: MIT */
/*
 * Copyright (c) 2026 The pagepool authors
 *
 * A caller-supplied region (PP_MEM_USER), as an AF_XDP UMEM would be: every
 * page comes from inside it, each exactly once; blocks are aligned in the
 * address space even though the region is not; offsets are relative to the
 * region start; addresses just outside are not the allocator's; the region
 * never grows, overlapping regions are refused, and destroy leaves the
 * caller's memory mapped and intact.
 */
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>

#include "page_helpers.h"

int
main(void)
{
	const size_t npages = 3 * 512 + 5;	/* 6 MiB + 5 pages */
	const size_t len = npages * PAGE_SIZE;
	static struct page *pages[3 * 512 + 5];
	static unsigned char seen[3 * 512 + 5];
	struct pp_mem_source *src, *other;
	struct _pp_zone_stats st;
	size_t n = 0, idx, i;
	char *map, *base;
	uint64_t off;
	struct page *p;
	uintptr_t a;

	/* A deliberately misaligned region: 3 pages into a 2 MiB window. */
	map = mmap(NULL, len + (4UL << 20), PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	CHECK(map != MAP_FAILED);
	base = (char *)((((uintptr_t)map + (2UL << 20) - 1) &
			 ~((uintptr_t)(2UL << 20) - 1)) + 3 * PAGE_SIZE);
	{
		PP_OPTS(pp_mem_source_opts, o, .kind = PP_MEM_USER,
			.addr = base, .len = len);
		src = pp_mem_source_create(&o);
		CHECK(src != NULL);
	}
	CHECK_EQ(pp_mem_source_kind(src), PP_MEM_USER);
	st = t_stats(src);
	CHECK_EQ(st.managed_pages, npages);
	CHECK_EQ(st.free_pages, npages);
	CHECK_EQ(st.nr_regions, 1);

	/* Overlap and shared 2 MiB windows are refused. */
	{
		PP_OPTS(pp_mem_source_opts, o, .kind = PP_MEM_USER,
			.addr = base + PAGE_SIZE, .len = PAGE_SIZE);
		errno = 0;
		CHECK(pp_mem_source_create(&o) == NULL);
		CHECK_EQ(errno, EBUSY);
	}
	{
		PP_OPTS(pp_mem_source_opts, o, .kind = PP_MEM_USER,
			.addr = base - PAGE_SIZE, .len = PAGE_SIZE);
		errno = 0;
		CHECK(pp_mem_source_create(&o) == NULL);
		CHECK_EQ(errno, EBUSY);
	}
	/* Just outside the region, in the same window: not ours. */
	CHECK(virt_to_page(base - 1) == NULL);
	CHECK(virt_to_page(base + len) == NULL);
	CHECK(virt_to_page(base) != NULL);
	CHECK(virt_to_page(base + len - 1) != NULL);

	/* Blocks of every order are aligned to their size. */
	for (i = 0; i <= MAX_PAGE_ORDER; i++) {
		p = alloc_pages_src(src, NUMA_NO_NODE, GFP_KERNEL, i);
		if (p == NULL)
			continue;	/* no aligned block of that size */
		a = (uintptr_t)page_address(p);
		CHECK_EQ(a & ((PAGE_SIZE << i) - 1), 0);
		CHECK(a >= (uintptr_t)base && a + (PAGE_SIZE << i) <=
						      (uintptr_t)base + len);
		__free_pages(p, i);
	}

	/* Every page exactly once, all inside, offsets from the start. */
	while ((p = alloc_pages_src(src, NUMA_NO_NODE, GFP_KERNEL, 0)) !=
	       NULL) {
		a = (uintptr_t)page_address(p);
		CHECK(a >= (uintptr_t)base && a < (uintptr_t)base + len);
		idx = (a - (uintptr_t)base) / PAGE_SIZE;
		CHECK_EQ(seen[idx], 0);
		seen[idx] = 1;
		CHECK_EQ(pp_mem_source_page_offset(src, p, &off), 0);
		CHECK_EQ(off, a - (uintptr_t)base);
		CHECK(virt_to_page((void *)(a + 123)) == p);
		CHECK_EQ(page_to_nid(p), 0);
		*(size_t *)a = idx;
		pages[n++] = p;
	}
	CHECK_EQ(errno, ENOMEM);	/* a user region never grows */
	CHECK_EQ(n, npages);
	for (i = 0; i < n; i++) {
		CHECK_EQ(*(size_t *)page_address(pages[i]),
			 ((uintptr_t)page_address(pages[i]) -
			  (uintptr_t)base) / PAGE_SIZE);
		put_page(pages[i]);
	}
	pp_thread_cache_drain();
	st = t_stats(src);
	CHECK_EQ(st.free_pages, npages);

	/* Destroy: the memory stays the caller's, contents intact. */
	base[0] = 0x42;
	CHECK_EQ(pp_mem_source_destroy(src), 0);
	CHECK_EQ(base[0], 0x42);
	CHECK(virt_to_page(base) == NULL);
	/* The window is free again for another region. */
	{
		PP_OPTS(pp_mem_source_opts, o, .kind = PP_MEM_USER,
			.addr = base - PAGE_SIZE, .len = PAGE_SIZE, .nid = 0);
		other = pp_mem_source_create(&o);
		CHECK(other != NULL);
		p = alloc_pages_src(other, 0, GFP_KERNEL, 0);
		CHECK(p != NULL);
		CHECK((char *)page_address(p) == base - PAGE_SIZE);
		put_page(p);
		CHECK_EQ(pp_mem_source_destroy(other), 0);
	}
	CHECK_EQ(munmap(map, len + (4UL << 20)), 0);
	return T_EXIT_PASS;
}
