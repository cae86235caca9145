/* SPDX-License-Identifier: MIT */
/*
 * Copyright (c) 2026 The pagepool authors
 *
 * The return stash (src/net/core/page_pool_stash.c) racing with
 * page_pool_destroy(). A pool's owner (the main thread) hands pages to
 * returner threads, which return them from outside the owner, so through
 * their stashes, while the main thread destroys the pool; the stashes
 * flush when full, on pp_stash_flush(), at the returners' exit, and
 * destroy takes what is left in them. ASan reports any access to freed
 * pool memory, TSan any unsynchronised one, and every round checks that
 * the pool is freed (nothing stranded, nothing released twice: a negative
 * in-flight count is never freed).
 *
 * Mode "taken-locked" guards the rule that pages leave a stash only under
 * its lock: a returner's pp_stash_flush() sleeps (test delay point
 * PP_TP_STASH_TAKEN, -Dtest_hooks=true) after copying its stashed pages
 * out and before moving the slot's tail, while the main thread destroys
 * the pool. With the rule, destroy's takeover waits for the lock, finds
 * the slot empty and defers: the pages are in flight until the returner
 * produces them into the ring. Without it, destroy takes the same pages,
 * releases them, finds nothing in flight and frees the pool, and the
 * returner then produces into the freed pool's ring: a use after free
 * that the sanitizer builds report (a plain build writes freed memory
 * silently, so this mode is for them, which CI runs with the hooks).
 *
 * Without the hooks the undisturbed rounds run, then the test exits 77.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include <pagepool/page_pool.h>

#include "../src/lib/test_hooks.h"
#include "helpers.h"

#define NRET 2
#define PAGES 80		/* per returner: two full stashes and some */
#define DELAY_US 3000

struct round {
	struct page_pool *pool;
	struct page *pages[NRET][PAGES];
	int delayed;		/* returner 0 flushes with the delay armed */
	int go;
	int freed;
};

struct returner_arg {
	struct round *r;
	int id;
};

static void
on_free(void *pool)
{
	struct round *r = ((struct page_pool *)pool)->p.init_arg;

	/* R1: pairs with acquire A1 in wait_freed(). */
	__atomic_store_n(&r->freed, 1, __ATOMIC_RELEASE);
}

static void *
returner(void *arg)
{
	struct returner_arg *a = arg;
	struct round *r = a->r;
	int i, n = r->delayed ? 20 : PAGES;

	/* A2: pairs with release R2 in run_round(). */
	while (!__atomic_load_n(&r->go, __ATOMIC_ACQUIRE))
		sched_yield();
	for (i = 0; i < n; i++) {
		struct page *page = r->pages[a->id][i];

		if (i % 3 == 1)
			page_pool_put_page_bulk(&page, 1);
		else
			page_pool_put_full_page(r->pool, page, false);
		if (i % 11 == 0)
			sched_yield();
	}
	if (r->delayed) {
		CHECK(_pp_test_delay_self(PP_TP_STASH_TAKEN, DELAY_US) == 0);
		pp_stash_flush();
		CHECK(_pp_test_delay_self(PP_TP_STASH_TAKEN, 0) == 0);
	} else if (a->id == 0) {
		pp_stash_flush();
	}
	/* Returner 1 keeps its last pages stashed: its exit or destroy's
	 * takeover hands them on. */
	return NULL;
}

static void
wait_freed(struct round *r)
{
	int waited;

	/* A1: pairs with release R1 in on_free(). */
	for (waited = 0; !__atomic_load_n(&r->freed, __ATOMIC_ACQUIRE);
	     waited++) {
		/* Deferred retries run every millisecond; 10 s is a stuck
		 * page, not a slow machine. */
		CHECK(waited < 10000);
		usleep(1000);
	}
}

static void
run_round(int delayed)
{
	struct returner_arg args[NRET];
	pthread_t th[NRET];
	struct napi_struct napi;
	struct page_pool_params pp;
	struct round r;
	int i, j, nret = delayed ? 1 : NRET;
	unsigned long hits = _pp_test_delay_hits(PP_TP_STASH_TAKEN);

	memset(&r, 0, sizeof(r));
	r.delayed = delayed;
	napi_init_current(&napi);
	memset(&pp, 0, sizeof(pp));
	pp.nid = NUMA_NO_NODE;
	pp.napi = &napi;
	pp.defer_ms = 1;
	pp.init_arg = &r;
	r.pool = page_pool_create(&pp);
	CHECK(r.pool != NULL);
	/* The memory model's user: its destroy below is not the last. */
	page_pool_use_xdp_mem(r.pool, on_free, NULL);
	page_pool_destroy(r.pool);
	for (i = 0; i < nret; i++) {
		for (j = 0; j < PAGES; j++) {
			r.pages[i][j] = page_pool_alloc_pages(r.pool,
							      GFP_ATOMIC);
			CHECK(r.pages[i][j] != NULL);
		}
		args[i].r = &r;
		args[i].id = i;
		CHECK(pthread_create(&th[i], NULL, returner, &args[i]) == 0);
	}
	/* R2: pairs with acquire A2 in returner(). */
	__atomic_store_n(&r.go, 1, __ATOMIC_RELEASE);
	if (delayed) {
		/* Destroy while the returner sleeps with its pages taken
		 * out of the stash but the tail not moved. */
		while (_pp_test_delay_hits(PP_TP_STASH_TAKEN) == hits)
			usleep(100);
	} else {
		sched_yield();
	}
	/* The unreturned pages stay with the owner: give them back before
	 * the owner stops, as a driver's teardown does. */
	if (delayed)
		for (j = 20; j < PAGES; j++)
			page_pool_recycle_direct(r.pool, r.pages[0][j]);
	page_pool_disable_direct_recycling(r.pool);
	page_pool_destroy(r.pool);
	for (i = 0; i < nret; i++)
		CHECK(pthread_join(th[i], NULL) == 0);
	wait_freed(&r);
}

int
main(void)
{
	long rounds = t_scale(300), i;

	for (i = 0; i < rounds; i++)
		run_round(0);
	if (_pp_test_delay_self(PP_TP_STASH_TAKEN, 0) == -ENOSYS) {
		fprintf(stderr, "built without -Dtest_hooks=true: the "
			"taken-locked mode cannot run\n");
		return T_EXIT_SKIP;
	}
	for (i = 0; i < 20; i++)
		run_round(1);
	return T_EXIT_PASS;
}
