/* SPDX-License-Identifier: MIT */
/*
 * Copyright (c) 2026 The pagepool authors
 *
 * page_pool over bounce-mode devices (PP_DMA_F_BOUNCE | PP_DMA_F_POISON),
 * through the public page_pool API only: the pool's own syncs are exactly
 * the kernel's ranges, so a correct driver sees every frame intact across
 * map, PP_FLAG_DMA_SYNC_DEV with offset and max_len, recycling (direct,
 * through the ring, with a sync length and with -1) and pool destroy, on
 * the identity device and the IOMMU model, FROM_DEVICE and BIDIRECTIONAL,
 * with every DMA-API misuse fatal; and a wrong driver sees the poison:
 * one that syncs one headroom too far, one that forgets the sync. A pool
 * without PP_FLAG_DMA_SYNC_DEV whose driver reposts a page it synced for
 * the CPU without giving it back is caught at the device's next write;
 * page_pool fragments let the device fill one while the CPU reads another.
 */
#include <errno.h>
#include <string.h>

#include <pagepool/opts.h>
#include <pagepool/page_pool.h>

#include "page_pool_helpers.h"

#define HEADROOM	256
#define MAX_LEN		1536

static struct device *
make(bool iommu, unsigned int flags)
{
	struct device *dev;

	flags |= PP_DMA_F_BOUNCE | PP_DMA_F_POISON;
	if (iommu) {
		PP_OPTS(pp_iommu_opts, o, .flags = flags, .name = "nic0");
		dev = pp_iommu_create(&o);
	} else {
		PP_OPTS(pp_dma_dev_opts, o, .flags = flags, .name = "nic0");
		dev = pp_dma_identity_create(&o);
	}
	CHECK(dev != NULL);
	return dev;
}

static struct page_pool *
make_pool(struct device *dev, enum dma_data_direction dir, bool sync_dev)
{
	struct page_pool_params pp = {
		.flags = PP_FLAG_DMA_MAP | (sync_dev ? PP_FLAG_DMA_SYNC_DEV : 0),
		.pool_size = 16,
		.dev = dev,
		.dma_dir = dir,
		.max_len = MAX_LEN,
		.offset = HEADROOM,
		.nid = NUMA_NO_NODE,
	};
	struct page_pool *pool = page_pool_create(&pp);

	CHECK(pool != NULL);
	return pool;
}

static void
fill_frame(unsigned char *f, unsigned int len, unsigned int seq)
{
	unsigned int i;

	for (i = 0; i < len; i++)
		f[i] = (unsigned char)(seq * 7 + i * 13 + 1);
	/* Never the poison byte, so a poisoned byte is always a miss. */
	for (i = 0; i < len; i++)
		if (f[i] == PP_DMA_POISON)
			f[i] = 0;
}

/* The device receives @len bytes into @page at the pool's offset. */
static void
receive(struct device *dev, struct page *page, const unsigned char *frame,
	unsigned int len)
{
	CHECK_EQ(pp_dma_dev_write(dev, page_pool_get_dma_addr(page) + HEADROOM,
				  frame, len), 0);
}

/* A correct driver: every frame arrives intact, whatever the recycle. */
static void
test_correct(bool iommu, enum dma_data_direction dir)
{
	struct device *dev = make(iommu, PP_DMA_F_FATAL);
	struct page_pool *pool = make_pool(dev, dir, true);
	unsigned char frame[MAX_LEN];
	struct pp_dma_stats s;
	unsigned int seq;

	for (seq = 0; seq < 400; seq++) {
		unsigned int len = 60 + (seq * 97) % (MAX_LEN - 60);
		struct page *page = page_pool_dev_alloc_pages(pool);
		unsigned char *va;

		CHECK(page != NULL);
		va = page_address(page);
		fill_frame(frame, len, seq);
		receive(dev, page, frame, len);
		page_pool_dma_sync_for_cpu(pool, page, 0, len);
		CHECK(memcmp(va + HEADROOM, frame, len) == 0);
		switch (seq % 4) {
		case 0:
			page_pool_recycle_direct(pool, page);
			break;
		case 1:	/* the CPU touched len bytes: sync only those */
			page_pool_put_page(pool, page, (int)len, true);
			break;
		case 2:	/* through the ring */
			page_pool_put_full_page(pool, page, false);
			break;
		default:
			page_pool_put_page(pool, page, (int)len, false);
			break;
		}
	}
	page_pool_destroy(pool);
	s = pp_test_dev_stats(dev);
	CHECK_EQ(s.live_mappings, 0);
	CHECK_EQ(s.faults, 0);
	CHECK(s.bytes_bounced > 0);
	CHECK(s.bounce_maps > 0 && s.bounce_maps < 400);	/* recycled */
	pp_dma_dev_destroy(dev);	/* fatal if a mapping leaked */
}

/*
 * Wrong drivers see the poison: the classic offset bug (the pool's offset
 * added twice, once by the driver and once by page_pool_dma_sync_for_cpu),
 * and no sync at all. The bytes the device wrote are all in the bounce
 * buffer; only the synced range reached the CPU.
 */
