/* SPDX-License-Identifier: MIT */
/*
 * Copyright (c) 2026 The pagepool authors
 *
 * Drives the model driver ppnic (ppnic.c, kernel driver code built with
 * the pagepool-kernel flags): this file is its hardware and its stack. The
 * "NIC" is an IOMMU model whose device writes frames into the posted
 * buffers through their DMA addresses; one frame in five is bad (ERR bit)
 * and one in seven has no destination, so the driver drops and recycles
 * directly; the rest go to a stack thread that returns each page through
 * the pool's ring, as the kernel's skb free path does on another CPU.
 *
 * Checks: page_pool_create() failure reaches the driver as -EINVAL through
 * IS_ERR()/PTR_ERR(); every frame arrives intact; drops and deliveries add
 * up; the ethtool counters agree; teardown leaves nothing in flight and no
 * DMA mapping alive. The driver's struct device is embedded in its adapter
 * (set up behind the IOMMU model by pp_iommu_init(), the bus's part); a
 * second embedded device goes through the driver core's calls
 * (device_register() ... device_unregister()) and maps pages for a pool.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pagepool/dma.h>
#include <pagepool/opts.h>
#include <pagepool/ptr_ring.h>
#include <net/page_pool/helpers.h>

#include "ppnic.h"

#define CHECK(cond)                                                          \
	do {                                                                 \
		if (!(cond)) {                                               \
			fprintf(stderr, "%s:%d: CHECK failed: %s\n",         \
				__FILE__, __LINE__, #cond);                  \
			exit(1);                                             \
		}                                                            \
	} while (0)

#define RING_SIZE	256
#define FRAMES		20000
#define BUDGET		64

/* The stack: frames the driver passed up, freed on another thread. */
static struct ptr_ring stack_q;
static struct page_pool *stack_pool;
static int stack_done;

static void *
stack_thread(void *arg)
{
	struct ppnic_frame *f;

	(void)arg;
	for (;;) {
		f = ptr_ring_consume(&stack_q);
		if (f == NULL) {
			/* A1: pairs with the release store R1 in main. */
			if (__atomic_load_n(&stack_done, __ATOMIC_ACQUIRE) &&
			    ptr_ring_empty(&stack_q))
				break;
			sched_yield();
			continue;
		}
		ppnic_stack_free(stack_pool, f);
		free(f);
	}
	return NULL;
}

/* The NIC: fill up to @n posted descriptors with frames, seq numbered. */
static u32
hw_receive(struct ppnic_rx_ring *ring, u32 *hw_next, u32 n, u32 *seq)
{
	u32 mask = ring->count - 1, done = 0;
	unsigned char frame[256];

	while (done < n && *hw_next != ring->next_to_use) {
		struct ppnic_rx_desc *d = &ring->desc[*hw_next & mask];
		u32 len = 60 + (*seq % 180);
		u32 status = PPNIC_DESC_DONE;

		memset(frame, (int)(*seq & 0x7f) + 1, sizeof(frame));
		memcpy(frame + 1, seq, sizeof(*seq));
		if (*seq % 7 == 3)
			frame[0] = 0;	/* no destination: driver drops */
		if (*seq % 5 == 1)
			status |= PPNIC_DESC_ERR;
		CHECK(pp_dma_dev_write(ring->dev, d->addr, frame, len) == 0);
		d->len = len;
		__atomic_store_n(&d->status, status, __ATOMIC_RELEASE);
		(*hw_next)++;
		(*seq)++;
		done++;
	}
	return done;
}

static void
test_create_error(void)
{
	struct ppnic_rx_ring ring;

	memset(&ring, 0, sizeof(ring));
	napi_init_current(&ring.napi);
	/* PP_FLAG_DMA_MAP without a device: the kernel's -EINVAL. */
	CHECK(ppnic_rx_ring_init(&ring, NULL, RING_SIZE) == -EINVAL);
	CHECK(ring.page_pool == NULL && ring.desc == NULL);
	/* And directly: never NULL, always an error pointer. */
	{
		struct page_pool_params pp = { 0 };
		struct page_pool *pool;

		pp.flags = 0x80000000u;
		pp.nid = NUMA_NO_NODE;
		pool = page_pool_create(&pp);
		CHECK(pool != NULL && IS_ERR(pool));
		CHECK(PTR_ERR(pool) == -EINVAL);
	}
}

