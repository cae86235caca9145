/* SPDX-License-Identifier: MIT */
/*
 * Copyright (c) 2026 The pagepool authors
 *
 * The packet path end to end on the software NIC: every XDP verdict
 * (DROP, PASS, TX, ABORTED, REDIRECT without a target, an invalid one) in
 * native and generic mode, pages recycled or released, with the identity
 * DMA device and the IOMMU model; REDIRECT from sim0 to sim1 with both
 * polled by one thread (pages come back directly) and by two (pages come
 * back through the pool's ring), and into a CPU map whose thread builds
 * the skbs; the wire on its own thread; generic XDP's head copy when a
 * driver left too little headroom, and its linearizing of non-linear
 * skbs (skb_linearize()); four RX queues fed by RSS. Frames are counted from the
 * wire to where they end (sent = received; received = dropped + passed to
 * the stack + transmitted + exceptions), the DMA layer sees no fault and
 * no mapping left, and each queue's page_pool is freed at once when the
 * device goes away (nothing in flight). Then bad input: unknown devices,
 * oversized frames, bad attach flags, polling from a foreign thread;
 * replayed frames (netsim_wire_replay()) arriving intact, the too long
 * and too short dropped and counted. All of it runs twice: then with the DMA device in bounce mode with
 * poisoning (swiotlb=force with DMA-API debugging), where a sync of the
 * wrong range by the driver or the pool shows as a poisoned frame (the
 * program checks every frame's EtherType, the stack parses every passed
 * one) or as a debug error.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <string.h>

#include <pagepool/netsim.h>
#include <pagepool/page_pool.h>

#include "helpers.h"
#include "netsim_helpers.h"
#include "page_pool_helpers.h"

#define BAD_VERDICT 99u

struct prog_cfg {
	uint32_t act;
	uint32_t ifindex;	/* XDP_REDIRECT target, or 0 */
	struct bpf_cpu_map *cpumap;	/* or this map's entry cpu */
	uint32_t cpu;
	uint64_t runs;
	uint64_t bad;		/* frames not Ethernet/IPv4: stale bytes */
};

/* PP_DMA_F_* of every DMA device the cases create. */
static unsigned int dma_flags;

static uint32_t
test_prog(struct xdp_md *ctx, void *priv)
{
	struct prog_cfg *cfg = priv;
	unsigned char *eth = ctx->data;

	cfg->runs++;
	if ((unsigned char *)ctx->data_end < eth + ETH_HLEN)
		return XDP_ABORTED;
	if (eth[12] != 0x08 || eth[13] != 0x00)
		cfg->bad++;
	if (cfg->act == XDP_REDIRECT && cfg->cpumap != NULL)
		return (uint32_t)bpf_redirect_map(cfg->cpumap, cfg->cpu, 0);
	if (cfg->act == XDP_REDIRECT && cfg->ifindex != 0)
		return (uint32_t)bpf_redirect(cfg->ifindex, 0);
	if (cfg->act == XDP_TX)
		t_xdp_swap_macs(eth);
	return cfg->act;
}

static void
run_case(bool iommu, bool generic, bool no_recycle, uint32_t act)
{
	struct prog_cfg cfg = { .act = act };
	struct bpf_prog prog = { .run = test_prog, .priv = &cfg,
				 .name = "test_prog" };
	struct netsim_opts o = { .sz = sizeof(o), .no_recycle = no_recycle,
				 .frame_len = 128, .flows = 4 };
	struct page_pool_stats ps;
	struct netsim_stats ws;
	struct net_device *dev;
	struct page_pool *pool;
	uint64_t rx, exc, i, rounds = (uint64_t)t_scale(200);

	o.dma_dev = t_dma_dev_create(iommu, dma_flags);
	dev = netsim_create(&o);
	CHECK(dev != NULL);
	CHECK(dev_get_by_name(dev->name) == dev);
	CHECK(dev_get_by_index(dev->ifindex) == dev);
	CHECK_EQ(dev_open(dev), 0);
	CHECK_EQ(dev_xdp_attach(dev, &prog, generic ? XDP_FLAGS_SKB_MODE
						    : XDP_FLAGS_DRV_MODE), 0);
	pool = netsim_page_pool(dev, 0);
	CHECK(pool != NULL);
	pp_test_watch_free(pool);

	for (i = 0; i < rounds; i++) {
		CHECK(netsim_wire_rx(dev, 0, 64) >= 0);
		CHECK(napi_poll(netsim_napi(dev, 0)) >= 0);
	}
	/* Let the device send what XDP_TX posted, and the driver clean. */
	CHECK_EQ(netsim_wire_rx(dev, 0, 0), 0);
	CHECK_EQ(napi_poll(netsim_napi(dev, 0)), 0);

	CHECK_EQ(netsim_get_stats(dev, &ws), 0);
	rx = dev->stats.rx_packets;
	exc = dev->xdp_exceptions;
	CHECK_EQ(ws.dma_errors, 0);
	CHECK_EQ(dev->stats.rx_missed_errors, 0);
	CHECK_EQ(dev->stats.rx_dropped, 0);
	CHECK_EQ(ws.wire_sent, rx);
	CHECK_EQ(rx, rounds * 64);
	CHECK_EQ(cfg.runs, rx);
	CHECK_EQ(cfg.bad, 0);
	switch (act) {
	case XDP_DROP:
		CHECK_EQ(dev->stack.rx + ws.wire_tx + exc, 0);
		break;
	case XDP_PASS:
		CHECK_EQ(dev->stack.rx, rx);
		CHECK_EQ(dev->stack.udp, rx);
		CHECK_EQ(dev->stack.malformed, 0);
		CHECK_EQ(ws.wire_tx + exc, 0);
		break;
	case XDP_TX:
		CHECK_EQ(ws.wire_tx, rx);
		CHECK_EQ(dev->stats.tx_packets, rx);
		CHECK_EQ(dev->stack.rx + exc, 0);
		break;
	default:	/* ABORTED, REDIRECT (no target), invalid */
		CHECK_EQ(exc, rx);
		CHECK_EQ(dev->stack.rx + ws.wire_tx, 0);
		break;
	}
	if (!generic) {
		/* The driver's rxq counted every verdict. */
		CHECK(dev->_rx[0].xdp_rxq.stats.action[XDP_PASS] == 0);
	} else {
		const struct xdp_rxq_stats *st = &dev->_rx[0].xdp_rxq.stats;
		uint64_t sum = st->invalid, k;

		for (k = 0; k < XDP_ACTION_MAX; k++)
			sum += st->action[k];
		CHECK_EQ(sum, rx);
		CHECK_EQ(act < XDP_ACTION_MAX ? st->action[act] : st->invalid,
			 rx);
	}
	ps = pp_test_stats(pool);
	if (getenv("T_VERBOSE"))
		fprintf(stderr, "iommu %d generic %d no_recycle %d act %u: cached %llu ring %llu rx %llu\n", iommu, generic, no_recycle, act, (unsigned long long)ps.recycle_stats.cached, (unsigned long long)ps.recycle_stats.ring, (unsigned long long)rx);
	if (no_recycle && (generic || act == XDP_PASS))
		/* Every skb's page left the pool: nothing comes back. */
		CHECK_EQ(ps.recycle_stats.cached + ps.recycle_stats.ring, 0);
	else
		CHECK(ps.recycle_stats.cached >= rx);
	CHECK_EQ(ps.recycle_stats.ring, 0);
	/* PP_DEBUG builds: no page written after its return (bounce mode's
	 * poison is the device's doing, not a stale write). */
	CHECK_EQ(page_pool_debug_errors(pool), 0);

	netsim_destroy(dev);
	pp_test_wait_freed(2000);
	t_dma_dev_destroy_clean(o.dma_dev);
}

