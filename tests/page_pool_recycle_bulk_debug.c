/* SPDX-License-Identifier: MIT */
/*
 * Copyright (c) 2026 The pagepool authors
 *
 * page_pool_recycle_direct_bulk() in debug builds (PP_DEBUG; skipped
 * otherwise): every page is tested as page_pool_put_page_bulk() tests it,
 * and a page that breaks the trusted contract is reported with the page
 * and the pool named, counted in page_pool_debug_errors(), and never
 * recycled into the cache: a page with another page reference (released,
 * as a single put releases it), another pool's page (to its own pool), a
 * page with another pool reference (left to its other holder), a page
 * that never came from a pool (untouched, EINVAL), a page already back
 * (dropped) and a NULL entry. The batch's good pages still come home; a
 * clean batch is poisoned and marked free as single recycles are.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <pagepool/page_pool.h>

#include "page_pool_helpers.h"

#define BATCH 8
#define MID 3

enum bad_kind {
	BAD_REFCOUNT,
	BAD_OTHER_POOL,
	BAD_FRAG,
	BAD_FOREIGN,
	BAD_DOUBLE,
	BAD_NULL,
	BAD_KINDS,
};

/* A batch of the owner's pages with one bad entry at MID. */
static void
test_bad(enum bad_kind kind)
{
	struct napi_struct napi;
	struct page_pool *pool = pp_test_owned_pool(&napi, 0, 0);
	struct page_pool *other;
	struct page *pages[BATCH], *own_mid, *bad = NULL;
	struct page_pool_stats st, so;
	unsigned int c0, cached;
	uint64_t errors;
	int inflight;
	char want[200];
	const char *what = NULL;

	other = pp_test_ownerless_pool();

	CHECK_EQ(page_pool_alloc_pages_bulk(pool, GFP_ATOMIC, pages, BATCH),
		 BATCH);
	own_mid = pages[MID];
	switch (kind) {
	case BAD_REFCOUNT:
		get_page(own_mid);
		bad = own_mid;
		what = "a page with another page reference";
		break;
	case BAD_OTHER_POOL:
		bad = page_pool_alloc_pages(other, GFP_ATOMIC);
		CHECK(bad != NULL);
		pages[MID] = bad;
		snprintf(want, sizeof(want), "a page of pool %u",
			 page_pool_id(other));
		what = want;
		break;
	case BAD_FRAG:
		page_pool_fragment_page(own_mid, 2);
		bad = own_mid;
		what = "a page with another pool reference";
		break;
	case BAD_FOREIGN:
		bad = alloc_pages(GFP_ATOMIC, 0);
		CHECK(bad != NULL);
		pages[MID] = bad;
		what = "a page that is not a page_pool page";
		break;
	case BAD_DOUBLE:
		/* Recycled once already: back in the cache. */
		page_pool_recycle_direct(pool, own_mid);
		bad = own_mid;
		what = "a page already back (a double put)";
		break;
	case BAD_NULL:
		pages[MID] = NULL;
		what = "a NULL page";
		break;
	default:
		CHECK(0);
	}
	c0 = pool->alloc.count;
	st = pp_test_stats(pool);
	so = pp_test_stats(other);
	errors = page_pool_debug_errors(pool);
	inflight = page_pool_inflight(pool);
	errno = 0;
	t_capture_start();
	page_pool_recycle_direct_bulk(pool, pages, BATCH);
	{
		char line[300];

		snprintf(line, sizeof(line),
			 "page_pool: id %u: trusted bulk recycle of %s: page %p",
			 page_pool_id(pool), what, (void *)bad);
		t_capture_expect(line);
	}
	CHECK_EQ(page_pool_debug_errors(pool), errors + 1);
	CHECK_EQ(page_pool_debug_errors(other), 0);

	/* The 7 good pages are in the cache. */
	cached = BATCH - 1;
	CHECK_EQ(pool->alloc.count, c0 + cached);
	CHECK_EQ(pp_test_stats(pool).recycle_stats.cached,
		 st.recycle_stats.cached + cached);
	switch (kind) {
	case BAD_REFCOUNT:
		/* Released to its last holder, as a single put does. */
		CHECK_EQ(pp_test_stats(pool).recycle_stats.released_refcnt,
			 st.recycle_stats.released_refcnt + 1);
		CHECK(own_mid->pp == NULL);
		CHECK_EQ(page_ref_count(own_mid), 1);
		CHECK_EQ(page_pool_inflight(pool), inflight - 1);
		put_page(own_mid);
		break;
	case BAD_OTHER_POOL:
		CHECK_EQ(pp_test_stats(other).recycle_stats.ring,
			 so.recycle_stats.ring + 1);
		page_pool_recycle_direct(pool, own_mid);
		CHECK_EQ(page_pool_inflight(pool), inflight);
		break;
	case BAD_FRAG:
		/* One pool reference dropped; the other holder's is left. */
		CHECK(own_mid->pp == pool);
		CHECK_EQ(own_mid->pp_ref_count, 1);
		CHECK_EQ(page_pool_inflight(pool), inflight);
		page_pool_recycle_direct(pool, own_mid);
		CHECK_EQ(pool->alloc.count, c0 + cached + 1);
		break;
	case BAD_FOREIGN:
		CHECK_EQ(errno, EINVAL);
		CHECK_EQ(page_ref_count(bad), 1);
		__free_pages(bad, 0);
		page_pool_recycle_direct(pool, own_mid);
		CHECK_EQ(page_pool_inflight(pool), inflight);
		break;
	case BAD_DOUBLE:
		/* Not cached a second time. */
		CHECK_EQ(page_pool_inflight(pool), inflight);
		break;
	case BAD_NULL:
		page_pool_recycle_direct(pool, own_mid);
		CHECK_EQ(page_pool_inflight(pool), inflight);
		break;
	default:
		CHECK(0);
	}
	pp_test_destroy_owned(pool);
	page_pool_destroy(other);
}

