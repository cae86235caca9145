/* SPDX-License-Identifier: MIT */
/*
 * Copyright (c) 2026 The pagepool authors
 *
 * What bounce mode is for, shown on driver code: a receive routine written
 * the way a kernel NIC driver writes one (descriptor ring, page_pool with
 * PP_FLAG_DMA_SYNC_DEV and a headroom offset, page_pool_dma_sync_for_cpu()
 * before reading, recycle and refill), over a small model NIC that
 * "receives" a frame by a device write (pp_dma_dev_write()) into the next
 * posted buffer and marks the descriptor done.
 *
 * The buggy routine passes the headroom to page_pool_dma_sync_for_cpu(),
 * which adds the pool's offset itself: it syncs one headroom past where
 * the device wrote. On the identity device and the plain IOMMU model that
 * is invisible, as on coherent x86 - every frame arrives intact and no
 * check fires. Under PP_DMA_F_BOUNCE (what swiotlb=force or a non-coherent
 * machine would do) the first headroom bytes of every frame never reach
 * the CPU: the test sees the poison (or, without PP_DMA_F_POISON, old
 * bytes). The correct routine delivers every frame in all four set-ups,
 * with every DMA-API misuse fatal. The debug checks also name the bug on
 * their own: the range the buggy routine synced past the frame stays the
 * CPU's (page_pool gives back only the frame's length on recycle), so a
 * later frame written there is a device write into CPU-owned memory.
 */
#include <string.h>

#include <pagepool/opts.h>
#include <pagepool/page_pool.h>

#include "page_pool_helpers.h"

#define RX_RING		64
#define RX_HEADROOM	256
#define RX_BUF_LEN	1536
#define FRAMES		500

/* The model NIC's receive descriptor, as the device sees it. */
struct rx_desc {
	dma_addr_t addr;	/* written by the driver */
	unsigned int len;	/* written by the device */
	unsigned int done;	/* set by the device, cleared by the driver */
};

struct model_nic {
	struct device *dev;
	struct rx_desc desc[RX_RING];
	unsigned int next_to_use;	/* the device's next descriptor */
	unsigned int dma_errors;	/* frames dropped on a DMA fault */
};

/* The device: DMA one frame into the next posted buffer. */
static bool
nic_receive(struct model_nic *nic, const void *frame, unsigned int len)
{
	struct rx_desc *d = &nic->desc[nic->next_to_use];

	if (d->done || d->addr == 0)
		return false;	/* ring full: dropped */
	/* A DMA fault (the device model refused the write) drops the
	 * frame and leaves the descriptor posted, as a NIC's DMA error. */
	if (pp_dma_dev_write(nic->dev, d->addr, frame, len) != 0) {
		nic->dma_errors++;
		return false;
	}
	d->len = len;
	d->done = 1;
	nic->next_to_use = (nic->next_to_use + 1) % RX_RING;
	return true;
}

/* ---------------------------------------------------------------- */
/* The driver */

struct rx_queue {
	struct model_nic *nic;
	struct page_pool *page_pool;
	struct page *pages[RX_RING];
	unsigned int next_to_clean;
};

typedef void (*deliver_fn)(void *ctx, const unsigned char *data,
			   unsigned int len);

static int
rxq_refill_one(struct rx_queue *rxq, unsigned int i)
{
	struct page *page = page_pool_dev_alloc_pages(rxq->page_pool);

	if (page == NULL)
		return -ENOMEM;
	rxq->pages[i] = page;
	rxq->nic->desc[i].addr = page_pool_get_dma_addr(page) + RX_HEADROOM;
	rxq->nic->desc[i].done = 0;
	return 0;
}

