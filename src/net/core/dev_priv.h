/* SPDX-License-Identifier: MIT */
/*
 * Copyright (c) 2026 The pagepool authors
 *
 * Private: what dev.c, xdp.c and the drivers share.
 */
#ifndef PAGEPOOL_DEV_PRIV_H
#define PAGEPOOL_DEV_PRIV_H

#include <pagepool/netdevice.h>
#include <pagepool/xdp.h>

/*
 * Single-writer counters (the NAPI thread): a relaxed store of the
 * incremented value, so other threads may read them without a data race.
 */
#define netdev_stat_add(field, v)                                            \
	pp_store_relaxed(&(field), pp_load_relaxed(&(field)) + (v))

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

uint32_t _pp_xdp_run_adjusted(struct xdp_buff *xdp, const struct xdp_md *ctx,
			      uint32_t act);

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
