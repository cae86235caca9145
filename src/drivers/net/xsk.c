/* SPDX-License-Identifier: MIT */
/*
 * Copyright (c) 2026 The pagepool authors
 *
 * xsk: the AF_XDP backend, a driver of the net_device layer over a real
 * interface's queue (see xsk.h). It is written as netsim's driver half is,
 * the shape of a kernel driver with page_pool and XDP, with the socket's
 * four rings in the place of the NIC's descriptor rings:
 *
 *  - the fill ring is the RX descriptor ring: the poll refills it with
 *    pages from the queue's page_pool (page_pool_dev_alloc_pages(); the
 *    DMA address is the UMEM offset, see xsk_umem_map());
 *  - the RX ring holds the completed RX descriptors: each becomes an
 *    xdp_buff over its pool page, and the XDP verdict decides: DROP
 *    recycles directly, PASS builds an skb (napi_build_skb(), marked for
 *    recycling) for the stack, TX posts the frame on the TX ring;
 *  - the TX ring and completion ring: a completed address returns its
 *    frame (xdp_return_frame_rx_napi()) or page to the pool.
 *
 * Frames redirected to the device (ndo_xdp_xmit(), from any thread) wait
 * in a ring until the device's own poll copies each into a page of its
 * pool, posts it on the TX ring and returns the original to its pool:
 * only the NAPI thread allocates from the pool, as in the kernel, and
 * the UMEM is the only memory the socket can send from.
 *
 * Every UMEM frame's owner is kept in a table (struct xsk_frame): posted
 * to the kernel (fill or RX ring), on the TX ring, or the pool's/stack's.
 * Closing deletes the socket first, after which the kernel holds nothing,
 * and then returns every frame it still had to the pool, so the pool is
 * empty at destroy.
 *
 * Everything runs in the NAPI thread (dev_open()'s): the rings are
 * single-producer/single-consumer between it and the kernel, reached
 * through xsk_sock.c (libxdp) in batches.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/vfs.h>
#include <unistd.h>

#include <pagepool/page_pool.h>
#include <pagepool/ptr_ring.h>

#include "drivers/net/xsk.h"
#include "drivers/net/xsk_sock.h"
#include "net/core/dev_priv.h"

#define BPF_FS_MAGIC_NR	0xcafe4a11

/* A UMEM frame is one page: the kernel writes a frame at its address plus
 * XDP_PACKET_HEADROOM (copy mode), and an skb built over it needs the
 * shared info at the end. */
#define XSK_FRAME_SIZE	PAGE_SIZE
#define XSK_REGION_ALIGN	(2UL << 20)
#define XSK_TX_BATCH	32	/* the kernel's generic xmit per sendto() */
#define XSK_BATCH	64	/* descriptors per ring access */

enum xsk_frame_state {
	XSK_F_OURS = 0,		/* the pool's, the stack's, ... */
	XSK_F_KERNEL,		/* on the fill ring or RX ring */
	XSK_F_TX_XDP,		/* on the TX ring: an XDP_TX xdp_frame */
	XSK_F_TX_PAGE,		/* on the TX ring: a page copied into */
};

struct xsk_frame {
	struct page *page;
	void *ptr;		/* XSK_F_TX_XDP: the xdp_frame */
	uint8_t state;
};

struct xsk_priv {
	struct xdp_rxq_info xdp_rxq;	/* cache-line aligned: first */
	struct net_device *dev;
	struct bpf_prog *xdp_prog;	/* native */

	/* The UMEM: a region, its memory source, a DMA device that maps a
	 * page to its offset, the page_pool on them. */
	unsigned char *map;		/* the mmap, unaligned */
	size_t map_len;
	unsigned char *area;		/* the UMEM, 2 MiB aligned */
	struct pp_mem_source *src;
	struct device *dma_dev;
	struct page_pool *pool;
	struct xsk_frame *frames;

	struct xsk_sock *xsk;
	struct ptr_ring *xmit_ring;	/* redirected frames, any thread */
	struct napi_struct napi;
	struct pp_xsk_stats st;

