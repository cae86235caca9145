/* SPDX-License-Identifier: MIT */
/*
 * Copyright (c) 2026 The pagepool authors
 *
 * <linux/gfp.h>: the page allocator's types and flags; see <linux/mm.h>.
 */
#ifndef PAGEPOOL_KERNEL_LINUX_GFP_H
#define PAGEPOOL_KERNEL_LINUX_GFP_H

#include <linux/mm.h>

#endif /* PAGEPOOL_KERNEL_LINUX_GFP_H */
