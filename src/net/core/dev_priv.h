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

#endif /* PAGEPOOL_DEV_PRIV_H */
