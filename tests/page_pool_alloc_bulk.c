/* SPDX-License-Identifier: MIT */
/*
 * Copyright (c) 2026 The pagepool authors
 *
 * page_pool_alloc_pages_bulk(): bad input, a request the alloc cache
 * covers, one that drains it and refills from the ring and from the page
 * allocator, distinct valid pages every time, the fast statistic counting
 * each page, ENOMEM with a partial result, and the round trip with
 * page_pool_put_page_bulk(): n = 0, more pages than the alloc cache has
 * room for, pages the owner's direct run must stop at (another pool's, a
 * NULL entry, a pfmemalloc page, a tail page), a batch of 32 with one
 * bad page in the middle (through the header's inline path and through
 * the exported function: the batch loses its one-copy fast path, every
 * other page still goes into the cache in order, the bad one where a
 * single put would send it), and a non-owner's bulk return.
 */
#include <errno.h>
#include <pthread.h>
#include <string.h>

#include <pagepool/fault.h>
#include <pagepool/page_pool.h>

#include "helpers.h"
#include "page_pool_helpers.h"

#define N 300

static void
check_distinct(struct page_pool *pool, struct page **pages, unsigned int n)
{
	unsigned int i, j;

	for (i = 0; i < n; i++) {
		CHECK(pages[i] != NULL);
		CHECK(pages[i]->pp == pool);
		CHECK_EQ(page_ref_count(pages[i]), 1);
		for (j = 0; j < i; j++)
			CHECK(pages[i] != pages[j]);
	}
}

/* n = 0 on both sides: nothing taken, nothing counted, errno kept. */
static void
test_zero(void)
{
	struct napi_struct napi;
	struct page_pool *pool = pp_test_owned_pool(&napi, 256, 0);
	struct page *pages[1] = { NULL };
	struct page_pool_stats st = pp_test_stats(pool);

	errno = 0;
	CHECK_EQ(page_pool_alloc_pages_bulk(pool, GFP_ATOMIC, pages, 0), 0);
	CHECK_EQ(errno, 0);
	CHECK(pages[0] == NULL);
	page_pool_put_page_bulk(pages, 0);
	page_pool_put_page_bulk(NULL, 0);
	CHECK_EQ(pp_test_stats(pool).alloc_stats.fast, st.alloc_stats.fast);
	CHECK_EQ(pp_test_stats(pool).alloc_stats.slow, st.alloc_stats.slow);
	CHECK_EQ(pp_test_stats(pool).recycle_stats.cached,
		 st.recycle_stats.cached);
	CHECK_EQ(pp_test_stats(pool).recycle_stats.ring,
		 st.recycle_stats.ring);
	pp_test_destroy_owned(pool);
}

/* The owner returns more than the alloc cache has room for: the cache is
 * filled, the rest goes to the ring (cache_full counted per page, as
 * single direct puts count it). */
static void
test_beyond_cache(void)
{
	struct napi_struct napi;
	struct page_pool *pool = pp_test_owned_pool(&napi, 256, 0);
	struct page *pages[N];
	struct page_pool_stats st;
	unsigned int room;

	CHECK_EQ(page_pool_alloc_pages_bulk(pool, GFP_ATOMIC, pages, 200),
		 200);
	room = PP_ALLOC_CACHE_SIZE - pool->alloc.count;
	CHECK(room < 200);
	st = pp_test_stats(pool);
	page_pool_put_page_bulk(pages, 200);
	CHECK_EQ(pool->alloc.count, PP_ALLOC_CACHE_SIZE);
	CHECK_EQ(pp_test_stats(pool).recycle_stats.cached,
		 st.recycle_stats.cached + room);
	CHECK_EQ(pp_test_stats(pool).recycle_stats.ring,
		 st.recycle_stats.ring + (200 - room));
	/* All 200 come back: the cache, then the ring. */
	CHECK_EQ(page_pool_alloc_pages_bulk(pool, GFP_ATOMIC, pages, 200),
		 200);
	check_distinct(pool, pages, 200);
	CHECK_EQ(pp_test_stats(pool).alloc_stats.slow,
		 st.alloc_stats.slow);
	page_pool_put_page_bulk(pages, 200);
	pp_test_destroy_owned(pool);
}

/* Pages the owner's direct run must stop at, in the middle of a batch:
 * every page still ends where a single put would put it. */