struct target {
	struct net_device *dev;
	int ready, stop;
	uint64_t wire_tx, tx_dropped, tx_packets;
};

/* One round of the target device's work: transmit, complete. */
static void
target_round(struct net_device *dev)
{
	CHECK_EQ(netsim_wire_rx(dev, 0, 0), 0);
	CHECK(napi_poll(netsim_napi(dev, 0)) >= 0);
}

static void
target_finish(struct target *t)
{
	struct netsim_stats ws;
	int i;

	for (i = 0; i < 2; i++)
		target_round(t->dev);
	CHECK_EQ(netsim_get_stats(t->dev, &ws), 0);
	CHECK_EQ(ws.dma_errors, 0);
	t->wire_tx = ws.wire_tx;
	t->tx_dropped = pp_load_relaxed(&t->dev->stats.tx_dropped);
	t->tx_packets = t->dev->stats.tx_packets;
	netsim_destroy(t->dev);
}

static void *
target_thread(void *arg)
{
	struct target *t = arg;

	CHECK_EQ(dev_open(t->dev), 0);
	__atomic_store_n(&t->ready, 1, __ATOMIC_RELEASE);
	while (!__atomic_load_n(&t->stop, __ATOMIC_ACQUIRE))
		target_round(t->dev);
	target_finish(t);
	pp_skb_cache_thread_drain();
	return NULL;
}

static void
run_redirect(bool iommu, bool generic, bool threaded)
{
	struct prog_cfg cfg = { .act = XDP_REDIRECT };
	struct bpf_prog prog = { .run = test_prog, .priv = &cfg,
				 .name = "redirect" };
	struct netsim_opts o = { .sz = sizeof(o), .frame_len = 256 };
	struct target t = { 0 };
	struct page_pool_stats ps;
	struct net_device *src;
	struct page_pool *pool;
	pthread_t th;
	uint64_t i, rx, rounds = (uint64_t)t_scale(100);

	o.dma_dev = t_dma_dev_create(iommu, dma_flags);
	src = netsim_create(&o);
	t.dev = netsim_create(&o);
	CHECK(src != NULL && t.dev != NULL);
	cfg.ifindex = (uint32_t)t.dev->ifindex;
	if (threaded) {
		CHECK_EQ(pthread_create(&th, NULL, target_thread, &t), 0);
		while (!__atomic_load_n(&t.ready, __ATOMIC_ACQUIRE))
			sched_yield();
	} else {
		CHECK_EQ(dev_open(t.dev), 0);
	}
	CHECK_EQ(dev_open(src), 0);
	CHECK_EQ(dev_xdp_attach(src, &prog, generic ? XDP_FLAGS_SKB_MODE : 0),
		 0);
	pool = netsim_page_pool(src, 0);
	pp_test_watch_free(pool);
	for (i = 0; i < rounds; i++) {
		CHECK_EQ(netsim_wire_rx(src, 0, 64), 64);
		CHECK_EQ(napi_poll(netsim_napi(src, 0)), 64);
		if (!threaded)
			target_round(t.dev);
	}
	if (threaded) {
		__atomic_store_n(&t.stop, 1, __ATOMIC_RELEASE);
		CHECK_EQ(pthread_join(th, NULL), 0);
	} else {
		target_finish(&t);
	}
	rx = src->stats.rx_packets;
	CHECK_EQ(rx, rounds * 64);
	CHECK_EQ(cfg.runs, rx);
	CHECK_EQ(cfg.bad, 0);
	/* Every redirected frame was sent by the target or dropped there
	 * (its ring full, when another thread drains it). */
	CHECK_EQ(t.wire_tx + t.tx_dropped, rx);
	CHECK_EQ(t.tx_packets, t.wire_tx);
	CHECK_EQ(src->xdp_exceptions, 0);
	if (!threaded)
		CHECK_EQ(t.tx_dropped, 0);
	ps = pp_test_stats(pool);
	CHECK(t.wire_tx > 0);
	if (getenv("T_VERBOSE"))
		fprintf(stderr, "redirect iommu %d generic %d threaded %d: sent %llu dropped %llu ring %llu cached %llu\n",
			iommu, generic, threaded, (unsigned long long)t.wire_tx,
			(unsigned long long)t.tx_dropped,
			(unsigned long long)ps.recycle_stats.ring,
			(unsigned long long)ps.recycle_stats.cached);
	if (threaded)
		/* Sent frames came back from the target's thread. */
		CHECK(ps.recycle_stats.ring > 0);
	else
		CHECK_EQ(ps.recycle_stats.ring, 0);
	netsim_destroy(src);
	pp_test_wait_freed(2000);
	t_dma_dev_destroy_clean(o.dma_dev);
}

