/* SPDX-License-Identifier: MIT */
/*
 * Copyright (c) 2026 The pagepool authors
 *
 * Bounce mode (PP_DMA_F_BOUNCE), on the identity device and the IOMMU
 * model: bytes move between the CPU's memory and a mapping's device-side
 * buffer exactly as the kernel's swiotlb moves them. Everything at map;
 * CPU to device at sync for device in DMA_TO_DEVICE/DMA_BIDIRECTIONAL;
 * device to CPU at sync for CPU in DMA_FROM_DEVICE/DMA_BIDIRECTIONAL, and
 * only the synced range; the whole mapping back at unmap unless
 * DMA_ATTR_SKIP_CPU_SYNC or DMA_TO_DEVICE. Bytes never synced keep their
 * old contents, or PP_DMA_POISON with PP_DMA_F_POISON. The mapping keeps
 * its offset in the page, and the counters count the copies. Out of
 * memory at create or map fails cleanly, leaving nothing mapped.
 */
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include <pagepool/dma.h>
#include <pagepool/fault.h>

#include "helpers.h"

#define N 1024

static unsigned char mem[2 * 4096] __attribute__((aligned(4096)));

static struct pp_dma_stats
stats_of(struct device *dev)
{
	PP_OPTS(pp_dma_stats, s);

	CHECK_EQ(pp_dma_dev_get_stats(dev, &s), 0);
	return s;
}

static struct device *
make(bool iommu, unsigned int flags)
{
	struct device *dev;

	flags |= PP_DMA_F_BOUNCE;
	if (iommu) {
		PP_OPTS(pp_iommu_opts, o, .flags = flags);
		dev = pp_iommu_create(&o);
	} else {
		PP_OPTS(pp_dma_dev_opts, o, .flags = flags);
		dev = pp_dma_identity_create(&o);
	}
	CHECK(dev != NULL);
	CHECK(pp_dma_dev_need_sync(dev));
	return dev;
}

static struct device *
make_quiet_or_null(bool iommu)
{
	const unsigned int flags = PP_DMA_F_BOUNCE | PP_DMA_F_FATAL;

	if (iommu) {
		PP_OPTS(pp_iommu_opts, o, .flags = flags);
		return pp_iommu_create(&o);
	}
	PP_OPTS(pp_dma_dev_opts, o, .flags = flags);
	return pp_dma_identity_create(&o);
}

static bool
all(const unsigned char *p, size_t n, unsigned char v)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (p[i] != v)
			return false;
	return true;
}

/* RX: only what is synced for the CPU reaches it. */
static void
test_from_device(bool iommu)
{
	struct device *dev = make(iommu, 0);
	unsigned char *cpu = mem + 100, pkt[300];
	struct pp_dma_stats s;
	dma_addr_t a;

	memset(mem, 0x01, sizeof(mem));
	memset(pkt, 0xaa, sizeof(pkt));
	a = pp_dma_map(dev, cpu, N, DMA_FROM_DEVICE, DMA_ATTR_SKIP_CPU_SYNC);
	CHECK(a != DMA_MAPPING_ERROR);
	/* A buffer of its own, at the same offset in its page. */
	CHECK(a != (dma_addr_t)(uintptr_t)cpu);
	CHECK_EQ(a & 4095, 100);
	CHECK_EQ(pp_dma_dev_write(dev, a + 10, pkt, 300), 0);
	/* Written, not yet synced: the CPU sees none of it. */
	CHECK(all(cpu, N, 0x01));
	/* Synced in part: exactly that part. */
	CHECK_EQ(pp_dma_sync_for_cpu(dev, a, 60, 100, DMA_FROM_DEVICE), 0);
	CHECK(all(cpu, 60, 0x01));
	CHECK(all(cpu + 60, 100, 0xaa));
	CHECK(all(cpu + 160, N - 160, 0x01));
	/* The device's copy kept what the CPU had where it did not write
	 * (copied at map, as swiotlb does). */
	CHECK_EQ(pp_dma_sync_for_cpu(dev, a, 0, N, DMA_FROM_DEVICE), 0);
	CHECK(all(cpu, 10, 0x01));
	CHECK(all(cpu + 10, 300, 0xaa));
	CHECK(all(cpu + 310, N - 310, 0x01));
	/* A FROM_DEVICE sync for device copies nothing out. */
	memset(cpu, 0x02, N);
	CHECK_EQ(pp_dma_sync_for_device(dev, a, 0, N, DMA_FROM_DEVICE), 0);
	CHECK_EQ(pp_dma_sync_for_cpu(dev, a, 0, 10, DMA_FROM_DEVICE), 0);
	CHECK(all(cpu, 10, 0x01));
	s = stats_of(dev);
	CHECK_EQ(s.bounce_maps, 1);
	CHECK_EQ(s.bytes_bounced, N + 100 + N + 10);
	/* Unmap with SKIP_CPU_SYNC copies nothing back. */
	CHECK_EQ(pp_dma_unmap(dev, a, N, DMA_FROM_DEVICE,
			      DMA_ATTR_SKIP_CPU_SYNC), 0);
	CHECK(all(cpu + 10, N - 10, 0x02));
	CHECK_EQ(stats_of(dev).bytes_bounced, s.bytes_bounced);

	/* Without it, the whole mapping comes back. */
	memset(cpu, 0x02, N);
	a = pp_dma_map(dev, cpu, N, DMA_FROM_DEVICE, 0);
	CHECK(a != DMA_MAPPING_ERROR);
	CHECK_EQ(pp_dma_dev_write(dev, a + N - 300, pkt, 300), 0);
	CHECK(all(cpu, N, 0x02));
	CHECK_EQ(pp_dma_unmap(dev, a, N, DMA_FROM_DEVICE, 0), 0);
	CHECK(all(cpu, N - 300, 0x02));
	CHECK(all(cpu + N - 300, 300, 0xaa));
	pp_dma_dev_destroy(dev);
}