	int kifindex;
	unsigned int queue_id;
	unsigned int ring_size;
	unsigned int nframes;
	unsigned int tx_pending;	/* posted, not completed */
	unsigned int tx_unkicked;	/* posted since the last kick */
	bool skb_mode;
	bool no_recycle;
	char ifname[IFNAMSIZ];
	char open_err[320];
};

static const struct net_device_ops xsk_netdev_ops;

static struct xsk_priv *
xsk_priv_of(const struct net_device *dev)
{
	if (dev == NULL || dev->netdev_ops != &xsk_netdev_ops)
		return NULL;
	return netdev_priv(dev);
}

bool
pp_xsk_is(const struct net_device *dev)
{
	return xsk_priv_of(dev) != NULL;
}

/* ---- The UMEM as a DMA device ------------------------------------------ */

/* The socket's rings carry UMEM offsets: that is the device address. */
static dma_addr_t
xsk_umem_map(struct device *dev, void *vaddr, size_t size,
	     enum dma_data_direction dir, unsigned long attrs)
{
	struct xsk_priv *p = pp_dma_dev_priv(dev);
	unsigned char *va = vaddr;

	(void)dir;
	(void)attrs;
	if (va < p->area || va + size > p->area + (size_t)p->nframes *
						  XSK_FRAME_SIZE) {
		errno = EINVAL;
		return DMA_MAPPING_ERROR;
	}
	return (dma_addr_t)(va - p->area);
}

static int
xsk_umem_unmap(struct device *dev, dma_addr_t addr, size_t size,
	       enum dma_data_direction dir, unsigned long attrs)
{
	(void)dev;
	(void)addr;
	(void)size;
	(void)dir;
	(void)attrs;
	return 0;
}

static inline unsigned int
xsk_frame_idx(uint64_t addr)
{
	return (unsigned int)(addr / XSK_FRAME_SIZE);
}

/* ---- RX ---------------------------------------------------------------- */

/* Fill the fill ring from the page_pool, as far as it has room. */
static void
xsk_refill(struct xsk_priv *p)
{
	uint64_t addrs[XSK_BATCH];
	unsigned int n, got;

	for (;;) {
		n = xsk_sock_fill_free(p->xsk, XSK_BATCH);
		for (got = 0; got < n; got++) {
			struct page *page = page_pool_dev_alloc_pages(p->pool);
			dma_addr_t dma;
			unsigned int fi;

			if (PP_UNLIKELY(page == NULL))
				break;
			dma = page_pool_get_dma_addr(page);
			fi = xsk_frame_idx(dma);
			p->frames[fi].page = page;
			p->frames[fi].state = XSK_F_KERNEL;
			addrs[got] = dma;
		}
		xsk_sock_fill(p->xsk, addrs, got);
		if (got < XSK_BATCH)
			return;
	}
}

static void
xsk_kick_tx(struct xsk_priv *p)
{
	unsigned int rounds;

	/* Copy mode transmits at most 32 frames per sendto(), and says
	 * EAGAIN when more are waiting. */
	for (rounds = 0; p->tx_unkicked != 0 && rounds < p->ring_size /
					XSK_TX_BATCH + 1; rounds++) {
		int r = xsk_sock_kick(p->xsk);

		p->st.tx_kicks++;
		if (r == 0) {
			p->tx_unkicked = 0;
			break;
		}
		if (r == -EAGAIN || r == -EBUSY || r == -ENOBUFS)
			continue;
		p->st.tx_kick_errors++;
		break;
	}
}

/* Post @len bytes at UMEM address @addr (frame @fi) on the TX ring. */
static int
xsk_tx_post(struct xsk_priv *p, uint64_t addr, uint32_t len)
{
	if (xsk_sock_tx(p->xsk, addr, len) != 0)
		return -ENOSPC;
	p->tx_pending++;
	p->tx_unkicked++;
	return 0;
}

static int
xsk_xdp_tx(struct xsk_priv *p, struct xdp_buff *xdp, struct page *page)
{
	struct xdp_frame *xdpf;
	unsigned int fi;
	uint64_t addr;

	xdpf = xdp_convert_buff_to_frame(xdp);
	if (xdpf == NULL)
		return -EOVERFLOW;
	addr = page_pool_get_dma_addr(page) +
	       (uint64_t)((unsigned char *)xdpf->data -
			  (unsigned char *)page_address(page));
	fi = xsk_frame_idx(addr);
	if (xsk_tx_post(p, addr, xdpf->len) != 0)
		return -ENOSPC;
	p->frames[fi].state = XSK_F_TX_XDP;
	p->frames[fi].ptr = xdpf;
	return 0;
}