/* Nothing to do: the NAPI would wait for an interrupt; let the wire run. */
static void
poll_or_yield(struct net_device *dev)
{
	int done = napi_poll(netsim_napi(dev, 0));

	CHECK(done >= 0);
	if (done == 0)
		sched_yield();
}

/* The wire on its own thread: the NAPI thread polls while the device
 * fills buffers; every frame arrives, none is lost. */
static void
run_wire_thread(bool iommu, bool generic, uint32_t act)
{
	struct prog_cfg cfg = { .act = act };
	struct bpf_prog prog = { .run = test_prog, .priv = &cfg };
	struct netsim_opts o = { .sz = sizeof(o), .flows = 8 };
	struct netsim_stats ws;
	struct net_device *dev;
	uint64_t n = (uint64_t)t_scale(20000);

	o.dma_dev = t_dma_dev_create(iommu, dma_flags);
	dev = netsim_create(&o);
	CHECK(dev != NULL);
	CHECK_EQ(netsim_wire_start(dev, 0, 1), -ENETDOWN);
	CHECK_EQ(dev_open(dev), 0);
	CHECK_EQ(dev_xdp_attach(dev, &prog, generic ? XDP_FLAGS_SKB_MODE : 0),
		 0);
	pp_test_watch_free(netsim_page_pool(dev, 0));
	CHECK_EQ(netsim_wire_start(dev, 0, n), 0);
	CHECK_EQ(netsim_wire_start(dev, 0, n), -EBUSY);
	CHECK_EQ(netsim_wire_rx(dev, 0, 1), -EBUSY);
	CHECK_EQ(netsim_wire_set(dev, 100, 1), -EBUSY);
	while (dev->stats.rx_packets < n)
		poll_or_yield(dev);
	/* The last transmissions complete; a TX ring found full (the wire
	 * thread behind) is an exception, as in a driver. */
	if (act == XDP_TX)
		while (dev->stats.tx_packets + dev->xdp_exceptions < n)
			poll_or_yield(dev);
	CHECK_EQ(netsim_wire_stop(dev, 0), 0);
	CHECK_EQ(netsim_wire_stop(dev, 0), -ENOENT);
	CHECK_EQ(napi_poll(netsim_napi(dev, 0)), 0);
	CHECK_EQ(netsim_get_stats(dev, &ws), 0);
	CHECK_EQ(ws.wire_sent, n);
	CHECK_EQ(dev->stats.rx_packets, n);
	CHECK_EQ(dev->stats.rx_missed_errors, 0);
	CHECK_EQ(cfg.runs, n);
	CHECK_EQ(cfg.bad, 0);
	if (act == XDP_PASS)
		CHECK_EQ(dev->stack.udp, n);
	if (act == XDP_TX)
		CHECK_EQ(ws.wire_tx + dev->xdp_exceptions, n);
	else
		CHECK_EQ(dev->xdp_exceptions, 0);
	netsim_destroy(dev);
	pp_test_wait_freed(2000);
	t_dma_dev_destroy_clean(o.dma_dev);
}

/*
 * XDP_REDIRECT into a CPU map: the entry's thread builds skbs from the
 * frames (native) or takes the skbs (generic) and the stack frees them
 * there, so every page comes back to the pool through its ring. Frames
 * refused by a full entry ring are counted dropped; nothing else is lost.
 */
static void
run_cpumap(bool iommu, bool generic)
{
	struct prog_cfg cfg = { .act = XDP_REDIRECT, .cpu = 1 };
	struct bpf_prog prog = { .run = test_prog, .priv = &cfg };
	struct netsim_opts o = { .sz = sizeof(o), .flows = 3 };
	struct cpu_map_stats cs;
	struct page_pool_stats ps;
	struct net_device *dev;
	uint64_t i, rx, rounds = (uint64_t)t_scale(200);

	cfg.cpumap = cpu_map_create(4);
	CHECK(cfg.cpumap != NULL);
	CHECK_EQ(cpu_map_update_elem(cfg.cpumap, 1, 512), 0);
	CHECK_EQ(cpu_map_update_elem(cfg.cpumap, 1, 512), -EEXIST);
	o.dma_dev = t_dma_dev_create(iommu, dma_flags);
	dev = netsim_create(&o);
	CHECK(dev != NULL);
	CHECK_EQ(dev_open(dev), 0);
	CHECK_EQ(dev_xdp_attach(dev, &prog, generic ? XDP_FLAGS_SKB_MODE : 0),
		 0);
	pp_test_watch_free(netsim_page_pool(dev, 0));
	for (i = 0; i < rounds; i++) {
		CHECK_EQ(netsim_wire_rx(dev, 0, 64), 64);
		CHECK_EQ(napi_poll(netsim_napi(dev, 0)), 64);
		if (i % 4 == 3)
			sched_yield();
	}
	rx = dev->stats.rx_packets;
	CHECK_EQ(cfg.runs, rx);
	CHECK_EQ(cfg.bad, 0);
	{
		/* Native frames or generic skbs, the same accounting. */
		CHECK_EQ(dev->xdp_exceptions, 0);
		/* Deleting the entry lets its thread finish the queue. */
		CHECK_EQ(cpu_map_get_stats(cfg.cpumap, 1, &cs), 0);
		CHECK_EQ(cs.enqueued + cs.dropped, rx);
		CHECK_EQ(cpu_map_delete_elem(cfg.cpumap, 1), 0);
		CHECK_EQ(cpu_map_delete_elem(cfg.cpumap, 1), -ENOENT);
		CHECK_EQ(dev->stack.udp, cs.enqueued);
		CHECK(cs.enqueued > 0);
		cpu_map_destroy(cfg.cpumap);
		ps = pp_test_stats(netsim_page_pool(dev, 0));
		/* Every delivered page came back through the ring. */
		CHECK(ps.recycle_stats.ring + ps.recycle_stats.ring_full >=
		      cs.enqueued);
	}
	netsim_destroy(dev);
	pp_test_wait_freed(2000);
	t_dma_dev_destroy_clean(o.dma_dev);
}

