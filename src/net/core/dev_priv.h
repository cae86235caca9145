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

#endif /* PAGEPOOL_DEV_PRIV_H */