int
main(void)
{
	struct napi_struct napi;
	struct page_pool *pool;
	struct page *pages[BATCH];
	uint64_t poolless;
	unsigned int i, c0;
	int k;

	if (!PP_DEBUG) {
		fprintf(stderr, "PP_DEBUG is off (meson -Ddebug_checks=false): "
				"the trusted bulk recycle's checks are not "
				"built; skipped\n");
		return T_EXIT_SKIP;
	}

	/* A clean batch: cached, each page poisoned and marked free as a
	 * single recycle marks it; handed out again without a report. */
	pool = pp_test_owned_pool(&napi, 0, 0);
	CHECK_EQ(page_pool_alloc_pages_bulk(pool, GFP_ATOMIC, pages, BATCH),
		 BATCH);
	c0 = pool->alloc.count;
	page_pool_recycle_direct_bulk(pool, pages, BATCH);
	CHECK_EQ(pool->alloc.count, c0 + BATCH);
	for (i = 0; i < BATCH; i++) {
		CHECK_EQ(pages[i]->pp_ref_count, 0);
		CHECK_EQ(((unsigned char *)page_address(pages[i]))[7],
			 PP_POISON_FREE);
	}
	CHECK_EQ(page_pool_alloc_pages_bulk(pool, GFP_ATOMIC, pages, BATCH),
		 BATCH);
	CHECK_EQ(page_pool_debug_errors(pool), 0);

	/* A NULL pool: reported without a pool, the pages still go home. */
	poolless = page_pool_debug_errors(NULL);
	t_capture_start();
	page_pool_recycle_direct_bulk(NULL, pages, BATCH);
	t_capture_expect("page_pool: trusted bulk recycle of 8 pages to a "
			 "NULL pool");
	CHECK_EQ(page_pool_debug_errors(NULL), poolless + 1);
	CHECK_EQ(pool->alloc.count, c0 + BATCH);
	CHECK_EQ(page_pool_debug_errors(pool), 0);
	pp_test_destroy_owned(pool);

	for (k = 0; k < BAD_KINDS; k++)
		test_bad((enum bad_kind)k);
	return T_EXIT_PASS;
}
