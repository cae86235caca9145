/* SPDX-License-Identifier: MIT */
/*
 * Copyright (c) 2026 The pagepool authors
 *
 * netsim: a software NIC and its driver. The driver half is written as a
 * kernel driver with page_pool and XDP is (the RX path of the fec driver
 * of seed 001, in the shape most page_pool drivers share): a page_pool per
 * RX queue fills the descriptor ring, the poll function syncs each
 * received buffer for the CPU, runs native XDP on it, and either recycles
 * it (XDP_DROP), transmits it from the same page (XDP_TX, returned to the
 * pool at TX completion), hands it to another device (XDP_REDIRECT, which
 * maps and transmits it and returns it from its own thread) or builds an
 * skb over it for the stack. The
 * device half (the "wire") fills and drains the descriptor rings and
 * touches buffers only through the DMA device layer, so the IOMMU model
 * checks every access.
 *
 * Descriptor ownership moves with the status word: the driver posts a
 * descriptor by storing its status with release semantics after writing
 * the address, the device takes it with an acquire load, and the other
 * way round for completions (R8/A8 and R9/A9 below). With the inline wire
 * both halves run in the NAPI thread, so the pairs cost nothing; with the
 * wire on its own thread (netsim_wire_start()) they are the whole
 * protocol between the two.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pagepool/netsim.h>
#include <pagepool/page_pool.h>

#include "net/core/dev_priv.h"
#include "dma/dma_priv.h"
#include "net/core/page_pool_priv.h"

#define SIM_RX_EMPTY	0x8000u	/* RX: buffer posted, the device's */
#define SIM_TX_READY	0x8000u	/* TX: frame posted, the device's */

/* Every RX buffer: one page, the XDP headroom, the skb shared info. */
#define SIM_BUF_LEN	(SKB_WITH_OVERHEAD(PAGE_SIZE) - XDP_PACKET_HEADROOM)

#define SIM_MAX_QUEUES	16
#define SIM_HDR_LEN	(ETH_HLEN + 20 + 8)

struct sim_desc {
	uint64_t addr;
	uint32_t len;
	uint32_t status;
	uint32_t hash;		/* RX: the flow hash (RSS) */
	uint32_t pad;
};

/* XDP_TX frames are our own pool's pages, returned from our NAPI thread;
 * redirected (NDO) frames come from any device and carry a mapping of
 * ours. */
enum sim_tx_type { SIM_TX_NONE, SIM_TX_XDP_TX, SIM_TX_XDP_NDO, SIM_TX_SKB };

struct sim_tx_buf {
	enum sim_tx_type type;
	void *ptr;		/* struct xdp_frame or struct sk_buff */
	dma_addr_t dma;		/* our mapping of an skb or NDO frame */
	uint32_t len;
};

struct sim_queue {
	struct net_device *dev;
	unsigned int index;
	struct napi_struct napi;
	struct page_pool *pool;
	struct xdp_rxq_info xdp_rxq;

	struct sim_desc *rx_ring;
	struct page **rx_page;
	unsigned int rx_next;		/* driver: next to receive */
	unsigned int rx_alloc;		/* driver: next to post */
	unsigned int hw_rx;		/* device */

	/* The TX ring takes frames from any thread (redirects, generic
	 * XDP_TX of another device's skb): its producers and the cleaner
	 * hold tx_lock, as a kernel driver holds its TX queue's lock. */
	struct pp_spinlock tx_lock;
	struct sim_desc *tx_ring;
	struct sim_tx_buf *tx_buf;
	unsigned int tx_head;		/* driver: next to post */
	unsigned int tx_clean;		/* driver: next to complete */
	unsigned int hw_tx;		/* device */

	unsigned int flow;		/* the wire's next flow */
	unsigned int replay_next;	/* the wire's next replayed frame */
	/* The wire's counters, per queue: each queue's wire may run on its
	 * own thread, and a shared single-writer counter would lose counts. */
	struct netsim_stats wstats;
	/* The wire on its own thread (netsim_wire_start()). */
	pthread_t wire_thread;
	int wire_running;		/* owner's view: a thread exists */
	int wire_stop;
	uint64_t wire_count;
	unsigned char frame[SIM_BUF_LEN];
	unsigned char txbuf[SIM_BUF_LEN];
};

struct sim_priv {
	struct device *dma_dev;
	bool own_dma;
	bool need_sync;		/* pp_dma_dev_need_sync(dma_dev) */
	bool no_recycle;
	unsigned int nq;
	unsigned int ring_size;
	unsigned int frame_len;
	unsigned int flows;
	/* Replayed frames (netsim_wire_replay()), all queues' wires reading
	 * them; changed only while no wire thread runs. */
	unsigned char *replay;
	uint32_t *replay_off;
	uint32_t *replay_len;
	uint32_t *replay_hash;
	unsigned int nreplay;
	bool wire_in_poll;	/* netsim_wire_in_poll() */
	struct bpf_prog *xdp_prog;
	struct sim_queue *q;
};

static const struct net_device_ops sim_netdev_ops;

static struct sim_priv *
sim_priv_of(const struct net_device *dev)
{
	if (dev == NULL || dev->netdev_ops != &sim_netdev_ops)
		return NULL;
	return netdev_priv(dev);
}

/* ---- Frames on the wire ------------------------------------------------ */

static uint16_t
ip_csum(const unsigned char *h, unsigned int len)
{
	uint32_t sum = 0;
	unsigned int i;

	for (i = 0; i < len; i += 2)
		sum += (uint32_t)h[i] << 8 | h[i + 1];
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)~sum;
}

/* An Ethernet/IPv4/UDP frame to @dev of @len bytes, in every queue's
 * template; the flow is the UDP destination port, patched per frame. */
