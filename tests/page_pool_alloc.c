/* SPDX-License-Identifier: MIT */
/*
 * Copyright (c) 2026 The pagepool authors
 *
 * page_pool allocation and return, with exact counter expectations in small
 * scenarios: the first allocation takes the slow path once and leaves the
 * rest of its bulk in the cache; direct recycling, the ring, refill, empty,
 * cache_full, ring_full, released_refcnt (shared page, pfmemalloc), waive,
 * order > 0, bulk returns across pools, update_nid, wrap-safe in-flight
 * accounting, stats accumulation and the ethtool helpers, and allocation
 * failure in the slow path.
 */
#include <errno.h>
#include <string.h>

#include <pagepool/fault.h>
#include <pagepool/page_pool.h>

#include "page_pool_helpers.h"

#define EXPECT_STATS(pool, f, sl, ho, em, rf, wv, ca, cf, ri, rfu, rel)      \
	do {                                                                 \
		struct page_pool_stats __s = pp_test_stats(pool);                 \
		CHECK_EQ(__s.alloc_stats.fast, f);                           \
		CHECK_EQ(__s.alloc_stats.slow, sl);                          \
		CHECK_EQ(__s.alloc_stats.slow_high_order, ho);               \
		CHECK_EQ(__s.alloc_stats.empty, em);                         \
		CHECK_EQ(__s.alloc_stats.refill, rf);                        \
		CHECK_EQ(__s.alloc_stats.waive, wv);                         \
		CHECK_EQ(__s.recycle_stats.cached, ca);                      \
		CHECK_EQ(__s.recycle_stats.cache_full, cf);                  \
		CHECK_EQ(__s.recycle_stats.ring, ri);                        \
		CHECK_EQ(__s.recycle_stats.ring_full, rfu);                  \
		CHECK_EQ(__s.recycle_stats.released_refcnt, rel);            \
	} while (0)

static struct page_pool *
new_pool(unsigned int order, unsigned int pool_size)
{
	struct page_pool_params pp = {
		.order = order,
		.pool_size = pool_size,
		.nid = NUMA_NO_NODE,
	};
	struct page_pool *pool = page_pool_create(&pp);

	CHECK(pool != NULL);
	return pool;
}

