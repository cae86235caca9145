/* SPDX-License-Identifier: MIT */
/*
 * Copyright (c) 2026 The pagepool authors
 *
 * page_pool_destroy() lifecycle: an idle pool is freed at once; a pool with
 * pages in flight is kept until the last one comes back from another
 * thread, retried in the background, and meanwhile warns in the kernel's
 * words ("page_pool_release_retry() stalled pool shutdown: id N, M inflight
 * S sec"); pages returned after destroy go through the ring or straight
 * back to the allocator, never into the (disabled) alloc cache. LSan checks
 * that everything was freed.
 */
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <pagepool/page_pool.h>

#include "page_pool_helpers.h"

static struct page_pool *
new_pool(unsigned int defer_ms, unsigned int warn_ms)
{
	struct page_pool_params pp = {
		.pool_size = 256,
		.nid = NUMA_NO_NODE,
		.defer_ms = defer_ms,
		.defer_warn_ms = warn_ms,
	};
	struct page_pool *pool = page_pool_create(&pp);

	CHECK(pool != NULL);
	pp_test_watch_free(pool);
	return pool;
}

static void
test_idle(void)
{
	struct page_pool *pool = new_pool(0, 0);
	struct page *page = page_pool_alloc_pages(pool, GFP_KERNEL);

	page_pool_recycle_direct(pool, page);
	page_pool_destroy(pool);
	CHECK_EQ(pp_test_is_freed(), 1);	/* at once */
}

struct holder {
	struct page_pool *pool;
	struct page *pages[32];
	int n;
	int delay_ms;
};

static void *
returner(void *arg)
{
	struct holder *h = arg;
	int i;

	usleep((useconds_t)h->delay_ms * 1000);
	for (i = 0; i < h->n; i++)
		page_pool_put_full_page(h->pool, h->pages[i], false);
	return NULL;
}

static void
test_deferred_with_warning(void)
{
	struct page_pool *pool = new_pool(5, 20);
	struct holder h = { .pool = pool, .n = 32, .delay_ms = 120 };
	char buf[4096], want[128];
	FILE *log = tmpfile();
	int saved, i;
	pthread_t th;
	ssize_t len;

	CHECK(log != NULL);
	for (i = 0; i < h.n; i++)
		h.pages[i] = page_pool_alloc_pages(pool, GFP_KERNEL);
	snprintf(want, sizeof(want),
		 "page_pool_release_retry() stalled pool shutdown: id %u, 32 "
		 "inflight 0 sec",
		 page_pool_id(pool));

	fflush(stderr);
	saved = dup(STDERR_FILENO);
	dup2(fileno(log), STDERR_FILENO);
	CHECK_EQ(pthread_create(&th, NULL, returner, &h), 0);
	page_pool_destroy(pool);
	CHECK_EQ(pp_test_is_freed(), 0);	/* 32 held */
	CHECK_EQ(pthread_join(th, NULL), 0);
	pp_test_wait_freed(5000);
	fflush(stderr);
	dup2(saved, STDERR_FILENO);
	close(saved);

	rewind(log);
	len = (ssize_t)fread(buf, 1, sizeof(buf) - 1, log);
	buf[len > 0 ? len : 0] = '\0';
	fclose(log);
	if (strstr(buf, want) == NULL) {
		fprintf(stderr, "want \"%s\" in:\n%s\n", want, buf);
		CHECK(0);
	}
}

static void
test_owner_puts_after_destroy(void)
{
	struct page_pool *pool;
	struct napi_struct napi;
	struct page *page;
	struct page_pool_params pp = {
		.nid = NUMA_NO_NODE,
		.napi = &napi,
		.defer_ms = 5,
	};

	napi_init_current(&napi);
	pool = page_pool_create(&pp);
	CHECK(pool != NULL);
	pp_test_watch_free(pool);
	page = page_pool_alloc_pages(pool, GFP_KERNEL);
	page_pool_destroy(pool);
	/* Direct recycling is off now: the put goes to the ring, and the
	 * retry releases it from there. */
	page_pool_put_full_page(pool, page, false);
	pp_test_wait_freed(5000);
}

int
main(void)
{
	test_idle();
	test_deferred_with_warning();
	test_owner_puts_after_destroy();
	return T_EXIT_PASS;
}