static void
sim_build_frames(struct net_device *dev, struct sim_priv *p)
{
	static const unsigned char src_mac[ETH_ALEN] = {
		0x02, 0x00, 0x00, 0x00, 0x00, 0x01 };
	unsigned int len = p->frame_len, q;
	unsigned char f[SIM_HDR_LEN];
	uint16_t v;

	memset(f, 0, sizeof(f));
	memcpy(f, dev->dev_addr, ETH_ALEN);
	memcpy(f + 6, src_mac, ETH_ALEN);
	f[12] = 0x08;				/* ETH_P_IP */
	f[14] = 0x45;				/* IPv4, 20 bytes */
	v = htons((uint16_t)(len - ETH_HLEN));
	memcpy(f + 16, &v, 2);			/* total length */
	f[22] = 64;				/* TTL */
	f[23] = 17;				/* UDP */
	f[26] = 198; f[27] = 18; f[28] = 0; f[29] = 1;	/* 198.18.0.1 */
	f[30] = 198; f[31] = 18; f[32] = 1; f[33] = 1;	/* 198.18.1.1 */
	v = htons(ip_csum(f + 14, 20));
	memcpy(f + 24, &v, 2);
	v = htons(9);				/* discard port */
	memcpy(f + 34, &v, 2);
	v = htons((uint16_t)(len - ETH_HLEN - 20));
	memcpy(f + 38, &v, 2);			/* UDP length; checksum 0 */
	for (q = 0; q < p->nq; q++) {
		memset(p->q[q].frame, 0, len);
		memcpy(p->q[q].frame, f, sizeof(f));
	}
}

static void
sim_replay_free(struct sim_priv *p)
{
	free(p->replay);
	free(p->replay_off);
	free(p->replay_len);
	free(p->replay_hash);
	p->replay = NULL;
	p->replay_off = p->replay_len = p->replay_hash = NULL;
	p->nreplay = 0;
}

/* A replayed frame's flow hash: the IPv4 addresses and ports when it has
 * them, else the MAC addresses, so RSS keeps each flow on one queue. */
static uint32_t
sim_frame_hash(const unsigned char *f, uint32_t len)
{
	unsigned int from = 0, to = 2 * ETH_ALEN, i;
	uint32_t h = 2166136261u;

	if (len >= ETH_HLEN + 20 + 4 && f[12] == 0x08 && f[13] == 0x00) {
		from = ETH_HLEN + 12;
		to = ETH_HLEN + 20 + 4;
	}
	if (len < to)
		to = len;
	for (i = from; i < to; i++)
		h = (h ^ f[i]) * 16777619u;	/* FNV-1a */
	return h;
}

int
netsim_wire_replay(struct net_device *dev, const void *const *frames,
		   const unsigned int *lens, unsigned int n)
{
	struct sim_priv *p = sim_priv_of(dev);
	size_t total = 0, off = 0;
	unsigned int i;

	if (p == NULL || (n != 0 && (frames == NULL || lens == NULL)))
		return -EINVAL;
	for (i = 0; i < n; i++) {
		if (frames[i] == NULL || lens[i] > NETSIM_REPLAY_MAX_LEN)
			return -EINVAL;
		total += lens[i];
	}
	for (i = 0; i < p->nq; i++)
		if (p->q[i].wire_running)
			return -EBUSY;
	sim_replay_free(p);
	for (i = 0; i < p->nq; i++)
		p->q[i].replay_next = 0;
	if (n == 0)
		return 0;
	p->replay = malloc(total != 0 ? total : 1);
	p->replay_off = calloc(n, sizeof(*p->replay_off));
	p->replay_len = calloc(n, sizeof(*p->replay_len));
	p->replay_hash = calloc(n, sizeof(*p->replay_hash));
	if (p->replay == NULL || p->replay_off == NULL ||
	    p->replay_len == NULL || p->replay_hash == NULL) {
		sim_replay_free(p);
		return -ENOMEM;
	}
	for (i = 0; i < n; i++) {
		memcpy(p->replay + off, frames[i], lens[i]);
		p->replay_off[i] = (uint32_t)off;
		p->replay_len[i] = lens[i];
		p->replay_hash[i] = sim_frame_hash(frames[i], lens[i]);
		off += lens[i];
	}
	p->nreplay = n;
	return 0;
}

int
netsim_wire_set(struct net_device *dev, unsigned int frame_len,
		unsigned int flows)
{
	struct sim_priv *p = sim_priv_of(dev);

	unsigned int i;

	if (p == NULL || flows == 0 || flows > 65536 || frame_len < ETH_ZLEN)
		return -EINVAL;
	if (frame_len > SIM_BUF_LEN)
		return -EMSGSIZE;
	for (i = 0; i < p->nq; i++)
		if (p->q[i].wire_running)
			return -EBUSY;
	sim_replay_free(p);
	p->frame_len = frame_len;
	p->flows = flows;
	sim_build_frames(dev, p);
	return 0;
}

/* The device transmits what the driver posted; returns how many. */
static unsigned int
sim_hw_tx(struct sim_priv *p, struct sim_queue *q)
{
	unsigned int mask = p->ring_size - 1, n = 0;

	for (;;) {
		struct sim_desc *d = &q->tx_ring[q->hw_tx & mask];

		/* A9: pairs with release R9 in sim_tx_post(). */
		if (!(pp_load_acquire(&d->status) & SIM_TX_READY))
			break;
		if (pp_dma_dev_read(p->dma_dev, (dma_addr_t)d->addr, q->txbuf,
				    d->len) != 0)
			netdev_stat_add(q->wstats.dma_errors, 1);
		else
			netdev_stat_add(q->wstats.wire_tx, 1);
		/* R10: pairs with acquire A10 in sim_tx_clean(). */
		pp_store_release(&d->status, 0u);
		q->hw_tx++;
		n++;
	}
	return n;
}