static void
xsk_rx_one(struct xsk_priv *p, const struct bpf_prog *prog, struct page *page,
	   unsigned int headroom, unsigned int len, bool *redirected)
{
	struct net_device *dev = p->dev;
	unsigned char *va = page_address(page);
	struct sk_buff *skb;

	if (prog != NULL) {
		struct xdp_buff xdp;

		xdp_init_buff(&xdp, PAGE_SIZE, &p->xdp_rxq);
		xdp_prepare_buff(&xdp, va, (int)headroom, (int)len, true);
		switch (_pp_xdp_rx_verdict(dev, prog, &xdp, &headroom, &len)) {
		case XDP_PASS:
			break;
		case XDP_TX:
			if (xsk_xdp_tx(p, &xdp, page) == 0)
				return;
			trace_xdp_exception(dev, prog, XDP_TX);
			goto drop;
		case XDP_REDIRECT:
			*redirected = true;
			return;
		default:
			goto drop;
		}
	}
	skb = _pp_rx_build_skb(dev, p->pool, page, headroom, len, 0,
			       p->no_recycle);
	if (PP_UNLIKELY(skb == NULL))
		goto drop;
	napi_gro_receive(&p->napi, skb);
	return;
drop:
	page_pool_put_page(p->pool, page, (int)len, true);
}

static int
xsk_rx(struct xsk_priv *p, int budget)
{
	const struct bpf_prog *prog = pp_load_acquire(&p->xdp_prog);
	struct net_device *dev = p->dev;
	uint64_t addrs[XSK_BATCH];
	uint32_t lens[XSK_BATCH];
	bool redirected = false;
	unsigned int n, i;

	if (budget > XSK_BATCH)
		budget = XSK_BATCH;
	n = xsk_sock_rx(p->xsk, addrs, lens, (unsigned int)budget);
	for (i = 0; i < n; i++) {
		uint64_t addr = addrs[i];
		unsigned int fi = xsk_frame_idx(addr), headroom;
		struct xsk_frame *f;
		uint32_t len = lens[i];

		if (PP_UNLIKELY(fi >= p->nframes ||
				p->frames[fi].state != XSK_F_KERNEL)) {
			/* Not a frame we posted: the kernel's bug or ours. */
			netdev_stat_add(dev->stats.rx_dropped, 1);
			continue;
		}
		f = &p->frames[fi];
		f->state = XSK_F_OURS;
		netdev_stat_add(dev->stats.rx_packets, 1);
		netdev_stat_add(dev->stats.rx_bytes, len);
		headroom = (unsigned int)(addr - (uint64_t)fi * XSK_FRAME_SIZE);
		if (PP_UNLIKELY(headroom + len > SKB_WITH_OVERHEAD(PAGE_SIZE))) {
			netdev_stat_add(dev->stats.rx_length_errors, 1);
			page_pool_put_full_page(p->pool, f->page, true);
			continue;
		}
		xsk_rx_one(p, prog, f->page, headroom, len, &redirected);
	}
	if (redirected)
		xdp_do_flush();
	xsk_refill(p);
	return (int)n;
}

/* ---- TX ---------------------------------------------------------------- */

static void
xsk_tx_clean(struct xsk_priv *p)
{
	struct net_device *dev = p->dev;
	uint64_t addrs[XSK_BATCH];
	unsigned int n, i;

	if (p->tx_pending == 0)
		return;
	if (p->tx_unkicked != 0)
		xsk_kick_tx(p);
	n = xsk_sock_comp(p->xsk, addrs, XSK_BATCH);
	for (i = 0; i < n; i++) {
		uint64_t addr = addrs[i];
		unsigned int fi = xsk_frame_idx(addr);
		struct xsk_frame *f;

		if (fi >= p->nframes)
			continue;
		f = &p->frames[fi];
		netdev_stat_add(dev->stats.tx_packets, 1);
		if (f->state == XSK_F_TX_XDP) {
			struct xdp_frame *xdpf = f->ptr;

			netdev_stat_add(dev->stats.tx_bytes, xdpf->len);
			f->state = XSK_F_OURS;
			f->ptr = NULL;
			xdp_return_frame_rx_napi(xdpf);
		} else if (f->state == XSK_F_TX_PAGE) {
			f->state = XSK_F_OURS;
			page_pool_put_full_page(p->pool, f->page, true);
		}
	}
	p->tx_pending -= n;
}