static void
test_slow_fast_direct_ring_refill(void)
{
	struct page_pool *pool = new_pool(0, 1024);
	struct page *pages[200];
	struct napi_struct napi;
	int i;

	/* First allocation: ring empty, one bulk of 64, 63 left cached. */
	pages[0] = page_pool_alloc_pages(pool, GFP_KERNEL);
	CHECK(pages[0] != NULL);
	CHECK_EQ(pool->alloc.count, 63);
	CHECK_EQ(page_pool_inflight(pool), 64);
	CHECK(pages[0]->pp == pool);
	CHECK_EQ(pages[0]->pp_magic & PP_MAGIC_MASK, PP_SIGNATURE);
	CHECK_EQ(pages[0]->pp_ref_count, 1);
	CHECK_EQ(page_ref_count(pages[0]), 1);
	EXPECT_STATS(pool, 0, 1, 0, 1, 0, 0, 0, 0, 0, 0, 0);

	for (i = 1; i < 64; i++)
		pages[i] = page_pool_dev_alloc_pages(pool);
	EXPECT_STATS(pool, 63, 1, 0, 1, 0, 0, 0, 0, 0, 0, 0);
	pages[64] = page_pool_alloc_pages(pool, GFP_KERNEL);
	EXPECT_STATS(pool, 63, 2, 0, 2, 0, 0, 0, 0, 0, 0, 0);
	CHECK_EQ(page_pool_inflight(pool), 128);
	/* No page handed out twice. */
	for (i = 0; i < 65; i++) {
		int j;

		for (j = 0; j < i; j++)
			CHECK(pages[i] != pages[j]);
	}

	/* Direct recycling (XDP_DROP): into the cache. */
	for (i = 0; i < 10; i++)
		page_pool_recycle_direct(pool, pages[i]);
	CHECK_EQ(pool->alloc.count, 73);
	EXPECT_STATS(pool, 63, 2, 0, 2, 0, 0, 10, 0, 0, 0, 0);

	/* Not the owner (there is none): through the ring. */
	for (i = 10; i < 15; i++)
		page_pool_put_full_page(pool, pages[i], false);
	CHECK_EQ(pool->alloc.count, 73);
	EXPECT_STATS(pool, 63, 2, 0, 2, 0, 0, 10, 0, 5, 0, 0);

	/* Now this thread is the owner: allow_direct false still caches. */
	napi_init_current(&napi);
	CHECK_EQ(page_pool_enable_direct_recycling(pool, &napi), 0);
	CHECK_EQ(page_pool_enable_direct_recycling(pool, &napi), 0);
	page_pool_put_full_page(pool, pages[15], false);
	EXPECT_STATS(pool, 63, 2, 0, 2, 0, 0, 11, 0, 5, 0, 0);

	/* Drain the cache (74 pages), then refill from the ring (5). */
	for (i = 0; i < 74; i++)
		CHECK(page_pool_alloc_pages(pool, GFP_KERNEL) != NULL);
	EXPECT_STATS(pool, 63 + 74, 2, 0, 2, 0, 0, 11, 0, 5, 0, 0);
	CHECK(page_pool_alloc_pages(pool, GFP_KERNEL) != NULL);
	CHECK_EQ(pool->alloc.count, 4);
	EXPECT_STATS(pool, 63 + 74, 2, 0, 2, 1, 0, 11, 0, 5, 0, 0);

	page_pool_disable_direct_recycling(pool);
	/* After disable, even the former owner goes through the ring. */
	page_pool_put_full_page(pool, pages[16], false);
	EXPECT_STATS(pool, 63 + 74, 2, 0, 2, 1, 0, 11, 0, 6, 0, 0);
	CHECK_EQ(page_pool_inflight(pool), 128);
	page_pool_destroy(pool);
}

static void
test_cache_full_and_ring_full(void)
{
	struct page_pool *pool = new_pool(0, 8);
	struct page *pages[256];
	int i;

	for (i = 0; i < 256; i++)
		CHECK((pages[i] = page_pool_alloc_pages(pool, GFP_KERNEL)) !=
		      NULL);
	CHECK_EQ(page_pool_inflight(pool), 256);
	/* 128 fit the cache; 8 of the rest fit the ring; 120 released. */
	for (i = 0; i < 256; i++)
		page_pool_recycle_direct(pool, pages[i]);
	EXPECT_STATS(pool, 252, 4, 0, 4, 0, 0, 128, 128, 8, 120, 0);
	CHECK_EQ(page_pool_inflight(pool), 136);
	page_pool_destroy(pool);
}

static void
test_released_refcnt(void)
{
	struct page_pool *pool = new_pool(0, 64);
	struct page *shared, *pfm;
	int inflight;

	shared = page_pool_alloc_pages(pool, GFP_KERNEL);
	pfm = page_pool_alloc_pages(pool, GFP_KERNEL);
	inflight = page_pool_inflight(pool);

	/* The stack still holds a reference: the pool lets go of it. */
	get_page(shared);
	page_pool_recycle_direct(pool, shared);
	EXPECT_STATS(pool, 1, 1, 0, 1, 0, 0, 0, 0, 0, 0, 1);
	CHECK_EQ(page_pool_inflight(pool), inflight - 1);
	CHECK(shared->pp == NULL);
	CHECK_EQ(page_ref_count(shared), 1);
	put_page(shared);	/* the last holder frees it */

	/* Emergency-reserve pages are never recycled. */
	pfm->pp_magic |= 2UL;
	CHECK(page_is_pfmemalloc(pfm));
	page_pool_recycle_direct(pool, pfm);
	EXPECT_STATS(pool, 1, 1, 0, 1, 0, 0, 0, 0, 0, 0, 2);
	CHECK_EQ(page_pool_inflight(pool), inflight - 2);
	page_pool_destroy(pool);
}

