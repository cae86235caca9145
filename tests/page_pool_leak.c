/* SPDX-License-Identifier: MIT */
/*
 * Copyright (c) 2026 The pagepool authors
 *
 * A page a pool handed out, given back to the page allocator instead of
 * the pool (put_page(), __free_pages(), or free_frozen_pages() after the
 * last page_ref_sub_and_test()). The pool still counts it in flight, so
 * freeing it would hand it to a second owner. As the kernel's free-time
 * check does ("page_pool leak"), the allocator reports it on stderr, in
 * every build, and leaks it: the page is never handed out again, errno is
 * EINVAL, and the leak counter says how many. A page the pool let go of
 * (its signature cleared) is freed as usual, and a put_page() that is not
 * the last changes nothing.
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <pagepool/page_pool.h>

#include "page_helpers.h"

/* The pools cannot be freed (pages they count in flight are leaked), so
 * they stay reachable here for the leak checker. */
static struct page_pool *pool0, *pool1;

static struct page_pool *
new_pool(unsigned int order)
{
	struct page_pool_params pp = {
		.order = order,
		.pool_size = 256,
		.nid = NUMA_NO_NODE,
	};
	struct page_pool *pool = page_pool_create(&pp);

	CHECK(pool != NULL);
	return pool;
}

static int
is_pp(const struct page *page)
{
	return (page->pp_magic & PP_MAGIC_MASK) == PP_SIGNATURE;
}

/* @page is never handed out by the allocator again: take a few thousand
 * blocks of @order from the default source (the freeing thread's cache
 * first, LIFO), then give them back. */
static void
check_not_reused(const struct page *page, unsigned int order)
{
	static struct page *got[2048];
	unsigned int i;

	for (i = 0; i < 2048; i++) {
		got[i] = alloc_pages(GFP_KERNEL, order);
		CHECK(got[i] != NULL);
		CHECK(got[i] != page);
	}
	for (i = 0; i < 2048; i++)
		__free_pages(got[i], order);
}

/* Count the lines written to @fd that contain @what and @page's address. */
static int
count_reports(int fd, const char *what, const struct page *page)
{
	char line[512], addr[32];
	FILE *f = fdopen(dup(fd), "r");
	int n = 0;

	CHECK(f != NULL);
	rewind(f);
	snprintf(addr, sizeof(addr), "%p", (const void *)page);
	while (fgets(line, sizeof(line), f) != NULL)
		n += strstr(line, what) != NULL && strstr(line, addr) != NULL;
	fclose(f);
	return n;
}

static int cap_fd, saved_fd;

/* Run @call with stderr going to cap_fd; errno after it is in @err. */
#define CAPTURE(err, call)                                                   \
	do {                                                                 \
		fflush(stderr);                                              \
		CHECK(dup2(cap_fd, 2) == 2);                                 \
		errno = 0;                                                   \
		call;                                                        \
		(err) = errno;                                               \
		fflush(stderr);                                              \
		CHECK(dup2(saved_fd, 2) == 2);                               \
	} while (0)

int
main(void)
{
	char path[] = "/tmp/page_pool_leak.XXXXXX";
	struct page *a, *b, *c, *d, *e;
	long inflight;
	int err;

	pool0 = new_pool(0);
	pool1 = new_pool(1);
	CHECK_EQ(_pp_bad_page_count(), 0);

	/* The reports go to stderr: catch them in a file. */
	cap_fd = mkstemp(path);
	CHECK(cap_fd >= 0);
	unlink(path);
	saved_fd = dup(2);
	CHECK(saved_fd >= 0);

	/* put_page() of the pool's only reference. */
	a = page_pool_alloc_pages(pool0, GFP_KERNEL);
	CHECK(a != NULL);
	CHECK(is_pp(a));
	inflight = page_pool_inflight(pool0);
	CHECK_EQ(page_ref_count(a), 1);
	CAPTURE(err, put_page(a));
	CHECK_EQ(err, EINVAL);
	CHECK_EQ(_pp_bad_page_count(), 1);
	CHECK_EQ(page_ref_count(a), 0);
	CHECK(is_pp(a));
	CHECK(a->pp == pool0);
	CHECK_EQ(page_pool_inflight(pool0), inflight);
	check_not_reused(a, 0);

	/* __free_pages() of the same kind. */
	b = page_pool_alloc_pages(pool0, GFP_KERNEL);
	CHECK(b != NULL);
	CAPTURE(err, __free_pages(b, 0));
	CHECK_EQ(err, EINVAL);
	CHECK_EQ(_pp_bad_page_count(), 2);
	check_not_reused(b, 0);

	/* The count dropped by hand, then free_frozen_pages(). */
	c = page_pool_alloc_pages(pool0, GFP_KERNEL);
	CHECK(c != NULL);
	CHECK(page_ref_sub_and_test(c, 1));
	CAPTURE(err, free_frozen_pages(c, 0));
	CHECK_EQ(err, EINVAL);
	CHECK_EQ(_pp_bad_page_count(), 3);
	check_not_reused(c, 0);

	/* put_page() on a tail of a pool's compound block. */
	d = page_pool_alloc_pages(pool1, GFP_KERNEL);
	CHECK(d != NULL);
	CAPTURE(err, put_page(d + 1));
	CHECK_EQ(err, EINVAL);
	CHECK_EQ(_pp_bad_page_count(), 4);
	check_not_reused(d, 1);

	/* Not the last reference: nothing to report. Then the pool lets go
	 * of the page (a reference is still held), and the holder's last
	 * put_page() frees it. */
	e = page_pool_alloc_pages(pool0, GFP_KERNEL);
	CHECK(e != NULL);
	get_page(e);
	CAPTURE(err, put_page(e));
	CHECK_EQ(err, 0);
	CHECK_EQ(page_ref_count(e), 1);
	get_page(e);
	page_pool_put_full_page(pool0, e, false);
	CHECK(!is_pp(e));
	CHECK_EQ(page_ref_count(e), 1);
	CAPTURE(err, put_page(e));
	CHECK_EQ(err, 0);
	CHECK_EQ(page_ref_count(e), 0);
	CHECK_EQ(_pp_bad_page_count(), 4);

	close(saved_fd);
	CHECK_EQ(count_reports(cap_fd, "page_pool leak", a), 1);
	CHECK_EQ(count_reports(cap_fd, "page_pool leak", b), 1);
	CHECK_EQ(count_reports(cap_fd, "page_pool leak", c), 1);
	CHECK_EQ(count_reports(cap_fd, "page_pool leak", d), 1);
	CHECK_EQ(count_reports(cap_fd, "", e), 0);
	close(cap_fd);
	return T_EXIT_PASS;
}