/* An skb to send (generic XDP_TX, the stack): copied into a pool page,
 * which returns to the pool at completion. The pool allocates only in its
 * NAPI thread, so other threads get NETDEV_TX_BUSY. */
static netdev_tx_t
xsk_start_xmit(struct sk_buff *skb, struct net_device *dev)
{
	struct xsk_priv *p = netdev_priv(dev);
	unsigned int len = skb_headlen(skb), fi;
	struct page *page;
	uint64_t addr;

	if (!(pp_load_relaxed(&dev->flags) & IFF_UP) ||
	    pp_load_relaxed(&dev->owner) != pp_thread_self() ||
	    skb_is_nonlinear(skb))
		return NETDEV_TX_BUSY;
	if (len + XDP_PACKET_HEADROOM > PAGE_SIZE) {
		netdev_stat_add(dev->stats.tx_dropped, 1);
		kfree_skb(skb);
		return NETDEV_TX_OK;
	}
	page = page_pool_dev_alloc_pages(p->pool);
	if (page == NULL)
		return NETDEV_TX_BUSY;
	memcpy((unsigned char *)page_address(page) + XDP_PACKET_HEADROOM,
	       skb->data, len);
	addr = page_pool_get_dma_addr(page) + XDP_PACKET_HEADROOM;
	fi = xsk_frame_idx(addr);
	if (xsk_tx_post(p, addr, len) != 0) {
		page_pool_put_full_page(p->pool, page, true);
		return NETDEV_TX_BUSY;
	}
	p->frames[fi].page = page;
	p->frames[fi].state = XSK_F_TX_PAGE;
	netdev_stat_add(dev->stats.tx_bytes, len);
	consume_skb(skb);
	return NETDEV_TX_OK;
}

/* Frames other devices redirected to us: copied into our UMEM and sent.
 * The originals go back to their pools from here, which may be another
 * device's thread (xdp_return_frame() takes the pool's ring then). */
static void
xsk_xmit_redirected(struct xsk_priv *p, int budget)
{
	struct net_device *dev = p->dev;
	struct xdp_frame *xdpf;
	int n = 0;

	/* The NAPI thread is the ring's only consumer: no consumer lock,
	 * as page_pool's own ring (producers take the producer lock). */
	while (n < budget &&
	       (xdpf = __ptr_ring_consume(p->xmit_ring)) != NULL) {
		struct page *page = NULL;
		unsigned int fi;
		uint64_t addr;

		n++;
		if (xdpf->len + XDP_PACKET_HEADROOM <= PAGE_SIZE)
			page = page_pool_dev_alloc_pages(p->pool);
		if (page == NULL) {
			netdev_stat_add(dev->stats.tx_dropped, 1);
			xdp_return_frame(xdpf);
			continue;
		}
		memcpy((unsigned char *)page_address(page) +
			       XDP_PACKET_HEADROOM, xdpf->data, xdpf->len);
		addr = page_pool_get_dma_addr(page) + XDP_PACKET_HEADROOM;
		fi = xsk_frame_idx(addr);
		if (xsk_tx_post(p, addr, xdpf->len) != 0) {
			page_pool_put_full_page(p->pool, page, true);
			netdev_stat_add(dev->stats.tx_dropped, 1);
		} else {
			p->frames[fi].page = page;
			p->frames[fi].state = XSK_F_TX_PAGE;
			netdev_stat_add(dev->stats.tx_bytes, xdpf->len);
		}
		xdp_return_frame(xdpf);
	}
}

/* ndo_xdp_xmit(): queue redirected frames for our poll; any thread. */
static int
xsk_xdp_xmit(struct net_device *dev, int n, struct xdp_frame **frames,
	     uint32_t flags)
{
	struct xsk_priv *p = netdev_priv(dev);
	int i = _pp_xdp_xmit_check(dev, flags);

	if (i != 0)
		return i;
	for (i = 0; i < n; i++)
		if (ptr_ring_produce_any(p->xmit_ring, frames[i]) != 0)
			break;
	return i;
}

