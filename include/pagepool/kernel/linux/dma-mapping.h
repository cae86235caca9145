/* SPDX-License-Identifier: MIT */
/*
 * Copyright (c) 2026 The pagepool authors
 *
 * <linux/dma-mapping.h>: the streaming DMA API (dma_map_single(),
 * dma_sync_single_range_for_cpu(), ...) of pagepool/dma.h.
 */
#ifndef PAGEPOOL_KERNEL_LINUX_DMA_MAPPING_H
#define PAGEPOOL_KERNEL_LINUX_DMA_MAPPING_H

#include <linux/types.h>
#include <linux/device.h>
#include <pagepool/dma.h>

#endif /* PAGEPOOL_KERNEL_LINUX_DMA_MAPPING_H */
