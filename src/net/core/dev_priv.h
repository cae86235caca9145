/* SPDX-License-Identifier: MIT */
/*
 * Copyright (c) 2026 The pagepool authors
 *
 * Private: what dev.c, xdp.c and the drivers share.
 */
#ifndef PAGEPOOL_DEV_PRIV_H
#define PAGEPOOL_DEV_PRIV_H

#include <pagepool/netdevice.h>

/*
 * Single-writer counters (the NAPI thread): a relaxed store of the
 * incremented value, so other threads may read them without a data race.
 */
#define netdev_stat_add(field, v)                                            \
	pp_store_relaxed(&(field), pp_load_relaxed(&(field)) + (v))

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