static int
xsk_poll(struct napi_struct *napi, int budget)
{
	struct xsk_priv *p = (struct xsk_priv *)(void *)
		((char *)napi - offsetof(struct xsk_priv, napi));
	int done;

	xsk_tx_clean(p);
	xsk_xmit_redirected(p, budget);
	done = xsk_rx(p, budget);
	/* What this poll posted for TX goes out now. */
	if (p->tx_unkicked != 0)
		xsk_kick_tx(p);
	if (done < budget)
		napi_complete_done(napi, done);
	return done;
}

int
pp_xsk_wait(struct net_device *dev, int timeout_ms)
{
	struct xsk_priv *p = xsk_priv_of(dev);

	if (p == NULL || p->xsk == NULL)
		return -EINVAL;
	/* Work that raises no RX interrupt: redirected frames to send now,
	 * and TX completions to collect soon. */
	/* Lockless: we are the only consumer. */
	if (!__ptr_ring_empty(p->xmit_ring))
		return 1;
	if (p->tx_pending != 0 && timeout_ms > 1)
		timeout_ms = 1;
	p->st.wait_calls++;
	return xsk_sock_wait(p->xsk, timeout_ms);
}

/* ---- Up and down ------------------------------------------------------- */

static void
xsk_read_kstats(struct xsk_priv *p)
{
	struct xsk_sock_kstats ks;

	memset(&ks, 0, sizeof(ks));
	if (p->xsk == NULL || xsk_sock_kstats(p->xsk, &ks) != 0)
		return;
	p->st.rx_dropped = ks.rx_dropped;
	p->st.rx_invalid_descs = ks.rx_invalid_descs;
	p->st.tx_invalid_descs = ks.tx_invalid_descs;
	p->st.rx_ring_full = ks.rx_ring_full;
	p->st.rx_fill_ring_empty_descs = ks.rx_fill_ring_empty_descs;
	p->st.tx_ring_empty_descs = ks.tx_ring_empty_descs;
}

int
pp_xsk_get_stats(struct net_device *dev, struct pp_xsk_stats *st)
{
	struct xsk_priv *p = xsk_priv_of(dev);

	if (p == NULL || st == NULL)
		return -EINVAL;
	if (p->xsk != NULL)
		xsk_read_kstats(p);
	*st = p->st;
	return 0;
}

static void
xsk_set_err(struct xsk_priv *p, const char *what, int err)
{
	const char *hint = "";

	if (err == EPERM || err == EACCES)
		hint = " (AF_XDP needs CAP_NET_RAW and CAP_BPF: run as root)";
	else if (err == EAFNOSUPPORT)
		hint = " (the kernel has no AF_XDP: CONFIG_XDP_SOCKETS)";
	else if (err == EBUSY)
		hint = " (another XDP program or socket holds the interface or queue)";
	else if (err == EOPNOTSUPP)
		hint = " (the interface does not support this XDP mode)";
	snprintf(p->open_err, sizeof(p->open_err), "%s: %s%s", what,
		 strerror(err), hint);
}

