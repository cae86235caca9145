/* SPDX-License-Identifier: MIT */
/*
 * Copyright (c) 2026 The pagepool authors
 *
 * page_pool DMA: pages are mapped once when they enter the pool and
 * unmapped once when they leave, synced for the device at map time
 * (max_len) and on every recycle (min(size, max_len) at offset), synced for
 * the CPU on request; and the seed-003 crash reproduced against the IOMMU
 * model and shown fixed: a driver destroys its pool and unbinds while the
 * stack still holds pages; when the stack returns them later, the pool
 * without DMA tracking unmaps through the dead device (faults), the pool
 * with tracking had already unmapped them at destroy (no fault). An offset
 * past the block is refused at create, a CPU sync past it at the call.
 */
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include <pagepool/opts.h>
#include <pagepool/page_pool.h>

#include "page_pool_helpers.h"

static void
test_map_sync_identity(void)
{
	struct device *dev = pp_dma_identity_create(NULL);
	struct page_pool_params pp = {
		.flags = PP_FLAG_DMA_MAP | PP_FLAG_DMA_SYNC_DEV,
		.dev = dev,
		.dma_dir = DMA_FROM_DEVICE,
		.max_len = 1500,
		.offset = 256,
		.nid = NUMA_NO_NODE,
	};
	struct page_pool *pool;
	struct pp_dma_stats s;
	struct page *page;

	CHECK(dev != NULL);
	pool = page_pool_create(&pp);
	CHECK(pool != NULL);
	page = page_pool_alloc_pages(pool, GFP_KERNEL);
	CHECK(page != NULL);
	CHECK_EQ(page_pool_get_dma_addr(page),
		 (dma_addr_t)(uintptr_t)page_address(page));
	CHECK_EQ(page_pool_get_dma_dir(pool), DMA_FROM_DEVICE);
	s = pp_test_dev_stats(dev);
	CHECK_EQ(s.maps, 64);			/* one bulk, each mapped once */
	CHECK_EQ(s.syncs_for_device, 64);	/* max_len at map time */
	CHECK_EQ(s.bytes_synced_for_device, 64 * 1500);

	/* Recycle with a length: min(len, max_len) is synced. */
	page_pool_put_page(pool, page, 100, true);
	s = pp_test_dev_stats(dev);
	CHECK_EQ(s.syncs_for_device, 65);
	CHECK_EQ(s.bytes_synced_for_device, 64 * 1500 + 100);
	page = page_pool_alloc_pages(pool, GFP_KERNEL);
	page_pool_put_full_page(pool, page, true);	/* -1: max_len */
	s = pp_test_dev_stats(dev);
	CHECK_EQ(s.bytes_synced_for_device, 65 * 1500 + 100);
	/* Recycling never maps again. */
	CHECK_EQ(s.maps, 64);

	page = page_pool_alloc_pages(pool, GFP_KERNEL);
	page_pool_dma_sync_for_cpu(pool, page, 14, 60);
	s = pp_test_dev_stats(dev);
	CHECK_EQ(s.syncs_for_cpu, 1);
	CHECK_EQ(s.bytes_synced_for_cpu, 60);
	page_pool_recycle_direct(pool, page);

	page_pool_destroy(pool);
	s = pp_test_dev_stats(dev);
	CHECK_EQ(s.unmaps, 64);
	CHECK_EQ(s.live_mappings, 0);
	CHECK_EQ(s.faults, 0);
	pp_dma_dev_destroy(dev);
}

/*
 * The device writes at params.offset, so an offset must leave room in the
 * block whether or not the pool syncs for the device; and a CPU sync of a
 * range that runs past the block, or of a page that is not the pool's, is
 * refused (errno EINVAL) before it reaches the device.
 */
static struct page_pool *
offset_pool(struct device *dev, unsigned int order, unsigned int offset)
{
	struct page_pool_params pp = {
		.flags = PP_FLAG_DMA_MAP,
		.dev = dev,
		.dma_dir = DMA_FROM_DEVICE,
		.order = order,
		.offset = offset,
		.nid = NUMA_NO_NODE,
	};

	errno = 0;
	return page_pool_create(&pp);
}

