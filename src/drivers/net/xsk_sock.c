/* SPDX-License-Identifier: MIT */
/*
 * Copyright (c) 2026 The pagepool authors
 *
 * The AF_XDP socket for the xsk driver, through libxdp (see xsk_sock.h):
 * a UMEM over the driver's region, a socket bound in copy mode with
 * need-wakeup, libxdp's default program attached natively or in SKB mode,
 * and batch access to the fill, RX, TX and completion rings. libxdp's
 * ring helpers carry the barriers the rings need (a release store of the
 * producer index after the descriptors are written, an acquire load of
 * the other side's index before reading them).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <net/if.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <linux/if_link.h>
#include <linux/if_xdp.h>
#include <bpf/libbpf.h>
#include <xdp/libxdp.h>
#include <xdp/xsk.h>

#include "drivers/net/xsk_sock.h"

#ifndef SOL_XDP
#define SOL_XDP 283
#endif

struct xsk_sock {
	struct xsk_umem *umem;
	struct xsk_socket *xsk;
	struct xsk_ring_prod fq;
	struct xsk_ring_cons cq;
	struct xsk_ring_cons rx;
	struct xsk_ring_prod tx;
	int fd;
};

/* libbpf and libxdp tell their informational lines (a section of
 * libxdp's own object they skip, ...) on stderr; a tool's output keeps
 * only their warnings. */
static int
xsk_libbpf_print(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	return level == LIBBPF_WARN ? vfprintf(stderr, fmt, ap) : 0;
}

static int
xsk_libxdp_print(enum libxdp_print_level level, const char *fmt, va_list ap)
{
	return level == LIBXDP_WARN ? vfprintf(stderr, fmt, ap) : 0;
}

int
xsk_sock_ifindex(const char *ifname)
{
	return (int)if_nametoindex(ifname);
}

int
xsk_sock_open(const struct xsk_sock_cfg *cfg, struct xsk_sock **out,
	      const char **what)
{
	struct xsk_umem_config uc = {
		.fill_size = cfg->ring_size,
		.comp_size = cfg->ring_size,
		.frame_size = cfg->frame_size,
		.frame_headroom = 0,
		.flags = 0,
	};
	struct xsk_socket_config sc = {
		.rx_size = cfg->ring_size,
		.tx_size = cfg->ring_size,
		.libxdp_flags = 0,
		.xdp_flags = cfg->skb_mode ? XDP_FLAGS_SKB_MODE :
					     XDP_FLAGS_DRV_MODE,
		.bind_flags = XDP_COPY | XDP_USE_NEED_WAKEUP,
	};
	struct xsk_sock *s;
	int ret, tries;

	libbpf_set_print(xsk_libbpf_print);
	libxdp_set_print(xsk_libxdp_print);
	s = calloc(1, sizeof(*s));
	if (s == NULL) {
		*what = "AF_XDP socket";
		return -ENOMEM;
	}
	ret = xsk_umem__create(&s->umem, cfg->area, cfg->area_len, &s->fq,
			       &s->cq, &uc);
	if (ret != 0) {
		*what = "AF_XDP UMEM";
		free(s);
		return ret < 0 ? ret : -ret;
	}
	/* A socket just closed on the queue (ours, a moment ago) still holds
	 * it until the kernel's deferred release runs: EBUSY for a few ms.
	 * Wait up to half a second before saying the queue is taken. */
	for (tries = 0;; tries++) {
		ret = xsk_socket__create(&s->xsk, cfg->ifname, cfg->queue_id,
					 s->umem, &s->rx, &s->tx, &sc);
		if (ret != -EBUSY || tries == 20)
			break;
		usleep(25000);
	}
	if (ret != 0) {
		*what = "AF_XDP socket";
		xsk_umem__delete(s->umem);
		free(s);
		return ret < 0 ? ret : -ret;
	}
	s->fd = xsk_socket__fd(s->xsk);
	*out = s;
	return 0;
}