static void
test_fragment_refs(void)
{
	struct page_pool *pool = new_pool(0, 64);
	struct page *page = page_pool_alloc_pages(pool, GFP_KERNEL);

	/* Three holders; only the last put recycles. */
	page_pool_fragment_page(page, 3);
	page_pool_put_full_page(pool, page, true);
	CHECK_EQ(page->pp_ref_count, 2);
	page_pool_ref_page(page);
	CHECK_EQ(page->pp_ref_count, 3);
	page_pool_put_full_page(pool, page, true);
	page_pool_put_full_page(pool, page, true);
	CHECK_EQ(page->pp_ref_count, 1);
	EXPECT_STATS(pool, 0, 1, 0, 1, 0, 0, 0, 0, 0, 0, 0);
	CHECK_EQ(page_pool_unref_page(page, 1), 0);
	CHECK_EQ(page->pp_ref_count, 1);	/* reset for reuse */
	page_pool_put_unrefed_page(pool, page, -1, true);
	EXPECT_STATS(pool, 0, 1, 0, 1, 0, 0, 1, 0, 0, 0, 0);
	page_pool_destroy(pool);
}

static void
test_waive(void)
{
	struct page_pool *pool = new_pool(0, 64);
	struct page *page = page_pool_alloc_pages(pool, GFP_KERNEL);
	int inflight;

	page_pool_put_full_page(pool, page, false);	/* into the ring */
	while (pool->alloc.count > 0)
		page_pool_alloc_pages(pool, GFP_KERNEL);
	inflight = page_pool_inflight(pool);
	/*
	 * Pretend the pool now prefers a node the ring page is not on
	 * (white-box: this machine may have one node). Refill releases that
	 * page, counts waive, and the slow path runs for node 1, which does
	 * not exist here, so the allocation fails cleanly.
	 */
	pool->p.nid = 1;
	errno = 0;
	if (page_pool_alloc_pages(pool, GFP_KERNEL | __GFP_NOWARN) != NULL)
		return;	/* a second node exists: nothing more to check */
	EXPECT_STATS(pool, 63, 1, 0, 1, 0, 1, 0, 0, 1, 0, 0);
	CHECK_EQ(page_pool_inflight(pool), inflight - 1);
	pool->p.nid = NUMA_NO_NODE;
	page_pool_destroy(pool);
}

/* White-box: make @page look as if its memory were on node @nid. */
static void
set_nid(struct page *page, int nid)
{
	page->flags = (page->flags & ((1UL << PP_NODES_PGSHIFT) - 1)) |
		      ((unsigned long)nid << PP_NODES_PGSHIFT);
}

/*
 * The refill takes the ring's pages in one batch, then checks their node
 * in order: a wrong-node page in the middle is released (waive), the pages
 * before it are cached, and those after it go back to the head of the ring
 * in their order, where the kernel's one-at-a-time refill leaves them.
 */
