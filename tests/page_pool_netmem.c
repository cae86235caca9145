/* SPDX-License-Identifier: MIT */
/*
 * Copyright (c) 2026 The pagepool authors
 *
 * The netmem API (Linux >= 6.12 names): every netmem form does what its
 * page form does, on the same page; the .fast/.slow parameter groups alias
 * the flat members; init_callback receives a netmem_ref;
 * page_pool_use_xdp_mem() takes the kernel's three arguments;
 * page_pool_page_is_pp() and virt_to_head_page() recognise pool pages and
 * compound blocks.
 */
#include <errno.h>
#include <stddef.h>
#include <string.h>

#include <pagepool/opts.h>
#include <pagepool/page_pool.h>

#include "page_pool_helpers.h"

static void
test_conversions(void)
{
	struct page *page = alloc_pages(GFP_KERNEL, 1);
	char *va;

	CHECK(page != NULL);
	va = page_address(page);
	CHECK(netmem_to_page(page_to_netmem(page)) == page);
	CHECK_EQ(page_to_netmem(NULL), 0);
	CHECK(netmem_to_page(0) == NULL);
	CHECK(netmem_address(page_to_netmem(page)) == va);
	CHECK(netmem_address(0) == NULL);
	CHECK_EQ(virt_to_netmem(va + 100), page_to_netmem(page));
	CHECK_EQ(sizeof(netmem_ref), sizeof(struct page *));

	/* An address in the tail page: virt_to_page() gives the tail,
	 * virt_to_head_page() the block. */
	CHECK(virt_to_page(va + PAGE_SIZE + 8) != page);
	CHECK(virt_to_head_page(va + PAGE_SIZE + 8) == page);
	CHECK(virt_to_head_page(va) == page);
	CHECK(virt_to_head_page(NULL) == NULL);

	/* Not a pool page. */
	CHECK(!page_pool_page_is_pp(page));
	CHECK(!page_pool_page_is_pp(NULL));
	__free_pages(page, 1);
}

/* Written through one spelling, read through the other. */
static void
test_param_groups(void)
{
	struct page_pool_params pp;

	memset(&pp, 0, sizeof(pp));
	pp.fast.order = 2;
	pp.slow.flags = PP_FLAG_SYSTEM_POOL;
	pp.nid = NUMA_NO_NODE;
	CHECK_EQ(pp.order, 2);
	CHECK_EQ(pp.flags, PP_FLAG_SYSTEM_POOL);
	CHECK_EQ(pp.fast.nid, NUMA_NO_NODE);
	CHECK_EQ(offsetof(struct page_pool_params, fast), 0);
	CHECK_EQ(offsetof(struct page_pool_params, slow),
		 offsetof(struct page_pool_params, netdev));
	CHECK_EQ(sizeof(pp.fast), sizeof(struct page_pool_params_fast));
	CHECK_EQ(sizeof(pp.slow), sizeof(struct page_pool_params_slow));
	CHECK(offsetof(struct page_pool_params, defer_ms) >=
	      offsetof(struct page_pool_params, slow) + sizeof(pp.slow));

	/* A whole group copies as one struct, as drivers' pool setup does. */
	{
		struct page_pool_params_fast f = pp.fast;
		struct page_pool_params q;

		memset(&q, 0, sizeof(q));
		q.fast = f;
		CHECK_EQ(q.order, 2);
		CHECK_EQ(q.nid, NUMA_NO_NODE);
	}
}

static int init_calls;

static void
init_cb(netmem_ref netmem, void *arg)
{
	CHECK(arg == &init_calls);
	CHECK(page_pool_page_is_pp(netmem_to_page(netmem)));
	init_calls++;
}

static int disconnected;

static void
on_disconnect(void *pool)
{
	CHECK(pool != NULL);
	disconnected++;
}

