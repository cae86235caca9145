/* SPDX-License-Identifier: MIT */
/*
 * Copyright (c) 2026 The pagepool authors
 *
 * Private: how the built-in devices (the IOMMU model in iommu.c) are made
 * on top of the dispatch layer in dma.c, without going through the option
 * checks of the public pp_dma_dev_create_ops().
 */
#ifndef PAGEPOOL_DMA_PRIV_H
#define PAGEPOOL_DMA_PRIV_H

#include <pagepool/dma.h>

/*
 * _pp_dma_dev_create() - allocate a device around @ops (copied; trusted:
 * complete and of the current size) and @priv. @flags are PP_DMA_F_*
 * (already checked); @name may be NULL for @default_name.
 * NULL with errno ENOMEM on failure; @priv is then the caller's to free.
 */
struct device *_pp_dma_dev_create(const struct pp_dma_ops *ops, void *priv,
				  unsigned int flags, const char *name,
				  const char *default_name);

#endif /* PAGEPOOL_DMA_PRIV_H */