/* The flow hash of a frame, from its UDP destination port (the rest of
 * the 5-tuple is the same for every flow); a NIC would use Toeplitz. */
static uint32_t
sim_flow_hash(uint16_t port_be)
{
	return ((uint32_t)ntohs(port_be) + 1) * 0x9e3779b1u;
}

/*
 * The next flow of the wire that RSS steers to @q: flows take turns, and
 * with several queues each queue's wire sends only the flows whose hash
 * selects it (hash modulo the queue count, the indirection table). False
 * if no flow selects @q.
 */
static bool
sim_next_flow(const struct sim_priv *p, struct sim_queue *q,
	      uint16_t *port_be, uint32_t *hash)
{
	unsigned int tries;

	/* One flow (the default): the template's port, always the same
	 * queue; no search. */
	if (p->flows == 1) {
		*port_be = htons(9);
		*hash = sim_flow_hash(*port_be);
		return p->nq == 1 || (*hash >> 16) % p->nq == q->index;
	}
	for (tries = 0; tries < p->flows; tries++) {
		uint16_t port = htons(p->flows > 1 ?
					      (uint16_t)(1024 + q->flow) : 9);

		if (++q->flow == p->flows)
			q->flow = 0;
		*hash = sim_flow_hash(port);
		if (p->nq == 1 || (*hash >> 16) % p->nq == q->index) {
			*port_be = port;
			return true;
		}
	}
	return false;
}

/* The next replayed frame that RSS steers to @q, as sim_next_flow(). */
static bool
sim_next_replay(const struct sim_priv *p, struct sim_queue *q,
		unsigned int *idx)
{
	unsigned int tries, i;

	for (tries = 0; tries < p->nreplay; tries++) {
		i = q->replay_next;
		if (++q->replay_next == p->nreplay)
			q->replay_next = 0;
		if (p->nq == 1 || (p->replay_hash[i] >> 16) % p->nq == q->index) {
			*idx = i;
			return true;
		}
	}
	return false;
}

/*
 * Receive up to @max frames into posted buffers. @overrun: a frame that
 * finds no buffer is lost (counted missed), as on a wire that does not
 * wait; otherwise the wire waits for buffers and stops early.
 *
 * The device writes the frames as a NIC's DMA engine writes a burst: the
 * DMA layer checks the device once per burst and each buffer's address
 * (the IOMMU model and the debug layer still check every write in full),
 * and the burst's writes and the wire's counters are counted once.
 */
static unsigned int
sim_wire_fill(struct net_device *dev, struct sim_priv *p, struct sim_queue *q,
	      unsigned int max, bool overrun)
{
	unsigned int mask = p->ring_size - 1, hw = q->hw_rx, n, got = 0;
	uint64_t sent = 0, missed = 0, errors = 0, runts = 0;
	struct sim_desc *ring = q->rx_ring;
	struct pp_dma_burst burst;
	bool one_flow = p->nreplay == 0 && p->flows == 1;
	uint32_t hash1 = 0;
	uint16_t port;

	/* One generated flow (the default): the template already carries
	 * its port, and it always hashes to the same queue. */
	if (one_flow && !sim_next_flow(p, q, &port, &hash1))
		return 0;
	_pp_dma_burst_begin(&burst, p->dma_dev);
	if (one_flow) {
		const unsigned char *frame = q->frame;
		uint32_t len = p->frame_len;

		for (n = 0; n < max; n++) {
			struct sim_desc *d = &ring[hw & mask];

			/* A8: pairs with release R8 in sim_rx_post(). */
			if (!(pp_load_acquire(&d->status) & SIM_RX_EMPTY)) {
				if (!overrun)
					break;	/* the frame waits */
				missed++;
				continue;
			}
			if (_pp_dma_burst_write(&burst, (dma_addr_t)d->addr,
						frame, len) != 0) {
				errors++;
				continue;
			}
			d->len = len;
			d->hash = hash1;
			/* R11: pairs with acquire A11 in sim_rx(). */
			pp_store_release(&d->status, 0u);
			hw++;
		}
		sent = n;
		got = hw - q->hw_rx;
		goto out;
	}
	for (n = 0; n < max; n++) {
		struct sim_desc *d = &ring[hw & mask];
		const unsigned char *frame = q->frame;
		uint32_t hash, len = p->frame_len;
		unsigned int ri = 0;

		if (p->nreplay != 0) {
			if (!sim_next_replay(p, q, &ri))
				break;	/* no frame hashes to this queue */
			len = p->replay_len[ri];
			/* A runt, or longer than the buffer (no scatter):
			 * the MAC drops it before it needs a descriptor. */
			if (len < ETH_HLEN || len > SIM_BUF_LEN) {
				sent++;
				runts++;
				continue;
			}
		}
		/* A8: pairs with release R8 in sim_rx_post(). */
		if (!(pp_load_acquire(&d->status) & SIM_RX_EMPTY)) {
			if (!overrun) {
				/* The frame waits for a buffer. */
				if (p->nreplay != 0)
					q->replay_next = ri;
				break;
			}
			sent++;
			missed++;
			continue;
		}
		if (p->nreplay != 0) {
			frame = p->replay + p->replay_off[ri];
			hash = p->replay_hash[ri];
		} else {
			if (!sim_next_flow(p, q, &port, &hash))
				break;	/* no flow hashes to this queue */
			memcpy(q->frame + ETH_HLEN + 20 + 2, &port, 2);
		}
		sent++;
		if (_pp_dma_burst_write(&burst, (dma_addr_t)d->addr, frame,
					len) != 0) {
			errors++;
			continue;
		}
		d->len = len;
		d->hash = hash;
		/* R11: pairs with acquire A11 in sim_rx(). */
		pp_store_release(&d->status, 0u);
		hw++;
		got++;
	}
out:
	q->hw_rx = hw;
	_pp_dma_burst_end(&burst);
	/* Once per burst; this queue's wire is their only writer. */
	if (sent != 0)
		netdev_stat_add(q->wstats.wire_sent, sent);
	if (errors != 0)
		netdev_stat_add(q->wstats.dma_errors, errors);
	/* Device-wide: other queues' wires may add at the same time. */
	if (missed != 0)
		netdev_stat_add_shared(dev->stats.rx_missed_errors, missed);
	if (runts != 0)
		netdev_stat_add_shared(dev->stats.rx_length_errors, runts);
	return got;
}

