/* SPDX-License-Identifier: MIT */
/*
 * Copyright (c) 2026 The pagepool authors
 *
 * The IOMMU model: IOVA translation, every fault kind (each counted, each
 * leaving memory and mappings untouched), IOVA quarantine and exhaustion,
 * unbind with mappings in flight (seed 003: the late unmap is a fault) and
 * without (the fixed page_pool: none), fatal mode in a child process, the
 * map/unmap cost, and allocation failure at every allocation point of
 * create and map.
 */
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <pagepool/dma.h>
#include <pagepool/fault.h>

#include "helpers.h"

#define PG PP_IOMMU_PAGE_SIZE

static struct pp_dma_stats
stats_of(struct device *dev)
{
	PP_OPTS(pp_dma_stats, s);

	CHECK_EQ(pp_dma_dev_get_stats(dev, &s), 0);
	return s;
}

static struct device *
quiet_iommu(void)
{
	PP_OPTS(pp_iommu_opts, o, .flags = PP_DMA_F_QUIET);
	struct device *dev = pp_iommu_create(&o);

	CHECK(dev != NULL);
	return dev;
}

/* Page-aligned buffer from plain malloc: the test's memory, not ours. */
static unsigned char *
pages(size_t n)
{
	unsigned char *p = aligned_alloc(PG, n * PG);

	CHECK(p != NULL);
	memset(p, 0, n * PG);
	return p;
}

static void
test_create(void)
{
	struct device *dev;

	dev = pp_iommu_create(NULL);
	CHECK(dev != NULL);
	CHECK(strcmp(pp_dma_dev_name(dev), "iommu") == 0);
	CHECK(pp_dma_dev_need_sync(dev));
	pp_dma_dev_destroy(dev);

#define CREATE_EINVAL(...)                                                   \
	do {                                                                 \
		PP_OPTS(pp_iommu_opts, o, __VA_ARGS__);                      \
		errno = 0;                                                   \
		CHECK(pp_iommu_create(&o) == NULL);                          \
		CHECK_EQ(errno, EINVAL);                                     \
	} while (0)
	CREATE_EINVAL(.flags = 1u << 30);
	CREATE_EINVAL(.iova_base = PG + 1);
	CREATE_EINVAL(.iova_size = PG * 3 + 7);
	CREATE_EINVAL(.iova_size = (1ULL << 40) + PG);
	CREATE_EINVAL(.iova_base = ~(uint64_t)0 - PG * 2 + 1,
		      .iova_size = PG * 4);
#undef CREATE_EINVAL
	{
		/* The highest possible space ends at UINT64_MAX - 0xfff,
		 * which keeps DMA_MAPPING_ERROR unmappable. */
		PP_OPTS(pp_iommu_opts, o, .flags = PP_DMA_F_QUIET,
			.iova_base = (~(uint64_t)0 - PG * 4 + 1) & ~(PG - 1),
			.iova_size = PG * 4, .name = "top");
		unsigned char *buf = pages(4);
		dma_addr_t a;

		o.iova_base -= PG;
		dev = pp_iommu_create(&o);
		CHECK(dev != NULL);
		CHECK(strcmp(pp_dma_dev_name(dev), "top") == 0);
		a = pp_dma_map(dev, buf, 4 * PG, DMA_BIDIRECTIONAL, 0);
		CHECK(a != DMA_MAPPING_ERROR);
		CHECK_EQ(a, o.iova_base);
		CHECK_EQ(pp_dma_dev_write(dev, a + 4 * PG - 1, "z", 1), 0);
		CHECK_EQ(buf[4 * PG - 1], 'z');
		CHECK_EQ(pp_dma_unmap(dev, a, 4 * PG, DMA_BIDIRECTIONAL, 0),
			 0);
		pp_dma_dev_destroy(dev);
		free(buf);
	}
}

