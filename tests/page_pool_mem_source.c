/* SPDX-License-Identifier: MIT */
/*
 * Copyright (c) 2026 The pagepool authors
 *
 * A page_pool on a memory source (PP_FLAG_MEM_SOURCE): on a memfd and on a
 * caller's region, every page the pool hands out is a page of that source
 * (a second mapping of the memfd sees what is written through the pool's
 * page), pages recycle inside the pool, the region's limit is the pool's,
 * the source stays alive while the pool does, and after the pool's destroy
 * with nothing in flight the source can be destroyed. Bad ids are EINVAL.
 */
#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <pagepool/dma.h>
#include <pagepool/page_pool.h>

#include "page_helpers.h"
#include "page_pool_helpers.h"

#define NPAGES 200	/* more than one bulk refill of 64 */

static struct page_pool *
pool_on(struct pp_mem_source *src, unsigned int order)
{
	struct page_pool_params pp;
	struct page_pool *pool;

	memset(&pp, 0, sizeof(pp));
	pp.order = order;
	pp.nid = NUMA_NO_NODE;
	pp.pool_size = 256;
	pp.flags = PP_FLAG_MEM_SOURCE;
	pp.mem_source = pp_mem_source_id(src);
	pool = page_pool_create(&pp);
	CHECK(pool != NULL);
	return pool;
}

/* Allocate @n blocks, check each is @src's, give them all back, and check
 * the next round is served from the pool, not the source. */
static void
cycle(struct page_pool *pool, struct pp_mem_source *src, int n)
{
	static struct page *pages[NPAGES];
	struct page_pool_stats before, after;
	uint64_t off;
	int i, round;

	for (round = 0; round < 2; round++) {
		before = pp_test_stats(pool);
		for (i = 0; i < n; i++) {
			pages[i] = page_pool_dev_alloc_pages(pool);
			CHECK(pages[i] != NULL);
			CHECK(pp_page_source(pages[i]) == src);
			if (pp_mem_source_kind(src) == PP_MEM_MEMFD ||
			    pp_mem_source_kind(src) == PP_MEM_USER)
				CHECK_EQ(pp_mem_source_page_offset(src,
								   pages[i],
								   &off), 0);
		}
		for (i = 0; i < n; i++)
			page_pool_put_full_page(pool, pages[i], false);
		after = pp_test_stats(pool);
		if (round == 1) {
			/* Everything came back through the ring. */
			CHECK_EQ(after.alloc_stats.slow -
					 before.alloc_stats.slow, 0);
			CHECK_EQ(after.alloc_stats.slow_high_order -
					 before.alloc_stats.slow_high_order,
				 0);
		}
	}
}

static void
test_memfd(void)
{
	PP_OPTS(pp_mem_source_opts, o, .kind = PP_MEM_MEMFD,
		.name = "pagepool-test");
	struct pp_mem_source *src = pp_mem_source_create(&o);
	struct page_pool *pool;
	struct page *page;
	uint64_t off;
	char *view;

	CHECK(src != NULL);
	CHECK(pp_mem_source_id(src) > 0);
	pool = pool_on(src, 0);
	/* A pool that has not allocated yet still holds its source. */
	CHECK_EQ(pp_mem_source_destroy(src), -EBUSY);

	/* The page is the memfd's: a second mapping sees the pool's bytes. */
	page = page_pool_dev_alloc_pages(pool);
	CHECK(page != NULL);
	CHECK_EQ(pp_mem_source_page_offset(src, page, &off), 0);
	view = mmap(NULL, PAGE_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED,
		    pp_mem_source_fd(src), (off_t)off);
	CHECK(view != MAP_FAILED);
	memcpy(page_address(page), "through the pool", 17);
	CHECK(memcmp(view, "through the pool", 17) == 0);
	munmap(view, PAGE_SIZE);
	page_pool_put_full_page(pool, page, false);

	cycle(pool, src, NPAGES);
	CHECK_EQ(pp_mem_source_destroy(src), -EBUSY);
	page_pool_destroy(pool);
	/* Nothing was in flight: the pool is freed by destroy itself, and
	 * with it the last page and the hold on the source. */
	CHECK_EQ(pp_mem_source_destroy(src), 0);
}