static void
test_mixed(void)
{
	struct napi_struct napi;
	struct page_pool *a = pp_test_owned_pool(&napi, 256, 0);
	struct page_pool *big = pp_test_owned_pool(&napi, 256, 1);
	struct page_pool *other;
	struct page *pages[16], *pf, *head;
	struct page_pool_stats sa, so, sb;
	unsigned int i;

	/* An ownerless pool: its pages go to its ring. */
	other = pp_test_ownerless_pool();

	CHECK_EQ(page_pool_alloc_pages_bulk(a, GFP_ATOMIC, pages, 6), 6);
	pages[6] = page_pool_alloc_pages(other, GFP_ATOMIC);
	pages[7] = NULL;
	CHECK_EQ(page_pool_alloc_pages_bulk(a, GFP_ATOMIC, pages + 8, 4), 4);
	/* Inside the first run, so the direct path meets it itself. */
	pf = pages[3];
	set_page_pfmemalloc(pf);
	head = page_pool_alloc_pages(big, GFP_ATOMIC);
	CHECK(head != NULL);
	pages[12] = head + 1;	/* a tail page of an order-1 block */
	CHECK(pages[6] != NULL);
	sa = pp_test_stats(a);
	so = pp_test_stats(other);
	sb = pp_test_stats(big);
	page_pool_put_page_bulk(pages, 13);
	/* a: 9 cached (pages 0..2, 4, 5, 8..11), the pfmemalloc one
	 * released. */
	CHECK_EQ(pp_test_stats(a).recycle_stats.cached,
		 sa.recycle_stats.cached + 9);
	CHECK_EQ(pp_test_stats(a).recycle_stats.released_refcnt,
		 sa.recycle_stats.released_refcnt + 1);
	CHECK(pf->pp == NULL);
	/* other: to its ring. */
	CHECK_EQ(pp_test_stats(other).recycle_stats.ring,
		 so.recycle_stats.ring + 1);
	/* big: the tail page returned its block to the owner's cache. */
	CHECK_EQ(pp_test_stats(big).recycle_stats.cached,
		 sb.recycle_stats.cached + 1);
	for (i = 0; i < 6; i++)
		if (i != 3)
			CHECK_EQ(page_ref_count(pages[i]), 1);
	pp_test_destroy_owned(a);
	pp_test_destroy_owned(big);
	page_pool_destroy(other);
}

/* What is wrong with the page in the middle of test_bad_middle()'s batch. */
enum bad_kind {
	BAD_NONE,	/* none: the whole batch takes the fast path */
	BAD_REFCOUNT,	/* another page reference (get_page()) */
	BAD_FRAG,	/* another pool reference (a fragment holder) */
	BAD_FOREIGN,	/* a page that never came from a pool */
	BAD_PFMEMALLOC,	/* from emergency reserves */
	BAD_OTHER_POOL,	/* a page of another (ownerless) pool */
	BAD_NULL,	/* a NULL entry */
	BAD_KINDS,
};

#define BATCH 32
#define MID 16

/*
 * A batch of 32 of the owner's pages with one bad entry at 16. The 31
 * others must all be in the alloc cache afterwards, in batch order, on
 * top of what it held; the bad one goes where a single put sends it; the
 * pool's in-flight count says nothing was lost. @outline calls the
 * exported function rather than the header's inline path.
 */