static void
test_translate(void)
{
	struct device *dev = quiet_iommu();
	unsigned char *buf = pages(8), out[64];
	struct pp_dma_stats s;
	dma_addr_t a, b, c;

	/* Unaligned start, spanning three pages: offset kept. */
	a = pp_dma_map(dev, buf + 100, 2 * PG, DMA_BIDIRECTIONAL,
		       DMA_ATTR_SKIP_CPU_SYNC);
	CHECK(a != DMA_MAPPING_ERROR);
	CHECK(a >= (1ULL << 32));
	CHECK_EQ(a & (PG - 1), 100);
	CHECK(a != (dma_addr_t)(uintptr_t)(buf + 100));
	b = pp_dma_map(dev, buf + 4 * PG, PG, DMA_FROM_DEVICE,
		       DMA_ATTR_SKIP_CPU_SYNC);
	c = pp_dma_map(dev, buf + 5 * PG, PG, DMA_TO_DEVICE,
		       DMA_ATTR_SKIP_CPU_SYNC);
	CHECK(b != DMA_MAPPING_ERROR && c != DMA_MAPPING_ERROR);
	CHECK(a != b && b != c && a != c);
	CHECK_EQ(b & (PG - 1), 0);

	/* Device writes land at vaddr + (addr - dma), across pages. */
	CHECK_EQ(pp_dma_dev_write(dev, a + PG - 2, "abcd", 4), 0);
	CHECK(memcmp(buf + 100 + PG - 2, "abcd", 4) == 0);
	CHECK_EQ(pp_dma_dev_write(dev, a + 2 * PG - 4, "end!", 4), 0);
	CHECK(memcmp(buf + 100 + 2 * PG - 4, "end!", 4) == 0);
	CHECK_EQ(pp_dma_dev_write(dev, b, "rx", 2), 0);
	CHECK(memcmp(buf + 4 * PG, "rx", 2) == 0);
	memcpy(buf + 5 * PG + 7, "tx", 2);
	CHECK_EQ(pp_dma_dev_read(dev, c + 7, out, 2), 0);
	CHECK(memcmp(out, "tx", 2) == 0);
	CHECK_EQ(pp_dma_dev_read(dev, a + PG - 2, out, 4), 0);
	CHECK(memcmp(out, "abcd", 4) == 0);

	/* Syncs: inside the mapping, with offset; size 0 checks address. */
	CHECK_EQ(pp_dma_sync_for_cpu(dev, a, PG, PG, DMA_FROM_DEVICE), 0);
	CHECK_EQ(pp_dma_sync_for_device(dev, a, 0, 2 * PG, DMA_TO_DEVICE), 0);
	CHECK_EQ(pp_dma_sync_for_device(dev, b, 256, PG - 256,
					DMA_FROM_DEVICE), 0);
	CHECK_EQ(pp_dma_sync_for_cpu(dev, b, 0, 0, DMA_FROM_DEVICE), 0);
	dma_sync_single_range_for_cpu(dev, b, 64, 64, DMA_FROM_DEVICE);
	dma_sync_single_for_device(dev, c, PG, DMA_TO_DEVICE);
	s = stats_of(dev);
	CHECK_EQ(s.faults, 0);
	CHECK_EQ(s.syncs_for_cpu, 3);
	CHECK_EQ(s.syncs_for_device, 3);
	CHECK_EQ(s.bytes_synced_for_cpu, PG + 0 + 64);
	CHECK_EQ(s.bytes_synced_for_device, 2 * PG + PG - 256 + PG);
	CHECK_EQ(s.live_mappings, 3);

	CHECK_EQ(pp_dma_unmap(dev, a, 2 * PG, DMA_BIDIRECTIONAL, 0), 0);
	CHECK_EQ(pp_dma_unmap(dev, b, PG, DMA_FROM_DEVICE, 0), 0);
	CHECK_EQ(pp_dma_unmap(dev, c, PG, DMA_TO_DEVICE, 0), 0);
	s = stats_of(dev);
	CHECK_EQ(s.live_mappings, 0);
	CHECK_EQ(s.max_live_mappings, 3);
	CHECK_EQ(s.unmaps, 3);
	/* Implicit syncs for the CPU at unmap: not for TO_DEVICE. */
	CHECK_EQ(s.syncs_for_cpu, 5);
	pp_dma_dev_destroy(dev);
	free(buf);
}

/* Expect @call to fault with @why; memory and counters otherwise as was. */
#define FAULTS(dev, why, call)                                               \
	do {                                                                 \
		struct pp_dma_stats fb_ = stats_of(dev), fa_;                \
		CHECK_EQ((call), -EFAULT);                                   \
		fa_ = stats_of(dev);                                         \
		CHECK_EQ(fa_.faults, fb_.faults + 1);                        \
		CHECK_EQ(fa_.last_fault_reason, (why));                      \
		CHECK_EQ(fa_.unmaps, fb_.unmaps);                            \
		CHECK_EQ(fa_.live_mappings, fb_.live_mappings);              \
		CHECK_EQ(fa_.dev_writes + fa_.dev_reads,                     \
			 fb_.dev_writes + fb_.dev_reads);                    \
		CHECK_EQ(fa_.syncs_for_cpu + fa_.syncs_for_device,           \
			 fb_.syncs_for_cpu + fb_.syncs_for_device);          \
	} while (0)

