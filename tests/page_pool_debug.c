/* SPDX-License-Identifier: MIT */
/*
 * Copyright (c) 2026 The pagepool authors
 *
 * page_pool debug checks (PP_DEBUG builds; skipped otherwise): a double
 * put, a put to the wrong pool, a page that never came from a pool, a
 * write to a page after it was returned, direct recycling outside the
 * owner thread and a destroy racing the owner are each detected, reported
 * with the page and the pool named, and counted; a misdirected put is
 * dropped, so the pool's state stays intact. A foreign page in a bulk put,
 * or a put to a NULL pool, has no pool to count on: it is counted in
 * page_pool_debug_errors(NULL).
 */
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <pagepool/page_pool.h>

#include "helpers.h"

static FILE *log_file;
static int saved_fd;

static void
capture_start(void)
{
	log_file = tmpfile();
	CHECK(log_file != NULL);
	fflush(stderr);
	saved_fd = dup(STDERR_FILENO);
	dup2(fileno(log_file), STDERR_FILENO);
}

/* Stop capturing; fail unless the log contains @want. */
static void
capture_expect(const char *want)
{
	char buf[4096];
	size_t len;

	fflush(stderr);
	dup2(saved_fd, STDERR_FILENO);
	close(saved_fd);
	rewind(log_file);
	len = fread(buf, 1, sizeof(buf) - 1, log_file);
	buf[len] = '\0';
	fclose(log_file);
	if (strstr(buf, want) == NULL) {
		fprintf(stderr, "want \"%s\" in \"%s\"\n", want, buf);
		CHECK(0);
	}
}

static struct page_pool *
new_pool(struct napi_struct *napi)
{
	struct page_pool_params pp = { .nid = NUMA_NO_NODE, .napi = napi };
	struct page_pool *pool = page_pool_create(&pp);

	CHECK(pool != NULL);
	return pool;
}

static struct page_pool *other_pool;
static struct page *other_page;

static void *
destroy_from_other_thread(void *arg)
{
	page_pool_destroy(arg);
	return NULL;
}

static void *
direct_from_other_thread(void *arg)
{
	page_pool_recycle_direct(other_pool, arg);
	return NULL;
}