static void
test_bad_middle(enum bad_kind kind, bool outline)
{
	struct napi_struct napi;
	struct page_pool *pool = pp_test_owned_pool(&napi, 256, 0);
	struct page_pool *other;
	struct page *pages[BATCH], *copy[BATCH], *bad = NULL, *own_mid;
	struct page_pool_stats st, so;
	unsigned int i, k, c0, good = BATCH - 1;
	int inflight;

	other = pp_test_ownerless_pool();

	CHECK_EQ(page_pool_alloc_pages_bulk(pool, GFP_ATOMIC, pages, BATCH),
		 BATCH);
	own_mid = pages[MID];
	switch (kind) {
	case BAD_NONE:
		good = BATCH;
		break;
	case BAD_REFCOUNT:
		get_page(own_mid);
		break;
	case BAD_FRAG:
		page_pool_fragment_page(own_mid, 2);
		break;
	case BAD_FOREIGN:
		bad = alloc_pages(GFP_ATOMIC, 0);
		CHECK(bad != NULL);
		pages[MID] = bad;
		break;
	case BAD_PFMEMALLOC:
		set_page_pfmemalloc(own_mid);
		break;
	case BAD_OTHER_POOL:
		bad = page_pool_alloc_pages(other, GFP_ATOMIC);
		CHECK(bad != NULL);
		pages[MID] = bad;
		break;
	case BAD_NULL:
		pages[MID] = NULL;
		break;
	default:
		CHECK(0);
	}
	memcpy(copy, pages, sizeof(pages));
	c0 = pool->alloc.count;
	st = pp_test_stats(pool);
	so = pp_test_stats(other);
	inflight = page_pool_inflight(pool);
	errno = 0;
	if (outline)
		(page_pool_put_page_bulk)(pages, BATCH);
	else
		page_pool_put_page_bulk(pages, BATCH);

	/* Every good page in the cache, in order, above what was there. */
	CHECK_EQ(pool->alloc.count, c0 + good);
	for (i = 0, k = c0; i < BATCH; i++) {
		if (i == MID && kind != BAD_NONE)
			continue;
		CHECK(pool->alloc.cache[k] == copy[i]);
		k++;
	}
	CHECK_EQ(pp_test_stats(pool).recycle_stats.cached,
		 st.recycle_stats.cached + good);

	/*
	 * Nothing lost: the pool's in-flight count (pages taken from the
	 * page allocator and not given back) drops only by the pages a
	 * single put would release; every other page is in the cache, in
	 * the other pool's ring, or still held here.
	 */
	switch (kind) {
	case BAD_NONE:
		CHECK_EQ(page_pool_inflight(pool), inflight);
		break;
	case BAD_REFCOUNT:
		/* Released to its last holder, as a single put does. */
		CHECK_EQ(pp_test_stats(pool).recycle_stats.released_refcnt,
			 st.recycle_stats.released_refcnt + 1);
		CHECK(own_mid->pp == NULL);
		CHECK_EQ(page_ref_count(own_mid), 1);
		CHECK_EQ(page_pool_inflight(pool), inflight - 1);
		put_page(own_mid);
		break;
	case BAD_FRAG:
		/* One pool reference dropped, the holder's left: still out. */
		CHECK(own_mid->pp == pool);
		CHECK_EQ(own_mid->pp_ref_count, 1);
		CHECK_EQ(page_pool_inflight(pool), inflight);
		page_pool_put_full_page(pool, own_mid, true);
		CHECK_EQ(pool->alloc.count, c0 + good + 1);
		CHECK(pool->alloc.cache[c0 + good] == own_mid);
		CHECK_EQ(page_pool_inflight(pool), inflight);
		break;
	case BAD_FOREIGN:
		/* Skipped, untouched, EINVAL. */
		CHECK_EQ(errno, EINVAL);
		CHECK_EQ(page_ref_count(bad), 1);
		CHECK((bad->pp_magic & PP_MAGIC_MASK) != PP_SIGNATURE);
		__free_pages(bad, 0);
		page_pool_put_full_page(pool, own_mid, true);
		CHECK_EQ(pool->alloc.count, c0 + good + 1);
		CHECK_EQ(page_pool_inflight(pool), inflight);
		break;
	case BAD_PFMEMALLOC:
		CHECK_EQ(pp_test_stats(pool).recycle_stats.released_refcnt,
			 st.recycle_stats.released_refcnt + 1);
		CHECK(own_mid->pp == NULL);
		CHECK_EQ(page_pool_inflight(pool), inflight - 1);
		break;
	case BAD_OTHER_POOL:
		/* To its own pool's ring. */
		CHECK_EQ(pp_test_stats(other).recycle_stats.ring,
			 so.recycle_stats.ring + 1);
		page_pool_put_full_page(pool, own_mid, true);
		CHECK_EQ(pool->alloc.count, c0 + good + 1);
		CHECK_EQ(page_pool_inflight(pool), inflight);
		break;
	case BAD_NULL:
		page_pool_put_full_page(pool, own_mid, true);
		CHECK_EQ(pool->alloc.count, c0 + good + 1);
		CHECK_EQ(page_pool_inflight(pool), inflight);
		break;
	default:
		CHECK(0);
	}
	pp_test_destroy_owned(pool);
	page_pool_destroy(other);
}

/*
 * A fragment holder on another thread drops its pool reference to the
 * page in the middle of a batch while the owner returns the batch: the
 * batch test's acquire load of pp_ref_count must order the holder's
 * write to the page (before its drop) before the owner's next use of the
 * page, whichever of the two drops last. In odd rounds the owner first
 * waits, with relaxed loads that order nothing, until the holder has
 * dropped, so that only the batch test's load can order the two writes
 * (TSan reports the race if it is relaxed); in even rounds the two race.
 * The counts check that no page is lost or released.
 */
