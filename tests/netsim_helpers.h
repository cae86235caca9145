/* SPDX-License-Identifier: MIT */
/*
 * Copyright (c) 2026 The pagepool authors
 *
 * Shared by the software NIC's tests (netsim_xdp.c, netsim_threaded.c):
 * the DMA device a case's NIC maps through, checked clean when the case
 * ends, and the MAC swap of an XDP_TX program.
 */
#ifndef PAGEPOOL_TESTS_NETSIM_HELPERS_H
#define PAGEPOOL_TESTS_NETSIM_HELPERS_H

#include <stdbool.h>
#include <string.h>

#include <pagepool/netsim.h>

#include "helpers.h"

/* The IOMMU model with @iommu, else the identity mapping, with @flags
 * (PP_DMA_F_*); the case fails if it cannot be made. */
static inline struct device *
t_dma_dev_create(bool iommu, unsigned int flags)
{
	struct device *dev;

	if (iommu) {
		struct pp_iommu_opts io = { .sz = sizeof(io), .flags = flags };

		dev = pp_iommu_create(&io);
	} else {
		struct pp_dma_dev_opts id = { .sz = sizeof(id),
					      .flags = flags };

		dev = pp_dma_identity_create(&id);
	}
	CHECK(dev != NULL);
	return dev;
}

/* The case's device ends with no fault, no DMA-API debug report and no
 * mapping left; then it is destroyed. */
static inline void
t_dma_dev_destroy_clean(struct device *dma_dev)
{
	struct pp_dma_stats ds = { .sz = sizeof(ds) };

	CHECK_EQ(pp_dma_dev_get_stats(dma_dev, &ds), 0);
	CHECK_EQ(ds.faults, 0);
	CHECK_EQ(ds.debug_errors, 0);
	CHECK_EQ(ds.live_mappings, 0);
	pp_dma_dev_destroy(dma_dev);
}

/* What an XDP_TX program does to send a frame back: swap the Ethernet
 * destination and source. */
static inline void
t_xdp_swap_macs(unsigned char *eth)
{
	unsigned char tmp[ETH_ALEN];

	memcpy(tmp, eth, ETH_ALEN);
	memcpy(eth, eth + ETH_ALEN, ETH_ALEN);
	memcpy(eth + ETH_ALEN, tmp, ETH_ALEN);
}

#endif /* PAGEPOOL_TESTS_NETSIM_HELPERS_H */
