// SPDX-License-Identifier: MIT
/*
 * Copyright (c) 2026 The pagepool authors
 *
 * Every public header compiles as C++ (-std=c++17 -Wall -Wextra -Werror)
 * and the inline fast paths work from C++: a ring round trip, a page_pool
 * owned by this thread (alloc, direct recycle, put, DMA over the IOMMU
 * model), the netmem forms with the .fast/.slow parameter groups, and
 * page_frag_cache fragments. C++ programs include the same
 * headers as C ones; "private" and "virtual" members of struct page carry
 * a trailing underscore there, the layout is the same.
 */
#include <cstdio>
#include <cstring>

#include <pagepool/pagepool.h>

#define CHECK(cond)                                                          \
	do {                                                                 \
		if (!(cond)) {                                               \
			std::fprintf(stderr, "%s:%d: CHECK failed: %s\n",    \
				     __FILE__, __LINE__, #cond);             \
			return 1;                                            \
		}                                                            \
	} while (0)

static_assert(sizeof(struct page) <= 64, "struct page is the C one");

static int
ring_round_trip()
{
	struct ptr_ring ring;
	int v = 42;

	CHECK(ptr_ring_init(&ring, 16, GFP_KERNEL) == 0);
	CHECK(ptr_ring_produce(&ring, &v) == 0);
	CHECK(__ptr_ring_consume(&ring) == &v);
	CHECK(ptr_ring_empty(&ring));
	ptr_ring_cleanup(&ring, nullptr);
	return 0;
}

static int
pool_round_trip()
{
	PP_OPTS(pp_iommu_opts, iopts, .flags = PP_DMA_F_QUIET);
	struct device *dev = pp_iommu_create(&iopts);
	struct page_pool_params pp;
	struct napi_struct napi;
	struct page_pool *pool;
	struct page *page;

	CHECK(dev != nullptr);
	napi_init_current(&napi);
	std::memset(&pp, 0, sizeof(pp));
	pp.flags = PP_FLAG_DMA_MAP | PP_FLAG_DMA_SYNC_DEV;
	pp.pool_size = 256;
	pp.nid = NUMA_NO_NODE;
	pp.dev = dev;
	pp.napi = &napi;
	pp.dma_dir = DMA_FROM_DEVICE;
	pp.max_len = PAGE_SIZE;
	pool = page_pool_create(&pp);
	CHECK(pool != nullptr);

	page = page_pool_dev_alloc_pages(pool);
	CHECK(page != nullptr);
	CHECK(page_address(page) != nullptr);
	CHECK(page_pool_get_dma_addr(page) != 0);
	page_pool_recycle_direct(pool, page);
	page = page_pool_dev_alloc_pages(pool);
	CHECK(page != nullptr);
	page_pool_put_full_page(pool, page, false);
	page_pool_destroy(pool);
	pp_dma_dev_destroy(dev);
	return 0;
}

static int
frag_round_trip()
{
	struct page_frag_cache nc;
	void *a, *b;

	page_frag_cache_init(&nc);
	a = page_frag_alloc(&nc, 100, GFP_KERNEL);
	b = page_frag_alloc_align(&nc, 200, GFP_KERNEL, 64);
	CHECK(a != nullptr && b != nullptr && a != b);
	CHECK(((unsigned long)b & 63) == 0);
	page_frag_free(a);
	page_frag_free(b);
	page_frag_cache_drain(&nc);
	return 0;
}

/* The kernel's parameter groups and the netmem forms, from C++. */
static int
netmem_round_trip()
{
	struct page_pool_params pp;
	struct napi_struct napi;
	struct page_pool *pool;
	netmem_ref nm;

	std::memset(&pp, 0, sizeof(pp));
	napi_init_current(&napi);
	pp.fast.pool_size = 256;
	pp.fast.nid = NUMA_NO_NODE;
	pp.fast.napi = &napi;
	pp.slow.flags = 0;
	CHECK(pp.pool_size == 256);
	pool = page_pool_create(&pp);
	CHECK(pool != nullptr);
	nm = page_pool_dev_alloc_netmems(pool);
	CHECK(nm != 0);
	CHECK(page_pool_page_is_pp(netmem_to_page(nm)));
	CHECK(virt_to_head_page(netmem_address(nm)) == netmem_to_page(nm));
	page_pool_recycle_direct_netmem(pool, nm);
	page_pool_destroy(pool);
	return 0;
}

int
main()
{
	if (ring_round_trip() || pool_round_trip() || frag_round_trip() ||
	    netmem_round_trip())
		return 1;
	return 0;
}