struct holder {
	struct page_pool *pool;
	struct page *page;
};

static void *
holder_drop(void *arg)
{
	struct holder *h = arg;

	/* Plain write: published by the release half of the drop. */
	((unsigned char *)page_address(h->page))[100] = 0x5a;
	page_pool_put_full_page(h->pool, h->page, false);
	return NULL;
}

static void
touch_all(struct page **pages, unsigned int n)
{
	unsigned int k;

	for (k = 0; k < n; k++)
		((unsigned char *)page_address(pages[k]))[100] =
			(unsigned char)k;
}

static void
test_frag_race(unsigned int rounds)
{
	struct napi_struct napi;
	struct page_pool *pool = pp_test_owned_pool(&napi, 256, 0);
	struct page *pages[BATCH];
	struct holder h = { pool, NULL };
	unsigned int r;
	int inflight = -1;
	pthread_t t;

	for (r = 0; r < rounds; r++) {
		CHECK_EQ(page_pool_alloc_pages_bulk(pool, GFP_ATOMIC, pages,
						    BATCH),
			 BATCH);
		touch_all(pages, BATCH);
		if (inflight < 0)
			inflight = page_pool_inflight(pool);
		h.page = pages[MID];
		page_pool_fragment_page(h.page, 2);
		CHECK_EQ(pthread_create(&t, NULL, holder_drop, &h), 0);
		if (r & 1)
			while (__atomic_load_n(&h.page->pp_ref_count,
					       __ATOMIC_RELAXED) != 1)
				;
		page_pool_put_page_bulk(pages, BATCH);
		/* The owner's next use of what it got back, before the
		 * join could order anything. */
		CHECK_EQ(page_pool_alloc_pages_bulk(pool, GFP_ATOMIC, pages,
						    BATCH),
			 BATCH);
		touch_all(pages, BATCH);
		page_pool_put_page_bulk(pages, BATCH);
		CHECK_EQ(pthread_join(t, NULL), 0);
		/* Nothing released: every page is in the cache or, when the
		 * holder dropped last, on its way through the ring. */
		CHECK_EQ(page_pool_inflight(pool), inflight);
	}
	pp_test_destroy_owned(pool);
}

struct remote {
	struct page **pages;
	unsigned int n;
};

static void *
remote_put(void *arg)
{
	struct remote *r = arg;

	page_pool_put_page_bulk(r->pages, r->n);
	/* The thread's stash is flushed when it exits; flush now as well,
	 * so the counts below do not depend on that. */
	pp_stash_flush();
	return NULL;
}

/* Another thread returns a batch of the owner's pages: none goes into
 * the alloc cache (only the owner touches it), all reach the ring, and
 * the owner allocates them again from there. */
static void
test_non_owner(void)
{
	struct napi_struct napi;
	struct page_pool *pool = pp_test_owned_pool(&napi, 256, 0);
	struct page *pages[64];
	struct remote r = { pages, 64 };
	struct page_pool_stats st;
	uint32_t count;
	pthread_t t;

	CHECK_EQ(page_pool_alloc_pages_bulk(pool, GFP_ATOMIC, pages, 64), 64);
	count = pool->alloc.count;
	st = pp_test_stats(pool);
	CHECK_EQ(pthread_create(&t, NULL, remote_put, &r), 0);
	CHECK_EQ(pthread_join(t, NULL), 0);
	CHECK_EQ(pool->alloc.count, count);
	CHECK_EQ(pp_test_stats(pool).recycle_stats.cached,
		 st.recycle_stats.cached);
	CHECK_EQ(pp_test_stats(pool).recycle_stats.ring,
		 st.recycle_stats.ring + 64);
	CHECK_EQ(page_pool_alloc_pages_bulk(pool, GFP_ATOMIC, pages, 64), 64);
	check_distinct(pool, pages, 64);
	CHECK_EQ(pp_test_stats(pool).alloc_stats.slow, st.alloc_stats.slow);
	page_pool_put_page_bulk(pages, 64);
	pp_test_destroy_owned(pool);
}