static int
rxq_init(struct rx_queue *rxq, struct model_nic *nic)
{
	struct page_pool_params pp = {
		.flags = PP_FLAG_DMA_MAP | PP_FLAG_DMA_SYNC_DEV,
		.order = 0,
		.pool_size = RX_RING,
		.nid = NUMA_NO_NODE,
		.dev = nic->dev,
		.dma_dir = DMA_FROM_DEVICE,
		.offset = RX_HEADROOM,
		.max_len = RX_BUF_LEN,
	};
	unsigned int i;

	memset(rxq, 0, sizeof(*rxq));
	rxq->nic = nic;
	rxq->page_pool = page_pool_create(&pp);
	if (rxq->page_pool == NULL)
		return -errno;
	for (i = 0; i < RX_RING; i++)
		if (rxq_refill_one(rxq, i))
			return -ENOMEM;
	return 0;
}

static void
rxq_destroy(struct rx_queue *rxq)
{
	unsigned int i;

	for (i = 0; i < RX_RING; i++)
		if (rxq->pages[i] != NULL)
			page_pool_put_full_page(rxq->page_pool, rxq->pages[i],
						false);
	page_pool_destroy(rxq->page_pool);
}

/*
 * The receive routine. @buggy selects the deliberate error: the driver
 * passes its headroom as the sync offset, although
 * page_pool_dma_sync_for_cpu() already adds the pool's offset.
 */
static int
rxq_poll(struct rx_queue *rxq, int budget, bool buggy, deliver_fn deliver,
	 void *ctx)
{
	int done = 0;

	while (done < budget) {
		unsigned int ntc = rxq->next_to_clean;
		struct rx_desc *desc = &rxq->nic->desc[ntc];
		struct page *page = rxq->pages[ntc];
		unsigned char *va;
		unsigned int len;

		if (!desc->done)
			break;
		len = desc->len;
		page_pool_dma_sync_for_cpu(rxq->page_pool, page,
					   buggy ? RX_HEADROOM : 0, len);
		va = page_address(page);
		deliver(ctx, va + RX_HEADROOM, len);
		/* Consumed in NAPI context (as XDP_DROP or a copy-break):
		 * straight back to the pool, which syncs len for the device. */
		page_pool_put_page(rxq->page_pool, page, (int)len, true);
		rxq->pages[ntc] = NULL;
		if (rxq_refill_one(rxq, ntc))
			break;
		rxq->next_to_clean = (ntc + 1) % RX_RING;
		done++;
	}
	return done;
}

/* ---------------------------------------------------------------- */
/* The test bench */

struct stack {
	unsigned int seq;	/* next frame expected */
	unsigned int intact, corrupt, poisoned;
	/* Of the device: frames it dropped on a fault, and its record. */
	unsigned int dropped;
	uint64_t debug_errors;
	uint32_t last_fault_reason;
};

static void
make_frame(unsigned char *f, unsigned int len, unsigned int seq)
{
	unsigned int i;

	for (i = 0; i < len; i++) {
		f[i] = (unsigned char)(seq + i * 31 + 7);
		if (f[i] == PP_DMA_POISON || f[i] == 0)
			f[i] = 1;
	}
}

static void
stack_deliver(void *ctx, const unsigned char *data, unsigned int len)
{
	struct stack *st = ctx;
	unsigned char want[RX_BUF_LEN];

	/* The bench polls after every frame: the one delivered is the one
	 * just sent (a dropped one is never delivered). */
	make_frame(want, len, st->seq);
	if (memcmp(data, want, len) == 0) {
		st->intact++;
		return;
	}
	st->corrupt++;
	if (data[0] == PP_DMA_POISON)
		st->poisoned++;
}

static struct device *
make_dev(bool iommu, unsigned int flags)
{
	struct device *dev;

	if (iommu) {
		PP_OPTS(pp_iommu_opts, o, .flags = flags, .name = "mnic0");
		dev = pp_iommu_create(&o);
	} else {
		PP_OPTS(pp_dma_dev_opts, o, .flags = flags, .name = "mnic0");
		dev = pp_dma_identity_create(&o);
	}
	CHECK(dev != NULL);
	return dev;
}