/*
 * A struct device embedded in a driver's own struct, through the driver
 * core's calls: named by init_name before and after device_register(),
 * drvdata kept, refused a second add, mapping pages for a page_pool,
 * ended by device_unregister() with the struct left to its owner, set up
 * again by a second register.
 */
struct my_priv {
	int before;
	struct device dev;
	int after;
};

static void
test_embedded_register(void)
{
	struct my_priv *priv = calloc(1, sizeof(*priv));
	struct page_pool_params pp = { 0 };
	struct page_pool *pool;
	struct page *page;
	static char buf[64];
	dma_addr_t addr;
	int round;

	CHECK(priv != NULL);
	priv->before = priv->after = 0x5a5a;
	priv->dev.init_name = "ppnic-reg";
	dev_set_drvdata(&priv->dev, priv);
	CHECK(strcmp(dev_name(&priv->dev), "ppnic-reg") == 0);
	/* Not added: the DMA calls refuse it. */
	CHECK(dma_map_single(&priv->dev, buf, sizeof(buf), DMA_TO_DEVICE) ==
	      DMA_MAPPING_ERROR);
	CHECK(pp_dma_dev_unbind(&priv->dev) == -EINVAL);
	for (round = 0; round < 2; round++) {
		CHECK(device_register(&priv->dev) == 0);
		CHECK(priv->dev.p != NULL);
		CHECK(strcmp(dev_name(&priv->dev), "ppnic-reg") == 0);
		CHECK(device_add(&priv->dev) == -EINVAL);
		CHECK(dev_get_drvdata(&priv->dev) == priv);
		/* No IOMMU: the DMA address is the address. */
		addr = dma_map_single(&priv->dev, buf, sizeof(buf),
				      DMA_TO_DEVICE);
		CHECK(addr == (dma_addr_t)(uintptr_t)buf);
		dma_unmap_single(&priv->dev, addr, sizeof(buf), DMA_TO_DEVICE);

		pp.flags = PP_FLAG_DMA_MAP;
		pp.pool_size = 64;
		pp.nid = NUMA_NO_NODE;
		pp.dev = &priv->dev;
		pp.dma_dir = DMA_FROM_DEVICE;
		pool = page_pool_create(&pp);
		CHECK(!IS_ERR(pool));
		page = page_pool_dev_alloc_pages(pool);
		CHECK(page != NULL);
		CHECK(page_pool_get_dma_addr(page) ==
		      (dma_addr_t)(uintptr_t)page_address(page));
		page_pool_put_full_page(pool, page, false);
		page_pool_destroy(pool);

		device_unregister(&priv->dev);
		CHECK(priv->dev.p == NULL);
		CHECK(dev_get_drvdata(&priv->dev) == priv);
		CHECK(strcmp(dev_name(&priv->dev), "ppnic-reg") == 0);
	}
	device_unregister(&priv->dev);	/* not added: nothing to do */
	CHECK(priv->before == 0x5a5a && priv->after == 0x5a5a);
	free(priv);
}

