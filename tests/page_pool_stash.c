/* SPDX-License-Identifier: MIT */
/*
 * Copyright (c) 2026 The pagepool authors
 *
 * The return stash's flush rules (src/net/core/page_pool_stash.c), each
 * checked deterministically with one returning thread B and the pool's
 * owner A (the main thread):
 *   - fewer than a full stash stays stashed, in flight and out of the ring;
 *   - a full stash (32 pages) reaches the ring in one section;
 *   - a small ring flushes at a quarter of its size;
 *   - B's exit flushes what it stashed;
 *   - pp_stash_flush() flushes at once;
 *   - a fifth pool flushes the oldest of B's four stashes;
 *   - destroy takes the pages of a B that stays alive and idle, so the
 *     pool is freed inside page_pool_destroy() (not deferred);
 *   - a pool without an owner gets its returns in the ring at once.
 * Rules 1 to 5 hold as well when B returns its pages with one
 * page_pool_put_page_bulk() (a non-owner's whole batch goes to its stash
 * at once), and a batch with a page B does not hold alone, or of another
 * pool, still stashes every page it may and releases the rest.
 */
#include <pthread.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include <pagepool/page_pool.h>

#include "helpers.h"
#include "page_pool_helpers.h"

#define STASH 32

struct job {
	struct page_pool *pools[5];
	unsigned int npools;
	struct page **pages;
	unsigned int n;
	int flush;		/* call pp_stash_flush() after the puts */
	int stay;		/* wait for the main thread before exiting */
	int bulk;		/* one page_pool_put_page_bulk() of them all */
	int returned;		/* B is done returning (B writes) */
	int release;		/* B may exit (A writes) */
};

static void *
returner(void *arg)
{
	struct job *j = arg;
	unsigned int i;

	if (j->bulk)
		page_pool_put_page_bulk(j->pages, j->n);
	else
		for (i = 0; i < j->n; i++)
			page_pool_put_full_page(j->pages[i]->pp, j->pages[i],
						false);
	if (j->flush)
		pp_stash_flush();
	/* R1: pairs with acquire A1 in wait_returned(). */
	__atomic_store_n(&j->returned, 1, __ATOMIC_RELEASE);
	/* A2: pairs with release R2 in let_go(). */
	while (j->stay && !__atomic_load_n(&j->release, __ATOMIC_ACQUIRE))
		usleep(100);
	return NULL;
}

static void
wait_returned(struct job *j)
{
	/* A1: pairs with release R1 in returner(). */
	while (!__atomic_load_n(&j->returned, __ATOMIC_ACQUIRE))
		usleep(100);
}

static void
let_go(struct job *j)
{
	/* R2: pairs with acquire A2 in returner(). */
	__atomic_store_n(&j->release, 1, __ATOMIC_RELEASE);
}

static uint64_t
ring_count(struct page_pool *pool)
{
	return pp_test_stats(pool).recycle_stats.ring;
}

/* A allocates @n pages of @pool into @pages. */
static void
alloc_n(struct page_pool *pool, struct page **pages, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		pages[i] = page_pool_alloc_pages(pool, GFP_ATOMIC);
		CHECK(pages[i] != NULL);
	}
}

static void
run(struct job *j, pthread_t *th)
{
	CHECK(pthread_create(th, NULL, returner, j) == 0);
	wait_returned(j);
}

/* B's returns: single puts (0) or one bulk put per batch (1). */
static int use_bulk;

/* Rules 1 to 5 on one pool of ring size @ring, flushing at @cap. */
static void
test_counts(unsigned int ring, unsigned int cap)
{
	struct napi_struct napi;
	struct page *pages[STASH + 8];
	struct page_pool *pool;
	struct job j;
	pthread_t th;
	uint64_t base;

	pool = pp_test_owned_pool(&napi, ring, 0);

	/* cap - 1 pages: stashed, in flight, not in the ring. */
	alloc_n(pool, pages, cap - 1);
	memset(&j, 0, sizeof(j));
	j.pages = pages;
	j.n = cap - 1;
	j.stay = 1;
	j.bulk = use_bulk;
	base = ring_count(pool);
	run(&j, &th);
	CHECK_EQ(ring_count(pool), base);
	/* B's exit flushes them. */
	let_go(&j);
	CHECK(pthread_join(th, NULL) == 0);
	CHECK_EQ(ring_count(pool), base + cap - 1);

	/* cap pages: the stash fills and reaches the ring while B lives. */
	alloc_n(pool, pages, cap);
	memset(&j, 0, sizeof(j));
	j.pages = pages;
	j.n = cap;
	j.stay = 1;
	j.bulk = use_bulk;
	base = ring_count(pool);
	run(&j, &th);
	CHECK_EQ(ring_count(pool), base + cap);
	let_go(&j);
	CHECK(pthread_join(th, NULL) == 0);

	/* pp_stash_flush(): at once, B still alive. */
	alloc_n(pool, pages, 3);
	memset(&j, 0, sizeof(j));
	j.pages = pages;
	j.n = 3;
	j.stay = 1;
	j.flush = 1;
	j.bulk = use_bulk;
	base = ring_count(pool);
	run(&j, &th);
	CHECK_EQ(ring_count(pool), base + 3);
	let_go(&j);
	CHECK(pthread_join(th, NULL) == 0);

	page_pool_destroy(pool);
}