/*
 * The queue's interrupt, after the device wrote frames: with threaded
 * NAPI it schedules the queue's NAPI thread; a NAPI that its owner's loop
 * polls needs none (busy polling, interrupts masked).
 */
static void
sim_irq(struct sim_queue *q)
{
	/* F22: pairs with the fence in dev.c's napi_threaded_poll() (and
	 * the seq_cst set of THREADED before it): either this sees
	 * THREADED, or the thread's next poll sees the descriptors written
	 * before (R11). */
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	/* Relaxed: F22 orders it. */
	if (pp_load_relaxed(&q->napi.state) & NAPIF_STATE_THREADED)
		napi_schedule(&q->napi);
}

int
netsim_wire_rx(struct net_device *dev, unsigned int queue, unsigned int max)
{
	struct sim_priv *p = sim_priv_of(dev);
	struct sim_queue *q;
	unsigned int got, sent;

	if (p == NULL || queue >= p->nq)
		return -EINVAL;
	if (!(dev->flags & IFF_UP))
		return -ENETDOWN;
	q = &p->q[queue];
	if (q->wire_running || p->wire_in_poll)
		return -EBUSY;
	sent = sim_hw_tx(p, q);
	got = sim_wire_fill(dev, p, q, max, true);
	/* Relaxed: the caller compares it with itself; the owner polls
	 * in its own loop and needs no interrupt. */
	if (got + sent != 0 &&
	    pp_load_relaxed(&q->napi.list_owner) != pp_thread_self())
		sim_irq(q);
	return (int)got;
}

int
netsim_wire_in_poll(struct net_device *dev, bool on)
{
	struct sim_priv *p = sim_priv_of(dev);
	unsigned int i;

	if (p == NULL)
		return -EINVAL;
	/* The NAPI threads read the setting: change it only while the
	 * device's owner polls (or nobody does). */
	if ((dev->flags & IFF_UP) && dev->threaded)
		return -EBUSY;
	for (i = 0; i < p->nq; i++)
		if (p->q[i].wire_running)
			return -EBUSY;
	p->wire_in_poll = on;
	return 0;
}

static void *
sim_wire_thread(void *arg)
{
	struct sim_queue *q = arg;
	struct sim_priv *p = netdev_priv(q->dev);
	uint64_t sent = 0;
	unsigned int idle = 0, n, max;

	/* A15: pairs with release R15 in netsim_wire_stop(). */
	while (!pp_load_acquire(&q->wire_stop)) {
		unsigned int txd = sim_hw_tx(p, q);

		max = NAPI_POLL_WEIGHT;
		if (q->wire_count != 0) {
			if (sent == q->wire_count) {
				if (txd != 0)
					sim_irq(q);
				sched_yield();
				continue;
			}
			if (q->wire_count - sent < max)
				max = (unsigned int)(q->wire_count - sent);
		}
		n = sim_wire_fill(q->dev, p, q, max, false);
		sent += n;
		if (n + txd != 0)
			sim_irq(q);
		/* No posted buffer: the receiver is behind; let it run if it
		 * shares our CPU. */
		if (n == 0 && ++idle == 64) {
			idle = 0;
			sched_yield();
		}
	}
	return NULL;
}

int
netsim_wire_start(struct net_device *dev, unsigned int queue, uint64_t count)
{
	struct sim_priv *p = sim_priv_of(dev);
	struct sim_queue *q;

	if (p == NULL || queue >= p->nq)
		return -EINVAL;
	if (!(dev->flags & IFF_UP))
		return -ENETDOWN;
	q = &p->q[queue];
	if (q->wire_running || p->wire_in_poll)
		return -EBUSY;
	q->wire_stop = 0;
	q->wire_count = count;
	if (pthread_create(&q->wire_thread, NULL, sim_wire_thread, q) != 0)
		return -EAGAIN;
	q->wire_running = 1;
	return 0;
}

int
netsim_wire_stop(struct net_device *dev, unsigned int queue)
{
	struct sim_priv *p = sim_priv_of(dev);
	struct sim_queue *q;

	if (p == NULL || queue >= p->nq)
		return -EINVAL;
	q = &p->q[queue];
	if (!q->wire_running)
		return -ENOENT;
	/* R15: pairs with acquire A15 in sim_wire_thread(). */
	pp_store_release(&q->wire_stop, 1);
	pthread_join(q->wire_thread, NULL);
	q->wire_running = 0;
	return 0;
}

int
netsim_get_stats(const struct net_device *dev, struct netsim_stats *stats)
{
	struct sim_priv *p = sim_priv_of(dev);
	unsigned int i;

	if (p == NULL || stats == NULL)
		return -EINVAL;
	memset(stats, 0, sizeof(*stats));
	for (i = 0; i < p->nq; i++) {
		stats->wire_sent += pp_load_relaxed(&p->q[i].wstats.wire_sent);
		stats->wire_tx += pp_load_relaxed(&p->q[i].wstats.wire_tx);
		stats->dma_errors += pp_load_relaxed(&p->q[i].wstats.dma_errors);
	}
	return 0;
}