static void
test_offset_bounds(void)
{
	struct device *dev = pp_dma_identity_create(NULL);
	struct page_pool *pool, *other;
	struct page *page, *foreign;
	struct pp_dma_stats s;
	static const unsigned int bad[] = {
		PAGE_SIZE, PAGE_SIZE + 1, 3 * PAGE_SIZE, 0x80000000u, ~0u,
	};
	unsigned int i;

	CHECK(dev != NULL);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		CHECK(offset_pool(dev, 0, bad[i]) == NULL);
		CHECK_EQ(errno, EINVAL);
	}
	CHECK(offset_pool(dev, 1, 2 * PAGE_SIZE) == NULL);
	CHECK_EQ(errno, EINVAL);
	/* The last byte of the block is still room. */
	pool = offset_pool(dev, 0, PAGE_SIZE - 1);
	CHECK(pool != NULL);
	page_pool_destroy(pool);
	pool = offset_pool(dev, 1, PAGE_SIZE);
	CHECK(pool != NULL);
	page_pool_destroy(pool);

	/* CPU syncs: up to the end of the block, and no further. */
	pool = offset_pool(dev, 0, 256);
	other = offset_pool(dev, 0, 0);
	CHECK(pool != NULL && other != NULL);
	page = page_pool_alloc_pages(pool, GFP_KERNEL);
	CHECK(page != NULL);
	page_pool_dma_sync_for_cpu(pool, page, PAGE_SIZE - 256 - 60, 60);
	s = pp_test_dev_stats(dev);
	CHECK_EQ(s.syncs_for_cpu, 1);
	CHECK_EQ(s.bytes_synced_for_cpu, 60);
	errno = 0;
	page_pool_dma_sync_for_cpu(pool, page, PAGE_SIZE - 256 - 60, 61);
	CHECK_EQ(errno, EINVAL);
	errno = 0;
	page_pool_dma_sync_for_cpu(pool, page, PAGE_SIZE, 1);
	CHECK_EQ(errno, EINVAL);
	errno = 0;
	page_pool_dma_sync_for_cpu(pool, page, ~0u, ~0u);
	CHECK_EQ(errno, EINVAL);
	errno = 0;
	page_pool_dma_sync_for_cpu(pool, page, 0, ~0u);
	CHECK_EQ(errno, EINVAL);
	/* Pages that are not this pool's: another pool's, the allocator's. */
	foreign = page_pool_alloc_pages(other, GFP_KERNEL);
	CHECK(foreign != NULL);
	errno = 0;
	page_pool_dma_sync_for_cpu(pool, foreign, 0, 60);
	CHECK_EQ(errno, EINVAL);
	page_pool_recycle_direct(other, foreign);
	foreign = alloc_pages(GFP_KERNEL, 0);
	CHECK(foreign != NULL);
	errno = 0;
	page_pool_dma_sync_for_cpu(pool, foreign, 0, 60);
	CHECK_EQ(errno, EINVAL);
	__free_pages(foreign, 0);
	errno = 0;
	page_pool_dma_sync_for_cpu(pool, NULL, 0, 60);
	CHECK_EQ(errno, EINVAL);
	errno = 0;
	page_pool_dma_sync_for_cpu(NULL, page, 0, 60);
	CHECK_EQ(errno, EINVAL);
	s = pp_test_dev_stats(dev);
	CHECK_EQ(s.syncs_for_cpu, 1);
	CHECK_EQ(s.faults, 0);
	page_pool_recycle_direct(pool, page);
	page_pool_destroy(pool);
	page_pool_destroy(other);
	CHECK_EQ(pp_test_dev_stats(dev).faults, 0);
	pp_dma_dev_destroy(dev);
}

