/* SPDX-License-Identifier: MIT */
/*
 * Copyright (c) 2026 The pagepool authors
 *
 * Private: what dev.c, xdp.c and the drivers share.
 */
#ifndef PAGEPOOL_DEV_PRIV_H
#define PAGEPOOL_DEV_PRIV_H

#include <errno.h>

#include <pagepool/netdevice.h>
#include <pagepool/page_pool.h>
#include <pagepool/xdp.h>

/*
 * Single-writer counters (the NAPI thread): a relaxed store of the
 * incremented value, so other threads may read them without a data race.
 */
#define netdev_stat_add(field, v)                                            \
	pp_store_relaxed(&(field), pp_load_relaxed(&(field)) + (v))

/*
 * Device-wide counters (dev->stats) that every queue's thread adds to
 * (threaded NAPI, a wire thread per queue): an atomic add, relaxed, as
 * nothing is ordered by a count; readers load them relaxed.
 */
#define netdev_stat_add_shared(field, v) pp_fetch_add_relaxed(&(field), (v))

/* Count @act in @st; return it. */
static inline uint32_t
_pp_xdp_count(struct xdp_rxq_stats *st, uint32_t act)
{
	if (PP_LIKELY(act < XDP_ACTION_MAX))
		netdev_stat_add(st->action[act], 1);
	else
		netdev_stat_add(st->invalid, 1);
	return act;
}

/*
 * The program moved data, data_end or data_meta: keep the move if the
 * verifier and the adjust helpers would have allowed it (the packet, at
 * least an Ethernet header, inside the buffer, metadata right in front of
 * it, room left for a frame in the headroom), else count the run invalid.
 * Here, not in xdp.c, so that the AF_XDP module, linked outside the
 * library, runs programs inline too: each user gets one cold copy.
 */
static __attribute__((unused, noinline, cold)) uint32_t
_pp_xdp_run_adjusted(struct xdp_buff *xdp, const struct xdp_md *ctx,
		     uint32_t act)
{
	struct xdp_rxq_stats *st = &xdp->rxq->stats;
	unsigned char *hard = xdp->data_hard_start;
	/* The kernel's xdp_data_hard_end(): the shared info stays free. */
	unsigned char *limit = hard + xdp->frame_sz -
			       SKB_DATA_ALIGN(sizeof(struct skb_shared_info));
	unsigned char *data = ctx->data, *end = ctx->data_end;
	unsigned char *meta = ctx->data_meta;
	unsigned char *old_data = xdp->data;
	unsigned char *old_meta = xdp->data_meta;
	bool no_meta = old_meta == old_data + 1;
	bool meta_ok = no_meta ? meta == old_meta
			       : (meta <= data && meta >= hard);

	/* A buffer without metadata support keeps its mark. */
	if (no_meta)
		meta = data + 1;

	if (data < hard + sizeof(struct xdp_frame) || end > limit ||
	    end < data + ETH_HLEN || !meta_ok) {
		netdev_stat_add(st->invalid, 1);
		return XDP_ACTION_MAX;
	}
	xdp->data = data;
	xdp->data_end = end;
	xdp->data_meta = meta;
	return _pp_xdp_count(st, act);
}

/*
 * bpf_prog_run_xdp() inline, for the drivers and generic XDP: the kernel's
 * is always inline, and so the context is built from registers, not
 * reloaded from the xdp_buff just stored (a 16-byte load of two 8-byte
 * stores cannot be forwarded and waits for every earlier store, the
 * frame's DMA write among them). Checks moved bounds out of line.
 */
static inline uint32_t
_pp_bpf_prog_run_xdp(const struct bpf_prog *prog, struct xdp_buff *xdp)
{
	struct xdp_md ctx = {
		.data = xdp->data,
		.data_end = xdp->data_end,
		.data_meta = xdp->data_meta,
		.ingress_ifindex = xdp->rxq->dev != NULL ?
					   (uint32_t)xdp->rxq->dev->ifindex : 0,
		.rx_queue_index = xdp->rxq->queue_index,
	};
	uint32_t act;

	act = prog->run(&ctx, prog->priv);
	if (PP_UNLIKELY(ctx.data != xdp->data ||
			ctx.data_end != xdp->data_end ||
			ctx.data_meta != xdp->data_meta))
		return _pp_xdp_run_adjusted(xdp, &ctx, act);
	return _pp_xdp_count(&xdp->rxq->stats, act);
}

/*
 * ndo_bpf()'s XDP_SETUP_PROG for a driver keeping its program in @slot:
 * 0, or -EINVAL for another command.
 */
static inline int
_pp_xdp_setup_prog(struct bpf_prog **slot, const struct netdev_bpf *bpf)
{
	if (bpf->command != XDP_SETUP_PROG)
		return -EINVAL;
	/* Pairs with the acquire of @slot in the driver's RX poll (xsk_rx(),
	 * sim_rx()): the poll sees the program complete. */
	pp_store_release(slot, bpf->prog);
	return 0;
}