void
xsk_sock_close(struct xsk_sock *s)
{
	if (s == NULL)
		return;
	xsk_socket__delete(s->xsk);
	xsk_umem__delete(s->umem);
	free(s);
}

int
xsk_sock_fd(const struct xsk_sock *s)
{
	return s->fd;
}

unsigned int
xsk_sock_fill_free(struct xsk_sock *s, unsigned int max)
{
	unsigned int n = xsk_prod_nb_free(&s->fq, max);

	/* libxdp says all it knows is free, which may be more than asked. */
	return n < max ? n : max;
}

void
xsk_sock_fill(struct xsk_sock *s, const uint64_t *addrs, unsigned int n)
{
	uint32_t idx, i;

	if (n == 0 || xsk_ring_prod__reserve(&s->fq, n, &idx) != n)
		return;
	for (i = 0; i < n; i++)
		*xsk_ring_prod__fill_addr(&s->fq, idx + i) = addrs[i];
	xsk_ring_prod__submit(&s->fq, n);
}

unsigned int
xsk_sock_rx(struct xsk_sock *s, uint64_t *addrs, uint32_t *lens,
	    unsigned int max)
{
	uint32_t idx, n, i;

	n = xsk_ring_cons__peek(&s->rx, max, &idx);
	for (i = 0; i < n; i++) {
		const struct xdp_desc *d = xsk_ring_cons__rx_desc(&s->rx,
								   idx + i);

		addrs[i] = xsk_umem__add_offset_to_addr(d->addr);
		lens[i] = d->len;
	}
	if (n != 0)
		xsk_ring_cons__release(&s->rx, n);
	return n;
}

int
xsk_sock_tx(struct xsk_sock *s, uint64_t addr, uint32_t len)
{
	struct xdp_desc *d;
	uint32_t idx;

	if (xsk_ring_prod__reserve(&s->tx, 1, &idx) != 1)
		return -ENOSPC;
	d = xsk_ring_prod__tx_desc(&s->tx, idx);
	d->addr = addr;
	d->len = len;
	d->options = 0;
	xsk_ring_prod__submit(&s->tx, 1);
	return 0;
}

unsigned int
xsk_sock_comp(struct xsk_sock *s, uint64_t *addrs, unsigned int max)
{
	uint32_t idx, n, i;

	n = xsk_ring_cons__peek(&s->cq, max, &idx);
	for (i = 0; i < n; i++)
		addrs[i] = *xsk_ring_cons__comp_addr(&s->cq, idx + i);
	if (n != 0)
		xsk_ring_cons__release(&s->cq, n);
	return n;
}

int
xsk_sock_kick(struct xsk_sock *s)
{
	if (sendto(s->fd, NULL, 0, MSG_DONTWAIT, NULL, 0) >= 0)
		return 0;
	return -errno;
}

int
xsk_sock_wait(struct xsk_sock *s, int timeout_ms)
{
	struct pollfd pfd = { .fd = s->fd, .events = POLLIN };
	int r = poll(&pfd, 1, timeout_ms);

	return r < 0 ? -errno : r;
}

int
xsk_sock_kstats(struct xsk_sock *s, struct xsk_sock_kstats *st)
{
	struct xdp_statistics xs;
	socklen_t optlen = sizeof(xs);

	memset(&xs, 0, sizeof(xs));
	if (getsockopt(s->fd, SOL_XDP, XDP_STATISTICS, &xs, &optlen) != 0)
		return -errno;
	st->rx_dropped = xs.rx_dropped;
	st->rx_invalid_descs = xs.rx_invalid_descs;
	st->tx_invalid_descs = xs.tx_invalid_descs;
	/* The last three came with Linux 5.9: a shorter answer leaves
	 * them 0. */
	if (optlen >= sizeof(xs)) {
		st->rx_ring_full = xs.rx_ring_full;
		st->rx_fill_ring_empty_descs = xs.rx_fill_ring_empty_descs;
		st->tx_ring_empty_descs = xs.tx_ring_empty_descs;
	}
	return 0;
}
