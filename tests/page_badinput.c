/* SPDX-License-Identifier: MIT */
/*
 * Copyright (c) 2026 The pagepool authors
 *
 * Bad input on every page allocator entry point: the documented errno, no
 * crash, and no change of state (zone statistics identical before and
 * after). Debug builds also print a line for misuse that a void function
 * cannot report; that output is expected here.
 */
#include <string.h>

#include "page_helpers.h"

static int
same_stats(struct pp_mem_source *src, const struct _pp_zone_stats *a)
{
	struct _pp_zone_stats b = t_stats(src);

	return memcmp(a, &b, sizeof(b)) == 0;
}

/* A newer caller's options struct: ours plus a field we do not know. */
struct opts_v2 {
	struct pp_mem_source_opts v1;
	long future;
};

static void
test_create(void)
{
	struct pp_mem_source_opts bad;
	struct pp_mem_source *src;
	struct opts_v2 v2;
	char buf[PAGE_SIZE * 2];

#define EXPECT_EINVAL(optsp)                                                 \
	do {                                                                 \
		errno = 0;                                                   \
		CHECK(pp_mem_source_create(optsp) == NULL);                  \
		CHECK_EQ(errno, EINVAL);                                     \
	} while (0)

	memset(&bad, 0, sizeof(bad));
	EXPECT_EINVAL(&bad);			/* sz 0 */
	{
		PP_OPTS(pp_mem_source_opts, o, .kind = 42);
		EXPECT_EINVAL(&o);
	}
	{
		PP_OPTS(pp_mem_source_opts, o, .kind = -1);
		EXPECT_EINVAL(&o);
	}
	{
		PP_OPTS(pp_mem_source_opts, o, .flags = 1u << 20);
		EXPECT_EINVAL(&o);
	}
	{
		PP_OPTS(pp_mem_source_opts, o, .max_bytes = PAGE_SIZE);
		EXPECT_EINVAL(&o);
	}
	{
		PP_OPTS(pp_mem_source_opts, o, .addr = buf);
		EXPECT_EINVAL(&o);
	}
	{
		PP_OPTS(pp_mem_source_opts, o, .nid = 3);
		EXPECT_EINVAL(&o);
	}
	{
		PP_OPTS(pp_mem_source_opts, o, .kind = PP_MEM_USER);
		EXPECT_EINVAL(&o);		/* no region */
	}
	{
		PP_OPTS(pp_mem_source_opts, o, .kind = PP_MEM_USER,
			.addr = buf + 1, .len = PAGE_SIZE);
		EXPECT_EINVAL(&o);		/* misaligned */
	}
	{
		PP_OPTS(pp_mem_source_opts, o, .kind = PP_MEM_USER,
			.addr = (void *)(uintptr_t)PAGE_SIZE, .len = 100);
		EXPECT_EINVAL(&o);		/* partial page */
	}
	{
		PP_OPTS(pp_mem_source_opts, o, .kind = PP_MEM_USER,
			.addr = (void *)(uintptr_t)PAGE_SIZE, .len = PAGE_SIZE,
			.nid = 4096);
		EXPECT_EINVAL(&o);		/* no such node */
	}
	{
		PP_OPTS(pp_mem_source_opts, o, .kind = PP_MEM_USER,
			.addr = (void *)-PAGE_SIZE, .len = 2 * PAGE_SIZE);
		EXPECT_EINVAL(&o);		/* wraps */
	}
	/* Newer caller: a non-zero unknown tail is refused, zero accepted. */
	memset(&v2, 0, sizeof(v2));
	v2.v1.sz = sizeof(v2);
	v2.future = 1;
	EXPECT_EINVAL(&v2.v1);
	v2.future = 0;
	src = pp_mem_source_create(&v2.v1);
	CHECK(src != NULL);
	CHECK_EQ(pp_mem_source_kind(src), PP_MEM_ANON);
	CHECK_EQ(pp_mem_source_destroy(src), 0);
	/* Older caller: a struct that ends after kind. */
	memset(&bad, 0, sizeof(bad));
	bad.sz = offsetof(struct pp_mem_source_opts, flags);
	bad.kind = PP_MEM_MEMFD;
	bad.name = "ignored: beyond sz";
	src = pp_mem_source_create(&bad);
	CHECK(src != NULL);
	CHECK(pp_mem_source_fd(src) >= 0);
	CHECK_EQ(pp_mem_source_destroy(src), 0);
	/* NULL options: anonymous. */
	src = pp_mem_source_create(NULL);
	CHECK(src != NULL);
	CHECK_EQ(pp_mem_source_destroy(src), 0);
#undef EXPECT_EINVAL
}