static void
test_faults(void)
{
	struct device *dev = quiet_iommu();
	unsigned char *buf = pages(4), *snap = pages(4), out[16];
	dma_addr_t rx, tx, bi, stale;
	struct pp_dma_stats s;

	memset(buf, 0x5a, 4 * PG);
	rx = pp_dma_map(dev, buf + 16, 1000, DMA_FROM_DEVICE, 0);
	tx = pp_dma_map(dev, buf + PG, 512, DMA_TO_DEVICE, 0);
	bi = pp_dma_map(dev, buf + 2 * PG, PG, DMA_BIDIRECTIONAL, 0);
	stale = pp_dma_map(dev, buf + 3 * PG, PG, DMA_BIDIRECTIONAL, 0);
	CHECK(rx != DMA_MAPPING_ERROR && tx != DMA_MAPPING_ERROR);
	CHECK(bi != DMA_MAPPING_ERROR && stale != DMA_MAPPING_ERROR);
	CHECK_EQ(pp_dma_unmap(dev, stale, PG, DMA_BIDIRECTIONAL, 0), 0);
	memcpy(snap, buf, 4 * PG);

	/* Device accesses. */
	FAULTS(dev, PP_DMA_FAULT_UNMAPPED,
	       pp_dma_dev_write(dev, 4096, "xxxx", 4));		/* below base */
	FAULTS(dev, PP_DMA_FAULT_UNMAPPED,
	       pp_dma_dev_write(dev, (1ULL << 32) + (1ULL << 31), "xxxx", 4));
	FAULTS(dev, PP_DMA_FAULT_UNMAPPED,
	       pp_dma_dev_write(dev, 1ULL << 40, "xxxx", 4));	/* past end */
	FAULTS(dev, PP_DMA_FAULT_UNMAPPED,
	       pp_dma_dev_write(dev, DMA_MAPPING_ERROR, "xxxx", 4));
	FAULTS(dev, PP_DMA_FAULT_UNMAPPED,
	       pp_dma_dev_write(dev, stale, "xxxx", 4));	/* unmapped */
	FAULTS(dev, PP_DMA_FAULT_RANGE,
	       pp_dma_dev_write(dev, rx + 998, "xxxx", 4));	/* past end */
	FAULTS(dev, PP_DMA_FAULT_RANGE,
	       pp_dma_dev_write(dev, rx - 1, "xxxx", 4));	/* before */
	FAULTS(dev, PP_DMA_FAULT_RANGE,
	       pp_dma_dev_read(dev, rx + 1000, out, 1));
	FAULTS(dev, PP_DMA_FAULT_DIR,
	       pp_dma_dev_write(dev, tx, "xxxx", 4));	/* into TO_DEVICE */
	FAULTS(dev, PP_DMA_FAULT_DIR,
	       pp_dma_dev_read(dev, rx, out, 4));	/* from FROM_DEVICE */
	CHECK(memcmp(buf, snap, 4 * PG) == 0);
	s = stats_of(dev);
	CHECK_EQ(s.last_fault_addr, rx);

	/* Syncs. */
	FAULTS(dev, PP_DMA_FAULT_RANGE,
	       pp_dma_sync_for_device(dev, rx, 0, 1001, DMA_FROM_DEVICE));
	FAULTS(dev, PP_DMA_FAULT_RANGE,
	       pp_dma_sync_for_device(dev, rx, 900, 101, DMA_FROM_DEVICE));
	FAULTS(dev, PP_DMA_FAULT_RANGE,
	       pp_dma_sync_for_cpu(dev, tx, 512, 1, DMA_TO_DEVICE));
	FAULTS(dev, PP_DMA_FAULT_DIR,
	       pp_dma_sync_for_cpu(dev, rx, 0, 64, DMA_TO_DEVICE));
	FAULTS(dev, PP_DMA_FAULT_DIR,
	       pp_dma_sync_for_device(dev, tx, 0, 64, DMA_BIDIRECTIONAL));
	FAULTS(dev, PP_DMA_FAULT_UNMAPPED,
	       pp_dma_sync_for_cpu(dev, stale, 0, 64, DMA_BIDIRECTIONAL));
	s = stats_of(dev);
	CHECK_EQ(s.last_fault_addr, stale);
	/* A bidirectional mapping may be synced in any direction. */
	CHECK_EQ(pp_dma_sync_for_cpu(dev, bi, 0, PG, DMA_FROM_DEVICE), 0);
	CHECK_EQ(pp_dma_sync_for_device(dev, bi, 0, PG, DMA_TO_DEVICE), 0);

	/* Unmaps: wrong size or direction leave the mapping live. */
	FAULTS(dev, PP_DMA_FAULT_SIZE,
	       pp_dma_unmap(dev, rx, 999, DMA_FROM_DEVICE, 0));
	FAULTS(dev, PP_DMA_FAULT_DIR,
	       pp_dma_unmap(dev, rx, 1000, DMA_BIDIRECTIONAL, 0));
	FAULTS(dev, PP_DMA_FAULT_UNMAPPED,
	       pp_dma_unmap(dev, rx + 1, 1000, DMA_FROM_DEVICE, 0));
	FAULTS(dev, PP_DMA_FAULT_UNMAPPED,
	       pp_dma_unmap(dev, (1ULL << 33), 64, DMA_FROM_DEVICE, 0));
	CHECK_EQ(pp_dma_dev_write(dev, rx, "ok", 2), 0);
	CHECK_EQ(pp_dma_unmap(dev, rx, 1000, DMA_FROM_DEVICE, 0), 0);
	FAULTS(dev, PP_DMA_FAULT_UNMAPPED,		/* double unmap */
	       pp_dma_unmap(dev, rx, 1000, DMA_FROM_DEVICE, 0));
	FAULTS(dev, PP_DMA_FAULT_UNMAPPED,		/* use after unmap */
	       pp_dma_dev_write(dev, rx, "xx", 2));

	s = stats_of(dev);
	CHECK_EQ(s.faults, 10 + 6 + 6);
	CHECK_EQ(s.live_mappings, 2);
	CHECK_EQ(pp_dma_unmap(dev, tx, 512, DMA_TO_DEVICE, 0), 0);
	CHECK_EQ(pp_dma_unmap(dev, bi, PG, DMA_BIDIRECTIONAL, 0), 0);
	CHECK_EQ(stats_of(dev).live_mappings, 0);
	pp_dma_dev_destroy(dev);
	free(buf);
	free(snap);
}