static void
xsk_close_all(struct xsk_priv *p)
{
	unsigned int i;

	/* Redirected frames not sent: back to their pools. */
	if (p->xmit_ring != NULL) {
		struct xdp_frame *xdpf;

		while ((xdpf = __ptr_ring_consume(p->xmit_ring)) != NULL) {
			netdev_stat_add(p->dev->stats.tx_dropped, 1);
			xdp_return_frame(xdpf);
		}
	}
	/* TX that is posted: give the kernel a moment to complete it, then
	 * the socket goes and with it everything the kernel held. */
	for (i = 0; p->xsk != NULL && p->tx_pending != 0 && i < 100; i++) {
		p->tx_unkicked = p->tx_pending;
		xsk_tx_clean(p);
		if (p->tx_pending != 0)
			usleep(1000);
	}
	if (p->xsk != NULL) {
		uint64_t addrs[XSK_BATCH];
		uint32_t lens[XSK_BATCH];
		unsigned int n, k;

		/* Frames the kernel delivered that no poll took: counted as
		 * missed, so every frame stays accounted for. */
		while ((n = xsk_sock_rx(p->xsk, addrs, lens, XSK_BATCH)) != 0)
			for (k = 0; k < n; k++) {
				unsigned int fi = xsk_frame_idx(addrs[k]);

				if (fi < p->nframes &&
				    p->frames[fi].state == XSK_F_KERNEL)
					netdev_stat_add(p->dev->stats.rx_missed_errors, 1);
			}
		xsk_read_kstats(p);
		xsk_sock_close(p->xsk);
		p->xsk = NULL;
	}
	/* The kernel is gone: every frame it had, and every frame still on
	 * the TX ring, is ours to give back. */
	for (i = 0; p->frames != NULL && i < p->nframes; i++) {
		struct xsk_frame *f = &p->frames[i];

		switch (f->state) {
		case XSK_F_KERNEL:
		case XSK_F_TX_PAGE:
			page_pool_put_full_page(p->pool, f->page, true);
			break;
		case XSK_F_TX_XDP:
			xdp_return_frame_rx_napi(f->ptr);
			break;
		default:
			break;
		}
		f->state = XSK_F_OURS;
		f->ptr = NULL;
	}
	p->tx_pending = p->tx_unkicked = 0;
	if (xdp_rxq_info_is_reg(&p->xdp_rxq))
		xdp_rxq_info_unreg(&p->xdp_rxq);
	page_pool_destroy(p->pool);
	p->pool = NULL;
	free(p->frames);
	p->frames = NULL;
}

static int
xsk_open(struct net_device *dev)
{
	struct xsk_priv *p = netdev_priv(dev);
	struct page_pool_params pp = {
		.order = 0,
		.nid = NUMA_NO_NODE,
		.dev = p->dma_dev,
		.napi = &p->napi,
		.dma_dir = DMA_BIDIRECTIONAL,
		.max_len = PAGE_SIZE - XDP_PACKET_HEADROOM,
		.offset = XDP_PACKET_HEADROOM,
		.flags = PP_FLAG_DMA_MAP | PP_FLAG_MEM_SOURCE,
	};
	struct xsk_sock_cfg sc = {
		.ifname = p->ifname,
		.queue_id = p->queue_id,
		.ring_size = p->ring_size,
		.area = p->area,
		.area_len = (uint64_t)p->nframes * XSK_FRAME_SIZE,
		.frame_size = XSK_FRAME_SIZE,
		.skb_mode = p->skb_mode,
	};
	const char *what = "";
	struct statfs sfs;
	int ret;

	p->open_err[0] = '\0';
	memset(&p->st, 0, sizeof(p->st));
	if (statfs("/sys/fs/bpf", &sfs) != 0 ||
	    (unsigned long)sfs.f_type != BPF_FS_MAGIC_NR) {
		snprintf(p->open_err, sizeof(p->open_err),
			 "bpffs is not mounted at /sys/fs/bpf, where libxdp keeps the state of the XDP program it attaches (mount -t bpf bpf /sys/fs/bpf; in a namespace, scripts/netns.sh exec does it)");
		return -ENOENT;
	}
	pp.pool_size = p->nframes;
	pp.mem_source = pp_mem_source_id(p->src);
	p->frames = calloc(p->nframes, sizeof(*p->frames));
	if (p->frames == NULL) {
		xsk_set_err(p, "frame table", ENOMEM);
		return -ENOMEM;
	}
	p->pool = page_pool_create(&pp);
	if (p->pool == NULL) {
		ret = -errno;
		xsk_set_err(p, "page_pool on the UMEM", -ret);
		goto fail;
	}
	ret = xdp_rxq_info_reg(&p->xdp_rxq, dev, p->queue_id,
			       p->napi.napi_id);
	if (ret == 0)
		ret = xdp_rxq_info_reg_mem_model(&p->xdp_rxq,
						 MEM_TYPE_PAGE_POOL, p->pool);
	if (ret != 0) {
		xsk_set_err(p, "xdp_rxq_info", -ret);
		goto fail;
	}
	/* libxdp's multi-program dispatcher does not load here; one
	 * program per interface is what we need anyway. */
	setenv("LIBXDP_SKIP_DISPATCHER", "1", 0);
	ret = xsk_sock_open(&sc, &p->xsk, &what);
	if (ret != 0) {
		char msg[80];

		p->xsk = NULL;
		snprintf(msg, sizeof(msg), "%s on %s queue %u", what,
			 p->ifname, p->queue_id);
		xsk_set_err(p, msg, -ret);
		goto fail;
	}
	xsk_refill(p);
	return 0;
fail:
	xsk_close_all(p);
	return ret;
}

