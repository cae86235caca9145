/* SPDX-License-Identifier: MIT */
/*
 * Copyright (c) 2026 The pagepool authors
 *
 * <linux/cache.h>: the cache line size (SMP_CACHE_BYTES, L1_CACHE_BYTES)
 * and the alignment attributes built on it.
 */
#ifndef PAGEPOOL_KERNEL_LINUX_CACHE_H
#define PAGEPOOL_KERNEL_LINUX_CACHE_H

#include <linux/compiler.h>
#include <pagepool/kcompat.h>

#ifndef L1_CACHE_BYTES
#define L1_CACHE_BYTES	SMP_CACHE_BYTES
#endif

#endif /* PAGEPOOL_KERNEL_LINUX_CACHE_H */