static void
cpumap_badinput(void)
{
	struct bpf_cpu_map *map;
	struct cpu_map_stats cs;

	errno = 0;
	CHECK(cpu_map_create(0) == NULL && errno == EINVAL);
	CHECK(cpu_map_create(100000) == NULL && errno == EINVAL);
	map = cpu_map_create(2);
	CHECK(map != NULL);
	CHECK_EQ(cpu_map_update_elem(map, 2, 64), -EINVAL);
	CHECK_EQ(cpu_map_update_elem(map, 0, 0), -EINVAL);
	CHECK_EQ(cpu_map_update_elem(NULL, 0, 64), -EINVAL);
	CHECK_EQ(cpu_map_get_stats(map, 0, &cs), -ENOENT);
	CHECK_EQ(cpu_map_delete_elem(map, 0), -ENOENT);
	CHECK_EQ(bpf_redirect_map(NULL, 0, 0), XDP_ABORTED);
	CHECK_EQ(bpf_redirect_map(map, 0, 4), XDP_ABORTED);
	CHECK(xdp_build_skb_from_frame(NULL, NULL) == NULL);
	cpu_map_destroy(map);
	cpu_map_destroy(NULL);
}

struct per_queue {
	uint64_t rx[4];
};

static uint32_t
queue_prog(struct xdp_md *ctx, void *priv)
{
	struct per_queue *pq = priv;

	pq->rx[ctx->rx_queue_index & 3]++;
	return XDP_PASS;
}

/* Four RX queues: RSS spreads 64 flows over them, each queue's NAPI
 * sees only its own, and every frame reaches the stack once. */
static void
run_multiqueue(bool iommu, bool generic)
{
	struct per_queue pq = { { 0 } };
	struct bpf_prog prog = { .run = queue_prog, .priv = &pq };
	struct netsim_opts o = { .sz = sizeof(o), .queues = 4, .flows = 64 };
	struct netsim_stats ws;
	struct net_device *dev;
	uint64_t got[4] = { 0 }, i;
	unsigned int q;
	int n;

	o.dma_dev = t_dma_dev_create(iommu, dma_flags);
	dev = netsim_create(&o);
	CHECK(dev != NULL);
	CHECK_EQ(dev->num_rx_queues, 4);
	CHECK_EQ(dev_open(dev), 0);
	CHECK_EQ(dev_xdp_attach(dev, &prog, generic ? XDP_FLAGS_SKB_MODE : 0),
		 0);
	pp_test_watch_free(netsim_page_pool(dev, 0));
	for (i = 0; i < (uint64_t)t_scale(100); i++) {
		for (q = 0; q < 4; q++) {
			n = netsim_wire_rx(dev, q, 64);
			CHECK(n >= 0);
			got[q] += (uint64_t)n;
			CHECK_EQ(napi_poll(netsim_napi(dev, q)), n);
		}
	}
	CHECK_EQ(netsim_get_stats(dev, &ws), 0);
	CHECK_EQ(ws.wire_sent, got[0] + got[1] + got[2] + got[3]);
	CHECK_EQ(dev->stats.rx_packets, ws.wire_sent);
	CHECK_EQ(dev->stack.udp, ws.wire_sent);
	for (q = 0; q < 4; q++) {
		CHECK(got[q] > 0);
		CHECK_EQ(pq.rx[q], got[q]);
		if (generic)
			CHECK_EQ(dev->_rx[q].xdp_rxq.stats.action[XDP_PASS],
				 got[q]);
	}
	netsim_destroy(dev);
	pp_test_wait_freed(2000);
	t_dma_dev_destroy_clean(o.dma_dev);
}

/* Two queues, each with its wire on its own thread: the wire's counters
 * must not lose counts between them. */
static void
run_multiqueue_threads(void)
{
	struct per_queue pq = { { 0 } };
	struct bpf_prog prog = { .run = queue_prog, .priv = &pq };
	struct netsim_opts o = { .sz = sizeof(o), .queues = 2, .flows = 16 };
	struct netsim_stats ws;
	struct net_device *dev;
	uint64_t n = (uint64_t)t_scale(40000);
	int work;

	dev = netsim_create(&o);
	CHECK(dev != NULL);
	CHECK_EQ(dev_open(dev), 0);
	CHECK_EQ(dev_xdp_attach(dev, &prog, XDP_FLAGS_DRV_MODE), 0);
	CHECK_EQ(netsim_wire_start(dev, 0, n), 0);
	CHECK_EQ(netsim_wire_start(dev, 1, n), 0);
	while (pq.rx[0] < n || pq.rx[1] < n) {
		work = napi_poll(netsim_napi(dev, 0));
		work += napi_poll(netsim_napi(dev, 1));
		CHECK(work >= 0);
		if (work == 0)
			sched_yield();
	}
	CHECK_EQ(netsim_wire_stop(dev, 0), 0);
	CHECK_EQ(netsim_wire_stop(dev, 1), 0);
	CHECK_EQ(netsim_get_stats(dev, &ws), 0);
	CHECK_EQ(ws.wire_sent, 2 * n);
	CHECK_EQ(dev->stats.rx_packets, 2 * n);
	netsim_destroy(dev);
}

