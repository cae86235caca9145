/* SPDX-License-Identifier: MIT */
/*
 * Copyright (c) 2026 The pagepool authors
 *
 * Private: the AF_XDP socket and its four rings, behind batch calls, so
 * the driver (xsk.c) never includes the kernel's UAPI headers, whose
 * XDP names our kernel-faithful ones repeat. Only xsk_sock.c includes
 * libxdp. One caller thread at a time.
 */
#ifndef PAGEPOOL_XSK_SOCK_H
#define PAGEPOOL_XSK_SOCK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct xsk_sock;

struct xsk_sock_cfg {
	const char *ifname;
	unsigned int queue_id;
	unsigned int ring_size;		/* every ring */
	void *area;			/* the UMEM */
	uint64_t area_len;
	unsigned int frame_size;
	bool skb_mode;			/* XDP_FLAGS_SKB_MODE, else DRV */
};

struct xsk_sock_kstats {
	uint64_t rx_dropped;
	uint64_t rx_invalid_descs;
	uint64_t tx_invalid_descs;
	uint64_t rx_ring_full;
	uint64_t rx_fill_ring_empty_descs;
	uint64_t tx_ring_empty_descs;
};

/* The kernel's ifindex of @ifname, 0 if there is none. */
int xsk_sock_ifindex(const char *ifname);

/* 0 and *@out, or -errno; *@what names the step that failed. */
int xsk_sock_open(const struct xsk_sock_cfg *cfg, struct xsk_sock **out,
		  const char **what);
void xsk_sock_close(struct xsk_sock *s);
int xsk_sock_fd(const struct xsk_sock *s);

/* Free fill ring slots (up to @max). */
unsigned int xsk_sock_fill_free(struct xsk_sock *s, unsigned int max);
/* Post @n addresses on the fill ring (n <= xsk_sock_fill_free()). */
void xsk_sock_fill(struct xsk_sock *s, const uint64_t *addrs, unsigned int n);
/* Take up to @max RX descriptors; the frames are the caller's after. */
unsigned int xsk_sock_rx(struct xsk_sock *s, uint64_t *addrs, uint32_t *lens,
			 unsigned int max);
/* Post one TX descriptor: 0, or -ENOSPC (ring full). */
int xsk_sock_tx(struct xsk_sock *s, uint64_t addr, uint32_t len);
/* Take up to @max completed TX addresses. */
unsigned int xsk_sock_comp(struct xsk_sock *s, uint64_t *addrs,
			   unsigned int max);
/* Wake the kernel's TX: 0 (sent what was posted), -EAGAIN (more to send),
 * -errno. */
int xsk_sock_kick(struct xsk_sock *s);
/* poll() for RX: > 0 ready, 0 timeout, -errno. */
int xsk_sock_wait(struct xsk_sock *s, int timeout_ms);
/* XDP_STATISTICS: 0 or -errno. */
int xsk_sock_kstats(struct xsk_sock *s, struct xsk_sock_kstats *st);

#endif /* PAGEPOOL_XSK_SOCK_H */
