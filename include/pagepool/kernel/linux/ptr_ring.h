/* SPDX-License-Identifier: MIT */
/*
 * Copyright (c) 2026 The pagepool authors
 *
 * <linux/ptr_ring.h>: the ring of pagepool/ptr_ring.h, with the kernel's
 * names and semantics.
 */
#ifndef PAGEPOOL_KERNEL_LINUX_PTR_RING_H
#define PAGEPOOL_KERNEL_LINUX_PTR_RING_H

#include <linux/types.h>
#include <pagepool/ptr_ring.h>

#endif /* PAGEPOOL_KERNEL_LINUX_PTR_RING_H */