/* TX: the device reads what the CPU had at map or last synced. */
static void
test_to_device(bool iommu)
{
	struct device *dev = make(iommu, PP_DMA_F_POISON);
	unsigned char *cpu = mem + 4096, out[N];
	dma_addr_t a;

	memset(cpu, 0x33, N);
	a = pp_dma_map(dev, cpu, N, DMA_TO_DEVICE, 0);
	CHECK(a != DMA_MAPPING_ERROR);
	/* Poison never touches a TO_DEVICE buffer. */
	CHECK(all(cpu, N, 0x33));
	memset(cpu, 0x44, N);
	CHECK_EQ(pp_dma_dev_read(dev, a, out, N), 0);
	CHECK(all(out, N, 0x33));
	CHECK_EQ(pp_dma_sync_for_device(dev, a, 16, 32, DMA_TO_DEVICE), 0);
	CHECK_EQ(pp_dma_dev_read(dev, a, out, N), 0);
	CHECK(all(out, 16, 0x33));
	CHECK(all(out + 16, 32, 0x44));
	CHECK(all(out + 48, N - 48, 0x33));
	/* TO_DEVICE: a sync for CPU and the unmap copy nothing back. */
	memset(cpu, 0x55, N);
	CHECK_EQ(pp_dma_sync_for_cpu(dev, a, 0, N, DMA_TO_DEVICE), 0);
	CHECK_EQ(pp_dma_unmap(dev, a, N, DMA_TO_DEVICE, 0), 0);
	CHECK(all(cpu, N, 0x55));
	pp_dma_dev_destroy(dev);
}

/* Bidirectional (XDP_TX): both ways, each at its own sync. */
static void
test_bidirectional(bool iommu)
{
	struct device *dev = make(iommu, PP_DMA_F_POISON);
	unsigned char *cpu = mem, pkt[64], out[64];
	dma_addr_t a;

	memset(cpu, 0x66, N);
	memset(pkt, 0x77, sizeof(pkt));
	a = pp_dma_map(dev, cpu, N, DMA_BIDIRECTIONAL, 0);
	CHECK(a != DMA_MAPPING_ERROR);
	/* The device owns the buffer now; the CPU's copy is stale (a driver
	 * mapping its RX pages BIDIRECTIONAL for XDP_TX must sync before it
	 * reads), yet the device sees what the CPU had. */
	CHECK(all(cpu, N, PP_DMA_POISON));
	CHECK_EQ(pp_dma_dev_read(dev, a, out, 64), 0);
	CHECK(all(out, 64, 0x66));
	CHECK_EQ(pp_dma_dev_write(dev, a + 128, pkt, 64), 0);
	CHECK_EQ(pp_dma_sync_for_cpu(dev, a, 128, 64, DMA_BIDIRECTIONAL), 0);
	CHECK(all(cpu + 128, 64, 0x77));
	/* The CPU rewrites the frame and sends it back out. */
	memset(cpu + 128, 0x88, 64);
	CHECK_EQ(pp_dma_sync_for_device(dev, a, 128, 64, DMA_BIDIRECTIONAL),
		 0);
	CHECK(all(cpu + 128, 64, PP_DMA_POISON));
	CHECK_EQ(pp_dma_dev_read(dev, a + 128, out, 64), 0);
	CHECK(all(out, 64, 0x88));
	CHECK_EQ(pp_dma_unmap(dev, a, N, DMA_BIDIRECTIONAL, 0), 0);
	CHECK(all(cpu, 128, 0x66));
	CHECK(all(cpu + 128, 64, 0x88));
	pp_dma_dev_destroy(dev);
}