static void
test_wrong(bool iommu)
{
	struct device *dev = make(iommu, PP_DMA_F_FATAL);
	struct page_pool *pool = make_pool(dev, DMA_FROM_DEVICE, true);
	unsigned char frame[1000];
	unsigned int i, seq;

	for (seq = 0; seq < 8; seq++) {
		struct page *page = page_pool_dev_alloc_pages(pool);
		unsigned char *va;

		CHECK(page != NULL);
		va = (unsigned char *)page_address(page) + HEADROOM;
		fill_frame(frame, sizeof(frame), seq);
		receive(dev, page, frame, sizeof(frame));
		if (seq % 2 == 0) {
			page_pool_dma_sync_for_cpu(pool, page, HEADROOM,
						   sizeof(frame));
			for (i = 0; i < HEADROOM; i++)
				CHECK_EQ(va[i], PP_DMA_POISON);
			CHECK(memcmp(va + HEADROOM, frame + HEADROOM,
				     sizeof(frame) - HEADROOM) == 0);
		} else {
			for (i = 0; i < sizeof(frame); i++)
				CHECK_EQ(va[i], PP_DMA_POISON);
		}
		page_pool_put_full_page(pool, page, true);
	}
	page_pool_destroy(pool);
	CHECK_EQ(pp_test_dev_stats(dev).faults, 0);
	pp_dma_dev_destroy(dev);
}

/*
 * Without PP_FLAG_DMA_SYNC_DEV the driver gives recycled pages back to the
 * device itself. One that does not is caught at the device's next write
 * into the bytes it synced for the CPU; one that does is not.
 */
static void
test_no_sync_dev(bool iommu)
{
	struct device *dev = make(iommu, PP_DMA_F_QUIET);
	struct page_pool *pool = make_pool(dev, DMA_FROM_DEVICE, false);
	unsigned char frame[200];
	struct pp_dma_stats s;
	struct page *page;
	dma_addr_t dma;

	memset(frame, 0x42, sizeof(frame));
	page = page_pool_dev_alloc_pages(pool);
	CHECK(page != NULL);
	dma = page_pool_get_dma_addr(page);
	receive(dev, page, frame, sizeof(frame));
	page_pool_dma_sync_for_cpu(pool, page, 0, sizeof(frame));
	page_pool_recycle_direct(pool, page);
	CHECK(page_pool_dev_alloc_pages(pool) == page);	/* the same page */
	CHECK_EQ(pp_dma_dev_write(dev, dma + HEADROOM, frame, sizeof(frame)),
		 -EFAULT);
	s = pp_test_dev_stats(dev);
	CHECK_EQ(s.debug_errors, 1);
	CHECK_EQ(s.last_fault_reason, PP_DMA_FAULT_CPU_OWNED);
	CHECK_EQ(s.last_fault_addr, dma + HEADROOM);
	CHECK(s.last_fault_site != 0);
	/* The driver's fix: sync for the device before reposting. */
	dma_sync_single_range_for_device(dev, dma, HEADROOM, sizeof(frame),
					 DMA_FROM_DEVICE);
	receive(dev, page, frame, sizeof(frame));
	CHECK_EQ(pp_test_dev_stats(dev).debug_errors, 1);
	page_pool_put_full_page(pool, page, true);
	page_pool_destroy(pool);
	pp_dma_dev_destroy(dev);
}

/* Fragments: the device fills one while the CPU owns the other. */
static void
test_frags(bool iommu)
{
	struct device *dev = make(iommu, PP_DMA_F_FATAL);
	struct page_pool *pool = make_pool(dev, DMA_FROM_DEVICE, false);
	unsigned char a_frame[1000], b_frame[1000];
	unsigned int a_off, b_off;
	struct page *a, *b;
	dma_addr_t dma;

	fill_frame(a_frame, sizeof(a_frame), 1);
	fill_frame(b_frame, sizeof(b_frame), 2);
	a = page_pool_dev_alloc_frag(pool, &a_off, 2048);
	b = page_pool_dev_alloc_frag(pool, &b_off, 2048);
	CHECK(a != NULL && a == b && a_off != b_off);
	dma = page_pool_get_dma_addr(a);
	CHECK_EQ(pp_dma_dev_write(dev, dma + a_off, a_frame, 1000), 0);
	dma_sync_single_range_for_cpu(dev, dma, a_off, 1000, DMA_FROM_DEVICE);
	CHECK(memcmp((unsigned char *)page_address(a) + a_off, a_frame,
		     1000) == 0);
	CHECK_EQ(pp_dma_dev_write(dev, dma + b_off, b_frame, 1000), 0);
	dma_sync_single_range_for_cpu(dev, dma, b_off, 1000, DMA_FROM_DEVICE);
	CHECK(memcmp((unsigned char *)page_address(b) + b_off, b_frame,
		     1000) == 0);
	page_pool_put_page(pool, a, -1, true);
	page_pool_put_page(pool, b, -1, true);
	page_pool_destroy(pool);
	CHECK_EQ(pp_test_dev_stats(dev).live_mappings, 0);
	pp_dma_dev_destroy(dev);
}

int
main(void)
{
	int iommu;

	for (iommu = 0; iommu <= 1; iommu++) {
		test_correct(iommu, DMA_FROM_DEVICE);
		test_correct(iommu, DMA_BIDIRECTIONAL);
		test_wrong(iommu);
		test_no_sync_dev(iommu);
		test_frags(iommu);
	}
	return T_EXIT_PASS;
}
