/* SPDX-License-Identifier: MIT */
/*
 * Copyright (c) 2026 The pagepool authors
 *
 * DOC: xsk — the AF_XDP backend of the net_device layer (private)
 *
 * A net_device over a real interface: an AF_XDP socket bound to one of its
 * queues in copy mode (zero-copy is refused by veth), its UMEM a user-region
 * memory source on which the queue's page_pool sits, so the DMA address of
 * a pool page is its UMEM offset, the address the rings carry. The driver
 * (xsk.c) is shaped as a kernel driver with page_pool and XDP: the NAPI
 * poll completes TX, takes RX descriptors, runs the attached XDP program on
 * each as an xdp_buff over its pool page (DROP recycles, PASS builds an skb
 * for the small stack, TX posts the frame on the socket's TX ring and
 * returns it at completion) and refills the fill ring from the page_pool.
 *
 * Built only with libxdp and libbpf (meson option afxdp), as a static
 * module the tools link; libpagepool itself does not depend on them. The
 * kernel side is libxdp's default program (xsk_def_prog), one per
 * interface; LIBXDP_SKIP_DISPATCHER=1 is set unless the caller set it
 * (the multi-program dispatcher does not load on our kernels).
 * Needs CAP_NET_RAW and CAP_BPF (root) and bpffs at /sys/fs/bpf: libxdp
 * runs without it (with a warning) but then keeps no record of the program
 * it attached, which other libxdp users (xdp-loader) rely on; the driver
 * refuses to open instead, with a message saying so.
 */
#ifndef PAGEPOOL_XSK_H
#define PAGEPOOL_XSK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <pagepool/netdevice.h>

/**
 * struct pp_xsk_opts - options of pp_xsk_create().
 * @sz: sizeof(struct pp_xsk_opts)
 * @queue_id: the interface's queue to bind (default 0)
 * @ring_size: descriptors per ring, a power of two (default 2048)
 * @frames: UMEM frames of PAGE_SIZE, at least twice @ring_size (default
 *	4 * @ring_size)
 * @skb_mode: the kernel runs its program in generic (XDP_FLAGS_SKB_MODE)
 *	mode; default native (XDP_FLAGS_DRV_MODE)
 * @no_recycle: release pages from the pool before building skbs
 */
struct pp_xsk_opts {
	size_t sz;
	unsigned int queue_id;
	unsigned int ring_size;
	unsigned int frames;
	bool skb_mode;
	bool no_recycle;
};

/**
 * struct pp_xsk_stats - the kernel's XDP_STATISTICS of the socket, and the
 * driver's own counters.
 */
struct pp_xsk_stats {
	uint64_t rx_dropped;		/* kernel: no buffer or too long */
	uint64_t rx_invalid_descs;
	uint64_t tx_invalid_descs;
	uint64_t rx_ring_full;		/* kernel: RX ring full */
	uint64_t rx_fill_ring_empty_descs; /* kernel: fill ring empty */
	uint64_t tx_ring_empty_descs;
	uint64_t tx_kicks;		/* sendto() wake-ups */
	uint64_t tx_kick_errors;	/* ... that failed other than EAGAIN */
	uint64_t wait_calls;		/* pp_xsk_wait() sleeps in poll() */
};

/**
 * pp_xsk_create() - an AF_XDP device over interface @ifname.
 * @err, @errlen: a message for the user on failure (may be NULL).
 * Return: the registered device (down; dev_open() binds the socket); NULL
 * with errno: ENODEV (no such interface), EINVAL (bad options), ENOMEM.
 */
struct net_device *pp_xsk_create(const char *ifname,
				 const struct pp_xsk_opts *opts, char *err,
				 size_t errlen);

/** pp_xsk_destroy() - close, unregister and free an AF_XDP device. */
void pp_xsk_destroy(struct net_device *dev);

/** pp_xsk_is() - true if @dev is an AF_XDP device. */
bool pp_xsk_is(const struct net_device *dev);

/**
 * pp_xsk_open_error() - after a failed dev_open(), what failed, for the
 * user (never NULL).
 */
const char *pp_xsk_open_error(const struct net_device *dev);

/** pp_xsk_napi() - the NAPI instance, for napi_poll(). */
struct napi_struct *pp_xsk_napi(struct net_device *dev);

/** pp_xsk_page_pool() - the RX queue's page_pool (NULL while down). */
struct page_pool *pp_xsk_page_pool(const struct net_device *dev);

/** pp_xsk_ifindex() - the kernel's ifindex of the interface. */
int pp_xsk_ifindex(const struct net_device *dev);

/**
 * pp_xsk_get_stats() - read the kernel's XDP_STATISTICS (while up; the
 * last values read stay after close) and the driver's counters.
 * Return: 0; -EINVAL; the getsockopt() error.
 */
int pp_xsk_get_stats(struct net_device *dev, struct pp_xsk_stats *st);

/**
 * pp_xsk_wait() - sleep in poll() until the RX ring has descriptors or
 * @timeout_ms passes: the idle NAPI thread waiting for its interrupt. It
 * returns at once when frames redirected to the device wait to be sent,
 * and sleeps at most 1 ms while sent frames wait for completion.
 * Return: > 0 ready, 0 timeout, -errno.
 * Context: the NAPI thread.
 */
int pp_xsk_wait(struct net_device *dev, int timeout_ms);

#endif /* PAGEPOOL_XSK_H */