/* A fifth pool takes the oldest stash, whose pages reach their ring. */
static void
test_evict(void)
{
	struct napi_struct napi;
	struct page *pages[5];
	struct job j;
	pthread_t th;
	unsigned int i;

	memset(&j, 0, sizeof(j));
	for (i = 0; i < 5; i++) {
		j.pools[i] = pp_test_owned_pool(&napi, 0, 0);
		alloc_n(j.pools[i], &pages[i], 1);
	}
	j.pages = pages;
	j.n = 5;
	j.stay = 1;
	run(&j, &th);
	CHECK_EQ(ring_count(j.pools[0]), 1);
	for (i = 1; i < 5; i++)
		CHECK_EQ(ring_count(j.pools[i]), 0);
	let_go(&j);
	CHECK(pthread_join(th, NULL) == 0);
	for (i = 0; i < 5; i++) {
		CHECK_EQ(ring_count(j.pools[i]), 1);
		page_pool_destroy(j.pools[i]);
	}
}

/* Destroy with pages in an idle thread's stash: taken, pool freed now. */
static void
test_destroy_takes(void)
{
	struct napi_struct napi;
	struct page *pages[STASH];
	struct page_pool *pool;
	struct job j;
	pthread_t th;

	pool = pp_test_owned_pool(&napi, 0, 0);
	pp_test_watch_free(pool);
	alloc_n(pool, pages, 5);
	memset(&j, 0, sizeof(j));
	j.pages = pages;
	j.n = 5;
	j.stay = 1;
	run(&j, &th);
	CHECK_EQ(ring_count(pool), 0);
	page_pool_disable_direct_recycling(pool);
	page_pool_destroy(pool);
	/* Freed inside destroy: nothing was left in flight. */
	CHECK(pp_test_is_freed());
	/* B exits with an empty stash whose key is the freed pool: its
	 * exit flush must not follow it (ASan/TSan would say). */
	let_go(&j);
	CHECK(pthread_join(th, NULL) == 0);
}

/* No owner: returns from any thread go to the ring at once. */
static void
test_ownerless(void)
{
	struct page *pages[3];
	struct page_pool *pool;
	struct job j;
	pthread_t th;

	pool = pp_test_ownerless_pool();
	alloc_n(pool, pages, 3);
	memset(&j, 0, sizeof(j));
	j.pages = pages;
	j.n = 3;
	j.stay = 1;
	run(&j, &th);
	CHECK_EQ(ring_count(pool), 3);
	let_go(&j);
	CHECK(pthread_join(th, NULL) == 0);
	page_pool_destroy(pool);
}

/*
 * B's bulk put of a batch it may not stash whole: a page with a second
 * page reference (an skb's get_page()) and a page of another pool. Every
 * page it holds alone reaches its pool's stash; the doubly held one is
 * released (its reference dropped, the page not recycled) and still
 * counts once in flight until A drops the other reference.
 */
static void
test_bulk_mixed(void)
{
	struct napi_struct napi;
	struct page *pages[6], *extra;
	struct page_pool *pool, *other;
	struct job j;
	pthread_t th;

	pool = pp_test_owned_pool(&napi, 0, 0);
	other = pp_test_owned_pool(&napi, 0, 0);
	alloc_n(pool, pages, 4);
	extra = pages[2];
	get_page(extra);
	pages[4] = page_pool_alloc_pages(other, GFP_ATOMIC);
	CHECK(pages[4] != NULL);
	pages[5] = page_pool_alloc_pages(pool, GFP_ATOMIC);
	CHECK(pages[5] != NULL);
	memset(&j, 0, sizeof(j));
	j.pages = pages;
	j.n = 6;
	j.stay = 1;
	j.bulk = 1;
	run(&j, &th);
	/* Stashed, not in the ring yet; the doubly held page not at all. */
	CHECK_EQ(ring_count(pool), 0);
	CHECK_EQ(ring_count(other), 0);
	let_go(&j);
	CHECK(pthread_join(th, NULL) == 0);
	CHECK_EQ(ring_count(pool), 4);
	CHECK_EQ(ring_count(other), 1);
	CHECK_EQ(pp_test_stats(pool).recycle_stats.released_refcnt, 1);
	put_page(extra);
	page_pool_destroy(other);
	page_pool_destroy(pool);
}

int
main(void)
{
	test_counts(0, STASH);
	/* A ring of 64 flushes at 16. */
	test_counts(64, 16);
	test_evict();
	test_destroy_takes();
	test_ownerless();
	use_bulk = 1;
	test_counts(0, STASH);
	test_counts(64, 16);
	test_bulk_mixed();
	return T_EXIT_PASS;
}