/* Owner-side forms: alloc, direct recycle, put, fragments. */
static void
test_owner_forms(void)
{
	struct napi_struct napi;
	struct page_pool_params pp = {
		.nid = NUMA_NO_NODE,
		.napi = &napi,
		.init_callback = init_cb,
		.init_arg = &init_calls,
	};
	struct page_pool_stats s;
	struct page_pool *pool;
	netmem_ref nm, nm2;
	unsigned int off;

	napi_init_current(&napi);
	pool = page_pool_create(&pp);
	CHECK(pool != NULL);
	page_pool_use_xdp_mem(pool, on_disconnect, NULL);

	nm = page_pool_alloc_netmems(pool, GFP_KERNEL);
	CHECK(nm != 0);
	CHECK_EQ(init_calls, PP_ALLOC_CACHE_REFILL);
	CHECK(page_pool_page_is_pp(netmem_to_page(nm)));
	CHECK(netmem_to_page(nm)->pp == pool);
	CHECK_EQ(page_pool_get_dma_addr_netmem(nm), 0);	/* no DMA_MAP */

	/* Direct recycle: the same page comes back first (LIFO). */
	s = pp_test_stats(pool);
	page_pool_recycle_direct_netmem(pool, nm);
	CHECK_EQ(pp_test_stats(pool).recycle_stats.cached,
		 s.recycle_stats.cached + 1);
	nm2 = page_pool_dev_alloc_netmems(pool);
	CHECK_EQ(nm2, nm);

	page_pool_put_full_netmem(pool, nm2, true);
	nm = page_pool_alloc_netmems(pool, GFP_KERNEL);
	page_pool_put_netmem(pool, nm, -1, true);

	/* Fragment references through the netmem forms. */
	nm = page_pool_alloc_netmems(pool, GFP_KERNEL);
	page_pool_fragment_netmem(nm, 3);
	page_pool_ref_netmem(nm);				/* 4 */
	CHECK_EQ(page_pool_unref_netmem(nm, 2), 2);
	page_pool_put_netmem(pool, nm, -1, true);		/* 1 left */
	CHECK_EQ(netmem_to_page(nm)->pp_ref_count, 1);	/* not recycled */
	CHECK_EQ(page_pool_unref_netmem(nm, 1), 0);
	page_pool_put_unrefed_netmem(pool, nm, -1, true);

	/* page_pool_alloc_frag_netmem(): two fragments of one page. */
	nm = page_pool_alloc_frag_netmem(pool, &off, 1024, GFP_KERNEL);
	CHECK(nm != 0);
	CHECK_EQ(off, 0);
	nm2 = page_pool_alloc_frag_netmem(pool, &off, 1024, GFP_KERNEL);
	CHECK_EQ(nm2, nm);
	CHECK_EQ(off, 1024);
	page_pool_put_netmem(pool, nm, -1, true);
	page_pool_put_netmem(pool, nm2, -1, true);
	errno = 0;
	CHECK_EQ(page_pool_alloc_frag_netmem(pool, &off, PAGE_SIZE + 1,
					     GFP_KERNEL), 0);
	CHECK_EQ(errno, EINVAL);
	CHECK_EQ(page_pool_alloc_frag_netmem(NULL, &off, 64, GFP_KERNEL), 0);

	page_pool_destroy(pool);	/* the memory model's reference */
	CHECK_EQ(disconnected, 0);
	page_pool_destroy(pool);	/* the creator's: freed */
	CHECK_EQ(disconnected, 1);
}

/* Bulk return from another context, in more than one internal batch. */
static void
test_bulk(void)
{
	struct page_pool_params pp = {
		.nid = NUMA_NO_NODE,
		.pool_size = 1024,
	};
	struct page_pool *pool = page_pool_create(&pp);
	netmem_ref nm[200];
	unsigned int i;

	CHECK(pool != NULL);
	for (i = 0; i < 200; i++) {
		nm[i] = page_pool_alloc_netmems(pool, GFP_KERNEL);
		CHECK(nm[i] != 0);
	}
	CHECK_EQ(page_pool_inflight(pool), 200 + (int)pool->alloc.count);
	page_pool_put_netmem_bulk(nm, 200);
	CHECK_EQ(pp_test_stats(pool).recycle_stats.ring, 200);
	CHECK_EQ(page_pool_inflight(pool), 200 + (int)pool->alloc.count);

	errno = 0;
	page_pool_put_netmem_bulk(NULL, 3);
	CHECK_EQ(errno, EINVAL);
	page_pool_put_netmem_bulk(NULL, 0);
	page_pool_destroy(pool);
}

/* The DMA forms on an IOMMU model, where the address is not the VA. */
static void
test_dma_forms(void)
{
	PP_OPTS(pp_iommu_opts, o, .flags = PP_DMA_F_QUIET);
	struct device *dev = pp_iommu_create(&o);
	struct page_pool_params pp = {
		.flags = PP_FLAG_DMA_MAP,
		.dma_dir = DMA_FROM_DEVICE,
		.offset = 256,
		.nid = NUMA_NO_NODE,
	};
	struct page_pool *pool;
	struct pp_dma_stats s0, s1;
	netmem_ref nm;

	CHECK(dev != NULL);
	pp.dev = dev;
	pool = page_pool_create(&pp);
	CHECK(pool != NULL);
	nm = page_pool_alloc_netmems(pool, GFP_KERNEL);
	CHECK(nm != 0);
	CHECK(page_pool_get_dma_addr_netmem(nm) != 0);
	CHECK_EQ(page_pool_get_dma_addr_netmem(nm),
		 page_pool_get_dma_addr(netmem_to_page(nm)));
	s0 = pp_test_dev_stats(dev);
	page_pool_dma_sync_netmem_for_cpu(pool, nm, 14, 60);
	s1 = pp_test_dev_stats(dev);
	CHECK_EQ(s1.syncs_for_cpu, s0.syncs_for_cpu + 1);
	CHECK_EQ(s1.bytes_synced_for_cpu, s0.bytes_synced_for_cpu + 60);
	page_pool_put_full_netmem(pool, nm, false);
	page_pool_destroy(pool);
	pp_dma_dev_destroy(dev);
}

int
main(void)
{
	test_conversions();
	test_param_groups();
	test_owner_forms();
	test_bulk();
	test_dma_forms();
	return T_EXIT_PASS;
}
