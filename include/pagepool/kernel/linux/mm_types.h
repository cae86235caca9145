/* SPDX-License-Identifier: MIT */
/*
 * Copyright (c) 2026 The pagepool authors
 *
 * <linux/mm_types.h>: the page allocator's types and flags; see <linux/mm.h>.
 */
#ifndef PAGEPOOL_KERNEL_LINUX_MM_TYPES_H
#define PAGEPOOL_KERNEL_LINUX_MM_TYPES_H

#include <linux/mm.h>

#endif /* PAGEPOOL_KERNEL_LINUX_MM_TYPES_H */
