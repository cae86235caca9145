/* SPDX-License-Identifier: MIT */
/*
 * Copyright (c) 2026 The pagepool authors
 *
 * <net/page_pool/helpers.h>: page_pool's allocation, return, fragment,
 * DMA and statistics helpers (pagepool/page_pool.h), with the kernel's
 * page_pool_create() of <net/page_pool/types.h>.
 *
 * The statistics copy takes the kernel's u64 (unsigned long long) array;
 * the library's takes uint64_t, the same 64 bits under another C type, so
 * the name is wrapped to convert the pointers.
 */
#ifndef PAGEPOOL_KERNEL_NET_PAGE_POOL_HELPERS_H
#define PAGEPOOL_KERNEL_NET_PAGE_POOL_HELPERS_H

#include <linux/dma-mapping.h>
#include <linux/mm.h>
#include <net/page_pool/types.h>

#define page_pool_ethtool_stats_get(data, stats)                             \
	((u64 *)(void *)page_pool_ethtool_stats_get(                         \
		(uint64_t *)(void *)(data), (stats)))

#endif /* PAGEPOOL_KERNEL_NET_PAGE_POOL_HELPERS_H */