int
main(void)
{
	PP_OPTS(pp_iommu_opts, io, .flags = PP_DMA_F_QUIET);
	struct ppnic_frame frames[BUDGET];
	struct ppnic_adapter *ad;
	struct ppnic_rx_ring *rp;
	struct pp_dma_stats ds;
	u32 hw_next = 0, seq = 0, expect = 0;
	u64 delivered = 0, dropped = 0;
	u64 *stats;
	pthread_t th;
	int i, n;

	test_create_error();
	test_embedded_register();

	/* The bus: the adapter (kzalloc) with its device set up behind the
	 * IOMMU model, named by init_name; then the driver's probe. */
	ad = calloc(1, sizeof(*ad));
	CHECK(ad != NULL);
	ad->dev.init_name = "ppnic0";
	CHECK(pp_iommu_init(&ad->dev, &io) == 0);
	CHECK(strcmp(dev_name(&ad->dev), "ppnic0") == 0);
	CHECK(pp_iommu_init(&ad->dev, &io) == -EINVAL);	/* already set up */
	rp = &ad->rx;
	napi_init_current(&rp->napi);	/* netif_napi_add + napi_enable */
	CHECK(ppnic_probe(&ad->dev, RING_SIZE) == 0);
	CHECK(rp->dev == &ad->dev && dev_get_drvdata(&ad->dev) == ad);
	CHECK(!IS_ERR_OR_NULL(rp->page_pool));
	CHECK(ppnic_rx_refill(rp) == RING_SIZE - 1);

	CHECK(ptr_ring_init(&stack_q, 4096, GFP_KERNEL) == 0);
	stack_pool = rp->page_pool;
	CHECK(pthread_create(&th, NULL, stack_thread, NULL) == 0);

	while (rp->packets + rp->drops < FRAMES) {
		if (seq < FRAMES)
			hw_receive(rp, &hw_next,
				   FRAMES - seq < BUDGET ? FRAMES - seq : BUDGET,
				   &seq);
		n = ppnic_poll(rp, BUDGET, frames);
		for (i = 0; i < n; i++) {
			const unsigned char *data =
				(const unsigned char *)page_address(
					netmem_to_page(frames[i].netmem)) +
				frames[i].offset;
			struct ppnic_frame *f;
			u32 got;

			memcpy(&got, data + 1, sizeof(got));
			/* Skip the sequence numbers the driver dropped. */
			while (expect % 5 == 1 || expect % 7 == 3)
				expect++;
			CHECK(got == expect);
			CHECK(frames[i].len == 60 + (got % 180));
			expect++;
			delivered++;
			f = malloc(sizeof(*f));
			CHECK(f != NULL);
			*f = frames[i];
			while (ptr_ring_produce(&stack_q, f) != 0)
				sched_yield();	/* the stack is behind */
		}
	}
	/* R1: pairs with the acquire load A1 in stack_thread. */
	__atomic_store_n(&stack_done, 1, __ATOMIC_RELEASE);
	CHECK(pthread_join(th, NULL) == 0);
	ptr_ring_cleanup(&stack_q, NULL);

	for (i = 0; i < FRAMES; i++)
		if (i % 5 == 1 || i % 7 == 3)
			dropped++;
	CHECK(seq == FRAMES);
	CHECK(rp->packets == delivered);
	CHECK(rp->drops == dropped);

	stats = calloc(ppnic_get_sset_count(), sizeof(*stats));
	CHECK(stats != NULL);
	ppnic_get_ethtool_stats(rp, stats);
	CHECK(stats[0] == rp->packets && stats[2] == rp->drops);
	CHECK(stats[4] > 0);		/* rx_pp_alloc_fast */
	CHECK(stats[4 + 6] > 0);	/* rx_pp_recycle_cached: the drops */
	CHECK(stats[4 + 8] > 0);	/* rx_pp_recycle_ring: the stack */
	free(stats);
	{
		char (*names)[32] = calloc(ppnic_get_sset_count(), 32);

		CHECK(names != NULL);
		ppnic_get_strings((u8 *)names);
		CHECK(strcmp(names[0], "rx_packets") == 0);
		CHECK(strcmp(names[4], "rx_pp_alloc_fast") == 0);
		CHECK(strcmp(names[4 + 10], "rx_pp_recycle_released_ref") == 0);
		free(names);
	}

	ppnic_remove(&ad->dev);
	memset(&ds, 0, sizeof(ds));
	ds.sz = sizeof(ds);
	CHECK(pp_dma_dev_get_stats(&ad->dev, &ds) == 0);
	CHECK(ds.live_mappings == 0);
	CHECK(ds.faults == 0);
	CHECK(ds.maps > 0);	/* the pool mapped through the embedded device */
	pp_dma_dev_destroy(&ad->dev);
	CHECK(ad->dev.p == NULL);
	free(ad);
	printf("ppnic: %llu frames delivered, %llu dropped and recycled\n",
	       (unsigned long long)delivered, (unsigned long long)dropped);
	return 0;
}