int
main(void)
{
	struct page_pool *a, *b;
	struct napi_struct napi;
	struct page *p, *q, *plain;
	char want[160];
	pthread_t th;

	if (!PP_DEBUG) {
		/* The counters exist and stay 0; the checks are not built. */
		a = new_pool(NULL);
		p = page_pool_alloc_pages(a, GFP_KERNEL);
		CHECK(p != NULL);
		page_pool_put_full_page(a, p, false);
		CHECK_EQ(page_pool_debug_errors(a), 0);
		CHECK_EQ(page_pool_debug_errors(NULL), 0);
		page_pool_destroy(a);
		fprintf(stderr, "PP_DEBUG is off (meson -Ddebug_checks=false): "
				"the debug checks are not built; skipped\n");
		return T_EXIT_SKIP;
	}
	a = new_pool(NULL);
	b = new_pool(NULL);

	/* Double put: the second is reported and dropped. */
	p = page_pool_alloc_pages(a, GFP_KERNEL);
	page_pool_recycle_direct(a, p);
	capture_start();
	page_pool_recycle_direct(a, p);
	snprintf(want, sizeof(want),
		 "page_pool: id %u: double put (the page is already back): "
		 "page %p",
		 page_pool_id(a), (void *)p);
	capture_expect(want);
	CHECK_EQ(page_pool_debug_errors(a), 1);
	CHECK_EQ(a->alloc.count, 64);	/* not cached twice */

	/* Wrong pool. */
	q = page_pool_alloc_pages(b, GFP_KERNEL);
	capture_start();
	page_pool_put_full_page(a, q, false);
	snprintf(want, sizeof(want),
		 "page_pool: id %u: put of a page of pool %u: page %p",
		 page_pool_id(a), page_pool_id(b), (void *)q);
	capture_expect(want);
	CHECK_EQ(page_pool_debug_errors(a), 2);
	page_pool_recycle_direct(b, q);

	/* A page from the page allocator, not from a pool. */
	plain = alloc_pages(GFP_KERNEL, 0);
	CHECK(plain != NULL);
	capture_start();
	page_pool_put_full_page(a, plain, false);
	snprintf(want, sizeof(want),
		 "page_pool: id %u: put of a page that is not a page_pool "
		 "page: page %p",
		 page_pool_id(a), (void *)plain);
	capture_expect(want);

	/*
	 * The same page in a bulk put, which has no pool argument: named as
	 * a foreign page (not a "NULL pool"), counted among the errors that
	 * belong to no pool (page_pool_debug_errors(NULL)), and skipped
	 * while the pool pages around it are recycled.
	 */
	{
		uint64_t none = page_pool_debug_errors(NULL);
		struct page *bulk[3];

		bulk[0] = page_pool_alloc_pages(a, GFP_KERNEL);
		bulk[1] = plain;
		bulk[2] = page_pool_alloc_pages(a, GFP_KERNEL);
		q = bulk[2];
		p = bulk[0];
		capture_start();
		page_pool_put_page_bulk(bulk, 3);
		snprintf(want, sizeof(want),
			 "page_pool: bulk put of a page that is not a "
			 "page_pool page: page %p",
			 (void *)plain);
		capture_expect(want);
		CHECK_EQ(page_pool_debug_errors(NULL), none + 1);
		CHECK_EQ(page_pool_debug_errors(a), 3);
		CHECK_EQ(page_ref_count(plain), 1);
		/* Both pool pages went back (to the ring: no owner). */
		CHECK_EQ(pp_load_relaxed(&p->pp_ref_count), 0);
		CHECK_EQ(pp_load_relaxed(&q->pp_ref_count), 0);

		/* A put to a NULL pool is counted there too. */
		capture_start();
		page_pool_put_full_page(NULL, plain, false);
		snprintf(want, sizeof(want),
			 "page_pool: put to a NULL pool: page %p",
			 (void *)plain);
		capture_expect(want);
		CHECK_EQ(page_pool_debug_errors(NULL), none + 2);
	}
	__free_pages(plain, 0);

	/* Use after return: written after the put, caught when handed out. */
	p = page_pool_alloc_pages(a, GFP_KERNEL);
	page_pool_recycle_direct(a, p);
	((char *)page_address(p))[100] = 1;
	capture_start();
	CHECK(page_pool_alloc_pages(a, GFP_KERNEL) == p);
	snprintf(want, sizeof(want),
		 "page_pool: id %u: written after it was returned (first "
		 "change at offset 100): page %p",
		 page_pool_id(a), (void *)p);
	capture_expect(want);
	page_pool_recycle_direct(a, p);
	CHECK_EQ(page_pool_debug_errors(a), 4);

	/* Direct recycling from a thread that is not the owner. */
	page_pool_destroy(b);
	napi_init_current(&napi);
	b = new_pool(&napi);
	other_pool = b;
	other_page = page_pool_alloc_pages(b, GFP_KERNEL);
	capture_start();
	CHECK_EQ(pthread_create(&th, NULL, direct_from_other_thread,
				other_page),
		 0);
	CHECK_EQ(pthread_join(th, NULL), 0);
	capture_expect("direct recycle from a thread that is not the owner");
	CHECK_EQ(page_pool_debug_errors(b), 1);

	page_pool_disable_direct_recycling(b);
	page_pool_destroy(b);

	/* Destroyed by another thread while its owner still recycles. */
	b = new_pool(&napi);
	capture_start();
	CHECK_EQ(pthread_create(&th, NULL, destroy_from_other_thread, b), 0);
	CHECK_EQ(pthread_join(th, NULL), 0);
	capture_expect("destroyed from a thread that is not its owner while "
		       "direct recycling is on");

	page_pool_destroy(a);
	return T_EXIT_PASS;
}