static void
test_waive_mid_batch(void)
{
	struct page_pool *pool = new_pool(0, 64);
	struct page *p[5], *held[64], *page;
	struct page_pool_stats st;
	int i, nheld = 0, inflight;

	for (i = 0; i < 5; i++)
		p[i] = page_pool_alloc_pages(pool, GFP_KERNEL);
	for (i = 0; i < 5; i++)
		page_pool_put_full_page(pool, p[i], false);	/* the ring */
	while (pool->alloc.count > 0)
		held[nheld++] = page_pool_alloc_pages(pool, GFP_KERNEL);
	inflight = page_pool_inflight(pool);
	/* The pool prefers node 1; every ring page but p[2] is on it. */
	for (i = 0; i < 5; i++)
		if (i != 2)
			set_nid(p[i], 1);
	pool->p.nid = 1;
	st = pp_test_stats(pool);
	page = page_pool_alloc_pages(pool, GFP_KERNEL);
	CHECK(page == p[1]);
	CHECK_EQ(pool->alloc.count, 1);
	CHECK(pool->alloc.cache[0] == p[0]);
	CHECK_EQ(pp_test_stats(pool).alloc_stats.waive,
		 st.alloc_stats.waive + 1);
	CHECK_EQ(pp_test_stats(pool).alloc_stats.refill,
		 st.alloc_stats.refill + 1);
	CHECK_EQ(page_pool_inflight(pool), inflight - 1);	/* p[2] */
	/* p[3] and p[4] are next in the ring, in order. */
	CHECK(__ptr_ring_consume(&pool->ring) == p[3]);
	CHECK(__ptr_ring_consume(&pool->ring) == p[4]);
	CHECK(__ptr_ring_empty(&pool->ring));

	for (i = 0; i < 5; i++)
		if (i != 2)
			set_nid(p[i], 0);
	pool->p.nid = NUMA_NO_NODE;
	page_pool_put_full_page(pool, p[1], false);
	page_pool_put_full_page(pool, p[3], false);
	page_pool_put_full_page(pool, p[4], false);
	for (i = 0; i < nheld; i++)
		page_pool_put_full_page(pool, held[i], false);
	page_pool_destroy(pool);
}

static void
test_high_order(void)
{
	struct page_pool *pool = new_pool(2, 64);
	struct page *a, *b;

	a = page_pool_alloc_pages(pool, GFP_KERNEL);
	b = page_pool_alloc_pages(pool, GFP_KERNEL);
	CHECK(a != NULL && b != NULL && a != b);
	CHECK_EQ(compound_order(a), 2);
	CHECK_EQ((unsigned long)page_address(a) % (PAGE_SIZE << 2), 0);
	memset(page_address(a), 0xab, PAGE_SIZE << 2);
	EXPECT_STATS(pool, 0, 0, 2, 2, 0, 0, 0, 0, 0, 0, 0);
	CHECK_EQ(pool->alloc.count, 0);
	page_pool_recycle_direct(pool, a);
	CHECK(page_pool_alloc_pages(pool, GFP_KERNEL) == a);
	EXPECT_STATS(pool, 1, 0, 2, 2, 0, 0, 1, 0, 0, 0, 0);
	/* Any address inside the block finds its head for free_va. */
	page_pool_free_va(pool, (char *)page_address(a) + 3 * PAGE_SIZE + 5,
			  true);
	page_pool_recycle_direct(pool, b);
	EXPECT_STATS(pool, 1, 0, 2, 2, 0, 0, 3, 0, 0, 0, 0);
	page_pool_destroy(pool);
}

static void
test_bulk(void)
{
	struct page_pool *a = new_pool(0, 64), *b = new_pool(0, 4);
	struct page *data[40];
	unsigned int i;

	for (i = 0; i < 40; i++)
		data[i] = page_pool_alloc_pages(i % 2 ? b : a, GFP_KERNEL);
	/* Two extra references on one page: it is not returned. */
	page_pool_fragment_page(data[0], 2);
	page_pool_put_page_bulk(data, 40);
	/* a: 19 of its 20 into its ring. b: 4 fit, then one ring_full for
	 * the first full bulk and one for the second; 16 released. */
	EXPECT_STATS(a, 19, 1, 0, 1, 0, 0, 0, 0, 19, 0, 0);
	{
		struct page_pool_stats s = pp_test_stats(b);

		CHECK_EQ(s.recycle_stats.ring, 4);
		CHECK(s.recycle_stats.ring_full >= 1);
		CHECK_EQ(page_pool_inflight(b), 64 - 16);
	}
	page_pool_put_page_bulk(NULL, 3);
	page_pool_destroy(b);
	page_pool_destroy(a);
}

