/* SPDX-License-Identifier: MIT */
/*
 * Copyright (c) 2026 The pagepool authors
 *
 * ppnic's receive path in the kernel's driver idiom: a page_pool per RX
 * queue created with IS_ERR() checking, the ring refilled with netmem from
 * page_pool_dev_alloc_netmems(), DMA addresses from the pool, a CPU sync of
 * what the device wrote before reading it, bad frames recycled directly in
 * the poll, good ones passed up and returned by the stack with
 * page_pool_put_full_page(), and a teardown that returns the posted buffers
 * before page_pool_destroy(). Only kernel headers are included: this file
 * would build in a kernel tree with the stubs for its "hardware".
 */
#include <linux/kernel.h>
#include <linux/types.h>
#include <linux/build_bug.h>
#include <linux/err.h>
#include <linux/errno.h>
#include <linux/log2.h>
#include <linux/prefetch.h>
#include <linux/device.h>
#include <linux/dma-mapping.h>
#include <linux/slab.h>
#include <linux/mm.h>
#include <linux/string.h>
#include <net/page_pool/helpers.h>
#include <net/page_pool/types.h>

#include "ppnic.h"

static int
ppnic_create_page_pool(struct ppnic_rx_ring *ring)
{
	struct page_pool_params pp = { 0 };
	struct page_pool *pool;

	pp.order = 0;
	pp.flags = PP_FLAG_DMA_MAP | PP_FLAG_DMA_SYNC_DEV;
	pp.pool_size = ring->count;
	pp.nid = NUMA_NO_NODE;
	pp.dev = ring->dev;
	pp.napi = &ring->napi;
	pp.dma_dir = DMA_FROM_DEVICE;
	pp.offset = PPNIC_RX_HEADROOM;
	pp.max_len = PPNIC_RX_BUF_LEN;

	pool = page_pool_create(&pp);
	if (IS_ERR(pool)) {
		int err = PTR_ERR(pool);

		pr_debug("ppnic: page_pool_create: %d\n", err);
		return err;
	}
	ring->page_pool = pool;
	return 0;
}

int
ppnic_rx_ring_init(struct ppnic_rx_ring *ring, struct device *dev, u32 count)
{
	int err;

	/* The device reads a descriptor as two 8-byte words. */
	BUILD_BUG_ON(sizeof(struct ppnic_rx_desc) != 16);
	if (!is_power_of_2(count))
		return -EINVAL;
	ring->dev = dev;
	ring->count = count;
	ring->next_to_use = 0;
	ring->next_to_clean = 0;
	ring->desc = kcalloc(count, sizeof(*ring->desc), GFP_KERNEL);
	ring->bufs = kcalloc(count, sizeof(*ring->bufs), GFP_KERNEL);
	if (!ring->desc || !ring->bufs) {
		err = -ENOMEM;
		goto err_free;
	}
	err = ppnic_create_page_pool(ring);
	if (err)
		goto err_free;
	return 0;

err_free:
	kfree(ring->bufs);
	kfree(ring->desc);
	ring->bufs = NULL;
	ring->desc = NULL;
	return err;
}

/* Post a fresh buffer in every free slot; returns how many were posted. */
int
ppnic_rx_refill(struct ppnic_rx_ring *ring)
{
	u32 mask = ring->count - 1;
	int posted = 0;

	/* One slot stays empty so that full and empty differ. */
	while (ring->next_to_use - ring->next_to_clean < ring->count - 1) {
		u32 i = ring->next_to_use & mask;
		struct ppnic_rx_desc *desc = &ring->desc[i];
		netmem_ref netmem;

		netmem = page_pool_dev_alloc_netmems(ring->page_pool);
		if (unlikely(!netmem)) {
			ring->alloc_fail++;
			break;
		}
		ring->bufs[i] = netmem;
		desc->len = 0;
		desc->status = 0;
		/* The device owns the descriptor once the address is set. */
		WRITE_ONCE(desc->addr, page_pool_get_dma_addr_netmem(netmem) +
					       PPNIC_RX_HEADROOM);
		ring->next_to_use++;
		posted++;
	}
	return posted;
}

/*
 * NAPI poll: up to @budget completed descriptors. Good frames are handed
 * to the stack in @frames; bad ones are recycled on the spot, directly
 * into the pool's cache, as XDP_DROP does.
 */
