/* SPDX-License-Identifier: MIT */
/*
 * Copyright (c) 2026 The pagepool authors
 *
 * Allocation failure at every point the page allocator allocates: source
 * creation (descriptors, zones, memfd), region growth (mmap, ftruncate,
 * descriptor arrays, region-table leaves), the default source's lazy
 * creation and bulk allocation. For n = 0, 1, ... the n-th allocation is
 * made to fail until a run gets through with nothing injected; every failed
 * run must report ENOMEM and leave nothing behind (the source destroys
 * cleanly; ASan/LSan builds would catch a leak).
 */
#include <string.h>
#include <sys/mman.h>

#include <pagepool/fault.h>

#include "page_helpers.h"

#define MAX_POINTS 64

/*
 * One scenario on a fresh source; 0 if it went through. *@injected: how
 * many allocations the injector failed (read before disarming, which
 * resets the count).
 */
static int
scenario(const struct pp_mem_source_opts *opts, unsigned long *injected)
{
	struct pp_mem_source *src;
	struct page *p, *q, *arr[8];
	int ok = 0, i;

	memset(arr, 0, sizeof(arr));
	src = pp_mem_source_create(opts);
	if (src == NULL) {
		CHECK_EQ(errno, ENOMEM);
		*injected = pp_fault_injected();
		return -1;
	}
	p = alloc_pages_src(src, NUMA_NO_NODE, GFP_KERNEL, 0);
	q = alloc_pages_src(src, NUMA_NO_NODE, GFP_KERNEL, MAX_PAGE_ORDER);
	if (p == NULL || q == NULL)
		CHECK_EQ(errno, ENOMEM);
	if (p != NULL && (q != NULL || opts->kind == PP_MEM_USER) &&
	    alloc_pages_bulk_src(src, NUMA_NO_NODE, 0, 8, arr) == 8)
		ok = 1;
	put_page(p);
	put_page(q);
	for (i = 0; i < 8; i++)
		put_page(arr[i]);
	*injected = pp_fault_injected();
	pp_fault_inject_alloc(-1, 0);
	CHECK_EQ(pp_mem_source_destroy(src), 0);
	return ok ? 0 : -1;
}

/* Fail each allocation point of the scenario in turn; there must be at
 * least @min_points of them. */
static void
sweep(const struct pp_mem_source_opts *opts, int min_points)
{
	unsigned long injected;
	int n, ret;

	for (n = 0; n < MAX_POINTS; n++) {
		pp_fault_inject_alloc(n, 1);
		ret = scenario(opts, &injected);
		if (injected == 0) {
			CHECK(n >= min_points);
			CHECK_EQ(ret, 0);
			pp_fault_inject_alloc(-1, 0);
			return;
		}
		pp_fault_inject_alloc(-1, 0);
	}
	CHECK(!"more allocation points than expected");
}

int
main(void)
{
	size_t len = 2 * PP_REGION_SIZE;
	struct page *p;
	void *user;
	int n;

	/* The default source is created on first use: fail each step. */
	for (n = 0; n < MAX_POINTS; n++) {
		pp_fault_inject_alloc(n, 1);
		p = alloc_pages(GFP_KERNEL, 0);
		if (pp_fault_injected() == 0) {
			CHECK(p != NULL);
			put_page(p);
			break;
		}
		CHECK(p == NULL);
		CHECK_EQ(errno, ENOMEM);
	}
	pp_fault_inject_alloc(-1, 0);
	CHECK(n < MAX_POINTS);

	{
		/* Source, zone table, zone; then mmap and descriptors. */
		PP_OPTS(pp_mem_source_opts, o, .kind = PP_MEM_ANON);
		sweep(&o, 5);
	}
	{
		/* ... plus memfd_create() and ftruncate(). */
		PP_OPTS(pp_mem_source_opts, o, .kind = PP_MEM_MEMFD);
		sweep(&o, 7);
	}
	{
		/* Fallback is not taken on an injected failure. */
		PP_OPTS(pp_mem_source_opts, o, .kind = PP_MEM_HUGETLB,
			.flags = PP_MEM_F_HUGETLB_FALLBACK | PP_MEM_F_NOWARN);
		sweep(&o, 5);
	}
	user = mmap(NULL, len, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	CHECK(user != MAP_FAILED);
	{
		PP_OPTS(pp_mem_source_opts, o, .kind = PP_MEM_USER,
			.addr = user, .len = len);
		sweep(&o, 4);	/* no mapping of ours */
	}
	munmap(user, len);
	return T_EXIT_PASS;
}
