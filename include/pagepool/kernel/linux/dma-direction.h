/* SPDX-License-Identifier: MIT */
/*
 * Copyright (c) 2026 The pagepool authors
 *
 * <linux/dma-direction.h>: enum dma_data_direction.
 */
#ifndef PAGEPOOL_KERNEL_LINUX_DMA_DIRECTION_H
#define PAGEPOOL_KERNEL_LINUX_DMA_DIRECTION_H

#include <pagepool/dma.h>

#endif /* PAGEPOOL_KERNEL_LINUX_DMA_DIRECTION_H */
