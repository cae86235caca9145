/* SPDX-License-Identifier: MIT */
/*
 * Copyright (c) 2026 The pagepool authors
 *
 * DOC: netsim — a software NIC (devices sim0, sim1, ...)
 *
 * A network device whose hardware is simulated, with a driver written the
 * way a kernel driver with page_pool and XDP is (drivers/net/ethernet/
 * freescale/fec_main.c, seed 001's): per queue an RX and a TX descriptor
 * ring holding DMA addresses, a page_pool that fills the RX ring
 * (PP_FLAG_DMA_MAP | PP_FLAG_DMA_SYNC_DEV, XDP_PACKET_HEADROOM in front of
 * every packet), native XDP (DROP, PASS, TX, ABORTED, REDIRECT to another
 * device, whose frames it also transmits: ndo_xdp_xmit), skbs built over
 * the RX pages with
 * napi_build_skb() and either marked for recycling or released from the
 * pool first (page_pool_release_page(), the seed's other column).
 *
 * The device side touches packet memory only through the DMA device layer
 * (pp_dma_dev_write() to receive, pp_dma_dev_read() to transmit), so with
 * the IOMMU model every access to a buffer the driver did not map, or no
 * longer maps, is a fault.
 *
 * The wire. netsim_wire_rx() plays the network and the NIC's DMA engine,
 * inline in the caller's thread (like DPDK's net_null with copy=1): it
 * transmits what the driver posted on the TX rings and writes up to @max
 * Ethernet/IPv4/UDP frames into posted RX buffers, flows taking turns. A
 * frame that finds no posted buffer is counted as rx_missed_errors.
 * netsim_wire_start() runs the wire on its own thread instead (the
 * realistic case: the NIC works while the CPU polls). With several queues
 * the flows are spread by a hash of their UDP port (RSS: hash modulo the
 * queue count), each queue's wire sending only its own flows; the hash
 * reaches the skb (skb->hash). netsim_wire_replay() makes the wire replay
 * given frames (a pcap file's) instead.
 */
#ifndef PAGEPOOL_NETSIM_H
#define PAGEPOOL_NETSIM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <pagepool/netdevice.h>

