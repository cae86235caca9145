/* SPDX-License-Identifier: MIT */
/*
 * Copyright (c) 2026 The pagepool authors
 *
 * <linux/numa.h>: NUMA_NO_NODE, from pagepool/page.h.
 */
#ifndef PAGEPOOL_KERNEL_LINUX_NUMA_H
#define PAGEPOOL_KERNEL_LINUX_NUMA_H

#include <pagepool/page.h>

#endif /* PAGEPOOL_KERNEL_LINUX_NUMA_H */