struct page_pool *
netsim_page_pool(const struct net_device *dev, unsigned int queue)
{
	struct sim_priv *p = sim_priv_of(dev);

	return p != NULL && queue < p->nq ? p->q[queue].pool : NULL;
}

struct napi_struct *
netsim_napi(struct net_device *dev, unsigned int queue)
{
	struct sim_priv *p = sim_priv_of(dev);

	return p != NULL && queue < p->nq ? &p->q[queue].napi : NULL;
}

/* ---- The driver: RX ---------------------------------------------------- */

/*
 * A device-wide counter of the poll: with one queue its poller is the
 * one writer (a plain add's cost); several queues may poll on threads of
 * their own (threaded NAPI), so they add atomically.
 */
static inline void
sim_dev_stat_add(const struct sim_priv *p, uint64_t *field, uint64_t v)
{
	if (p->nq == 1)
		netdev_stat_add(*field, v);
	else
		netdev_stat_add_shared(*field, v);
}

static inline void
sim_rx_post(struct sim_queue *q, unsigned int idx, struct page *page)
{
	struct sim_desc *d = &q->rx_ring[idx];

	q->rx_page[idx] = page;
	d->addr = page_pool_get_dma_addr(page) + XDP_PACKET_HEADROOM;
	d->len = 0;
	/* R8: pairs with acquire A8 in netsim_wire_rx(). */
	pp_store_release(&d->status, SIM_RX_EMPTY);
}

/* Post @xdp's buffer on the TX ring of @q (XDP_TX). */
static int
sim_xdp_tx(struct sim_priv *p, struct sim_queue *q, struct xdp_buff *xdp)
{
	unsigned int mask = p->ring_size - 1, idx;
	struct xdp_frame *xdpf;
	struct page *page;
	dma_addr_t dma;
	size_t off;

	xdpf = xdp_convert_buff_to_frame(xdp);
	if (xdpf == NULL)
		return -EOVERFLOW;
	pp_spin_lock(&q->tx_lock);
	if (q->tx_head - q->tx_clean == p->ring_size) {
		pp_spin_unlock(&q->tx_lock);
		return -ENOSPC;
	}
	page = compound_head(virt_to_page(xdpf->data));
	off = (size_t)((unsigned char *)xdpf->data -
		       (unsigned char *)page_address(page));
	dma = page_pool_get_dma_addr(page);
	/* The CPU may have written the frame (swapped MACs): the device
	 * must see it. */
	if (p->need_sync)
		pp_dma_sync_for_device(p->dma_dev, dma, off, xdpf->len,
				       DMA_BIDIRECTIONAL);
	idx = q->tx_head & mask;
	q->tx_buf[idx] = (struct sim_tx_buf){ SIM_TX_XDP_TX, xdpf, 0,
					      xdpf->len };
	q->tx_ring[idx].addr = dma + off;
	q->tx_ring[idx].len = xdpf->len;
	/* R9: pairs with acquire A9 in sim_hw_tx(). */
	pp_store_release(&q->tx_ring[idx].status, SIM_TX_READY);
	/* Relaxed: read without the lock only by sim_tx_clean()'s hint. */
	pp_store_relaxed(&q->tx_head, q->tx_head + 1);
	pp_spin_unlock(&q->tx_lock);
	return 0;
}

/* Redirected frames, from any thread: mapped for our device, posted on
 * the TX ring of the caller's queue (queue 0 here; one per CPU in the
 * kernel). */
static int
sim_xdp_xmit(struct net_device *dev, int n, struct xdp_frame **frames,
	     uint32_t flags)
{
	struct sim_priv *p = netdev_priv(dev);
	struct sim_queue *q = &p->q[0];
	unsigned int mask = p->ring_size - 1, idx;
	int i = _pp_xdp_xmit_check(dev, flags);

	if (i != 0)
		return i;
	pp_spin_lock(&q->tx_lock);
	for (i = 0; i < n; i++) {
		struct xdp_frame *xdpf = frames[i];
		dma_addr_t dma;

		if (q->tx_head - q->tx_clean == p->ring_size)
			break;
		dma = pp_dma_map(p->dma_dev, xdpf->data, xdpf->len,
				 DMA_TO_DEVICE, 0);
		if (pp_dma_mapping_error(p->dma_dev, dma))
			break;
		idx = q->tx_head & mask;
		q->tx_buf[idx] = (struct sim_tx_buf){ SIM_TX_XDP_NDO, xdpf,
						      dma, xdpf->len };
		q->tx_ring[idx].addr = dma;
		q->tx_ring[idx].len = xdpf->len;
		/* R9: pairs with acquire A9 in sim_hw_tx(). */
		pp_store_release(&q->tx_ring[idx].status, SIM_TX_READY);
		/* Relaxed: read without the lock only by sim_tx_clean()'s hint. */
	pp_store_relaxed(&q->tx_head, q->tx_head + 1);
	}
	pp_spin_unlock(&q->tx_lock);
	return i;
}

