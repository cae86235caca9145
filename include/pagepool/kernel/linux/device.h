/* SPDX-License-Identifier: MIT */
/*
 * Copyright (c) 2026 The pagepool authors
 *
 * <linux/device.h>: struct device, the DMA device of pagepool/dma.h
 * (created by pp_iommu_create() and friends, where a bus would probe it),
 * and dev_name() and the dev_*() printing a driver reports through.
 *
 * struct device is opaque here: the library allocates it, so a driver
 * keeps a pointer to it, as drivers' rings do (ring->dev), rather than
 * embedding one.
 */
#ifndef PAGEPOOL_KERNEL_LINUX_DEVICE_H
#define PAGEPOOL_KERNEL_LINUX_DEVICE_H

#include <stdio.h>

#include <linux/types.h>

static inline const char *
dev_name(const struct device *dev)
{
	return pp_dma_dev_name(dev);
}

#define dev_err(dev, fmt, ...)                                               \
	fprintf(stderr, "%s: " fmt, dev_name(dev), ##__VA_ARGS__)
#define dev_warn(dev, fmt, ...)                                              \
	fprintf(stderr, "%s: " fmt, dev_name(dev), ##__VA_ARGS__)
#define dev_info(dev, fmt, ...)                                              \
	fprintf(stderr, "%s: " fmt, dev_name(dev), ##__VA_ARGS__)
/* Compiled in, never printed, as pr_debug(). */
#define dev_dbg(dev, fmt, ...)                                               \
	do {                                                                 \
		if (0)                                                       \
			fprintf(stderr, "%s: " fmt, dev_name(dev),           \
				##__VA_ARGS__);                              \
	} while (0)

#endif /* PAGEPOOL_KERNEL_LINUX_DEVICE_H */