int
main(void)
{
	struct napi_struct napi;
	struct page_pool *pool;
	struct page *pages[N], *one;
	struct page_pool_stats st;
	unsigned int got, k;

	errno = 0;
	CHECK_EQ(page_pool_alloc_pages_bulk(NULL, GFP_ATOMIC, pages, 1), 0);
	CHECK_EQ(errno, EINVAL);

	pool = pp_test_owned_pool(&napi, 256, 0);

	errno = 0;
	CHECK_EQ(page_pool_alloc_pages_bulk(pool, GFP_ATOMIC, NULL, 1), 0);
	CHECK_EQ(errno, EINVAL);
	CHECK_EQ(page_pool_alloc_pages_bulk(pool, GFP_ATOMIC, NULL, 0), 0);

	/* First call: the cache is empty, the page allocator fills it. */
	got = page_pool_alloc_pages_bulk(pool, GFP_ATOMIC, pages, 40);
	CHECK_EQ(got, 40);
	check_distinct(pool, pages, 40);
	st = pp_test_stats(pool);
	CHECK_EQ(st.alloc_stats.slow, 1);
	/* One page came with the refill, 39 straight from the cache. */
	CHECK_EQ(st.alloc_stats.fast, 39);

	/* Back into the cache (the owner: direct), then out again: all
	 * from the cache, the same pages. */
	page_pool_put_page_bulk(pages, 40);
	got = page_pool_alloc_pages_bulk(pool, GFP_ATOMIC, pages, 64);
	CHECK_EQ(got, 64);
	check_distinct(pool, pages, 64);
	CHECK_EQ(pp_test_stats(pool).alloc_stats.slow, 1);
	CHECK_EQ(pp_test_stats(pool).alloc_stats.fast, 39 + 64);

	/* More than the cache holds: refills on the way. */
	got = page_pool_alloc_pages_bulk(pool, GFP_ATOMIC, pages + 64,
					 N - 64);
	CHECK_EQ(got, N - 64);
	check_distinct(pool, pages, N);
	page_pool_put_page_bulk(pages, N);

	/* Interleaved with single allocations. */
	one = page_pool_alloc_pages(pool, GFP_ATOMIC);
	CHECK(one != NULL);
	got = page_pool_alloc_pages_bulk(pool, GFP_ATOMIC, pages, 10);
	CHECK_EQ(got, 10);
	pages[10] = one;
	check_distinct(pool, pages, 11);
	page_pool_put_page_bulk(pages, 11);

	got = page_pool_alloc_pages_bulk(pool, GFP_ATOMIC, pages, N);
	CHECK_EQ(got, N);
	page_pool_put_page_bulk(pages, N);

	/* The owner's bulk return stops its direct run at a page someone
	 * else still references: that one is released, the others cached. */
	got = page_pool_alloc_pages_bulk(pool, GFP_ATOMIC, pages, 10);
	CHECK_EQ(got, 10);
	one = pages[5];
	get_page(one);
	st = pp_test_stats(pool);
	page_pool_put_page_bulk(pages, 10);
	CHECK_EQ(pp_test_stats(pool).recycle_stats.cached,
		 st.recycle_stats.cached + 9);
	CHECK_EQ(pp_test_stats(pool).recycle_stats.released_refcnt,
		 st.recycle_stats.released_refcnt + 1);
	CHECK(one->pp == NULL);
	put_page(one);
	pp_test_destroy_owned(pool);

	/* Page allocator failure after the cache: a partial result. */
	pool = pp_test_ownerless_pool();
	got = page_pool_alloc_pages_bulk(pool, GFP_ATOMIC, pages, 10);
	CHECK_EQ(got, 10);
	/* The cache holds 54; fail every page allocator call after. */
	pp_fault_inject_alloc(0, -1);
	errno = 0;
	got = page_pool_alloc_pages_bulk(pool, GFP_ATOMIC, pages + 10, 100);
	pp_fault_inject_alloc(-1, 0);
	CHECK_EQ(got, 54);
	CHECK_EQ(errno, ENOMEM);
	check_distinct(pool, pages, 64);
	page_pool_put_page_bulk(pages, 64);
	page_pool_destroy(pool);

	test_zero();
	test_beyond_cache();
	test_mixed();
	test_non_owner();
	for (k = BAD_NONE; k < BAD_KINDS; k++) {
		test_bad_middle((enum bad_kind)k, false);
		test_bad_middle((enum bad_kind)k, true);
	}
	test_frag_race((unsigned int)t_scale(1000));
	return T_EXIT_PASS;
}