int
main(void)
{
	struct pp_mem_source *src = t_capped_source(PP_MEM_ANON, 1);
	struct _pp_zone_stats st;
	struct page fake, *p, *q;
	uint64_t off = 0;
	char on_stack[64];

	test_create();

	/* Make the zone non-trivial first. */
	p = alloc_pages_src(src, NUMA_NO_NODE, GFP_KERNEL, 2);
	CHECK(p != NULL);
	q = alloc_pages_src(src, NUMA_NO_NODE, GFP_KERNEL, 0);
	CHECK(q != NULL);
	pp_thread_cache_drain();
	st = t_stats(src);

	/* Allocation. */
	errno = 0;
	CHECK(alloc_pages(GFP_KERNEL, MAX_PAGE_ORDER + 1) == NULL);
	CHECK_EQ(errno, EINVAL);
	errno = 0;
	CHECK(alloc_pages(GFP_KERNEL, ~0u) == NULL);
	CHECK_EQ(errno, EINVAL);
	errno = 0;
	CHECK(alloc_pages_node(-2, GFP_KERNEL, 0) == NULL);
	CHECK_EQ(errno, EINVAL);
	errno = 0;
	CHECK(alloc_pages_node(4096, GFP_KERNEL, 0) == NULL);
	CHECK_EQ(errno, EINVAL);
	errno = 0;
	CHECK(alloc_pages_node(_pp_numa_nr_nodes(), GFP_KERNEL, 0) == NULL);
	CHECK_EQ(errno, EINVAL);
	errno = 0;
	CHECK(alloc_pages_src(NULL, NUMA_NO_NODE, GFP_KERNEL, 0) == NULL);
	CHECK_EQ(errno, EINVAL);
	errno = 0;
	CHECK(alloc_pages_src(src, NUMA_NO_NODE, GFP_KERNEL, 11) == NULL);
	CHECK_EQ(errno, EINVAL);
	errno = 0;
	CHECK(alloc_pages_src(src, 77, GFP_KERNEL, 0) == NULL);
	CHECK_EQ(errno, EINVAL);
	CHECK(same_stats(src, &st));

	/* Freeing: NULL is a no-op; everything else bad is refused. */
	__free_pages(NULL, 0);
	__free_pages(NULL, 99);
	put_page(NULL);
	free_frozen_pages(NULL, 0);
	errno = 0;
	__free_pages(p, 1);			/* wrong order */
	CHECK_EQ(errno, EINVAL);
	CHECK_EQ(page_ref_count(p), 1);
	errno = 0;
	__free_pages(p, 99);
	CHECK_EQ(errno, EINVAL);
	errno = 0;
	__free_pages(p + 1, 0);			/* tail page */
	CHECK_EQ(errno, EINVAL);
	CHECK_EQ(page_ref_count(p), 1);
	errno = 0;
	free_frozen_pages(p, 2);		/* count is not zero */
	CHECK_EQ(errno, EINVAL);
	memset(&fake, 0, sizeof(fake));
	fake.virtual = on_stack;
	errno = 0;
	__free_pages(&fake, 0);			/* not ours */
	CHECK_EQ(errno, EINVAL);
	errno = 0;
	put_page(&fake);
	CHECK_EQ(errno, EINVAL);
	fake.virtual = page_address(q);		/* ours, but a copy */
	fake._refcount = 1;
	errno = 0;
	put_page(&fake);
	CHECK_EQ(errno, EINVAL);
	CHECK_EQ(fake._refcount, 1);
	CHECK(same_stats(src, &st));
	CHECK_EQ(page_ref_count(p), 1);

	/* Double free: the second one is refused, the page is free once. */
	__free_pages(q, 0);
	pp_thread_cache_drain();
	st = t_stats(src);
	errno = 0;
	__free_pages(q, 0);
	CHECK_EQ(errno, EINVAL);
	errno = 0;
	put_page(q);
	CHECK_EQ(errno, EINVAL);
	CHECK_EQ(page_ref_count(q), 0);
	pp_thread_cache_drain();
	CHECK(same_stats(src, &st));

	/* Lookups and getters. */
	CHECK(virt_to_page(NULL) == NULL);
	CHECK(virt_to_page(on_stack) == NULL);
	errno = 0;
	CHECK(pp_page_source(&fake) == NULL);
	CHECK_EQ(errno, EINVAL);
	errno = 0;
	CHECK(pp_page_source(NULL) == NULL);
	CHECK_EQ(errno, EINVAL);
	CHECK(pp_page_source(p) == src);
	CHECK(pp_page_source(p + 3) == src);
	CHECK_EQ(pp_mem_source_kind(NULL), -EINVAL);
	CHECK_EQ(pp_mem_source_fd(NULL), -EINVAL);
	CHECK_EQ(pp_mem_source_fd(src), -EINVAL);
	CHECK_EQ(pp_mem_source_page_offset(NULL, p, &off), -EINVAL);
	CHECK_EQ(pp_mem_source_page_offset(src, NULL, &off), -EINVAL);
	CHECK_EQ(pp_mem_source_page_offset(src, p, NULL), -EINVAL);
	CHECK_EQ(pp_mem_source_page_offset(src, &fake, &off), -EINVAL);
	CHECK_EQ(pp_mem_source_page_offset(pp_mem_source_default(), p, &off),
		 -EINVAL);
	CHECK_EQ(pp_mem_source_page_offset(src, p, &off), -EOPNOTSUPP);
	CHECK_EQ(_pp_zone_stats(NULL, 0, &st), -EINVAL);
	CHECK_EQ(_pp_zone_stats(src, 4096, &st), -EINVAL);

	/* Destroy. */
	CHECK_EQ(pp_mem_source_destroy(NULL), 0);
	CHECK_EQ(pp_mem_source_destroy(pp_mem_source_default()), -EINVAL);
	CHECK_EQ(pp_mem_source_destroy(src), -EBUSY);
	CHECK(pp_page_source(p) == src);
	__free_pages(p, 2);
	t_check_whole(src);
	CHECK_EQ(pp_mem_source_destroy(src), 0);
	return T_EXIT_PASS;
}
