/* SPDX-License-Identifier: MIT */
/*
 * Copyright (c) 2026 The pagepool authors
 *
 * <linux/prefetch.h>: prefetch() and prefetchw(), which RX paths issue on
 * a packet's first cache line before they parse it.
 */
#ifndef PAGEPOOL_KERNEL_LINUX_PREFETCH_H
#define PAGEPOOL_KERNEL_LINUX_PREFETCH_H

#define prefetch(x)	__builtin_prefetch(x)
#define prefetchw(x)	__builtin_prefetch(x, 1)

#endif /* PAGEPOOL_KERNEL_LINUX_PREFETCH_H */