struct seen {
	unsigned char *data;
	unsigned char first;
};

static uint32_t
record_prog(struct xdp_md *ctx, void *priv)
{
	struct seen *sn = priv;

	sn->data = ctx->data;
	sn->first = *(unsigned char *)ctx->data;
	return XDP_PASS;
}

/* A UDP frame in an skb with @headroom bytes in front, as a driver that
 * reserves only NET_SKB_PAD would build it. */
static struct sk_buff *
small_headroom_skb(struct net_device *dev, unsigned int headroom)
{
	static const unsigned char frame[42] = {
		0x02, 0, 0, 0, 0, 0x09,  0x02, 0, 0, 0, 0, 0x01,  0x08, 0x00,
		0x45, 0, 0, 28, 0, 0, 0, 0, 64, 17, 0, 0,
		10, 0, 0, 1, 10, 0, 0, 2,
		0, 9, 0, 9, 0, 8, 0, 0,
	};
	struct sk_buff *skb = alloc_skb(headroom + sizeof(frame), GFP_ATOMIC);

	CHECK(skb != NULL);
	skb_reserve(skb, (int)headroom);
	memcpy(skb_put(skb, sizeof(frame)), frame, sizeof(frame));
	skb->protocol = eth_type_trans(skb, dev);
	return skb;
}

/*
 * Generic XDP guarantees the program XDP_PACKET_HEADROOM in front of the
 * packet, as native XDP does: an skb with less is copied to a new head
 * first (the kernel's netif_skb_check_for_xdp()), one with enough is not.
 */
static void
generic_headroom(void)
{
	struct seen sn = { 0 };
	struct bpf_prog prog = { .run = record_prog, .priv = &sn };
	struct net_device *dev = netsim_create(NULL);
	struct sk_buff *skb;
	unsigned char *orig;

	CHECK(dev != NULL);
	CHECK_EQ(dev_xdp_attach(dev, &prog, XDP_FLAGS_SKB_MODE), 0);
	skb = small_headroom_skb(dev, NET_SKB_PAD);
	orig = skb->data - ETH_HLEN;
	CHECK_EQ(netif_receive_skb(skb), 0);
	CHECK(sn.data != NULL && sn.data != orig);
	CHECK_EQ(sn.first, 0x02);
	CHECK_EQ(dev->stack.udp, 1);

	skb = small_headroom_skb(dev, XDP_PACKET_HEADROOM);
	orig = skb->data - ETH_HLEN;
	CHECK_EQ(netif_receive_skb(skb), 0);
	CHECK(sn.data == orig);
	CHECK_EQ(dev->stack.udp, 2);
	CHECK_EQ(dev->stack.malformed, 0);
	netsim_destroy(dev);
}

struct linear_seen {
	unsigned int len;
	unsigned int bad;	/* payload bytes out of place */
};

/* Records the packet's length and checks the payload pattern, which a
 * program can only see if the packet is one buffer. */
static uint32_t
linear_prog(struct xdp_md *ctx, void *priv)
{
	struct linear_seen *ls = priv;
	unsigned char *p = ctx->data, *end = ctx->data_end;
	unsigned int i;

	ls->len = (unsigned int)(end - p);
	for (i = 42; p + i < end; i++)
		if (p[i] != (unsigned char)(i - 42))
			ls->bad++;
	return XDP_PASS;
}

/*
 * An Ethernet/IPv4/UDP frame whose 42 header bytes are in a head built
 * over a page of @pool with @headroom in front, and whose payload is in
 * @nfrags page fragments of @fraglen bytes from the same pool (the pattern
 * 0, 1, 2, ... over the whole payload), marked for recycling: a driver's
 * multi-buffer receive (skb_add_rx_frag()).
 */
static struct sk_buff *
nonlinear_skb(struct net_device *dev, struct page_pool *pool,
	      unsigned int headroom, unsigned int nfrags, unsigned int fraglen)
{
	unsigned char hdr[42] = {
		0x02, 0, 0, 0, 0, 0x09,  0x02, 0, 0, 0, 0, 0x01,  0x08, 0x00,
		0x45, 0, 0, 0, 0, 0, 0, 0, 64, 17, 0, 0,
		10, 0, 0, 1, 10, 0, 0, 2,
		0, 9, 0, 9, 0, 0, 0, 0,
	};
	unsigned int tot = 28 + nfrags * fraglen, i, j, n = 0;
	struct page *page = page_pool_dev_alloc_pages(pool);
	struct sk_buff *skb;

	CHECK(page != NULL);
	hdr[16] = (unsigned char)(tot >> 8);
	hdr[17] = (unsigned char)tot;
	hdr[38] = (unsigned char)((tot - 20) >> 8);
	hdr[39] = (unsigned char)(tot - 20);
	skb = napi_build_skb(page_address(page), PAGE_SIZE);
	CHECK(skb != NULL);
	skb_mark_for_recycle(skb);
	skb_reserve(skb, (int)headroom);
	memcpy(__skb_put(skb, sizeof(hdr)), hdr, sizeof(hdr));
	for (i = 0; i < nfrags; i++) {
		unsigned char *va;

		page = page_pool_dev_alloc_pages(pool);
		CHECK(page != NULL);
		va = page_address(page);
		for (j = 0; j < fraglen; j++)
			va[100 + j] = (unsigned char)n++;
		CHECK_EQ(skb_add_rx_frag(skb, (int)i, page, 100, (int)fraglen,
					 PAGE_SIZE), 0);
	}
	skb->protocol = eth_type_trans(skb, dev);
	return skb;
}