/*
 * An address past the end of a mapping but still in its last IOVA page is
 * a fault, however short the access: the range check must not compute
 * "bytes left" as size - (addr - start) when addr is beyond the end, where
 * that wraps to a huge number. Found by tests/fuzz/dma_fuzz.c.
 */
static void
test_past_end(void)
{
	struct device *dev = quiet_iommu();
	unsigned char *buf = pages(1), *snap = pages(1), out[4];
	dma_addr_t a;

	memset(buf, 0x5a, PG);
	memcpy(snap, buf, PG);
	a = pp_dma_map(dev, buf, 1, DMA_BIDIRECTIONAL, 0);
	CHECK(a != DMA_MAPPING_ERROR);
	FAULTS(dev, PP_DMA_FAULT_RANGE, pp_dma_dev_write(dev, a + 10, "x", 1));
	FAULTS(dev, PP_DMA_FAULT_RANGE, pp_dma_dev_read(dev, a + 2, out, 1));
	FAULTS(dev, PP_DMA_FAULT_RANGE,
	       pp_dma_sync_for_cpu(dev, a, 100, 4, DMA_FROM_DEVICE));
	FAULTS(dev, PP_DMA_FAULT_RANGE,
	       pp_dma_sync_for_device(dev, a, 2, 0, DMA_TO_DEVICE));
	CHECK(memcmp(buf, snap, PG) == 0);
	/* Up to the end is the mapping's own: an empty range there too. */
	CHECK_EQ(pp_dma_dev_write(dev, a, "y", 1), 0);
	CHECK_EQ(pp_dma_sync_for_cpu(dev, a, 1, 0, DMA_FROM_DEVICE), 0);
	CHECK_EQ(buf[0], 'y');
	CHECK_EQ(stats_of(dev).faults, 4);
	CHECK_EQ(pp_dma_unmap(dev, a, 1, DMA_BIDIRECTIONAL, 0), 0);
	pp_dma_dev_destroy(dev);
	free(buf);
	free(snap);
}

