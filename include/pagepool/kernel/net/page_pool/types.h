/* SPDX-License-Identifier: MIT */
/*
 * Copyright (c) 2026 The pagepool authors
 *
 * <net/page_pool/types.h>: page_pool's types and flags, and the one
 * behaviour that differs from pagepool's native API: page_pool_create()
 * returns ERR_PTR(-errno) on failure, never NULL, as the kernel's does, so
 * a driver's "if (IS_ERR(pool))" error path runs.
 *
 * The library keeps one page_pool_create(), returning NULL and setting
 * errno. This header turns the name into an inline wrapper that converts
 * the NULL, so the difference costs no second library and no second
 * symbol, and applies to every translation unit that includes a
 * <net/page_pool/...> header: kernel code. Code that includes only
 * <pagepool/...> headers keeps NULL plus errno.
 */
#ifndef PAGEPOOL_KERNEL_NET_PAGE_POOL_TYPES_H
#define PAGEPOOL_KERNEL_NET_PAGE_POOL_TYPES_H

#include <errno.h>

#include <linux/types.h>
#include <linux/err.h>
#include <linux/dma-direction.h>
#include <linux/ptr_ring.h>
#include <net/netmem.h>
/* Declares the native page_pool_create() before the name is taken over. */
#include <pagepool/page_pool.h>

static inline struct page_pool *
__pp_kernel_page_pool_create(const struct page_pool_params *params)
{
	struct page_pool *pool = page_pool_create(params);

	/* The library sets errno with every NULL; ENOMEM should it not. */
	if (pool == NULL)
		return (struct page_pool *)ERR_PTR(errno > 0 ? -errno : -ENOMEM);
	return pool;
}
#define page_pool_create __pp_kernel_page_pool_create

#endif /* PAGEPOOL_KERNEL_NET_PAGE_POOL_TYPES_H */