/*
 * Generic XDP runs the program on one linear buffer, as the kernel's
 * netif_receive_generic_xdp() makes it (pskb_expand_head() and
 * skb_linearize()): a non-linear skb, with enough headroom or too little,
 * reaches the program whole and then the stack; the fragments' pages go
 * back to their pool. And skb_linearize() itself: a head with room for the
 * fragments' bytes, and one without (grown first).
 */
static void
generic_nonlinear(void)
{
	struct linear_seen ls = { 0 };
	struct bpf_prog prog = { .run = linear_prog, .priv = &ls };
	struct page_pool_params pp = { .pool_size = 64,
				       .nid = NUMA_NO_NODE };
	struct net_device *dev = netsim_create(NULL);
	struct page_pool *pool = page_pool_create(&pp);
	struct sk_buff *skb;
	unsigned char *head;
	unsigned int i;

	CHECK(dev != NULL && pool != NULL);
	pp_test_watch_free(pool);
	CHECK_EQ(dev_xdp_attach(dev, &prog, XDP_FLAGS_SKB_MODE), 0);

	/* Headroom enough (native XDP's), three fragments. */
	skb = nonlinear_skb(dev, pool, XDP_PACKET_HEADROOM, 3, 300);
	CHECK(skb_is_nonlinear(skb));
	CHECK_EQ(netif_receive_skb(skb), 0);
	CHECK_EQ(ls.len, 42 + 3 * 300);
	CHECK_EQ(ls.bad, 0);
	CHECK_EQ(dev->stack.udp, 1);

	/* Headroom short too: one head copy does both. */
	memset(&ls, 0, sizeof(ls));
	skb = nonlinear_skb(dev, pool, NET_SKB_PAD, 2, 1000);
	CHECK_EQ(netif_receive_skb(skb), 0);
	CHECK_EQ(ls.len, 42 + 2 * 1000);
	CHECK_EQ(ls.bad, 0);
	CHECK_EQ(dev->stack.udp, 2);
	CHECK_EQ(dev->stack.malformed, 0);

	/* skb_linearize() alone: room in the head, so no new head ... */
	skb = nonlinear_skb(dev, pool, XDP_PACKET_HEADROOM, 2, 100);
	head = skb->head;
	CHECK_EQ(skb_linearize(skb), 0);
	CHECK(skb->head == head);
	CHECK(!skb_is_nonlinear(skb));
	CHECK_EQ(skb_shinfo(skb)->nr_frags, 0);
	CHECK_EQ(skb_headlen(skb), 42 - ETH_HLEN + 200);
	for (i = 0; i < 200; i++)
		CHECK_EQ(skb->data[42 - ETH_HLEN + i], (unsigned char)i);
	CHECK_EQ(skb_linearize(skb), 0);	/* linear: nothing to do */
	kfree_skb(skb);

	/* ... and a head too small for the fragments: grown first. */
	skb = nonlinear_skb(dev, pool, XDP_PACKET_HEADROOM, 4, 2000);
	head = skb->head;
	CHECK_EQ(skb_linearize(skb), 0);
	CHECK(skb->head != head);
	CHECK_EQ(skb->len, 42 - ETH_HLEN + 8000);
	CHECK_EQ(skb_headlen(skb), skb->len);
	for (i = 0; i < 8000; i++)
		CHECK_EQ(skb->data[42 - ETH_HLEN + i], (unsigned char)i);
	kfree_skb(skb);
	CHECK_EQ(skb_linearize(NULL), -EINVAL);

	/* Every head and fragment page came back: destroy frees the pool. */
	page_pool_destroy(pool);
	CHECK(pp_test_is_freed());
	netsim_destroy(dev);
}

/* A redirect to a device that is down, or gone, is an exception. */
static void
redirect_nowhere(void)
{
	struct prog_cfg cfg = { .act = XDP_REDIRECT };
	struct bpf_prog prog = { .run = test_prog, .priv = &cfg };
	struct net_device *src = netsim_create(NULL), *down = netsim_create(NULL);

	CHECK(src != NULL && down != NULL);
	cfg.ifindex = (uint32_t)down->ifindex;
	CHECK_EQ(dev_open(src), 0);
	CHECK_EQ(dev_xdp_attach(src, &prog, 0), 0);
	CHECK_EQ(netsim_wire_rx(src, 0, 10), 10);
	CHECK_EQ(napi_poll(netsim_napi(src, 0)), 10);
	CHECK_EQ(src->xdp_exceptions, 10);
	netsim_destroy(down);
	CHECK_EQ(netsim_wire_rx(src, 0, 10), 10);
	CHECK_EQ(napi_poll(netsim_napi(src, 0)), 10);
	CHECK_EQ(src->xdp_exceptions, 20);
	CHECK_EQ(bpf_redirect(1, 1), XDP_ABORTED);
	netsim_destroy(src);
}

static void *
poll_elsewhere(void *arg)
{
	return (void *)(long)napi_poll(arg);
}