/*
 * What ndo_xdp_xmit() checks before it queues frames: 0, -EINVAL for a
 * flag it does not know, -ENETDOWN while @dev is down.
 */
static inline int
_pp_xdp_xmit_check(struct net_device *dev, uint32_t flags)
{
	if (flags & ~XDP_XMIT_FLAGS_MASK)
		return -EINVAL;
	if (!(pp_load_relaxed(&dev->flags) & IFF_UP))
		return -ENETDOWN;
	return 0;
}

/*
 * A driver's RX verdict, the part every driver writes alike (the kernel's
 * drivers each open-code it; libeth's xdp helpers share it): run @prog on
 * @xdp, whose data_hard_start is the page's start, and act on what needs
 * no driver: a redirect, an invalid action, an abort. Returns
 *  - XDP_PASS: build the skb, @*headroom and @*len now as the program left
 *    the frame;
 *  - XDP_TX: the driver's to send; if it cannot, trace_xdp_exception() and
 *    drop;
 *  - XDP_REDIRECT: the frame is gone; xdp_do_flush() at the poll's end;
 *  - XDP_DROP: the driver returns the page to its pool.
 */
static inline uint32_t
_pp_xdp_rx_verdict(struct net_device *dev, const struct bpf_prog *prog,
		   struct xdp_buff *xdp, unsigned int *headroom,
		   unsigned int *len)
{
	uint32_t act = _pp_bpf_prog_run_xdp(prog, xdp);

	switch (act) {
	case XDP_PASS:
		*headroom = (unsigned int)((unsigned char *)xdp->data -
					   (unsigned char *)xdp->data_hard_start);
		*len = (unsigned int)((unsigned char *)xdp->data_end -
				      (unsigned char *)xdp->data);
		return XDP_PASS;
	case XDP_TX:
		return XDP_TX;
	case XDP_REDIRECT:
		if (xdp_do_redirect(dev, xdp, prog) == 0)
			return XDP_REDIRECT;
		trace_xdp_exception(dev, prog, act);
		return XDP_DROP;
	default:
		bpf_warn_invalid_xdp_action(dev, prog, act);
		/* fallthrough */
	case XDP_ABORTED:
		trace_xdp_exception(dev, prog, act);
		/* fallthrough */
	case XDP_DROP:
		return XDP_DROP;
	}
}

/*
 * The skb around a received page of @pool: @headroom, then @len bytes,
 * queue @queue, protocol from the Ethernet header; marked for recycling,
 * or the page released from @pool when @no_recycle. NULL when no skb could
 * be had: counted in rx_dropped, the page still the caller's.
 */
static inline struct sk_buff *
_pp_rx_build_skb(struct net_device *dev, struct page_pool *pool,
		 struct page *page, unsigned int headroom, unsigned int len,
		 uint16_t queue, bool no_recycle)
{
	struct sk_buff *skb = napi_build_skb(page_address(page), PAGE_SIZE);

	if (PP_UNLIKELY(skb == NULL)) {
		netdev_stat_add_shared(dev->stats.rx_dropped, 1);
		return NULL;
	}
	if (no_recycle)
		page_pool_release_page(pool, page);
	else
		skb_mark_for_recycle(skb);
	skb_reserve(skb, (int)headroom);
	__skb_put(skb, len);
	skb->queue_mapping = queue;
	skb->protocol = eth_type_trans(skb, dev);
	return skb;
}

/*
 * The registry's generation: changes at every register and unregister, so
 * a thread may cache an ifindex lookup and trust it while the generation
 * is unchanged.
 */
unsigned long _pp_dev_gen(void);

/* Redirect of an skb by generic XDP (dev.c's generic_xdp_tx()). */
int _pp_xdp_generic_redirect(struct sk_buff *skb, const struct bpf_prog *prog);
void _pp_generic_xdp_tx(struct sk_buff *skb, const struct bpf_prog *prog);

/* The small stack alone (no generic XDP): CPU map consumers deliver
 * here, from their own threads. */
void _pp_stack_receive(struct sk_buff *skb);

/* CPU maps (kernel/bpf/cpumap.c): the entry for @key, or NULL; and the
 * enqueue of @n frames into it, returning how many it took (the rest are
 * the caller's, counted as dropped). Producer side, any thread. */
struct bpf_cpu_map_entry;
struct bpf_cpu_map_entry *_pp_cpu_map_lookup(struct bpf_cpu_map *map,
					     uint32_t key);
unsigned int _pp_cpu_map_enqueue(struct bpf_cpu_map_entry *rcpu,
				 struct xdp_frame **frames, unsigned int n);
/* Generic XDP's redirect of an skb to a CPU map entry: 0, or -ENOSPC
 * (ring full, counted dropped; the skb is still the caller's). */
int _pp_cpu_map_enqueue_skb(struct bpf_cpu_map_entry *rcpu,
			    struct sk_buff *skb);

#endif /* PAGEPOOL_DEV_PRIV_H */
