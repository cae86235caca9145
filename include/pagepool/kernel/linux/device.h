/* SPDX-License-Identifier: MIT */
/*
 * Copyright (c) 2026 The pagepool authors
 *
 * <linux/device.h>: struct device, the DMA device of pagepool/dma.h,
 * dev_name() and the dev_*() printing a driver reports through.
 *
 * struct device is complete: a driver embeds one in its own struct, as
 * the kernel's pci_dev and platform_device embed theirs, and sets it up
 * as the kernel's driver core would: device_register() (or
 * device_initialize() then device_add()) makes it a DMA device without an
 * IOMMU (pp_dma_identity_init()); a test playing the bus may set it up
 * behind the IOMMU model instead (pp_iommu_init()). device_unregister()
 * (or device_del()) ends it; the struct stays the driver's. A device the
 * library allocates (pp_iommu_create() and friends) is the same type.
 */
#ifndef PAGEPOOL_KERNEL_LINUX_DEVICE_H
#define PAGEPOOL_KERNEL_LINUX_DEVICE_H

#include <stdio.h>

#include <linux/types.h>

/* The device's name; before it is added, its init_name, as the kernel's. */
static inline const char *
dev_name(const struct device *dev)
{
	if (dev != NULL && dev->p == NULL && dev->init_name != NULL)
		return dev->init_name;
	return pp_dma_dev_name(dev);
}

static inline void *
dev_get_drvdata(const struct device *dev)
{
	return dev->driver_data;
}

static inline void
dev_set_drvdata(struct device *dev, void *data)
{
	dev->driver_data = data;
}

/*
 * The driver core's steps. The struct must be zeroed first (drivers
 * allocate it with kzalloc(), inside their own); parent, init_name and
 * driver_data may be set before device_add(). device_initialize() has
 * nothing to do here (no kobject, no reference count).
 */
static inline void
device_initialize(struct device *dev)
{
	(void)dev;
}

/* 0, or -EINVAL (already added) or -ENOMEM. */
static inline int
device_add(struct device *dev)
{
	return pp_dma_identity_init(dev, NULL);
}

static inline int
device_register(struct device *dev)
{
	device_initialize(dev);
	return device_add(dev);
}

/* Ends the DMA device; its mappings must be undone first (page_pool's
 * are, by page_pool_destroy()). */
static inline void
device_del(struct device *dev)
{
	pp_dma_dev_destroy(dev);
}

static inline void
device_unregister(struct device *dev)
{
	device_del(dev);
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
