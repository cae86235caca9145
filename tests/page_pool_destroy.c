/* SPDX-License-Identifier: MIT */
/*
 * Copyright (c) 2026 The pagepool authors
 *
 * page_pool_destroy() lifecycle: an idle pool is freed at once; a pool with
 * pages in flight is kept until the last one comes back from another
 * thread, retried in the background, and meanwhile warns in the kernel's
 * words ("page_pool_release_retry() stalled pool shutdown: id N, M inflight
 * S sec"); pages returned after destroy go through the ring or straight
 * back to the allocator, never into the (disabled) alloc cache; a disconnect
 * callback run on the release thread may destroy another pool, which is
 * deferred in its turn. LSan checks that everything was freed.
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

/* The pool the first pool's disconnect destroys, and when it has. */
static struct page_pool *second_pool;
static int second_destroyed;

static void
destroy_second(void *pool)
{
	(void)pool;
	page_pool_destroy(second_pool);
	__atomic_store_n(&second_destroyed, 1, __ATOMIC_RELEASE);
}

/* The release thread frees the first pool and runs its disconnect, which
 * destroys a second pool with a page in flight: that pool is deferred on
 * the same list the thread is walking. With the list's lock held across
 * the callback, the thread deadlocks and the second pool never goes. */
static void
test_disconnect_destroys_another(void)
{
	struct page_pool *first = new_pool(5, 0);
	struct page *page1, *page2;
	int waited;

	second_pool = new_pool(5, 0);
	page1 = page_pool_alloc_pages(first, GFP_KERNEL);
	page2 = page_pool_alloc_pages(second_pool, GFP_KERNEL);
	CHECK(page1 != NULL && page2 != NULL);
	page_pool_use_xdp_mem(first, destroy_second, NULL);
	page_pool_destroy(first);	/* the memory model's reference */
	pp_test_watch_free(second_pool);

	page_pool_destroy(first);	/* deferred: page1 in flight */
	page_pool_put_full_page(first, page1, false);
	for (waited = 0;
	     !__atomic_load_n(&second_destroyed, __ATOMIC_ACQUIRE); waited++) {
		CHECK(waited < 5000);
		usleep(1000);
	}
	CHECK_EQ(pp_test_is_freed(), 0);	/* page2 still out */
	page_pool_put_full_page(second_pool, page2, false);
	pp_test_wait_freed(5000);
}

int
main(void)
{
	test_idle();
	test_deferred_with_warning();
	test_owner_puts_after_destroy();
	test_disconnect_destroys_another();
	return T_EXIT_PASS;
}
