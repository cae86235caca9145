/* SPDX-License-Identifier: MIT */
/*
 * Copyright (c) 2026 The pagepool authors
 *
 * ppnic: a model NIC driver's receive path, written as kernel driver code
 * (kernel headers, kernel types, kernel error conventions) and built with
 * nothing but `pkg-config --cflags --libs pagepool-kernel`. It shows that a
 * driver's page_pool code compiles unmodified against pagepool; the test
 * around it (kdriver_test.c) plays the hardware and the stack.
 *
 * The descriptor ring is what a real NIC shares with its driver: the
 * driver posts buffer addresses, the device writes a packet into a buffer
 * and sets the descriptor's length and DONE bit.
 */
#ifndef PPNIC_H
#define PPNIC_H

#include <linux/bits.h>
#include <linux/device.h>
#include <linux/kernel.h>
#include <linux/types.h>
#include <net/page_pool/types.h>

#define PPNIC_RX_HEADROOM	256	/* XDP_PACKET_HEADROOM */
#define PPNIC_RX_BUF_LEN	2048	/* what the device may write */
#define PPNIC_DESC_DONE		BIT(0)
#define PPNIC_DESC_ERR		BIT(1)	/* bad frame: dropped and recycled */

struct ppnic_rx_desc {
	dma_addr_t addr;	/* driver -> device */
	u32 len;		/* device -> driver */
	u32 status;		/* device -> driver: PPNIC_DESC_* */
};

/* What the stack receives: a buffer it must give back with
 * ppnic_stack_free() (the skb's free path). */
struct ppnic_frame {
	netmem_ref netmem;
	u32 offset;
	u32 len;
};

struct ppnic_rx_ring {
	struct device *dev;
	struct page_pool *page_pool;
	struct napi_struct napi;	/* the poll context owning the pool */
	struct ppnic_rx_desc *desc;
	netmem_ref *bufs;
	u32 count;			/* power of two */
	u32 next_to_use;
	u32 next_to_clean;
	u64 packets, bytes, drops, alloc_fail;
};

/*
 * The adapter: the driver's private struct, with its struct device
 * embedded as the kernel's pci_dev embeds one (the "bus", the test, sets
 * the device up before probe, behind the IOMMU model) and its RX ring.
 */
struct ppnic_adapter {
	struct device dev;
	struct ppnic_rx_ring rx;
	u32 msg_enable;
};

static inline struct ppnic_adapter *
to_ppnic_adapter(struct device *dev)
{
	return container_of(dev, struct ppnic_adapter, dev);
}

int ppnic_probe(struct device *dev, u32 count);
void ppnic_remove(struct device *dev);
int ppnic_rx_ring_init(struct ppnic_rx_ring *ring, struct device *dev,
		       u32 count);
int ppnic_rx_refill(struct ppnic_rx_ring *ring);
int ppnic_poll(struct ppnic_rx_ring *ring, int budget,
	       struct ppnic_frame *frames);
void ppnic_stack_free(struct page_pool *pool, const struct ppnic_frame *f);
int ppnic_get_sset_count(void);
void ppnic_get_strings(u8 *data);
void ppnic_get_ethtool_stats(struct ppnic_rx_ring *ring, u64 *data);
void ppnic_rx_ring_free(struct ppnic_rx_ring *ring);

#endif /* PPNIC_H */