#ifdef __cplusplus
extern "C" {
#endif

/**
 * struct netsim_opts - options of netsim_create().
 * @sz: sizeof(struct netsim_opts)
 * @queues: RX/TX queue pairs (default 1, at most 16)
 * @ring_size: descriptors per ring, a power of two (default 256, 16..4096)
 * @dma_dev: the DMA device (identity or IOMMU model); NULL: an identity
 *	device of the netsim's own
 * @no_recycle: release pages from the pool before building skbs instead of
 *	marking skbs for recycling
 * @frame_len: frame size in bytes without FCS (default 64; ETH_ZLEN..the
 *	RX buffer, see netsim_wire_set())
 * @flows: UDP flows, by destination port (default 1, at most 65536)
 */
struct netsim_opts {
	size_t sz;
	unsigned int queues;
	unsigned int ring_size;
	struct device *dma_dev;
	bool no_recycle;
	unsigned int frame_len;
	unsigned int flows;
};

/** struct netsim_stats - the wire's counters. */
struct netsim_stats {
	uint64_t wire_sent;	/* frames offered to the RX side */
	uint64_t wire_tx;	/* frames the device transmitted */
	uint64_t dma_errors;	/* device accesses that faulted */
};

/**
 * netsim_create() - create and register a software NIC ("sim%d").
 * Return: the device (down); NULL with errno EINVAL (bad options, with a
 * message on stderr) or ENOMEM.
 */
PP_API struct net_device *netsim_create(const struct netsim_opts *opts);

/**
 * netsim_destroy() - close, unregister and free a netsim device. Pages
 * still held elsewhere keep their pools alive until returned.
 */
PP_API void netsim_destroy(struct net_device *dev);

/**
 * netsim_wire_set() - the wire's frame size and flow count from now on.
 * Return: 0; -EINVAL (not a netsim device, flows 0 or above 65536,
 * @frame_len below ETH_ZLEN); -EMSGSIZE (@frame_len larger than the RX
 * buffer, SKB_WITH_OVERHEAD(PAGE_SIZE) - XDP_PACKET_HEADROOM); -EBUSY (a
 * wire thread runs).
 */
PP_API int netsim_wire_set(struct net_device *dev, unsigned int frame_len,
			   unsigned int flows);

/* The longest frame netsim_wire_replay() takes (a jumbo frame's worth). */
#define NETSIM_REPLAY_MAX_LEN	65535u

/**
 * netsim_wire_replay() - the wire replays @n frames from now on, in
 * order and over again, instead of generating them (a pcap replay).
 * @frames: the frames' bytes (copied); @lens: their lengths.
 * With several queues RSS spreads them by a hash of their IPv4 addresses
 * and ports (of their MAC addresses if not IPv4). A frame shorter than
 * ETH_HLEN or longer than the RX buffer (see netsim_wire_set()) is dropped
 * by the NIC as it arrives, counted in wire_sent and rx_length_errors.
 * @n 0, or netsim_wire_set(), returns to generated frames.
 * Return: 0; -EINVAL (not a netsim device, NULL arrays with @n > 0, a
 * length above NETSIM_REPLAY_MAX_LEN); -ENOMEM; -EBUSY (a wire thread
 * runs).
 */
PP_API int netsim_wire_replay(struct net_device *dev,
			      const void *const *frames,
			      const unsigned int *lens, unsigned int n);

/**
 * netsim_wire_rx() - the device's work on queue @queue: transmit what is
 * posted on its TX ring, then receive up to @max frames. Called by a
 * thread that does not poll the queue (threaded NAPI), it then raises the
 * queue's interrupt: napi_schedule() wakes the queue's NAPI thread.
 * Return: frames received into posted buffers (>= 0); -EINVAL; -ENETDOWN;
 * -EBUSY (a wire thread runs on the queue, or the wire runs in the poll).
 * Context: the device's NAPI thread (inline wire), or one thread per
 * queue with threaded NAPI.
 */
PP_API int netsim_wire_rx(struct net_device *dev, unsigned int queue,
			  unsigned int max);

/**
 * netsim_wire_in_poll() - with @on, the inline wire runs inside the
 * driver's poll: before it reads the RX ring, every poll transmits what is
 * posted and receives up to its budget of frames, so a NAPI thread
 * (dev_set_threaded()) keeps polling with no other thread feeding it, the
 * per-core cost of netsim_wire_rx() before each napi_poll(). Missed frames
 * are counted as with netsim_wire_rx().
 * Return: 0; -EINVAL (not a netsim device); -EBUSY (a wire thread runs, or
 * the device is up and threaded: its NAPI threads read the setting).
 * Context: the device's owner thread.
 */
PP_API int netsim_wire_in_poll(struct net_device *dev, bool on);

/**
 * netsim_wire_start() - run the wire of queue @queue on its own thread:
 * it transmits what is posted on the TX ring and writes frames into RX
 * buffers as the driver posts them, waiting for buffers rather than
 * losing frames, until netsim_wire_stop() or @count frames (0: no limit).
 * The NAPI thread keeps polling meanwhile.
 * With threaded NAPI each batch it writes raises the queue's interrupt
 * (napi_schedule()), which wakes the queue's NAPI thread.
 * Return: 0; -EINVAL; -ENETDOWN; -EBUSY (already running, or the wire
 * runs in the poll: netsim_wire_in_poll()); -EAGAIN.
 * Context: the device's owner thread. While it runs, netsim_wire_rx() on
 * the queue returns -EBUSY.
 */
PP_API int netsim_wire_start(struct net_device *dev, unsigned int queue,
			     uint64_t count);

/**
 * netsim_wire_stop() - stop and join the wire thread of @queue (closing
 * the device does it too). Frames it wrote are still to be polled.
 * Return: 0; -EINVAL; -ENOENT (not running).
 */
PP_API int netsim_wire_stop(struct net_device *dev, unsigned int queue);

/** netsim_get_stats() - the wire's counters. Return: 0 or -EINVAL. */
PP_API int netsim_get_stats(const struct net_device *dev,
			    struct netsim_stats *stats);

/**
 * netsim_page_pool() - the page_pool of RX queue @queue (NULL while down):
 * for statistics.
 */
PP_API struct page_pool *netsim_page_pool(const struct net_device *dev,
					  unsigned int queue);

/** netsim_napi() - the NAPI instance of queue @queue, for napi_poll(). */
PP_API struct napi_struct *netsim_napi(struct net_device *dev,
				       unsigned int queue);

#ifdef __cplusplus
}
#endif

#endif /* PAGEPOOL_NETSIM_H */