static void
bad_input(void)
{
	struct netsim_opts o = { .sz = sizeof(o), .frame_len = 9000 };
	struct prog_cfg cfg = { .act = XDP_DROP };
	struct bpf_prog prog = { .run = test_prog, .priv = &cfg };
	struct bpf_prog noprog = { .run = NULL };
	struct net_device *dev;
	pthread_t th;
	void *ret;

	CHECK(dev_get_by_name("nosuchdev0") == NULL);
	CHECK(dev_get_by_name(NULL) == NULL);
	CHECK(dev_get_by_index(-1) == NULL);
	errno = 0;
	CHECK(netsim_create(&o) == NULL && errno == EINVAL);
	o.frame_len = 0;
	o.ring_size = 100;
	CHECK(netsim_create(&o) == NULL && errno == EINVAL);
	o.ring_size = 0;
	dev = netsim_create(&o);
	CHECK(dev != NULL);
	CHECK_EQ(netsim_wire_set(dev, 4000, 1), -EMSGSIZE);
	CHECK_EQ(netsim_wire_set(dev, 20, 1), -EINVAL);
	CHECK_EQ(netsim_wire_set(dev, 1514, 0), -EINVAL);
	CHECK_EQ(netsim_wire_set(NULL, 1514, 1), -EINVAL);
	CHECK_EQ(netsim_wire_rx(dev, 0, 1), -ENETDOWN);
	CHECK_EQ(napi_poll(netsim_napi(dev, 0)), -ENETDOWN);
	CHECK_EQ(netsim_wire_rx(dev, 5, 1), -EINVAL);
	CHECK_EQ(dev_xdp_attach(dev, &prog, 1u << 7), -EINVAL);
	CHECK_EQ(dev_xdp_attach(dev, &prog, XDP_FLAGS_MODES), -EINVAL);
	CHECK_EQ(dev_xdp_attach(dev, &noprog, 0), -EINVAL);
	CHECK_EQ(dev_xdp_attach(NULL, &prog, 0), -EINVAL);
	CHECK_EQ(dev_xdp_attach(dev, &prog, XDP_FLAGS_SKB_MODE), 0);
	CHECK_EQ(dev_xdp_attach(dev, &prog, XDP_FLAGS_DRV_MODE), -EEXIST);
	CHECK_EQ(dev_xdp_attach(dev, &prog, XDP_FLAGS_SKB_MODE |
				XDP_FLAGS_UPDATE_IF_NOEXIST), -EBUSY);
	CHECK_EQ(dev_xdp_attach(dev, NULL, 0), 0);
	CHECK(dev->xdp_prog == NULL);
	CHECK_EQ(dev_xdp_attach(dev, &prog, 0), 0);	/* native */
	CHECK(dev->xdp_prog_drv == &prog);
	CHECK_EQ(netsim_wire_set(dev, 1514, 100), 0);
	CHECK_EQ(dev_open(dev), 0);
	CHECK_EQ(pthread_create(&th, NULL, poll_elsewhere,
				netsim_napi(dev, 0)), 0);
	CHECK_EQ(pthread_join(th, &ret), 0);
	CHECK_EQ((long)ret, -EPERM);
	CHECK_EQ(netsim_wire_rx(dev, 0, 10), 10);
	CHECK_EQ(napi_poll(netsim_napi(dev, 0)), 10);
	CHECK_EQ(cfg.runs, 10);
	CHECK_EQ(dev->stats.rx_bytes, 10 * 1514);
	netsim_destroy(dev);
	netsim_destroy(NULL);
}

/*
 * Replayed frames (a pcap's): each frame reaches the program as it was
 * given, in order; a runt and a frame longer than the RX buffer are
 * dropped by the NIC and counted, never lost; bad arguments change
 * nothing.
 */
static unsigned char replay_bytes[5][5000];
static unsigned int replay_seen[5];

static uint32_t
replay_prog(struct xdp_md *ctx, void *priv)
{
	unsigned int len = (unsigned int)((unsigned char *)ctx->data_end -
					  (unsigned char *)ctx->data);
	unsigned int i;

	(void)priv;
	for (i = 0; i < 5; i++)
		if (len == 60 + i * 100 &&
		    memcmp(ctx->data, replay_bytes[i], len) == 0)
			replay_seen[i]++;
	return XDP_DROP;
}

static void
run_replay(bool iommu)
{
	static const unsigned int lens[] = { 60, 160, 260, 4000, 10 };
	struct bpf_prog prog = { .run = replay_prog, .name = "replay" };
	struct netsim_opts o = { .sz = sizeof(o) };
	const void *frames[5];
	struct netsim_stats ws;
	struct net_device *dev;
	unsigned int i, j;

	for (i = 0; i < 5; i++) {
		for (j = 0; j < sizeof(replay_bytes[i]); j++)
			replay_bytes[i][j] = (unsigned char)(i * 31 + j);
		replay_bytes[i][12] = 0x08;
		replay_bytes[i][13] = 0x00;
		frames[i] = replay_bytes[i];
	}
	memset(replay_seen, 0, sizeof(replay_seen));
	o.dma_dev = t_dma_dev_create(iommu, dma_flags);
	dev = netsim_create(&o);
	CHECK(dev != NULL);
	CHECK_EQ(netsim_wire_replay(NULL, frames, lens, 5), -EINVAL);
	CHECK_EQ(netsim_wire_replay(dev, NULL, lens, 5), -EINVAL);
	CHECK_EQ(netsim_wire_replay(dev, frames, NULL, 5), -EINVAL);
	{
		const unsigned int huge[1] = { NETSIM_REPLAY_MAX_LEN + 1 };

		CHECK_EQ(netsim_wire_replay(dev, frames, huge, 1), -EINVAL);
	}
	CHECK_EQ(netsim_wire_replay(dev, frames, lens, 0), 0);
	CHECK_EQ(netsim_wire_replay(dev, frames, lens, 5), 0);
	CHECK_EQ(dev_open(dev), 0);
	CHECK_EQ(dev_xdp_attach(dev, &prog, XDP_FLAGS_DRV_MODE), 0);
	/* 50 rounds of the five frames: 150 received, 100 dropped. */
	for (i = 0; i < 50; i++) {
		CHECK_EQ(netsim_wire_rx(dev, 0, 5), 3);
		CHECK_EQ(napi_poll(netsim_napi(dev, 0)), 3);
	}
	CHECK_EQ(netsim_get_stats(dev, &ws), 0);
	CHECK_EQ(ws.wire_sent, 250);
	CHECK_EQ(dev->stats.rx_packets, 150);
	CHECK_EQ(dev->stats.rx_length_errors, 100);
	CHECK_EQ(dev->stats.rx_missed_errors, 0);
	CHECK_EQ(replay_seen[0] + replay_seen[1] + replay_seen[2], 150);
	CHECK_EQ(replay_seen[0], 50);
	CHECK_EQ(replay_seen[2], 50);
	/* Back to generated frames. */
	CHECK_EQ(netsim_wire_set(dev, 64, 1), 0);
	CHECK_EQ(netsim_wire_rx(dev, 0, 5), 5);
	CHECK_EQ(napi_poll(netsim_napi(dev, 0)), 5);
	CHECK_EQ(dev->stats.rx_length_errors, 100);
	netsim_destroy(dev);
	t_dma_dev_destroy_clean(o.dma_dev);
}