/* Poison: the CPU's copy of what the device owns for FROM_DEVICE. */
static void
test_poison(bool iommu)
{
	struct device *dev = make(iommu, PP_DMA_F_POISON);
	unsigned char *cpu = mem, pkt[100];
	dma_addr_t a;

	memset(cpu, 0x01, N);
	memset(pkt, 0xaa, sizeof(pkt));
	a = pp_dma_map(dev, cpu, N, DMA_FROM_DEVICE, DMA_ATTR_SKIP_CPU_SYNC);
	CHECK(a != DMA_MAPPING_ERROR);
	CHECK(all(cpu, N, PP_DMA_POISON));
	CHECK_EQ(pp_dma_dev_write(dev, a + 200, pkt, 100), 0);
	/* One byte too far: the first byte stays poison, and the byte
	 * past the frame is the device buffer's (the map-time copy). */
	CHECK_EQ(pp_dma_sync_for_cpu(dev, a, 201, 100, DMA_FROM_DEVICE), 0);
	CHECK_EQ(cpu[200], PP_DMA_POISON);
	CHECK(all(cpu + 201, 99, 0xaa));
	CHECK_EQ(cpu[300], 0x01);
	/* Given back to the device: the CPU's copy is stale again. */
	CHECK_EQ(pp_dma_sync_for_device(dev, a, 0, 512, DMA_FROM_DEVICE), 0);
	CHECK(all(cpu, 512, PP_DMA_POISON));
	CHECK_EQ(pp_dma_unmap(dev, a, N, DMA_FROM_DEVICE,
			      DMA_ATTR_SKIP_CPU_SYNC), 0);
	pp_dma_dev_destroy(dev);
}

/* Bounce buffers are per mapping: mapping the same bytes twice gives two
 * device-side copies, and a faulting call moves no byte. */
static void
test_two_mappings(bool iommu)
{
	struct device *dev = make(iommu, PP_DMA_F_QUIET);
	unsigned char pkt[16];
	dma_addr_t a, b;

	memset(mem, 0, N);
	memset(pkt, 0x99, sizeof(pkt));
	a = pp_dma_map(dev, mem, N, DMA_FROM_DEVICE, 0);
	b = pp_dma_map(dev, mem, N, DMA_FROM_DEVICE, 0);
	CHECK(a != DMA_MAPPING_ERROR && b != DMA_MAPPING_ERROR && a != b);
	CHECK_EQ(pp_dma_dev_write(dev, a, pkt, 16), 0);
	CHECK_EQ(pp_dma_sync_for_cpu(dev, b, 0, 16, DMA_FROM_DEVICE), 0);
	CHECK(all(mem, 16, 0));
	CHECK_EQ(pp_dma_sync_for_cpu(dev, a, 0, N + 1, DMA_FROM_DEVICE),
		 -EFAULT);
	CHECK(all(mem, 16, 0));
	CHECK_EQ(pp_dma_sync_for_cpu(dev, a, 0, 16, DMA_FROM_DEVICE), 0);
	CHECK(all(mem, 16, 0x99));
	CHECK_EQ(pp_dma_unmap(dev, a, N, DMA_FROM_DEVICE, 0), 0);
	CHECK_EQ(pp_dma_unmap(dev, b, N, DMA_FROM_DEVICE, 0), 0);
	/* b's copy went back last: the bytes the device never wrote. */
	CHECK(all(mem, 16, 0));
	CHECK_EQ(stats_of(dev).live_mappings, 0);
	pp_dma_dev_destroy(dev);
}

/* Every allocation of create and map failing in turn: a clean failure
 * each time, and the device still works and leaks nothing after. */
static void
test_alloc_failure(bool iommu)
{
	struct device *dev = NULL;
	unsigned char pkt[8] = { 1, 2, 3, 4, 5, 6, 7, 8 };
	long n;
	dma_addr_t a;

	for (n = 0; dev == NULL; n++) {
		pp_fault_inject_alloc(n, 1);
		errno = 0;
		dev = make_quiet_or_null(iommu);
		pp_fault_inject_alloc(-1, 0);
		CHECK(dev != NULL || errno == ENOMEM);
		CHECK(n < 16);
	}
	for (n = 0;; n++) {
		struct pp_dma_stats s;

		pp_fault_inject_alloc(n, 1);
		errno = 0;
		a = pp_dma_map(dev, mem, N, DMA_FROM_DEVICE, 0);
		pp_fault_inject_alloc(-1, 0);
		s = stats_of(dev);
		if (a != DMA_MAPPING_ERROR)
			break;
		CHECK_EQ(errno, ENOMEM);
		CHECK_EQ(s.live_mappings, 0);
		CHECK_EQ(s.map_errors, (uint64_t)n + 1);
		CHECK(n < 16);
	}
	CHECK(n >= 2);	/* the bounce buffer, then the table entry */
	CHECK_EQ(pp_dma_dev_write(dev, a, pkt, sizeof(pkt)), 0);
	CHECK_EQ(pp_dma_unmap(dev, a, N, DMA_FROM_DEVICE, 0), 0);
	CHECK(memcmp(mem, pkt, sizeof(pkt)) == 0);
	CHECK_EQ(stats_of(dev).live_mappings, 0);
	pp_dma_dev_destroy(dev);
}

int
main(void)
{
	int iommu;

	for (iommu = 0; iommu <= 1; iommu++) {
		test_from_device(iommu);
		test_to_device(iommu);
		test_bidirectional(iommu);
		test_poison(iommu);
		test_two_mappings(iommu);
		test_alloc_failure(iommu);
	}
	return T_EXIT_PASS;
}