static void
test_quarantine_and_exhaustion(void)
{
	PP_OPTS(pp_iommu_opts, o, .flags = PP_DMA_F_QUIET,
		.iova_base = 1ULL << 20, .iova_size = 4 * PG);
	unsigned char *buf = pages(8);
	dma_addr_t a[5], first, again;
	struct device *dev = quiet_iommu();
	int i;

	/* A freed IOVA is not handed out again for 63 more maps of its
	 * size, and then oldest first. */
	first = pp_dma_map(dev, buf, 64, DMA_FROM_DEVICE, 0);
	CHECK_EQ(pp_dma_unmap(dev, first, 64, DMA_FROM_DEVICE, 0), 0);
	for (i = 0; i < 63; i++) {
		again = pp_dma_map(dev, buf, 64, DMA_FROM_DEVICE, 0);
		CHECK(again != DMA_MAPPING_ERROR);
		CHECK(again != first);
		CHECK_EQ(pp_dma_unmap(dev, again, 64, DMA_FROM_DEVICE, 0), 0);
	}
	again = pp_dma_map(dev, buf, 64, DMA_FROM_DEVICE, 0);
	CHECK_EQ(again, first);
	CHECK_EQ(pp_dma_unmap(dev, again, 64, DMA_FROM_DEVICE, 0), 0);
	pp_dma_dev_destroy(dev);

	/* A 4-page space. */
	dev = pp_iommu_create(&o);
	CHECK(dev != NULL);
	errno = 0;
	CHECK(pp_dma_map(dev, buf, 5 * PG, DMA_FROM_DEVICE, 0) ==
	      DMA_MAPPING_ERROR);
	CHECK_EQ(errno, ENOMEM);
	for (i = 0; i < 4; i++) {
		a[i] = pp_dma_map(dev, buf + i * PG, PG, DMA_FROM_DEVICE, 0);
		CHECK(a[i] != DMA_MAPPING_ERROR);
		CHECK(a[i] >= (1ULL << 20) && a[i] < (1ULL << 20) + 4 * PG);
	}
	errno = 0;
	CHECK(pp_dma_map(dev, buf, 1, DMA_FROM_DEVICE, 0) ==
	      DMA_MAPPING_ERROR);
	CHECK_EQ(errno, ENOMEM);
	CHECK_EQ(stats_of(dev).map_errors, 2);
	/* Out of fresh space: the quarantine gives way. */
	CHECK_EQ(pp_dma_unmap(dev, a[2], PG, DMA_FROM_DEVICE, 0), 0);
	a[2] = pp_dma_map(dev, buf, PG, DMA_FROM_DEVICE, 0);
	CHECK(a[2] != DMA_MAPPING_ERROR);
	/* Blocks are not merged: two free pages do not make a 2-page map. */
	CHECK_EQ(pp_dma_unmap(dev, a[0], PG, DMA_FROM_DEVICE, 0), 0);
	CHECK_EQ(pp_dma_unmap(dev, a[1], PG, DMA_FROM_DEVICE, 0), 0);
	errno = 0;
	CHECK(pp_dma_map(dev, buf, 2 * PG, DMA_FROM_DEVICE, 0) ==
	      DMA_MAPPING_ERROR);
	CHECK_EQ(errno, ENOMEM);
	CHECK_EQ(pp_dma_unmap(dev, a[2], PG, DMA_FROM_DEVICE, 0), 0);
	CHECK_EQ(pp_dma_unmap(dev, a[3], PG, DMA_FROM_DEVICE, 0), 0);
	CHECK_EQ(stats_of(dev).live_mappings, 0);
	pp_dma_dev_destroy(dev);
	free(buf);
}

/*
 * Seed 003. The driver unbinds while page_pool still has pages mapped
 * (in flight in the stack); when they come back page_pool unmaps them
 * against a device that is gone: in the kernel, a crash in
 * iommu_get_dma_domain(); here, a counted fault.
 */