static void
test_coherent_skips_sync(void)
{
	PP_OPTS(pp_dma_dev_opts, o, .flags = PP_DMA_F_COHERENT);
	struct device *dev = pp_dma_identity_create(&o);
	struct page_pool_params pp = {
		.flags = PP_FLAG_DMA_MAP | PP_FLAG_DMA_SYNC_DEV,
		.dev = dev,
		.dma_dir = DMA_BIDIRECTIONAL,
		.max_len = PAGE_SIZE,
		.nid = NUMA_NO_NODE,
	};
	struct page_pool *pool = page_pool_create(&pp);
	struct page *page;

	CHECK(pool != NULL);
	page = page_pool_alloc_pages(pool, GFP_KERNEL);
	page_pool_recycle_direct(pool, page);
	CHECK_EQ(pp_test_dev_stats(dev).syncs_for_device, 0);
	page_pool_destroy(pool);
	pp_dma_dev_destroy(dev);
}

/*
 * Seed 003. Returns the faults the device saw and how many mappings were
 * still live when it was unbound.
 */
static void
seed003(bool untracked, uint64_t *faults, uint64_t *live_at_unbind)
{
	PP_OPTS(pp_iommu_opts, o, .flags = PP_DMA_F_QUIET);
	struct device *dev = pp_iommu_create(&o);
	struct page_pool_params pp = {
		.flags = PP_FLAG_DMA_MAP | PP_FLAG_DMA_SYNC_DEV,
		.dev = dev,
		.dma_dir = DMA_FROM_DEVICE,
		.max_len = PAGE_SIZE,
		.nid = NUMA_NO_NODE,
		.defer_ms = 5,
		.defer_warn_ms = 600000,
		.dma_untracked = untracked,
	};
	struct page *held[10];
	struct page_pool *pool;
	struct pp_dma_stats s;
	int i;

	CHECK(dev != NULL);
	pool = page_pool_create(&pp);
	CHECK(pool != NULL);
	page_pool_get(pool);	/* the driver's and the memory model's */
	pp_test_watch_free(pool);
	for (i = 0; i < 10; i++) {
		held[i] = page_pool_alloc_pages(pool, GFP_KERNEL);
		CHECK(held[i] != NULL);
		/* The NIC receives into the page through the IOMMU. */
		CHECK_EQ(pp_dma_dev_write(dev, page_pool_get_dma_addr(held[i]),
					  "packet", 6), 0);
		page_pool_dma_sync_for_cpu(pool, held[i], 0, 6);
		CHECK(memcmp(page_address(held[i]), "packet", 6) == 0);
	}
	/* The driver goes away: pool destroyed (deferred), device unbound. */
	page_pool_destroy(pool);
	page_pool_destroy(pool);
	CHECK_EQ(pp_test_is_freed(), 0);
	CHECK_EQ(pp_dma_dev_unbind(dev), 0);
	/* The stack returns its pages long after. */
	for (i = 0; i < 10; i++)
		page_pool_put_full_page(pool, held[i], false);
	pp_test_wait_freed(5000);
	s = pp_test_dev_stats(dev);
	*faults = s.faults;
	*live_at_unbind = s.unbind_live_mappings;
	pp_dma_dev_destroy(dev);
}

int
main(void)
{
	uint64_t faults, live;

	test_map_sync_identity();
	test_coherent_skips_sync();
	test_offset_bounds();

	/* The bug, as Linux before 6.16 had it. */
	seed003(true, &faults, &live);
	fprintf(stderr, "untracked: %llu faults, %llu mappings live at unbind\n",
		(unsigned long long)faults, (unsigned long long)live);
	CHECK(faults >= 10);	/* the late syncs and unmaps of 10 pages */
	CHECK_EQ(live, 10);
	/* Fixed: destroy unmapped the in-flight pages before the unbind. */
	seed003(false, &faults, &live);
	CHECK_EQ(faults, 0);
	CHECK_EQ(live, 0);
	return T_EXIT_PASS;
}