/*
 * The DMA layer's counts of a native XDP_DROP run are exact, whatever
 * fast path counted them (a device burst, syncs held back for a poll):
 * one device write and one sync for the CPU per frame, and one sync for
 * the device per recycle besides the one of each map. Then the device is
 * unbound with frames on the ring: every sync of the next poll is a fault
 * (fast path or not), and the wire's writes after it are too.
 */
static void
dma_counts(void)
{
	struct prog_cfg cfg = { .act = XDP_DROP };
	struct bpf_prog prog = { .run = test_prog, .priv = &cfg,
				 .name = "test_prog" };
	struct netsim_opts o = { .sz = sizeof(o), .frame_len = 100 };
	struct pp_dma_stats ds = { .sz = sizeof(ds) };
	struct netsim_stats ws;
	struct net_device *dev;
	uint64_t i, rx, rounds = (uint64_t)t_scale(50);
	int n;

	o.dma_dev = t_dma_dev_create(false, dma_flags | PP_DMA_F_QUIET);
	dev = netsim_create(&o);
	CHECK(dev != NULL);
	CHECK_EQ(dev_open(dev), 0);
	CHECK_EQ(dev_xdp_attach(dev, &prog, XDP_FLAGS_DRV_MODE), 0);
	for (i = 0; i < rounds; i++) {
		CHECK_EQ(netsim_wire_rx(dev, 0, 64), 64);
		CHECK_EQ(napi_poll(netsim_napi(dev, 0)), 64);
	}
	rx = dev->stats.rx_packets;
	CHECK_EQ(rx, rounds * 64);
	CHECK_EQ(cfg.runs, rx);
	CHECK_EQ(pp_dma_dev_get_stats(o.dma_dev, &ds), 0);
	CHECK_EQ(ds.faults, 0);
	CHECK_EQ(ds.dev_writes, rx);
	CHECK_EQ(ds.bytes_written, rx * 100);
	CHECK_EQ(ds.syncs_for_cpu, rx);
	CHECK_EQ(ds.bytes_synced_for_cpu, rx * 100);
	/* Each map syncs max_len for the device; each recycle the frame. */
	CHECK_EQ(ds.syncs_for_device, rx + ds.maps);
	CHECK(ds.bytes_synced_for_device > rx * 100);

	/* Frames on the ring, then the device goes away. */
	CHECK_EQ(netsim_wire_rx(dev, 0, 16), 16);
	CHECK_EQ(pp_dma_dev_unbind(o.dma_dev), 0);
	CHECK_EQ(napi_poll(netsim_napi(dev, 0)), 16);
	CHECK_EQ(pp_dma_dev_get_stats(o.dma_dev, &ds), 0);
	/* The sync for the CPU and the recycle's sync for the device. */
	CHECK_EQ(ds.faults, 2 * 16);
	CHECK_EQ(ds.syncs_for_cpu, rx);
	CHECK_EQ(ds.last_fault_reason, PP_DMA_FAULT_UNBOUND);
	n = netsim_wire_rx(dev, 0, 8);
	CHECK_EQ(n, 0);
	CHECK_EQ(netsim_get_stats(dev, &ws), 0);
	CHECK_EQ(ws.dma_errors, 8);
	CHECK_EQ(pp_dma_dev_get_stats(o.dma_dev, &ds), 0);
	CHECK_EQ(ds.faults, 2 * 16 + 8);
	CHECK_EQ(ds.dev_writes, rx + 16);
	netsim_destroy(dev);
	pp_dma_dev_destroy(o.dma_dev);
}

static void
run_all(void)
{
	static const uint32_t acts[] = { XDP_DROP, XDP_PASS, XDP_TX,
					 XDP_ABORTED, XDP_REDIRECT,
					 BAD_VERDICT };
	unsigned int a, m;

	for (m = 0; m < 8; m++)
		for (a = 0; a < sizeof(acts) / sizeof(acts[0]); a++)
			run_case(m & 1, m & 2, m & 4, acts[a]);
	for (m = 0; m < 8; m++)
		run_redirect(m & 1, m & 2, m & 4);
	for (m = 0; m < 4; m++) {
		run_wire_thread(m & 1, m & 2, XDP_DROP);
		run_wire_thread(m & 1, m & 2, XDP_PASS);
		run_wire_thread(m & 1, m & 2, XDP_TX);
	}
	for (m = 0; m < 4; m++)
		run_cpumap(m & 1, m & 2);
	cpumap_badinput();
	generic_headroom();
	generic_nonlinear();
	for (m = 0; m < 4; m++)
		run_multiqueue(m & 1, m & 2);
	run_multiqueue_threads();
	redirect_nowhere();
	run_replay(false);
	run_replay(true);
	dma_counts();
	bad_input();
}

int
main(void)
{
	run_all();
	dma_flags = PP_DMA_F_BOUNCE | PP_DMA_F_POISON;
	run_all();
	pp_skb_cache_thread_drain();
	return T_EXIT_PASS;
}