static int
xsk_stop(struct net_device *dev)
{
	xsk_close_all(netdev_priv(dev));
	return 0;
}

static int
xsk_bpf(struct net_device *dev, struct netdev_bpf *bpf)
{
	struct xsk_priv *p = netdev_priv(dev);

	/* R1: the release in it pairs with the acquire in xsk_rx(). */
	return _pp_xdp_setup_prog(&p->xdp_prog, bpf);
}

/* A redirected frame still queued when the device goes. */
static void
xsk_frame_destroy(void *ptr)
{
	xdp_return_frame(ptr);
}

static void
xsk_uninit(struct net_device *dev)
{
	struct xsk_priv *p = netdev_priv(dev);

	netif_napi_del(&p->napi);
	if (p->xmit_ring != NULL) {
		ptr_ring_cleanup(p->xmit_ring, xsk_frame_destroy);
		free(p->xmit_ring);
	}
	/* A page still held elsewhere keeps the source busy: then the
	 * region stays mapped (leaked) rather than pulled from under it. */
	if (p->src != NULL && pp_mem_source_destroy(p->src) == 0)
		p->src = NULL;
	pp_dma_dev_destroy(p->dma_dev);
	if (p->src == NULL && p->map != NULL)
		munmap(p->map, p->map_len);
}

static const struct net_device_ops xsk_netdev_ops = {
	.ndo_open = xsk_open,
	.ndo_stop = xsk_stop,
	.ndo_start_xmit = xsk_start_xmit,
	.ndo_bpf = xsk_bpf,
	.ndo_uninit = xsk_uninit,
	.ndo_xdp_xmit = xsk_xdp_xmit,
};

static void
seterr(char *err, size_t errlen, const char *fmt, const char *a, const char *b)
{
	if (err != NULL && errlen != 0)
		snprintf(err, errlen, fmt, a, b);
}