static struct stack
run(bool iommu, unsigned int flags, bool buggy)
{
	struct model_nic nic = { .dev = make_dev(iommu, flags) };
	unsigned char frame[RX_BUF_LEN];
	struct rx_queue rxq;
	struct stack st = { 0 };
	unsigned int seq;
	PP_OPTS(pp_dma_stats, s);

	CHECK_EQ(rxq_init(&rxq, &nic), 0);
	for (seq = 0; seq < FRAMES; seq++) {
		/* Frames of 60 bytes and up: longer than the headroom, so
		 * the bug loses real bytes, and shorter than the buffer
		 * minus two headrooms, so no sync leaves the mapping. */
		unsigned int len = 60 + (seq * 131) % (RX_BUF_LEN - 2 * 256);

		make_frame(frame, len, seq);
		st.seq = seq;
		if (!nic_receive(&nic, frame, len))
			st.dropped++;
		while (rxq_poll(&rxq, 16, buggy, stack_deliver, &st))
			;
	}
	CHECK_EQ(st.intact + st.corrupt + st.dropped, FRAMES);
	CHECK_EQ(st.dropped, nic.dma_errors);
	rxq_destroy(&rxq);
	CHECK_EQ(pp_dma_dev_get_stats(nic.dev, &s), 0);
	CHECK_EQ(s.faults, st.dropped);
	CHECK_EQ(s.live_mappings, 0);
	st.debug_errors = s.debug_errors;
	st.last_fault_reason = s.last_fault_reason;
	pp_dma_dev_destroy(nic.dev);
	return st;
}

int
main(void)
{
	const unsigned int bounce = PP_DMA_F_BOUNCE | PP_DMA_F_FATAL;
	struct stack st;
	int iommu;

	for (iommu = 0; iommu <= 1; iommu++) {
		/* Coherent view: the bug is invisible. */
		st = run(iommu, PP_DMA_F_FATAL, false);
		CHECK_EQ(st.intact, FRAMES);
		st = run(iommu, PP_DMA_F_FATAL, true);
		CHECK_EQ(st.intact, FRAMES);
		/* Bounce mode: the correct driver still sees every frame, with
		 * any misuse fatal... */
		st = run(iommu, bounce | PP_DMA_F_POISON, false);
		CHECK_EQ(st.intact, FRAMES);
		st = run(iommu, bounce, false);
		CHECK_EQ(st.intact, FRAMES);
		/*
		 * ...and the buggy one no intact frame: the first headroom
		 * bytes the device wrote never reach the CPU (poison, or old
		 * bytes without it). The range it did sync stays the CPU's,
		 * as page_pool gives back only the length it was told, so
		 * the checks also catch the device writing there later.
		 */
		st = run(iommu, PP_DMA_F_QUIET | PP_DMA_F_BOUNCE |
				       PP_DMA_F_POISON, true);
		CHECK_EQ(st.intact, 0);
		CHECK_EQ(st.poisoned, st.corrupt);
		CHECK(st.corrupt > FRAMES / 2);
		CHECK(st.dropped > 0);
		CHECK_EQ(st.debug_errors, st.dropped);
		CHECK_EQ(st.last_fault_reason, PP_DMA_FAULT_CPU_OWNED);
		st = run(iommu, PP_DMA_F_QUIET | PP_DMA_F_BOUNCE, true);
		CHECK_EQ(st.intact, 0);
		CHECK_EQ(st.debug_errors, st.dropped);
		/* The checks alone (no bounce) see the ownership error too,
		 * though every frame the CPU reads is intact. */
		st = run(iommu, PP_DMA_F_QUIET | PP_DMA_F_DEBUG, true);
		CHECK_EQ(st.corrupt, 0);
		CHECK(st.debug_errors > 0);
		CHECK_EQ(st.last_fault_reason, PP_DMA_FAULT_CPU_OWNED);
	}
	return T_EXIT_PASS;
}
