/* SPDX-License-Identifier: MIT */
/*
 * Copyright (c) 2026 The pagepool authors
 *
 * Huge user regions: the descriptors of a PP_MEM_USER region are built per
 * 4 MiB chunk when the allocator first needs that chunk, not at creation,
 * so registering a region costs memory in proportion to what is used, not
 * to its size. Regions of 16 GiB, 256 GiB and 1 TiB, reserved PROT_NONE
 * and MAP_NORESERVE (as a UMEM that grows would be), register with the
 * process's resident memory growing by a few MiB at most (eagerly built,
 * 1 TiB of pages has 16 GiB of descriptors), then serve blocks of every
 * order from inside the region, find any page's descriptor by address,
 * and destroy cleanly. No timing here: the registration time is measured
 * by hand (see the commit message).
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "page_helpers.h"

/* Resident memory of the process, in bytes. */
static size_t
rss_bytes(void)
{
	unsigned long size = 0, resident = 0;
	FILE *f = fopen("/proc/self/statm", "r");

	CHECK(f != NULL);
	CHECK(fscanf(f, "%lu %lu", &size, &resident) == 2);
	fclose(f);
	return resident * (size_t)sysconf(_SC_PAGESIZE);
}

/* Resident growth allowed for registering and lightly using a region of
 * any size: table leaves (64 KiB per 16 GiB of region) and a few chunks'
 * descriptors, with room for the allocator under test and ASan. */
#define RSS_SLACK	(64UL << 20)

/*
 * TSan keeps bookkeeping of its own for every mapping, in proportion to
 * its size (about 80 MiB for the 16 GiB of descriptors of 1 TiB): resident
 * growth says nothing about the library there, so it is not checked.
 */
#if defined(__SANITIZE_THREAD__)
#define T_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define T_TSAN 1
#endif
#endif
#ifndef T_TSAN
#define T_TSAN 0
#endif

static int
rss_small(size_t before, size_t slack)
{
	return T_TSAN || rss_bytes() < before + slack;
}

static int
one_region(size_t len)
{
	struct page *blocks[NR_PAGE_ORDERS], *p, *last;
	struct _pp_zone_stats st;
	struct pp_mem_source *src;
	size_t before;
	unsigned int o;
	uint64_t off;
	char *m, *a;

	m = mmap(NULL, len, PROT_NONE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (m == MAP_FAILED) {
		fprintf(stderr, "cannot reserve %zu GiB (%s): skipped\n",
			len >> 30, strerror(errno));
		return 0;
	}
	before = rss_bytes();
	{
		PP_OPTS(pp_mem_source_opts, opts, .kind = PP_MEM_USER,
			.addr = m, .len = len, .nid = 0);
		src = pp_mem_source_create(&opts);
	}
	if (src == NULL && errno == ENOMEM) {
		/* Strict overcommit accounts even MAP_NORESERVE mappings. */
		fprintf(stderr, "no room for %zu GiB of descriptors: skipped\n",
			len >> 30);
		munmap(m, len);
		return 0;
	}
	CHECK(src != NULL);
	CHECK(rss_small(before, RSS_SLACK));
	st = t_stats(src);
	CHECK_EQ(st.managed_pages, len / PAGE_SIZE);
	CHECK_EQ(st.free_pages, len / PAGE_SIZE);

	/* Descriptors of pages never handed out are found by address. */
	last = virt_to_page(m + len - 1);
	CHECK(last != NULL);
	CHECK(pp_page_source(last) == src);
	CHECK_EQ(pp_mem_source_page_offset(src, last, &off), 0);
	CHECK_EQ(off, len - PAGE_SIZE);
	CHECK(virt_to_page(m + len) == NULL);

	/* Blocks of every order, from inside, usable once opened up. */
	for (o = 0; o <= MAX_PAGE_ORDER; o++) {
		p = alloc_pages_src(src, NUMA_NO_NODE, GFP_KERNEL, o);
		CHECK(p != NULL);
		a = page_address(p);
		CHECK(a >= m && a + (PAGE_SIZE << o) <= m + len);
		CHECK_EQ((uintptr_t)a & ((PAGE_SIZE << o) - 1), 0);
		CHECK(virt_to_page(a + (PAGE_SIZE << o) - 1) ==
		      p + (1UL << o) - 1);
		CHECK_EQ(page_to_nid(p), 0);
		CHECK_EQ(mprotect(a, PAGE_SIZE << o, PROT_READ | PROT_WRITE),
			 0);
		a[0] = 1;
		a[(PAGE_SIZE << o) - 1] = 2;
		blocks[o] = p;
	}
	CHECK(rss_small(before, RSS_SLACK + (8UL << 20)));
	for (o = 0; o <= MAX_PAGE_ORDER; o++)
		__free_pages(blocks[o], o);
	pp_thread_cache_drain();
	st = t_stats(src);
	CHECK_EQ(st.free_pages, len / PAGE_SIZE);
	CHECK_EQ(pp_mem_source_destroy(src), 0);
	CHECK(virt_to_page(m) == NULL);
	CHECK_EQ(munmap(m, len), 0);
	return 1;
}

int
main(void)
{
	int done = 0;

	done += one_region(16UL << 30);
	done += one_region(256UL << 30);
	done += one_region(1UL << 40);
	return done > 0 ? T_EXIT_PASS : T_EXIT_SKIP;
}