static PP_ALWAYS_INLINE void
sim_rx_one(struct sim_priv *p, struct sim_queue *q, const struct bpf_prog *prog,
	   struct page *page, unsigned int len, uint32_t hash, bool *redirected,
	   bool fast, struct dma_sync_tally *t)
{
	struct net_device *dev = q->dev;
	unsigned char *va = page_address(page);
	unsigned int headroom = XDP_PACKET_HEADROOM;
	struct sk_buff *skb;

	/* The kernel's dma_sync_single_for_cpu() does nothing, inline, for a
	 * device that needs no syncs (dma_dev_need_sync()); so here. */
	if (p->need_sync)
		_pp_dma_sync_for_cpu_napi_tally(q->pool, page, len, fast, t);
	if (prog != NULL) {
		struct xdp_buff xdp;

		xdp_init_buff(&xdp, PAGE_SIZE, &q->xdp_rxq);
		xdp_prepare_buff(&xdp, va, XDP_PACKET_HEADROOM, (int)len, true);
		switch (_pp_xdp_rx_verdict(dev, prog, &xdp, &headroom, &len)) {
		case XDP_PASS:
			break;
		case XDP_TX:
			if (sim_xdp_tx(p, q, &xdp) == 0)
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
	skb = _pp_rx_build_skb(dev, q->pool, page, headroom, len,
			       (uint16_t)q->index, p->no_recycle);
	if (PP_UNLIKELY(skb == NULL))
		goto drop;
	skb->hash = hash;
	napi_gro_receive(&q->napi, skb);
	return;
drop:
	_pp_put_page_napi(q->pool, page, len, fast, t);
}

/*
 * Post fresh buffers on every free RX slot, [rx_alloc, rx_next + ring
 * size), taken from the pool in bulk, as drivers refill at the end of
 * their poll. A slot the pool could not fill stays free (a frame that
 * finds it is missed) and is refilled at the next poll.
 */
static void
sim_rx_refill(struct sim_priv *p, struct sim_queue *q)
{
	struct page *fresh[NAPI_POLL_WEIGHT];
	unsigned int mask = p->ring_size - 1, alloc = q->rx_alloc;
	unsigned int want, n, got, i;

	want = q->rx_next + p->ring_size - alloc;
	while (want != 0) {
		n = want < NAPI_POLL_WEIGHT ? want : NAPI_POLL_WEIGHT;
		got = page_pool_alloc_pages_bulk(q->pool,
						 GFP_ATOMIC | __GFP_NOWARN,
						 fresh, n);
		for (i = 0; i < got; i++)
			sim_rx_post(q, alloc++ & mask, fresh[i]);
		if (got < n)
			break;
		want -= n;
	}
	q->rx_alloc = alloc;
}

static int
sim_rx(struct sim_priv *p, struct sim_queue *q, int budget)
{
	const struct bpf_prog *prog = pp_load_acquire(&p->xdp_prog);
	struct sim_desc *ring = q->rx_ring;
	struct page **pages = q->rx_page;
	unsigned int mask = p->ring_size - 1, next = q->rx_next;
	unsigned int posted = q->rx_alloc;
	struct net_device *dev = q->dev;
	bool redirected = false;
	uint64_t bytes = 0;
	int done = 0;
	/* The poll's fast syncs, tallied in registers (the device was
	 * checked when the poll's hold began). */
	struct dma_sync_tally t = { 0 };
	bool fast = p->need_sync && _pp_napi_dma_fast(q->pool);

	/* The budget's frames first, each buffer leaving its slot ... */
	while (done < budget && next != posted) {
		unsigned int idx = next & mask;
		struct sim_desc *d = &ring[idx];
		struct page *page;
		unsigned int len;

		/* A11: pairs with release R11 in netsim_wire_rx(). */
		if (pp_load_acquire(&d->status) & SIM_RX_EMPTY)
			break;
		len = d->len;
		page = pages[idx];
		pages[idx] = NULL;
		done++;
		bytes += len;
		sim_rx_one(p, q, prog, page, len, d->hash, &redirected, fast,
			   &t);
		next++;
	}
	q->rx_next = next;
	if (fast)
		_pp_dma_sync_tally_add(&t);
	/* ... then the slots refilled at once. */
	sim_rx_refill(p, q);
	/* Once per poll, as drivers update their u64_stats. */
	sim_dev_stat_add(p, &dev->stats.rx_packets, (uint64_t)done);
	sim_dev_stat_add(p, &dev->stats.rx_bytes, bytes);
	if (redirected)
		xdp_do_flush();
	return done;
}

/* ---- The driver: TX ---------------------------------------------------- */

static void
sim_tx_clean(struct sim_priv *p, struct sim_queue *q, int budget)
{
	unsigned int mask = p->ring_size - 1;
	struct net_device *dev = q->dev;
	struct xdp_frame_bulk bq;
	uint64_t packets = 0, bytes = 0;

	/* Nothing posted: no lock (a locked instruction right after the
	 * wire's frame writes waits for them all to drain). A frame a
	 * producer posts meanwhile is completed at the next poll. Relaxed:
	 * a hint; the lock orders what is cleaned. */
	if (pp_load_relaxed(&q->tx_head) == q->tx_clean)
		return;
	xdp_frame_bulk_init(&bq);
	pp_spin_lock(&q->tx_lock);
	while (q->tx_clean != q->tx_head) {
		unsigned int idx = q->tx_clean & mask;
		struct sim_tx_buf *b = &q->tx_buf[idx];

		/* A10: pairs with release R10 in sim_hw_tx(). */
		if (pp_load_acquire(&q->tx_ring[idx].status) & SIM_TX_READY)
			break;
		packets++;
		bytes += b->len;
		switch (b->type) {
		case SIM_TX_XDP_TX:
			xdp_return_frame_rx_napi(b->ptr);
			break;
		case SIM_TX_XDP_NDO:
			pp_dma_unmap(p->dma_dev, b->dma, b->len, DMA_TO_DEVICE,
				     0);
			xdp_return_frame_bulk(b->ptr, &bq);
			break;
		case SIM_TX_SKB:
			pp_dma_unmap(p->dma_dev, b->dma, b->len, DMA_TO_DEVICE,
				     0);
			napi_consume_skb(b->ptr, budget);
			break;
		case SIM_TX_NONE:
			break;
		}
		b->type = SIM_TX_NONE;
		q->tx_clean++;
	}
	pp_spin_unlock(&q->tx_lock);
	if (packets != 0) {
		sim_dev_stat_add(p, &dev->stats.tx_packets, packets);
		sim_dev_stat_add(p, &dev->stats.tx_bytes, bytes);
	}
	xdp_flush_frame_bulk(&bq);
}

static netdev_tx_t
sim_start_xmit(struct sk_buff *skb, struct net_device *dev)
{
	struct sim_priv *p = netdev_priv(dev);
	struct sim_queue *q = &p->q[skb->queue_mapping % p->nq];
	unsigned int mask = p->ring_size - 1, idx, len = skb_headlen(skb);
	dma_addr_t dma;

	if (!(pp_load_relaxed(&dev->flags) & IFF_UP))
		return NETDEV_TX_BUSY;
	dma = pp_dma_map(p->dma_dev, skb->data, len, DMA_TO_DEVICE, 0);
	if (pp_dma_mapping_error(p->dma_dev, dma)) {
		pp_fetch_add_relaxed(&dev->stats.tx_dropped, 1);
		kfree_skb(skb);
		return NETDEV_TX_OK;
	}
	pp_spin_lock(&q->tx_lock);
	if (q->tx_head - q->tx_clean == p->ring_size) {
		pp_spin_unlock(&q->tx_lock);
		pp_dma_unmap(p->dma_dev, dma, len, DMA_TO_DEVICE, 0);
		return NETDEV_TX_BUSY;
	}
	idx = q->tx_head & mask;
	q->tx_buf[idx] = (struct sim_tx_buf){ SIM_TX_SKB, skb, dma, len };
	q->tx_ring[idx].addr = dma;
	q->tx_ring[idx].len = len;
	/* R9: pairs with acquire A9 in sim_hw_tx(). */
	pp_store_release(&q->tx_ring[idx].status, SIM_TX_READY);
	/* Relaxed: read without the lock only by sim_tx_clean()'s hint. */
	pp_store_relaxed(&q->tx_head, q->tx_head + 1);
	pp_spin_unlock(&q->tx_lock);
	return NETDEV_TX_OK;
}

static int
sim_poll(struct napi_struct *napi, int budget)
{
	struct sim_queue *q = (struct sim_queue *)(void *)
		((char *)napi - offsetof(struct sim_queue, napi));
	struct sim_priv *p = netdev_priv(q->dev);
	int done;

	bool held;

	/* The inline wire inside the poll (netsim_wire_in_poll()). */
	if (p->wire_in_poll) {
		sim_hw_tx(p, q);
		sim_wire_fill(q->dev, p, q, (unsigned int)budget, true);
	}
	/* The poll's fast syncs are counted once, at its end. */
	held = _pp_dma_count_hold(p->dma_dev);
	sim_tx_clean(p, q, budget);
	done = sim_rx(p, q, budget);
	if (held)
		_pp_dma_count_flush();
	if (done < budget)
		napi_complete_done(napi, done);
	return done;
}

/* ---- The driver: up and down ------------------------------------------- */

static void
sim_queue_free(struct sim_priv *p, struct sim_queue *q)
{
	unsigned int i;

	if (q->wire_running)
		netsim_wire_stop(q->dev, q->index);

	/* The device sends what is posted; then every TX buffer is done. */
	if (q->tx_ring != NULL) {
		sim_hw_tx(p, q);
		sim_tx_clean(p, q, NAPI_POLL_WEIGHT);
	}
	if (q->rx_page != NULL)
		for (i = 0; i < p->ring_size; i++)
			if (q->rx_page[i] != NULL)
				page_pool_put_full_page(q->pool, q->rx_page[i],
							true);
	xdp_rxq_info_unreg(&q->xdp_rxq);
	page_pool_destroy(q->pool);
	free(q->rx_ring);
	free(q->rx_page);
	free(q->tx_ring);
	free(q->tx_buf);
	q->pool = NULL;
	q->rx_ring = NULL;
	q->rx_page = NULL;
	q->tx_ring = NULL;
	q->tx_buf = NULL;
}

static int
sim_queue_alloc(struct sim_priv *p, struct sim_queue *q)
{
	struct page_pool_params pp = {
		.order = 0,
		.pool_size = p->ring_size,
		.nid = NUMA_NO_NODE,
		.dev = p->dma_dev,
		.napi = &q->napi,
		.dma_dir = DMA_BIDIRECTIONAL,
		.max_len = SIM_BUF_LEN,
		.offset = XDP_PACKET_HEADROOM,
		.flags = PP_FLAG_DMA_MAP | PP_FLAG_DMA_SYNC_DEV,
	};
	unsigned int i;
	int ret;

	q->rx_next = q->rx_alloc = q->hw_rx = 0;
	q->tx_head = q->tx_clean = q->hw_tx = 0;
	pp_spin_lock_init(&q->tx_lock);
	q->pool = page_pool_create(&pp);
	if (q->pool == NULL)
		return -errno;
	ret = xdp_rxq_info_reg(&q->xdp_rxq, q->dev, q->index, q->napi.napi_id);
	if (ret == 0)
		ret = xdp_rxq_info_reg_mem_model(&q->xdp_rxq, MEM_TYPE_PAGE_POOL,
						 q->pool);
	if (ret != 0)
		return ret;
	q->rx_ring = calloc(p->ring_size, sizeof(*q->rx_ring));
	q->rx_page = calloc(p->ring_size, sizeof(*q->rx_page)); /* NOLINT(bugprone-sizeof-expression) */
	q->tx_ring = calloc(p->ring_size, sizeof(*q->tx_ring));
	q->tx_buf = calloc(p->ring_size, sizeof(*q->tx_buf));
	if (q->rx_ring == NULL || q->rx_page == NULL || q->tx_ring == NULL ||
	    q->tx_buf == NULL)
		return -ENOMEM;
	for (i = 0; i < p->ring_size; i++) {
		struct page *page = page_pool_dev_alloc_pages(q->pool);

		if (page == NULL)
			return -ENOMEM;
		sim_rx_post(q, i, page);
		q->rx_alloc++;
	}
	return 0;
}

static int
sim_open(struct net_device *dev)
{
	struct sim_priv *p = netdev_priv(dev);
	unsigned int i;
	int ret;

	for (i = 0; i < p->nq; i++) {
		ret = sim_queue_alloc(p, &p->q[i]);
		if (ret != 0) {
			do
				sim_queue_free(p, &p->q[i]);
			while (i-- > 0);
			return ret;
		}
	}
	return 0;
}

static int
sim_stop(struct net_device *dev)
{
	struct sim_priv *p = netdev_priv(dev);
	unsigned int i;

	for (i = 0; i < p->nq; i++)
		sim_queue_free(p, &p->q[i]);
	return 0;
}

static int
sim_bpf(struct net_device *dev, struct netdev_bpf *bpf)
{
	struct sim_priv *p = netdev_priv(dev);

	/* R12: the release in it pairs with the acquire in sim_rx(). */
	return _pp_xdp_setup_prog(&p->xdp_prog, bpf);
}

static void
sim_uninit(struct net_device *dev)
{
	struct sim_priv *p = netdev_priv(dev);
	unsigned int i;

	for (i = 0; i < p->nq; i++)
		netif_napi_del(&p->q[i].napi);
	free(p->q);
	sim_replay_free(p);
	if (p->own_dma)
		pp_dma_dev_destroy(p->dma_dev);
}

static const struct net_device_ops sim_netdev_ops = {
	.ndo_open = sim_open,
	.ndo_stop = sim_stop,
	.ndo_start_xmit = sim_start_xmit,
	.ndo_bpf = sim_bpf,
	.ndo_uninit = sim_uninit,
	.ndo_xdp_xmit = sim_xdp_xmit,
};

struct net_device *
netsim_create(const struct netsim_opts *opts)
{
	struct netsim_opts o = { .sz = sizeof(o) };
	struct net_device *dev;
	struct sim_priv *p;
	unsigned int i;
	int ret;

	if (opts != NULL) {
		if (opts->sz < offsetof(struct netsim_opts, flows) +
				       sizeof(opts->flows)) {
			errno = EINVAL;
			return NULL;
		}
		o = *opts;
	}
	if (o.queues == 0)
		o.queues = 1;
	if (o.ring_size == 0)
		o.ring_size = 256;
	if (o.frame_len == 0)
		o.frame_len = 64;
	if (o.flows == 0)
		o.flows = 1;
	if (o.queues > SIM_MAX_QUEUES || o.ring_size < 16 ||
	    o.ring_size > 4096 || (o.ring_size & (o.ring_size - 1))) {
		fprintf(stderr, "netsim: bad queue count %u or ring size %u\n",
			o.queues, o.ring_size);
		errno = EINVAL;
		return NULL;
	}
	if (o.frame_len < ETH_ZLEN || o.frame_len > SIM_BUF_LEN ||
	    o.flows > 65536) {
		fprintf(stderr,
			"netsim: frame size %u outside %u..%lu (the RX buffer) or %u flows\n",
			o.frame_len, ETH_ZLEN, (unsigned long)SIM_BUF_LEN,
			o.flows);
		errno = EINVAL;
		return NULL;
	}
	dev = alloc_netdev_mqs(sizeof(*p), "sim%d", NULL, o.queues, o.queues);
	if (dev == NULL)
		return NULL;
	dev->netdev_ops = &sim_netdev_ops;
	p = netdev_priv(dev);
	p->q = calloc(o.queues, sizeof(*p->q));
	p->nq = o.queues;
	p->ring_size = o.ring_size;
	p->no_recycle = o.no_recycle;
	p->frame_len = o.frame_len;
	p->flows = o.flows;
	p->dma_dev = o.dma_dev;
	if (p->dma_dev == NULL) {
		p->dma_dev = pp_dma_identity_create(NULL);
		p->own_dma = p->dma_dev != NULL;
	}
	if (p->q == NULL || p->dma_dev == NULL) {
		free_netdev(dev);
		errno = ENOMEM;
		return NULL;
	}
	dev->dma_dev = p->dma_dev;
	p->need_sync = pp_dma_dev_need_sync(p->dma_dev);
	for (i = 0; i < p->nq; i++) {
		p->q[i].dev = dev;
		p->q[i].index = i;
		netif_napi_add(dev, &p->q[i].napi, sim_poll);
		dev->_rx[i].napi = &p->q[i].napi;
	}
	ret = register_netdev(dev);
	if (ret != 0) {
		free_netdev(dev);
		errno = -ret;
		return NULL;
	}
	/* A locally administered address from the ifindex. */
	dev->dev_addr[0] = 0x02;
	dev->dev_addr[5] = (unsigned char)dev->ifindex;
	sim_build_frames(dev, p);
	return dev;
}

void
netsim_destroy(struct net_device *dev)
{
	if (sim_priv_of(dev) == NULL)
		return;
	unregister_netdev(dev);
	free_netdev(dev);
}