static void
test_unbind_in_flight(void)
{
	struct device *dev = quiet_iommu();
	unsigned char *buf = pages(3);
	dma_addr_t a[3];
	struct pp_dma_stats s;
	int i;

	for (i = 0; i < 3; i++) {
		a[i] = pp_dma_map(dev, buf + i * PG, PG, DMA_FROM_DEVICE,
				  DMA_ATTR_SKIP_CPU_SYNC |
					  DMA_ATTR_WEAK_ORDERING);
		CHECK(a[i] != DMA_MAPPING_ERROR);
	}
	CHECK_EQ(pp_dma_unmap(dev, a[0], PG, DMA_FROM_DEVICE,
			      DMA_ATTR_SKIP_CPU_SYNC), 0);
	CHECK_EQ(pp_dma_dev_unbind(dev), 0);
	CHECK_EQ(pp_dma_dev_unbind(dev), -EALREADY);

	errno = 0;
	CHECK(pp_dma_map(dev, buf, PG, DMA_FROM_DEVICE, 0) ==
	      DMA_MAPPING_ERROR);
	CHECK_EQ(errno, ENODEV);
	/* The pages come back from the stack: page_pool unmaps them. */
	FAULTS(dev, PP_DMA_FAULT_UNBOUND,
	       pp_dma_unmap(dev, a[1], PG, DMA_FROM_DEVICE,
			    DMA_ATTR_SKIP_CPU_SYNC));
	FAULTS(dev, PP_DMA_FAULT_UNBOUND,
	       pp_dma_unmap(dev, a[2], PG, DMA_FROM_DEVICE,
			    DMA_ATTR_SKIP_CPU_SYNC));
	FAULTS(dev, PP_DMA_FAULT_UNBOUND,
	       pp_dma_sync_for_device(dev, a[1], 0, 64, DMA_FROM_DEVICE));
	FAULTS(dev, PP_DMA_FAULT_UNBOUND,
	       pp_dma_dev_write(dev, a[2], "late", 4));
	CHECK(buf[2 * PG] == 0);
	s = stats_of(dev);
	CHECK_EQ(s.unbound, 1);
	CHECK_EQ(s.unbind_live_mappings, 2);
	CHECK_EQ(s.live_mappings, 2);
	CHECK_EQ(s.faults, 4);
	CHECK_EQ(s.map_errors, 1);
	CHECK_EQ(s.last_fault_addr, a[2]);
	pp_dma_dev_destroy(dev);	/* quiet: the 2 leaks are not printed */

	/* The fixed order: unmap everything in flight, then unbind. */
	dev = quiet_iommu();
	for (i = 0; i < 3; i++)
		a[i] = pp_dma_map(dev, buf + i * PG, PG, DMA_FROM_DEVICE, 0);
	for (i = 0; i < 3; i++)
		CHECK_EQ(pp_dma_unmap(dev, a[i], PG, DMA_FROM_DEVICE, 0), 0);
	CHECK_EQ(pp_dma_dev_unbind(dev), 0);
	s = stats_of(dev);
	CHECK_EQ(s.unbind_live_mappings, 0);
	CHECK_EQ(s.live_mappings, 0);
	CHECK_EQ(s.faults, 0);
	pp_dma_dev_destroy(dev);
	free(buf);
}

static void
test_fatal(void)
{
	int status;
	pid_t pid;

	fflush(NULL);
	pid = fork();
	CHECK(pid >= 0);
	if (pid == 0) {
		PP_OPTS(pp_iommu_opts, o,
			.flags = PP_DMA_F_FATAL | PP_DMA_F_QUIET);
		struct device *dev = pp_iommu_create(&o);

		if (dev == NULL)
			_exit(3);
		/* The seed-003 order, on a fatal device. */
		pp_dma_dev_unbind(dev);
		pp_dma_unmap(dev, 1ULL << 32, PG, DMA_FROM_DEVICE, 0);
		_exit(4);	/* not reached */
	}
	CHECK_EQ(waitpid(pid, &status, 0), pid);
	CHECK(WIFSIGNALED(status));
	CHECK_EQ(WTERMSIG(status), SIGABRT);
}

static uint64_t
now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