static void
test_update_nid(void)
{
	struct page_pool *pool = new_pool(0, 64);
	struct page *page = page_pool_alloc_pages(pool, GFP_KERNEL);

	CHECK_EQ(pool->alloc.count, 63);
	page_pool_nid_changed(pool, NUMA_NO_NODE);	/* same: no-op */
	CHECK_EQ(pool->alloc.count, 63);
	page_pool_update_nid(pool, 12345);		/* bad: ignored */
	CHECK_EQ(pool->alloc.count, 63);
	CHECK_EQ(pool->p.nid, NUMA_NO_NODE);
	page_pool_nid_changed(pool, 0);
	CHECK_EQ(pool->p.nid, 0);
	CHECK_EQ(pool->alloc.count, 0);
	CHECK_EQ(page_pool_inflight(pool), 1);
	page_pool_recycle_direct(pool, page);
	page_pool_destroy(pool);
}

static void
test_inflight_wraps(void)
{
	struct page_pool *pool = new_pool(0, 64);

	/* White-box: start both counters just below 2^32. */
	pool->pages_state_hold_cnt = 0xfffffff0u;
	pool->pages_state_release_cnt = 0xfffffff0u;
	CHECK(page_pool_alloc_pages(pool, GFP_KERNEL) != NULL);
	CHECK(pool->pages_state_hold_cnt < 0x100u);
	CHECK_EQ(page_pool_inflight(pool), 64);
	page_pool_update_nid(pool, NUMA_NO_NODE);
	CHECK_EQ(page_pool_inflight(pool), 1);
	/* The one page we hold is deliberately lost to the allocator. */
	pool->pages_state_hold_cnt--;
	page_pool_destroy(pool);
}

static void
test_stats_api(void)
{
	struct page_pool *pool = new_pool(0, 64);
	struct page_pool_stats s;
	uint8_t names[11 * 32 + 1];
	uint64_t values[12];
	struct page *page;

	page = page_pool_alloc_pages(pool, GFP_KERNEL);
	page_pool_recycle_direct(pool, page);
	memset(&s, 0, sizeof(s));
	CHECK(page_pool_get_stats(pool, &s));
	CHECK(page_pool_get_stats(pool, &s));	/* accumulates */
	CHECK_EQ(s.alloc_stats.slow, 2);
	CHECK_EQ(s.recycle_stats.cached, 2);
	CHECK(!page_pool_get_stats(NULL, &s));
	CHECK(!page_pool_get_stats(pool, NULL));

	CHECK_EQ(page_pool_ethtool_stats_get_count(), 11);
	names[11 * 32] = 0x5a;
	CHECK(page_pool_ethtool_stats_get_strings(names) == names + 11 * 32);
	CHECK_EQ(names[11 * 32], 0x5a);
	CHECK(strcmp((char *)names, "rx_pp_alloc_fast") == 0);
	CHECK(strcmp((char *)names + 5 * 32, "rx_pp_alloc_waive") == 0);
	CHECK(strcmp((char *)names + 10 * 32, "rx_pp_recycle_released_ref") ==
	      0);
	values[11] = 77;
	CHECK(page_pool_ethtool_stats_get(values, &s) == values + 11);
	CHECK_EQ(values[1], 2);		/* slow */
	CHECK_EQ(values[6], 2);		/* cached */
	CHECK_EQ(values[11], 77);
	page_pool_destroy(pool);
}

static void
test_slow_path_faults(void)
{
	struct page_pool *pool = new_pool(0, 64);
	struct page *page;

	pp_fault_inject_alloc(0, -1);
	errno = 0;
	page = page_pool_alloc_pages(pool, GFP_KERNEL | __GFP_NOWARN);
	pp_fault_inject_alloc(-1, 0);
	CHECK(page == NULL);
	CHECK_EQ(errno, ENOMEM);
	CHECK_EQ(page_pool_inflight(pool), 0);
	EXPECT_STATS(pool, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0);
	page = page_pool_alloc_pages(pool, GFP_KERNEL);
	CHECK(page != NULL);
	page_pool_recycle_direct(pool, page);
	page_pool_destroy(pool);
}