static void
test_user(void)
{
	const size_t len = 4UL << 20;	/* one region: 1024 pages */
	struct page *pages[256];
	struct pp_mem_source *src;
	struct page_pool *pool;
	struct page *page;
	char *region;
	int i, n;

	region = mmap(NULL, len, PROT_READ | PROT_WRITE,
		      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	CHECK(region != MAP_FAILED);
	{
		PP_OPTS(pp_mem_source_opts, o, .kind = PP_MEM_USER,
			.addr = region, .len = len, .nid = NUMA_NO_NODE);

		src = pp_mem_source_create(&o);
		CHECK(src != NULL);
	}

	/* Order 0 and order 2: every block inside the region. */
	pool = pool_on(src, 0);
	cycle(pool, src, NPAGES);
	page = page_pool_dev_alloc_pages(pool);
	CHECK(page != NULL);
	CHECK((char *)page_address(page) >= region &&
	      (char *)page_address(page) < region + len);
	page_pool_put_full_page(pool, page, false);
	page_pool_destroy(pool);

	pool = pool_on(src, 2);
	cycle(pool, src, NPAGES);
	/* The region is the limit: 1024 pages are 256 blocks of order 2,
	 * and the pool gets every one of them, then ENOMEM. */
	for (n = 0; n < 256; n++) {
		pages[n] = page_pool_dev_alloc_pages(pool);
		CHECK(pages[n] != NULL);
	}
	errno = 0;
	CHECK(page_pool_dev_alloc_pages(pool) == NULL);
	CHECK_EQ(errno, ENOMEM);
	CHECK_EQ(page_pool_inflight(pool), 256);
	CHECK_EQ(pp_mem_source_destroy(src), -EBUSY);
	for (i = 0; i < n; i++)
		page_pool_put_full_page(pool, pages[i], false);
	page_pool_destroy(pool);
	CHECK_EQ(pp_mem_source_destroy(src), 0);
	munmap(region, len);
}

/*
 * An AF_XDP-style device: the DMA address of a page is its offset in the
 * UMEM (the user region), so the region's first page has DMA address 0.
 */
static dma_addr_t
umem_map(struct device *dev, void *vaddr, size_t size,
	 enum dma_data_direction dir, unsigned long attrs)
{
	struct pp_mem_source *src = pp_dma_dev_priv(dev);
	struct page *page = virt_to_page(vaddr);
	uint64_t off;

	(void)size;
	(void)dir;
	(void)attrs;
	if (page == NULL || pp_mem_source_page_offset(src, page, &off) != 0) {
		errno = EINVAL;
		return DMA_MAPPING_ERROR;
	}
	return off + ((uintptr_t)vaddr & (PAGE_SIZE - 1));
}

static int
umem_unmap(struct device *dev, dma_addr_t addr, size_t size,
	   enum dma_data_direction dir, unsigned long attrs)
{
	(void)dev;
	(void)addr;
	(void)size;
	(void)dir;
	(void)attrs;
	return 0;
}

static void
test_umem_dma(void)
{
	const size_t len = 4UL << 20;
	static struct page *pages[1024];
	struct pp_dma_ops ops = { .sz = sizeof(ops), .map_page = umem_map,
				  .unmap_page = umem_unmap };
	struct page_pool_params pp;
	struct pp_mem_source *src;
	struct page_pool *pool;
	struct device *dev;
	unsigned char *seen;
	char *region;
	uint64_t off;
	int i, n;

	region = mmap(NULL, len, PROT_READ | PROT_WRITE,
		      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	CHECK(region != MAP_FAILED);
	{
		PP_OPTS(pp_mem_source_opts, o, .kind = PP_MEM_USER,
			.addr = region, .len = len, .nid = NUMA_NO_NODE);

		src = pp_mem_source_create(&o);
		CHECK(src != NULL);
	}
	dev = pp_dma_dev_create_ops(&ops, src, NULL);
	CHECK(dev != NULL);
	memset(&pp, 0, sizeof(pp));
	pp.nid = NUMA_NO_NODE;
	pp.pool_size = 1024;
	pp.dev = dev;
	pp.dma_dir = DMA_FROM_DEVICE;
	pp.flags = PP_FLAG_DMA_MAP | PP_FLAG_MEM_SOURCE;
	pp.mem_source = pp_mem_source_id(src);
	pool = page_pool_create(&pp);
	CHECK(pool != NULL);

	/* Every page of the UMEM, each with its offset as DMA address,
	 * offset 0 included; twice, the second time recycled. */
	seen = calloc(1024, 1);
	CHECK(seen != NULL);
	for (int round = 0; round < 2; round++) {
		memset(seen, 0, 1024);
		for (n = 0; n < 1024; n++) {
			pages[n] = page_pool_dev_alloc_pages(pool);
			CHECK(pages[n] != NULL);
			CHECK_EQ(pp_mem_source_page_offset(src, pages[n], &off),
				 0);
			CHECK_EQ(page_pool_get_dma_addr(pages[n]), off);
			CHECK(seen[off / PAGE_SIZE] == 0);
			seen[off / PAGE_SIZE] = 1;
		}
		CHECK(page_pool_dev_alloc_pages(pool) == NULL);
		for (i = 0; i < n; i++)
			page_pool_put_full_page(pool, pages[i], false);
	}
	free(seen);
	page_pool_destroy(pool);
	{
		struct pp_dma_stats ds;

		memset(&ds, 0, sizeof(ds));
		ds.sz = sizeof(ds);
		CHECK_EQ(pp_dma_dev_get_stats(dev, &ds), 0);
		CHECK_EQ(ds.live_mappings, 0);
		CHECK_EQ(ds.maps, 1024);
		CHECK_EQ(ds.unmaps, 1024);
	}
	CHECK_EQ(pp_mem_source_destroy(src), 0);
	pp_dma_dev_destroy(dev);
	munmap(region, len);
}

static void
test_badinput(void)
{
	struct page_pool_params pp;
	struct pp_mem_source *src;
	struct page_pool *pool;
	struct page *page;
	int id;

	memset(&pp, 0, sizeof(pp));
	pp.nid = NUMA_NO_NODE;
	pp.flags = PP_FLAG_MEM_SOURCE;

	pp.mem_source = 0;
	errno = 0;
	CHECK(page_pool_create(&pp) == NULL);
	CHECK_EQ(errno, EINVAL);

	pp.mem_source = -3;
	errno = 0;
	CHECK(page_pool_create(&pp) == NULL);
	CHECK_EQ(errno, EINVAL);

	/* The id of a destroyed source names nothing. */
	src = pp_mem_source_create(NULL);
	CHECK(src != NULL);
	id = pp_mem_source_id(src);
	CHECK(id > 0);
	CHECK_EQ(pp_mem_source_destroy(src), 0);
	pp.mem_source = id;
	errno = 0;
	CHECK(page_pool_create(&pp) == NULL);
	CHECK_EQ(errno, EINVAL);

	CHECK_EQ(pp_mem_source_id(NULL), -EINVAL);

	/* Without the flag the field is not read: pages come from the
	 * default source whatever it holds. */
	pp.flags = 0;
	pp.mem_source = 12345;
	pool = page_pool_create(&pp);
	CHECK(pool != NULL);
	page = page_pool_dev_alloc_pages(pool);
	CHECK(page != NULL);
	CHECK(pp_page_source(page) == pp_mem_source_default());
	page_pool_put_full_page(pool, page, false);
	page_pool_destroy(pool);
}

int
main(void)
{
	test_badinput();
	test_memfd();
	test_user();
	test_umem_dma();
	return T_EXIT_PASS;
}