static void
test_cost(void)
{
	PP_OPTS(pp_iommu_opts, o, .flags = PP_DMA_F_QUIET,
		.map_cost_ns = 100000, .unmap_cost_ns = 50000);
	struct device *dev = pp_iommu_create(&o);
	unsigned char *buf = pages(1);
	dma_addr_t a[10];
	uint64_t t0, map_ns, unmap_ns;
	int i;

	CHECK(dev != NULL);
	t0 = now_ns();
	for (i = 0; i < 10; i++) {
		a[i] = pp_dma_map(dev, buf, 64, DMA_FROM_DEVICE, 0);
		CHECK(a[i] != DMA_MAPPING_ERROR);
	}
	map_ns = now_ns() - t0;
	t0 = now_ns();
	for (i = 0; i < 10; i++)
		CHECK_EQ(pp_dma_unmap(dev, a[i], 64, DMA_FROM_DEVICE, 0), 0);
	unmap_ns = now_ns() - t0;
	/* Lower bounds only: never a timing upper bound in a test. */
	CHECK(map_ns >= 10 * 100000);
	CHECK(unmap_ns >= 10 * 50000);
	printf("map cost: %llu ns per map (configured 100000), "
	       "%llu ns per unmap (configured 50000)\n",
	       (unsigned long long)(map_ns / 10),
	       (unsigned long long)(unmap_ns / 10));
	pp_dma_dev_destroy(dev);
	free(buf);
}

static void
test_alloc_failure(void)
{
	PP_OPTS(pp_iommu_opts, o, .flags = PP_DMA_F_QUIET);
	/* 8 MiB + 1 page: an order-12 block spanning four table chunks. */
	size_t big = (8UL << 20) + PG;
	unsigned char *buf = aligned_alloc(PG, big);
	struct pp_dma_stats s;
	struct device *dev = NULL;
	dma_addr_t a = DMA_MAPPING_ERROR;
	long n;

	CHECK(buf != NULL);
	for (n = 0; n < 20; n++) {
		pp_fault_inject_alloc(n, 1);
		errno = 0;
		dev = pp_iommu_create(&o);
		pp_fault_inject_alloc(-1, 0);
		if (dev != NULL)
			break;
		CHECK_EQ(errno, ENOMEM);
	}
	CHECK(dev != NULL);
	CHECK_EQ(n, 3);		/* state, first-level table, device */

	/* First map: a table chunk and a block descriptor. */
	for (n = 0; n < 20; n++) {
		pp_fault_inject_alloc(n, 1);
		errno = 0;
		a = pp_dma_map(dev, buf, 64, DMA_FROM_DEVICE, 0);
		pp_fault_inject_alloc(-1, 0);
		if (a != DMA_MAPPING_ERROR)
			break;
		CHECK_EQ(errno, ENOMEM);
		s = stats_of(dev);
		CHECK_EQ(s.maps, 0);
		CHECK_EQ(s.live_mappings, 0);
	}
	CHECK_EQ(n, 2);
	CHECK_EQ(pp_dma_dev_write(dev, a, "ok", 2), 0);
	CHECK_EQ(pp_dma_unmap(dev, a, 64, DMA_FROM_DEVICE, 0), 0);

	s = stats_of(dev);
	CHECK_EQ(s.maps, 1);
	CHECK_EQ(s.map_errors, 2);
	CHECK_EQ(s.live_mappings, 0);
	pp_dma_dev_destroy(dev);

	/* A large map on a fresh device: four table chunks, then the
	 * descriptor. A failed attempt leaves nothing but chunks, which the
	 * device owns and frees at destroy. */
	for (n = 0; n < 20; n++) {
		dev = pp_iommu_create(&o);
		CHECK(dev != NULL);
		pp_fault_inject_alloc(n, 1);
		errno = 0;
		a = pp_dma_map(dev, buf, big, DMA_BIDIRECTIONAL, 0);
		pp_fault_inject_alloc(-1, 0);
		if (a != DMA_MAPPING_ERROR)
			break;
		CHECK_EQ(errno, ENOMEM);
		s = stats_of(dev);
		CHECK_EQ(s.maps, 0);
		CHECK_EQ(s.map_errors, 1);
		CHECK_EQ(s.live_mappings, 0);
		pp_dma_dev_destroy(dev);
	}
	CHECK_EQ(n, 5);
	CHECK_EQ(pp_dma_dev_write(dev, a + big - 2, "hi", 2), 0);
	CHECK(memcmp(buf + big - 2, "hi", 2) == 0);
	CHECK_EQ(pp_dma_unmap(dev, a, big, DMA_BIDIRECTIONAL, 0), 0);
	CHECK_EQ(stats_of(dev).live_mappings, 0);
	pp_dma_dev_destroy(dev);
	free(buf);
}

int
main(void)
{
	test_create();
	test_translate();
	test_faults();
	test_past_end();
	test_quarantine_and_exhaustion();
	test_unbind_in_flight();
	test_fatal();
	test_cost();
	test_alloc_failure();
	return T_EXIT_PASS;
}
