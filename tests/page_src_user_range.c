/* SPDX-License-Identifier: MIT */
/*
 * Copyright (c) 2026 The pagepool authors
 *
 * A user region (PP_MEM_USER) must lie wholly in mappings of the caller's
 * address space: a region longer than its mapping, one with a hole, or one
 * nowhere mapped is refused at creation with EFAULT, before the allocator
 * could hand out a page outside the memory. "Mapped" means a mapping
 * exists, whatever its protection: a PROT_NONE reservation is accepted (the
 * caller makes pages accessible before using them), and so is a region
 * spanning adjacent mappings of different protections.
 */
#include <stdint.h>
#include <sys/mman.h>

#include "page_helpers.h"

static struct pp_mem_source *
user_source(void *addr, size_t len)
{
	PP_OPTS(pp_mem_source_opts, o, .kind = PP_MEM_USER, .addr = addr,
		.len = len);

	errno = 0;
	return pp_mem_source_create(&o);
}

static void
expect_efault(void *addr, size_t len)
{
	struct pp_mem_source *src = user_source(addr, len);

	if (src != NULL)
		pp_mem_source_destroy(src);
	CHECK(src == NULL);
	CHECK_EQ(errno, EFAULT);
}

/* Every page of the source comes from [addr, addr + len) (<= 64 pages). */
static void
check_all_inside(struct pp_mem_source *src, char *addr, size_t len)
{
	size_t n = 0, i, npages = len / PAGE_SIZE;
	struct page *p, *got[64];
	char *a;

	CHECK(npages <= 64);
	while ((p = alloc_pages_src(src, NUMA_NO_NODE, GFP_KERNEL, 0)) !=
	       NULL) {
		a = page_address(p);
		CHECK(a >= addr && a + PAGE_SIZE <= addr + len);
		CHECK(n < npages);
		got[n++] = p;
	}
	CHECK_EQ(n, npages);
	for (i = 0; i < n; i++)
		put_page(got[i]);
}

int
main(void)
{
	const size_t len = 64 * PAGE_SIZE;
	struct pp_mem_source *src;
	struct page *p;
	char *m;

	m = mmap(NULL, len, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	CHECK(m != MAP_FAILED);

	/* Longer than its mapping: the last 16 pages are unmapped. */
	CHECK_EQ(munmap(m + len - 16 * PAGE_SIZE, 16 * PAGE_SIZE), 0);
	expect_efault(m, len);
	expect_efault(m + len - 17 * PAGE_SIZE, 2 * PAGE_SIZE);
	/* What is mapped is accepted, and served from inside only. */
	src = user_source(m, len - 16 * PAGE_SIZE);
	CHECK(src != NULL);
	check_all_inside(src, m, len - 16 * PAGE_SIZE);
	CHECK_EQ(pp_mem_source_destroy(src), 0);

	/* A hole in the middle. */
	CHECK_EQ(munmap(m + 8 * PAGE_SIZE, 2 * PAGE_SIZE), 0);
	expect_efault(m, len - 16 * PAGE_SIZE);
	expect_efault(m + 8 * PAGE_SIZE, PAGE_SIZE);

	/* Nothing mapped at all. Only what is still ours is unmapped: the
	 * holes made above may hold someone else's mapping by now (the
	 * library maps its tables with mmap()). */
	CHECK_EQ(munmap(m, 8 * PAGE_SIZE), 0);
	CHECK_EQ(munmap(m + 10 * PAGE_SIZE, len - 26 * PAGE_SIZE), 0);
	expect_efault(m, len);

	/* A reservation: mapped, not accessible. Accepted; the caller opens
	 * pages up before touching them. */
	m = mmap(NULL, len, PROT_NONE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	CHECK(m != MAP_FAILED);
	src = user_source(m, len);
	CHECK(src != NULL);
	p = alloc_pages_src(src, NUMA_NO_NODE, GFP_KERNEL, 0);
	CHECK(p != NULL);
	CHECK_EQ(mprotect(page_address(p), PAGE_SIZE,
			  PROT_READ | PROT_WRITE), 0);
	*(volatile char *)page_address(p) = 1;
	put_page(p);
	CHECK_EQ(pp_mem_source_destroy(src), 0);

	/* Adjacent mappings of different protections, one region. */
	CHECK_EQ(mprotect(m, len / 2, PROT_READ | PROT_WRITE), 0);
	src = user_source(m, len);
	CHECK(src != NULL);
	CHECK_EQ(pp_mem_source_destroy(src), 0);
	CHECK_EQ(munmap(m, len), 0);
	return T_EXIT_PASS;
}