int
ppnic_poll(struct ppnic_rx_ring *ring, int budget, struct ppnic_frame *frames)
{
	u32 mask = ring->count - 1;
	int done = 0, passed = 0;

	while (done < budget && ring->next_to_clean != ring->next_to_use) {
		u32 i = ring->next_to_clean & mask;
		struct ppnic_rx_desc *desc = &ring->desc[i];
		u32 status = READ_ONCE(desc->status);
		netmem_ref netmem = ring->bufs[i];
		const u8 *data;
		struct page *page;
		u32 len;

		if (!(status & PPNIC_DESC_DONE))
			break;
		len = min_t(u32, desc->len, PPNIC_RX_BUF_LEN);
		page = netmem_to_page(netmem);
		ring->bufs[i] = 0;
		ring->next_to_clean++;
		done++;

		if (unlikely(status & PPNIC_DESC_ERR)) {
			ring->drops++;
			page_pool_recycle_direct(ring->page_pool, page);
			continue;
		}
		/* What the device wrote becomes visible to the CPU. */
		dma_sync_single_range_for_cpu(ring->dev,
					      page_pool_get_dma_addr(page),
					      PPNIC_RX_HEADROOM, len,
					      page_pool_get_dma_dir(ring->page_pool));
		/* A runt, or a frame with no destination, is dropped. */
		data = (const u8 *)page_address(page) + PPNIC_RX_HEADROOM;
		prefetch(data);
		if (len < 14 || data[0] == 0) {
			ring->drops++;
			page_pool_recycle_direct_netmem(ring->page_pool, netmem);
			continue;
		}
		frames[passed].netmem = netmem;
		frames[passed].offset = PPNIC_RX_HEADROOM;
		frames[passed].len = len;
		passed++;
		ring->packets++;
		ring->bytes += len;
	}
	ppnic_rx_refill(ring);
	return passed;
}

/* The stack is done with a frame: its page goes back to the pool from
 * whatever context the stack runs in. */
void
ppnic_stack_free(struct page_pool *pool, const struct ppnic_frame *f)
{
	page_pool_put_full_page(pool, netmem_to_page(f->netmem), false);
}

static const char ppnic_stat_names[][32] = {
	"rx_packets", "rx_bytes", "rx_drops", "rx_alloc_fail",
};

int
ppnic_get_sset_count(void)
{
	return ARRAY_SIZE(ppnic_stat_names) +
	       page_pool_ethtool_stats_get_count();
}

void
ppnic_get_strings(u8 *data)
{
	memcpy(data, ppnic_stat_names, sizeof(ppnic_stat_names));
	data += sizeof(ppnic_stat_names);
	page_pool_ethtool_stats_get_strings(data);
}

void
ppnic_get_ethtool_stats(struct ppnic_rx_ring *ring, u64 *data)
{
	struct page_pool_stats stats = { 0 };

	*data++ = ring->packets;
	*data++ = ring->bytes;
	*data++ = ring->drops;
	*data++ = ring->alloc_fail;
	if (page_pool_get_stats(ring->page_pool, &stats))
		data = page_pool_ethtool_stats_get(data, &stats);
}

void
ppnic_rx_ring_free(struct ppnic_rx_ring *ring)
{
	u32 mask = ring->count - 1;

	/* Posted buffers the device never filled go back to the pool. */
	while (ring->next_to_clean != ring->next_to_use) {
		u32 i = ring->next_to_clean++ & mask;

		if (ring->bufs[i])
			page_pool_put_full_netmem(ring->page_pool,
						  ring->bufs[i], false);
		ring->bufs[i] = 0;
	}
	page_pool_destroy(ring->page_pool);
	ring->page_pool = NULL;
	kfree(ring->bufs);
	kfree(ring->desc);
	ring->bufs = NULL;
	ring->desc = NULL;
}

/*
 * Probe and remove, as a PCI driver's: the device is the one embedded in
 * the adapter; the ring maps through it.
 */
int
ppnic_probe(struct device *dev, u32 count)
{
	struct ppnic_adapter *ad = to_ppnic_adapter(dev);
	int err;

	err = ppnic_rx_ring_init(&ad->rx, &ad->dev, count);
	if (err) {
		dev_err(dev, "RX ring: %d\n", err);
		return err;
	}
	dev_set_drvdata(dev, ad);
	return 0;
}

void
ppnic_remove(struct device *dev)
{
	struct ppnic_adapter *ad = dev_get_drvdata(dev);

	ppnic_rx_ring_free(&ad->rx);
	dev_set_drvdata(dev, NULL);
}