struct net_device *
pp_xsk_create(const char *ifname, const struct pp_xsk_opts *opts, char *err,
	      size_t errlen)
{
	struct pp_xsk_opts o = { .sz = sizeof(o) };
	struct pp_dma_ops ops = { .sz = sizeof(ops), .map_page = xsk_umem_map,
				  .unmap_page = xsk_umem_unmap };
	struct net_device *dev;
	struct xsk_priv *p;
	size_t len;
	int kifindex, ret;

	if (opts != NULL) {
		if (opts->sz < sizeof(o)) {
			seterr(err, errlen, "%s%s", "bad options", "");
			errno = EINVAL;
			return NULL;
		}
		o = *opts;
	}
	if (o.ring_size == 0)
		o.ring_size = 2048;
	if (o.frames == 0)
		o.frames = 4 * o.ring_size;
	if (ifname == NULL || strlen(ifname) >= IFNAMSIZ ||
	    o.ring_size < 64 || o.ring_size > 16384 ||
	    (o.ring_size & (o.ring_size - 1)) || o.frames < 2 * o.ring_size ||
	    o.frames > (1u << 20)) {
		seterr(err, errlen, "%s%s",
		       "bad interface name, ring size (64..16384, a power of two) or frame count (at least twice the ring size)",
		       "");
		errno = EINVAL;
		return NULL;
	}
	kifindex = xsk_sock_ifindex(ifname);
	if (kifindex == 0) {
		seterr(err, errlen, "no interface %s in this network namespace%s",
		       ifname, "");
		errno = ENODEV;
		return NULL;
	}
	dev = alloc_netdev_mqs(sizeof(*p), ifname, NULL, 1, 1);
	if (dev == NULL) {
		seterr(err, errlen, "%s%s", "out of memory", "");
		return NULL;
	}
	dev->netdev_ops = &xsk_netdev_ops;
	dev->mtu = ETH_DATA_LEN;
	p = netdev_priv(dev);
	p->dev = dev;
	memcpy(p->ifname, ifname, strlen(ifname) + 1);
	p->kifindex = kifindex;
	p->queue_id = o.queue_id;
	p->ring_size = o.ring_size;
	p->nframes = o.frames;
	p->skb_mode = o.skb_mode;
	p->no_recycle = o.no_recycle;

	/* The UMEM, aligned to 2 MiB so that two devices' regions never
	 * share a window of the memory source registry. */
	len = (size_t)o.frames * XSK_FRAME_SIZE;
	p->map_len = len + XSK_REGION_ALIGN;
	p->map = mmap(NULL, p->map_len, PROT_READ | PROT_WRITE,
		      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p->map == MAP_FAILED) {
		p->map = NULL;
		goto nomem;
	}
	p->area = (unsigned char *)(((uintptr_t)p->map + XSK_REGION_ALIGN - 1) &
				    ~(uintptr_t)(XSK_REGION_ALIGN - 1));
	{
		PP_OPTS(pp_mem_source_opts, so, .kind = PP_MEM_USER,
			.addr = p->area, .len = len, .nid = NUMA_NO_NODE);

		p->src = pp_mem_source_create(&so);
	}
	if (p->src == NULL)
		goto nomem;
	p->dma_dev = pp_dma_dev_create_ops(&ops, p, NULL);
	if (p->dma_dev == NULL)
		goto nomem;
	/* ptr_ring is cache-line aligned. */
	p->xmit_ring = aligned_alloc(64, (sizeof(*p->xmit_ring) + 63) & ~63ul);
	if (p->xmit_ring == NULL ||
	    ptr_ring_init(p->xmit_ring, (int)o.ring_size, GFP_KERNEL) != 0) {
		free(p->xmit_ring);
		p->xmit_ring = NULL;
		goto nomem;
	}
	dev->dma_dev = p->dma_dev;
	netif_napi_add(dev, &p->napi, xsk_poll);
	dev->_rx[0].napi = &p->napi;
	ret = register_netdev(dev);
	if (ret != 0) {
		seterr(err, errlen, "cannot register %s: %s", ifname,
		       strerror(-ret));
		free_netdev(dev);
		errno = -ret;
		return NULL;
	}
	/* The interface's own address, for the tools' output. */
	{
		char path[64];
		unsigned int m[ETH_ALEN];
		FILE *f;

		snprintf(path, sizeof(path), "/sys/class/net/%s/address",
			 ifname);
		f = fopen(path, "r");
		if (f != NULL) {
			if (fscanf(f, "%x:%x:%x:%x:%x:%x", &m[0], &m[1], &m[2],
				   &m[3], &m[4], &m[5]) == ETH_ALEN)
				for (int i = 0; i < ETH_ALEN; i++)
					dev->dev_addr[i] = (unsigned char)m[i];
			fclose(f);
		}
	}
	return dev;
nomem:
	seterr(err, errlen, "%s%s", "out of memory for the UMEM", "");
	free_netdev(dev);
	errno = ENOMEM;
	return NULL;
}

void
pp_xsk_destroy(struct net_device *dev)
{
	if (xsk_priv_of(dev) == NULL)
		return;
	unregister_netdev(dev);
	free_netdev(dev);
}

const char *
pp_xsk_open_error(const struct net_device *dev)
{
	struct xsk_priv *p = xsk_priv_of(dev);

	if (p == NULL || p->open_err[0] == '\0')
		return "unknown error";
	return p->open_err;
}

struct napi_struct *
pp_xsk_napi(struct net_device *dev)
{
	struct xsk_priv *p = xsk_priv_of(dev);

	return p != NULL ? &p->napi : NULL;
}

struct page_pool *
pp_xsk_page_pool(const struct net_device *dev)
{
	struct xsk_priv *p = xsk_priv_of(dev);

	return p != NULL ? p->pool : NULL;
}

int
pp_xsk_ifindex(const struct net_device *dev)
{
	struct xsk_priv *p = xsk_priv_of(dev);

	return p != NULL ? p->kifindex : -EINVAL;
}