static int init_calls;

static void
init_cb(netmem_ref netmem, void *arg)
{
	struct page *page = netmem_to_page(netmem);

	CHECK(arg == &init_calls);
	CHECK(page->pp != NULL);
	memset(page_address(page), 0xcd, 64);
	init_calls++;
}

/* init_callback runs once per page entering the pool, never on reuse. */
static void
test_init_callback_and_flags(void)
{
	struct page_pool_params pp = {
		.nid = NUMA_NO_NODE,
		.flags = PP_FLAG_SYSTEM_POOL | PP_FLAG_ALLOW_UNREADABLE_NETMEM,
		.init_callback = init_cb,
		.init_arg = &init_calls,
	};
	struct page_pool *pool = page_pool_create(&pp);
	struct page *page;
	int i;

	CHECK(pool != NULL);	/* accepted flags without userspace meaning */
	page = page_pool_alloc_pages(pool, GFP_KERNEL);
	CHECK_EQ(init_calls, 64);
	CHECK_EQ(((unsigned char *)page_address(page))[10], 0xcd);
	for (i = 0; i < 100; i++) {
		page_pool_recycle_direct(pool, page);
		page = page_pool_alloc_pages(pool, GFP_KERNEL);
	}
	CHECK_EQ(init_calls, 64);
	page_pool_recycle_direct(pool, page);
	page_pool_destroy(pool);
}

/*
 * Allocation failure at every point of a DMA pool's first slow path: the
 * page blocks, the device's IOVA bookkeeping and the tracking table. Every
 * failed run reports ENOMEM or hands out fewer pages, and leaves nothing
 * mapped or leaked (the device counts live mappings; LSan the rest).
 */
static void
test_slow_path_fault_sweep(void)
{
	struct device *dev = pp_iommu_create(NULL);
	long n;

	CHECK(dev != NULL);
	for (n = 0; n < 400; n++) {
		struct page_pool_params pp = {
			.flags = PP_FLAG_DMA_MAP,
			.dev = dev,
			.dma_dir = DMA_FROM_DEVICE,
			.nid = NUMA_NO_NODE,
		};
		struct page_pool *pool = page_pool_create(&pp);
		struct pp_dma_stats ds;
		struct page *page;
		unsigned long injected;

		CHECK(pool != NULL);
		pp_fault_inject_alloc(n, 1);
		errno = 0;
		page = page_pool_alloc_pages(pool, GFP_KERNEL | __GFP_NOWARN);
		injected = pp_fault_injected();
		pp_fault_inject_alloc(-1, 0);
		if (page == NULL)
			CHECK_EQ(errno, ENOMEM);
		else
			page_pool_recycle_direct(pool, page);
		CHECK_EQ(page_pool_inflight(pool), pool->alloc.count);
		page_pool_destroy(pool);
		memset(&ds, 0, sizeof(ds));
		ds.sz = sizeof(ds);
		CHECK_EQ(pp_dma_dev_get_stats(dev, &ds), 0);
		CHECK_EQ(ds.live_mappings, 0);
		if (injected == 0)
			break;
	}
	CHECK(n > 64);	/* at least every page block was a point */
	CHECK(n < 400);
	pp_dma_dev_destroy(dev);
}

int
main(void)
{
	test_slow_fast_direct_ring_refill();
	test_cache_full_and_ring_full();
	test_released_refcnt();
	test_fragment_refs();
	test_waive();
	test_waive_mid_batch();
	test_high_order();
	test_bulk();
	test_update_nid();
	test_inflight_wraps();
	test_stats_api();
	test_slow_path_faults();
	test_init_callback_and_flags();
	test_slow_path_fault_sweep();
	return T_EXIT_PASS;
}
