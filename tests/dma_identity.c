/* SPDX-License-Identifier: MIT */
/*
 * Copyright (c) 2026 The pagepool authors
 *
 * The DMA dispatch layer through the identity device and a custom-ops
 * device (a UMEM-like device whose DMA address is an offset into a region):
 * argument checking with no state change, counting of maps, syncs and
 * accesses (implicit syncs included), unbind, fault recording and the
 * once-per-device report, options validation, the stats snapshot and dump,
 * the kernel-named wrappers, and allocation failure at create. Devices
 * embedded in the caller's struct: set up in place by the three init
 * calls, refused while set up or not yet set up, left to their owner by
 * destroy and set up again, untouched by a failed init. And exact counts
 * from more threads at once than there are per-thread counter shards (the
 * later ones count in the shared atomics).
 */
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include <pagepool/dma.h>
#include <pagepool/fault.h>

#include "helpers.h"

static struct pp_dma_stats
stats_of(struct device *dev)
{
	PP_OPTS(pp_dma_stats, s);

	CHECK_EQ(pp_dma_dev_get_stats(dev, &s), 0);
	CHECK_EQ(s.version, PP_DMA_STATS_VERSION);
	return s;
}

/* Run @fn with stderr captured; return how many lines contain @needle. */
static int
stderr_lines(void (*fn)(void *), void *arg, const char *needle)
{
	char line[512];
	FILE *tmp = tmpfile();
	int saved, n = 0;

	CHECK(tmp != NULL);
	fflush(stderr);
	saved = dup(STDERR_FILENO);
	CHECK(saved >= 0);
	CHECK(dup2(fileno(tmp), STDERR_FILENO) >= 0);
	fn(arg);
	fflush(stderr);
	CHECK(dup2(saved, STDERR_FILENO) >= 0);
	close(saved);
	rewind(tmp);
	while (fgets(line, sizeof(line), tmp) != NULL)
		if (strstr(line, needle) != NULL)
			n++;
	fclose(tmp);
	return n;
}

static void
test_create_opts(void)
{
	struct {
		struct pp_dma_dev_opts o;
		uint64_t tail;
	} big;
	struct device *dev;

	dev = pp_dma_identity_create(NULL);
	CHECK(dev != NULL);
	CHECK(strcmp(pp_dma_dev_name(dev), "identity") == 0);
	CHECK(pp_dma_dev_need_sync(dev));
	CHECK(dma_dev_need_sync(dev));
	CHECK(pp_dma_dev_priv(dev) == NULL);
	pp_dma_dev_destroy(dev);
	pp_dma_dev_destroy(NULL);
	CHECK(strcmp(pp_dma_dev_name(NULL), "") == 0);
	CHECK(!pp_dma_dev_need_sync(NULL));

	{
		PP_OPTS(pp_dma_dev_opts, o, .flags = PP_DMA_F_COHERENT,
			.name = "a-rather-long-device-name-that-gets-cut-off");
		dev = pp_dma_identity_create(&o);
		CHECK(dev != NULL);
		CHECK(!pp_dma_dev_need_sync(dev));
		CHECK_EQ(strlen(pp_dma_dev_name(dev)), 31);
		pp_dma_dev_destroy(dev);
	}
	{
		PP_OPTS(pp_dma_dev_opts, o, .flags = 1u << 20);
		errno = 0;
		CHECK(pp_dma_identity_create(&o) == NULL);
		CHECK_EQ(errno, EINVAL);
	}
	{
		/* sz smaller than the size field itself. */
		PP_OPTS(pp_dma_dev_opts, o);
		o.sz = 4;
		errno = 0;
		CHECK(pp_dma_identity_create(&o) == NULL);
		CHECK_EQ(errno, EINVAL);
	}
	{
		/* An older caller: only sz and flags. name gets the default. */
		PP_OPTS(pp_dma_dev_opts, o, .flags = PP_DMA_F_QUIET,
			.name = "ignored");
		o.sz = offsetof(struct pp_dma_dev_opts, flags) +
		       sizeof(o.flags);
		dev = pp_dma_identity_create(&o);
		CHECK(dev != NULL);
		CHECK(strcmp(pp_dma_dev_name(dev), "identity") == 0);
		pp_dma_dev_destroy(dev);
	}
	/* A newer caller: a zero tail is accepted, a non-zero one is not. */
	memset(&big, 0, sizeof(big));
	big.o.sz = sizeof(big);
	dev = pp_dma_identity_create(&big.o);
	CHECK(dev != NULL);
	pp_dma_dev_destroy(dev);
	big.tail = 1;
	errno = 0;
	CHECK(pp_dma_identity_create(&big.o) == NULL);
	CHECK_EQ(errno, EINVAL);
}

static void
check_unchanged(struct device *dev, const struct pp_dma_stats *before)
{
	struct pp_dma_stats now = stats_of(dev);

	CHECK(memcmp(&now, before, sizeof(now)) == 0);
}

static void
test_bad_args(void)
{
	PP_OPTS(pp_dma_dev_opts, o, .flags = PP_DMA_F_QUIET);
	struct device *dev = pp_dma_identity_create(&o);
	struct pp_dma_stats s0;
	char buf[64];
	dma_addr_t a;

	CHECK(dev != NULL);
	s0 = stats_of(dev);

#define MAP_EINVAL(...)                                                      \
	do {                                                                 \
		errno = 0;                                                   \
		CHECK(pp_dma_map(__VA_ARGS__) == DMA_MAPPING_ERROR);         \
		CHECK_EQ(errno, EINVAL);                                     \
	} while (0)
	MAP_EINVAL(NULL, buf, sizeof(buf), DMA_FROM_DEVICE, 0);
	MAP_EINVAL(dev, NULL, sizeof(buf), DMA_FROM_DEVICE, 0);
	MAP_EINVAL(dev, buf, 0, DMA_FROM_DEVICE, 0);
	MAP_EINVAL(dev, buf, SIZE_MAX, DMA_FROM_DEVICE, 0);
	MAP_EINVAL(dev, buf, sizeof(buf), DMA_NONE, 0);
	MAP_EINVAL(dev, buf, sizeof(buf), (enum dma_data_direction)7, 0);
	MAP_EINVAL(dev, buf, sizeof(buf), DMA_FROM_DEVICE, 1UL << 3);
#undef MAP_EINVAL
	check_unchanged(dev, &s0);

	a = pp_dma_map(dev, buf, sizeof(buf), DMA_BIDIRECTIONAL,
		       DMA_ATTR_SKIP_CPU_SYNC);
	CHECK(a != DMA_MAPPING_ERROR);
	s0 = stats_of(dev);

	CHECK_EQ(pp_dma_unmap(NULL, a, sizeof(buf), DMA_BIDIRECTIONAL, 0),
		 -EINVAL);
	CHECK_EQ(pp_dma_unmap(dev, a, 0, DMA_BIDIRECTIONAL, 0), -EINVAL);
	CHECK_EQ(pp_dma_unmap(dev, a, sizeof(buf), DMA_NONE, 0), -EINVAL);
	CHECK_EQ(pp_dma_unmap(dev, a, sizeof(buf), DMA_BIDIRECTIONAL, ~0UL),
		 -EINVAL);
	CHECK_EQ(pp_dma_sync_for_device(NULL, a, 0, 8, DMA_BIDIRECTIONAL),
		 -EINVAL);
	CHECK_EQ(pp_dma_sync_for_cpu(dev, a, 0, 8, DMA_NONE), -EINVAL);
	CHECK_EQ(pp_dma_sync_for_cpu(dev, a, SIZE_MAX, 8, DMA_BIDIRECTIONAL),
		 -EINVAL);
	errno = 0;
	CHECK_EQ(pp_dma_dev_write(NULL, a, buf, 8), -EINVAL);
	CHECK_EQ(errno, EINVAL);
	CHECK_EQ(pp_dma_dev_write(dev, a, NULL, 8), -EINVAL);
	CHECK_EQ(pp_dma_dev_read(dev, a, buf, 0), -EINVAL);
	CHECK_EQ(pp_dma_dev_unbind(NULL), -EINVAL);
	CHECK_EQ(pp_dma_dev_fault(NULL, 0, PP_DMA_FAULT_UNMAPPED), -EINVAL);
	CHECK_EQ(pp_dma_dev_fault(dev, 0, PP_DMA_FAULT_NONE), -EINVAL);
	CHECK_EQ(pp_dma_dev_fault(dev, 0, PP_DMA_FAULT_NR), -EINVAL);
	CHECK_EQ(pp_dma_dev_dump(NULL, stdout), -EINVAL);
	CHECK_EQ(pp_dma_dev_dump(dev, NULL), -EINVAL);
	check_unchanged(dev, &s0);

	{
		struct pp_dma_stats s;

		CHECK_EQ(pp_dma_dev_get_stats(NULL, &s0), -EINVAL);
		CHECK_EQ(pp_dma_dev_get_stats(dev, NULL), -EINVAL);
		s.sz = 4;
		CHECK_EQ(pp_dma_dev_get_stats(dev, &s), -EINVAL);
	}
	CHECK_EQ(pp_dma_unmap(dev, a, sizeof(buf), DMA_BIDIRECTIONAL, 0), 0);
	pp_dma_dev_destroy(dev);
}

static void
test_map_sync_access(void)
{
	struct device *dev = pp_dma_identity_create(NULL);
	unsigned char buf[256], out[16];
	struct pp_dma_stats s;
	dma_addr_t a, b;

	CHECK(dev != NULL);
	memset(buf, 0, sizeof(buf));

	/* Map without SKIP_CPU_SYNC: an implicit sync for the device. */
	a = pp_dma_map(dev, buf, sizeof(buf), DMA_FROM_DEVICE, 0);
	CHECK(a == (dma_addr_t)(uintptr_t)buf);
	CHECK_EQ(pp_dma_mapping_error(dev, a), 0);
	s = stats_of(dev);
	CHECK_EQ(s.maps, 1);
	CHECK_EQ(s.live_mappings, 1);
	CHECK_EQ(s.max_live_mappings, 1);
	CHECK_EQ(s.syncs_for_device, 1);
	CHECK_EQ(s.bytes_synced_for_device, sizeof(buf));

	b = pp_dma_map(dev, out, sizeof(out), DMA_TO_DEVICE,
		       DMA_ATTR_SKIP_CPU_SYNC | DMA_ATTR_WEAK_ORDERING);
	CHECK(b == (dma_addr_t)(uintptr_t)out);
	s = stats_of(dev);
	CHECK_EQ(s.maps, 2);
	CHECK_EQ(s.max_live_mappings, 2);
	CHECK_EQ(s.syncs_for_device, 1);

	/* The NIC writes a packet at headroom 32; the driver syncs it. */
	CHECK_EQ(pp_dma_dev_write(dev, a + 32, "hello", 5), 0);
	CHECK(memcmp(buf + 32, "hello", 5) == 0);
	CHECK_EQ(pp_dma_sync_for_cpu(dev, a, 32, 5, DMA_FROM_DEVICE), 0);
	dma_sync_single_range_for_cpu(dev, a, 32, 5, DMA_FROM_DEVICE);
	dma_sync_single_for_cpu(dev, a, 64, DMA_FROM_DEVICE);
	CHECK_EQ(pp_dma_sync_for_device(dev, a, 32, 100, DMA_FROM_DEVICE), 0);
	dma_sync_single_range_for_device(dev, a, 0, 50, DMA_FROM_DEVICE);
	dma_sync_single_for_device(dev, a, 0, DMA_FROM_DEVICE);
	memcpy(out, "tx-data", 8);
	memset(buf, 0, 16);
	CHECK_EQ(pp_dma_dev_read(dev, b, buf, 8), 0);
	CHECK(memcmp(buf, "tx-data", 8) == 0);

	s = stats_of(dev);
	CHECK_EQ(s.syncs_for_cpu, 3);
	CHECK_EQ(s.bytes_synced_for_cpu, 5 + 5 + 64);
	CHECK_EQ(s.syncs_for_device, 4);
	CHECK_EQ(s.bytes_synced_for_device, sizeof(buf) + 100 + 50 + 0);
	CHECK_EQ(s.dev_writes, 1);
	CHECK_EQ(s.bytes_written, 5);
	CHECK_EQ(s.dev_reads, 1);
	CHECK_EQ(s.bytes_read, 8);
	CHECK_EQ(s.faults, 0);

	/* Unmap without SKIP_CPU_SYNC syncs for the CPU unless TO_DEVICE. */
	CHECK_EQ(pp_dma_unmap(dev, a, sizeof(buf), DMA_FROM_DEVICE, 0), 0);
	dma_unmap_single(dev, b, sizeof(out), DMA_TO_DEVICE);
	s = stats_of(dev);
	CHECK_EQ(s.unmaps, 2);
	CHECK_EQ(s.live_mappings, 0);
	CHECK_EQ(s.max_live_mappings, 2);
	CHECK_EQ(s.syncs_for_cpu, 4);
	CHECK_EQ(s.bytes_synced_for_cpu, 5 + 5 + 64 + sizeof(buf));

	/* Kernel wrappers. */
	a = dma_map_single(dev, buf, 8, DMA_BIDIRECTIONAL);
	CHECK_EQ(dma_mapping_error(dev, a), 0);
	dma_unmap_single_attrs(dev, a, 8, DMA_BIDIRECTIONAL,
			       DMA_ATTR_SKIP_CPU_SYNC);
	a = dma_map_single_attrs(dev, buf, 8, DMA_BIDIRECTIONAL, 0);
	dma_unmap_page_attrs(dev, a, 8, DMA_BIDIRECTIONAL, 0);
	a = dma_map_single(dev, buf, 8, DMA_BIDIRECTIONAL);
	dma_unmap_page(dev, a, 8, DMA_BIDIRECTIONAL);
	CHECK_EQ(dma_mapping_error(dev, DMA_MAPPING_ERROR), -ENOMEM);
	CHECK_EQ(pp_dma_mapping_error(dev, DMA_MAPPING_ERROR), -ENOMEM);
	s = stats_of(dev);
	CHECK_EQ(s.maps, 5);
	CHECK_EQ(s.unmaps, 5);
	CHECK_EQ(s.live_mappings, 0);
	pp_dma_dev_destroy(dev);
}

static void
test_faults(void)
{
	PP_OPTS(pp_dma_dev_opts, o, .flags = PP_DMA_F_QUIET, .name = "nic0");
	struct device *dev = pp_dma_identity_create(&o);
	struct pp_dma_stats s;
	char buf[32];

	CHECK(dev != NULL);
	CHECK_EQ(pp_dma_unmap(dev, 0, 8, DMA_TO_DEVICE, 0), -EFAULT);
	s = stats_of(dev);
	CHECK_EQ(s.faults, 1);
	CHECK_EQ(s.unmaps, 0);
	CHECK_EQ(s.last_fault_reason, PP_DMA_FAULT_UNMAPPED);
	CHECK_EQ(s.last_fault_addr, 0);

	errno = 0;
	CHECK_EQ(pp_dma_dev_write(dev, DMA_MAPPING_ERROR, buf, 8), -EFAULT);
	CHECK_EQ(errno, EFAULT);
	CHECK_EQ(pp_dma_dev_read(dev, 0, buf, 8), -EFAULT);
	CHECK_EQ(pp_dma_sync_for_cpu(dev, DMA_MAPPING_ERROR, 0, 8,
				     DMA_FROM_DEVICE), -EFAULT);
	/* A range that wraps the address space. */
	CHECK_EQ(pp_dma_dev_write(dev, (dma_addr_t)UINTPTR_MAX - 4, buf, 8),
		 -EFAULT);
	s = stats_of(dev);
	CHECK_EQ(s.faults, 5);
	CHECK_EQ(s.dev_writes + s.dev_reads + s.syncs_for_cpu, 0);
	CHECK_EQ(s.last_fault_addr, (dma_addr_t)UINTPTR_MAX - 4);

	CHECK_EQ(pp_dma_dev_fault(dev, 0x1234, PP_DMA_FAULT_DEVICE), -EFAULT);
	s = stats_of(dev);
	CHECK_EQ(s.faults, 6);
	CHECK_EQ(s.last_fault_reason, PP_DMA_FAULT_DEVICE);
	CHECK_EQ(s.last_fault_addr, 0x1234);

	CHECK(strcmp(pp_dma_fault_str(PP_DMA_FAULT_UNBOUND),
		     "device unbound") == 0);
	CHECK(strcmp(pp_dma_fault_str(PP_DMA_FAULT_NR), "?") == 0);
	CHECK(strcmp(pp_dma_fault_str((enum pp_dma_fault_reason)-1), "?") ==
	      0);
	pp_dma_dev_destroy(dev);
}

static void
two_faults(void *arg)
{
	struct device *dev = arg;

	CHECK_EQ(pp_dma_unmap(dev, 0, 8, DMA_TO_DEVICE, 0), -EFAULT);
	CHECK_EQ(pp_dma_unmap(dev, 0, 8, DMA_TO_DEVICE, 0), -EFAULT);
}

static void
destroy_leaking(void *arg)
{
	pp_dma_dev_destroy(arg);
}

static void
test_reports(void)
{
	PP_OPTS(pp_dma_dev_opts, o, .name = "loud0");
	static char buf[64];
	struct device *dev = pp_dma_identity_create(&o);

	CHECK(dev != NULL);
	CHECK_EQ(stderr_lines(two_faults, dev,
			      "DMA fault on device loud0: address not mapped"),
		 1);
	CHECK_EQ(stderr_lines(two_faults, dev, "DMA fault"), 0);
	CHECK(pp_dma_map(dev, buf, 8, DMA_TO_DEVICE, 0) != DMA_MAPPING_ERROR);
	CHECK_EQ(stderr_lines(destroy_leaking, dev,
			      "loud0 destroyed with 1 live mapping"),
		 1);

	o.flags = PP_DMA_F_QUIET;
	dev = pp_dma_identity_create(&o);
	CHECK(dev != NULL);
	CHECK_EQ(stderr_lines(two_faults, dev, "pagepool"), 0);
	CHECK(pp_dma_map(dev, buf, 8, DMA_TO_DEVICE, 0) != DMA_MAPPING_ERROR);
	CHECK_EQ(stderr_lines(destroy_leaking, dev, "pagepool"), 0);
}

static void
test_unbind(void)
{
	PP_OPTS(pp_dma_dev_opts, o, .flags = PP_DMA_F_QUIET);
	struct device *dev = pp_dma_identity_create(&o);
	char buf[64], x[4];
	struct pp_dma_stats s;
	dma_addr_t a, b;

	CHECK(dev != NULL);
	a = pp_dma_map(dev, buf, sizeof(buf), DMA_BIDIRECTIONAL, 0);
	b = pp_dma_map(dev, buf + 8, 8, DMA_BIDIRECTIONAL, 0);
	CHECK(a != DMA_MAPPING_ERROR && b != DMA_MAPPING_ERROR);
	CHECK_EQ(pp_dma_unmap(dev, b, 8, DMA_BIDIRECTIONAL, 0), 0);
	CHECK_EQ(pp_dma_dev_unbind(dev), 0);
	errno = 0;
	CHECK_EQ(pp_dma_dev_unbind(dev), -EALREADY);
	CHECK_EQ(errno, EALREADY);

	errno = 0;
	CHECK(pp_dma_map(dev, buf, 8, DMA_TO_DEVICE, 0) == DMA_MAPPING_ERROR);
	CHECK_EQ(errno, ENODEV);
	CHECK_EQ(pp_dma_unmap(dev, a, sizeof(buf), DMA_BIDIRECTIONAL, 0),
		 -EFAULT);
	CHECK_EQ(pp_dma_sync_for_device(dev, a, 0, 8, DMA_BIDIRECTIONAL),
		 -EFAULT);
	CHECK_EQ(pp_dma_sync_for_cpu(dev, a, 0, 8, DMA_BIDIRECTIONAL),
		 -EFAULT);
	memcpy(buf, "keep", 4);
	CHECK_EQ(pp_dma_dev_write(dev, a, "XXXX", 4), -EFAULT);
	CHECK(memcmp(buf, "keep", 4) == 0);
	CHECK_EQ(pp_dma_dev_read(dev, a, x, 4), -EFAULT);

	s = stats_of(dev);
	CHECK_EQ(s.unbound, 1);
	CHECK_EQ(s.unbind_live_mappings, 1);
	CHECK_EQ(s.live_mappings, 1);
	CHECK_EQ(s.map_errors, 1);
	CHECK_EQ(s.faults, 5);
	CHECK_EQ(s.last_fault_reason, PP_DMA_FAULT_UNBOUND);
	CHECK_EQ(s.unmaps, 1);
	pp_dma_dev_destroy(dev);
}

static void
test_stats_versions(void)
{
	struct device *dev = pp_dma_identity_create(NULL);
	struct {
		struct pp_dma_stats s;
		uint64_t canary;
	} big;
	struct pp_dma_stats small;
	char buf[8];
	dma_addr_t a;
	FILE *f;
	char line[128];
	int found = 0;

	CHECK(dev != NULL);
	a = pp_dma_map(dev, buf, sizeof(buf), DMA_TO_DEVICE, 0);
	CHECK(a != DMA_MAPPING_ERROR);

	/* An older caller knowing only up to maps: nothing past it written. */
	memset(&small, 0xa5, sizeof(small));
	small.sz = offsetof(struct pp_dma_stats, maps) + sizeof(small.maps);
	CHECK_EQ(pp_dma_dev_get_stats(dev, &small), 0);
	CHECK_EQ(small.maps, 1);
	CHECK_EQ(small.sz, offsetof(struct pp_dma_stats, maps) + 8);
	CHECK_EQ(small.map_errors, 0xa5a5a5a5a5a5a5a5ULL);

	/* A newer caller: its extra fields are left alone. */
	memset(&big, 0, sizeof(big));
	big.s.sz = sizeof(big);
	big.canary = 42;
	CHECK_EQ(pp_dma_dev_get_stats(dev, &big.s), 0);
	CHECK_EQ(big.s.maps, 1);
	CHECK_EQ(big.canary, 42);

	f = tmpfile();
	CHECK(f != NULL);
	CHECK_EQ(pp_dma_dev_dump(dev, f), 0);
	rewind(f);
	while (fgets(line, sizeof(line), f) != NULL) {
		if (strcmp(line, "maps 1\n") == 0 ||
		    strcmp(line, "device identity\n") == 0 ||
		    strcmp(line, "live_mappings 1\n") == 0 ||
		    strcmp(line, "unbind_live_mappings 0\n") == 0)
			found++;
	}
	fclose(f);
	CHECK_EQ(found, 4);
	CHECK_EQ(pp_dma_unmap(dev, a, sizeof(buf), DMA_TO_DEVICE, 0), 0);
	pp_dma_dev_destroy(dev);
}

/* A UMEM-like custom device: the DMA address is the offset in a region. */
struct umem {
	unsigned char *base;
	size_t len;
	int released;
};

static dma_addr_t
umem_map(struct device *dev, void *vaddr, size_t size,
	 enum dma_data_direction dir, unsigned long attrs)
{
	struct umem *u = pp_dma_dev_priv(dev);
	unsigned char *p = vaddr;

	(void)dir;
	(void)attrs;
	if (p < u->base || size > u->len || (size_t)(p - u->base) >
	    u->len - size) {
		errno = EINVAL;
		return DMA_MAPPING_ERROR;
	}
	return (dma_addr_t)(p - u->base);
}

static int
umem_unmap(struct device *dev, dma_addr_t addr, size_t size,
	   enum dma_data_direction dir, unsigned long attrs)
{
	struct umem *u = pp_dma_dev_priv(dev);

	(void)dir;
	(void)attrs;
	if (addr >= u->len || size > u->len - addr)
		return pp_dma_dev_fault(dev, addr, PP_DMA_FAULT_DEVICE);
	return 0;
}

static int
umem_access(struct device *dev, dma_addr_t addr, void *buf, size_t len,
	    bool to_memory)
{
	struct umem *u = pp_dma_dev_priv(dev);

	if (addr >= u->len || len > u->len - addr)
		return pp_dma_dev_fault(dev, addr, PP_DMA_FAULT_RANGE);
	if (to_memory)
		memcpy(u->base + addr, buf, len);
	else
		memcpy(buf, u->base + addr, len);
	return 0;
}

static void
umem_release(struct device *dev)
{
	struct umem *u = pp_dma_dev_priv(dev);

	u->released++;
}

static void
test_custom_ops(void)
{
	static unsigned char region[4096];
	struct umem u = { region, sizeof(region), 0 };
	struct pp_dma_ops ops = {
		.sz = sizeof(ops),
		.map_page = umem_map,
		.unmap_page = umem_unmap,
		.access = umem_access,
		.release = umem_release,
	};
	PP_OPTS(pp_dma_dev_opts, o, .flags = PP_DMA_F_QUIET, .name = "umem");
	struct pp_dma_stats s;
	struct device *dev;
	dma_addr_t a;
	char tmp[4];

	errno = 0;
	CHECK(pp_dma_dev_create_ops(NULL, &u, &o) == NULL);
	CHECK_EQ(errno, EINVAL);
	{
		struct pp_dma_ops bad = ops;

		bad.unmap_page = NULL;
		errno = 0;
		CHECK(pp_dma_dev_create_ops(&bad, &u, &o) == NULL);
		CHECK_EQ(errno, EINVAL);
	}
	{
		PP_OPTS(pp_dma_dev_opts, bad, .flags = ~0u);

		CHECK(pp_dma_dev_create_ops(&ops, &u, &bad) == NULL);
	}
	{
		struct {
			struct pp_dma_ops ops;
			void *future_op;
		} newer = { ops, (void *)&u };

		newer.ops.sz = sizeof(newer);
		CHECK(pp_dma_dev_create_ops(&newer.ops, &u, &o) == NULL);
		newer.future_op = NULL;
		dev = pp_dma_dev_create_ops(&newer.ops, &u, &o);
		CHECK(dev != NULL);
		pp_dma_dev_destroy(dev);
		CHECK_EQ(u.released, 1);
	}

	dev = pp_dma_dev_create_ops(&ops, &u, &o);
	CHECK(dev != NULL);
	CHECK(pp_dma_dev_priv(dev) == &u);
	CHECK(strcmp(pp_dma_dev_name(dev), "umem") == 0);
	a = pp_dma_map(dev, region + 2048, 512, DMA_FROM_DEVICE, 0);
	CHECK_EQ(a, 2048);
	errno = 0;
	CHECK(pp_dma_map(dev, tmp, 4, DMA_FROM_DEVICE, 0) ==
	      DMA_MAPPING_ERROR);
	CHECK_EQ(errno, EINVAL);
	/* No sync ops: syncs succeed and are counted. */
	CHECK_EQ(pp_dma_sync_for_device(dev, a, 0, 512, DMA_FROM_DEVICE), 0);
	CHECK_EQ(pp_dma_dev_write(dev, a + 10, "umem", 4), 0);
	CHECK(memcmp(region + 2058, "umem", 4) == 0);
	CHECK_EQ(pp_dma_dev_read(dev, 4094, tmp, 4), -EFAULT);
	CHECK_EQ(pp_dma_unmap(dev, 8192, 4, DMA_FROM_DEVICE, 0), -EFAULT);
	CHECK_EQ(pp_dma_unmap(dev, a, 512, DMA_FROM_DEVICE, 0), 0);
	s = stats_of(dev);
	CHECK_EQ(s.maps, 1);
	CHECK_EQ(s.map_errors, 1);
	CHECK_EQ(s.unmaps, 1);
	CHECK_EQ(s.syncs_for_device, 2);
	CHECK_EQ(s.syncs_for_cpu, 1);
	CHECK_EQ(s.faults, 2);
	CHECK_EQ(s.last_fault_reason, PP_DMA_FAULT_DEVICE);
	CHECK_EQ(s.live_mappings, 0);
	pp_dma_dev_destroy(dev);
	CHECK_EQ(u.released, 2);

	/* An older caller's ops without access: device access unsupported. */
	ops.sz = offsetof(struct pp_dma_ops, access);
	dev = pp_dma_dev_create_ops(&ops, &u, NULL);
	CHECK(dev != NULL);
	CHECK(strcmp(pp_dma_dev_name(dev), "custom") == 0);
	errno = 0;
	CHECK_EQ(pp_dma_dev_write(dev, 0, "x", 1), -EOPNOTSUPP);
	CHECK_EQ(errno, EOPNOTSUPP);
	pp_dma_dev_destroy(dev);
	CHECK_EQ(u.released, 2);	/* release was cut off too */
}

/* A custom unbind op that uses the device API on its own device, as a
 * UMEM device reporting its last use would: no deadlock. */
static void
umem_unbind(struct device *dev)
{
	CHECK(!stats_of(dev).unbound);
	CHECK_EQ(pp_dma_dev_fault(dev, 0, PP_DMA_FAULT_DEVICE), -EFAULT);
	CHECK_EQ(pp_dma_dev_unbind(dev), -EALREADY);
}

static void
test_unbind_op_reenters(void)
{
	static unsigned char region[4096];
	struct umem u = { region, sizeof(region), 0 };
	struct pp_dma_ops ops = {
		.sz = sizeof(ops),
		.map_page = umem_map,
		.unmap_page = umem_unmap,
		.unbind = umem_unbind,
	};
	PP_OPTS(pp_dma_dev_opts, o, .flags = PP_DMA_F_QUIET);
	struct device *dev = pp_dma_dev_create_ops(&ops, &u, &o);
	struct pp_dma_stats s;

	CHECK(dev != NULL);
	CHECK_EQ(pp_dma_dev_unbind(dev), 0);
	s = stats_of(dev);
	CHECK_EQ(s.faults, 1);
	CHECK(s.unbound);
	pp_dma_dev_destroy(dev);
}

static void
test_alloc_failure(void)
{
	struct device *dev = NULL;
	long n;

	for (n = 0; n < 10; n++) {
		pp_fault_inject_alloc(n, 1);
		errno = 0;
		dev = pp_dma_identity_create(NULL);
		pp_fault_inject_alloc(-1, 0);
		if (dev != NULL)
			break;
		CHECK_EQ(errno, ENOMEM);
	}
	CHECK(dev != NULL);
	CHECK_EQ(n, 1);
	pp_dma_dev_destroy(dev);
}

#define SHARD_THREADS	48	/* more than the device's 32 shards */
#define SHARD_ROUNDS	500

struct shard_arg {
	struct device *dev;
	dma_addr_t addr;
	unsigned char *mem;
	pthread_barrier_t *start;
};

static void *
shard_worker(void *p)
{
	struct shard_arg *a = p;
	unsigned char frame[64] = { 0x5a };
	int i;

	pthread_barrier_wait(a->start);
	for (i = 0; i < SHARD_ROUNDS; i++) {
		CHECK_EQ(pp_dma_sync_for_cpu(a->dev, a->addr, 0, 64,
					     DMA_BIDIRECTIONAL), 0);
		CHECK_EQ(pp_dma_sync_for_device(a->dev, a->addr, 0, 100,
						DMA_BIDIRECTIONAL), 0);
		CHECK_EQ(pp_dma_dev_write(a->dev, a->addr, frame, 64), 0);
		CHECK_EQ(pp_dma_dev_read(a->dev, a->addr, frame, 32), 0);
	}
	return NULL;
}

/*
 * Counters are per-thread shards for the first threads and shared atomics
 * for the rest: from more threads at once than there are shards, every
 * count arrives, on two devices at once (shards are per device).
 */
static void
test_counter_shards(void)
{
	static unsigned char mem[2][4096] __attribute__((aligned(4096)));
	struct shard_arg arg[SHARD_THREADS];
	pthread_t th[SHARD_THREADS];
	pthread_barrier_t start;
	struct device *dev[2];
	dma_addr_t addr[2];
	uint64_t n = (uint64_t)SHARD_THREADS * SHARD_ROUNDS / 2;
	int i, d;

	for (d = 0; d < 2; d++) {
		dev[d] = pp_dma_identity_create(NULL);
		CHECK(dev[d] != NULL);
		addr[d] = pp_dma_map(dev[d], mem[d], sizeof(mem[d]),
				     DMA_BIDIRECTIONAL, DMA_ATTR_SKIP_CPU_SYNC);
		CHECK(!pp_dma_mapping_error(dev[d], addr[d]));
	}
	CHECK_EQ(pthread_barrier_init(&start, NULL, SHARD_THREADS), 0);
	for (i = 0; i < SHARD_THREADS; i++) {
		/* Each thread's device writes go to a slice of its own. */
		arg[i] = (struct shard_arg){ dev[i & 1],
					     addr[i & 1] + (dma_addr_t)(i / 2) * 64,
					     mem[i & 1], &start };
		CHECK_EQ(pthread_create(&th[i], NULL, shard_worker, &arg[i]),
			 0);
	}
	for (i = 0; i < SHARD_THREADS; i++)
		CHECK_EQ(pthread_join(th[i], NULL), 0);
	pthread_barrier_destroy(&start);
	for (d = 0; d < 2; d++) {
		struct pp_dma_stats s = { .sz = sizeof(s) };

		CHECK_EQ(pp_dma_unmap(dev[d], addr[d], sizeof(mem[d]),
				      DMA_BIDIRECTIONAL,
				      DMA_ATTR_SKIP_CPU_SYNC), 0);
		CHECK_EQ(pp_dma_dev_get_stats(dev[d], &s), 0);
		CHECK_EQ(s.syncs_for_cpu, n);
		CHECK_EQ(s.bytes_synced_for_cpu, n * 64);
		CHECK_EQ(s.syncs_for_device, n);
		CHECK_EQ(s.bytes_synced_for_device, n * 100);
		CHECK_EQ(s.dev_writes, n);
		CHECK_EQ(s.bytes_written, n * 64);
		CHECK_EQ(s.dev_reads, n);
		CHECK_EQ(s.bytes_read, n * 32);
		CHECK_EQ(s.maps, 1);
		CHECK_EQ(s.unmaps, 1);
		CHECK_EQ(s.live_mappings, 0);
		CHECK_EQ(s.faults, 0);
		pp_dma_dev_destroy(dev[d]);
	}
}

static dma_addr_t
embed_map(struct device *dev, void *vaddr, size_t size,
	  enum dma_data_direction dir, unsigned long attrs)
{
	(void)dev;
	(void)size;
	(void)dir;
	(void)attrs;
	return (dma_addr_t)(uintptr_t)vaddr + 1;
}

static int
embed_unmap(struct device *dev, dma_addr_t addr, size_t size,
	    enum dma_data_direction dir, unsigned long attrs)
{
	(void)dev;
	(void)addr;
	(void)size;
	(void)dir;
	(void)attrs;
	return 0;
}

static int embed_released;

static void
embed_release(struct device *dev)
{
	CHECK(pp_dma_dev_priv(dev) == &embed_released);
	embed_released++;
}

/* The caller's struct with a device inside, as a driver's adapter. */
struct adapter {
	long before;
	struct device dev;
	long after;
};

static void
test_embedded(void)
{
	PP_OPTS(pp_dma_dev_opts, named, .name = "given");
	PP_OPTS(pp_dma_dev_opts, badf, .flags = ~0u);
	PP_OPTS(pp_iommu_opts, io, .flags = PP_DMA_F_QUIET);
	PP_OPTS(pp_iommu_opts, badio, .iova_base = 123);
	PP_OPTS(pp_dma_dev_opts, dbg, .flags = PP_DMA_F_DEBUG | PP_DMA_F_QUIET);
	struct pp_dma_ops ops = {
		.sz = sizeof(ops),
		.map_page = embed_map,
		.unmap_page = embed_unmap,
		.release = embed_release,
	};
	static char buf[256];
	struct adapter a;
	struct pp_dma_stats s;
	dma_addr_t addr;
	long n;

	memset(&a, 0, sizeof(a));
	a.before = a.after = 0x5a5a;
	a.dev.init_name = "eth0";
	a.dev.driver_data = &a;

	/* Not set up: refused, and destroy does nothing. */
	errno = 0;
	CHECK(pp_dma_map(&a.dev, buf, 64, DMA_TO_DEVICE, 0) ==
	      DMA_MAPPING_ERROR);
	CHECK_EQ(errno, EINVAL);
	CHECK_EQ(pp_dma_dev_unbind(&a.dev), -EINVAL);
	CHECK_EQ(pp_dma_dev_get_stats(&a.dev, &(struct pp_dma_stats){
		.sz = sizeof(struct pp_dma_stats) }), -EINVAL);
	CHECK(strcmp(pp_dma_dev_name(&a.dev), "") == 0);
	CHECK(!pp_dma_dev_need_sync(&a.dev));
	pp_dma_dev_destroy(&a.dev);

	/* Bad arguments change nothing. */
	CHECK_EQ(pp_dma_identity_init(NULL, NULL), -EINVAL);
	CHECK_EQ(pp_iommu_init(NULL, NULL), -EINVAL);
	CHECK_EQ(pp_dma_dev_init_ops(NULL, &ops, NULL, NULL), -EINVAL);
	errno = 0;
	CHECK_EQ(pp_dma_identity_init(&a.dev, &badf), -EINVAL);
	CHECK_EQ(errno, EINVAL);
	CHECK_EQ(pp_iommu_init(&a.dev, &badio), -EINVAL);
	CHECK_EQ(pp_dma_dev_init_ops(&a.dev, NULL, NULL, NULL), -EINVAL);
	CHECK(a.dev.p == NULL);

	/* Identity, named by init_name, twice over the same struct. */
	for (n = 0; n < 2; n++) {
		CHECK_EQ(pp_dma_identity_init(&a.dev, NULL), 0);
		CHECK(a.dev.p != NULL);
		CHECK(strcmp(pp_dma_dev_name(&a.dev), "eth0") == 0);
		CHECK_EQ(pp_dma_identity_init(&a.dev, NULL), -EINVAL);
		CHECK_EQ(pp_iommu_init(&a.dev, &io), -EINVAL);
		CHECK_EQ(pp_dma_dev_init_ops(&a.dev, &ops, NULL, NULL),
			 -EINVAL);
		addr = pp_dma_map(&a.dev, buf, 64, DMA_TO_DEVICE, 0);
		CHECK_EQ(addr, (dma_addr_t)(uintptr_t)buf);
		CHECK_EQ(pp_dma_unmap(&a.dev, addr, 64, DMA_TO_DEVICE, 0), 0);
		s = stats_of(&a.dev);
		CHECK_EQ(s.maps, 1);
		pp_dma_dev_destroy(&a.dev);
		CHECK(a.dev.p == NULL);
		CHECK(a.dev.driver_data == &a);
		CHECK(strcmp(a.dev.init_name, "eth0") == 0);
	}
	/* The options' name wins over init_name. */
	CHECK_EQ(pp_dma_identity_init(&a.dev, &named), 0);
	CHECK(strcmp(pp_dma_dev_name(&a.dev), "given") == 0);
	pp_dma_dev_destroy(&a.dev);

	/* Behind the IOMMU model: checked addresses, unbind, destroy. */
	CHECK_EQ(pp_iommu_init(&a.dev, &io), 0);
	CHECK(strcmp(pp_dma_dev_name(&a.dev), "eth0") == 0);
	addr = pp_dma_map(&a.dev, buf, 64, DMA_FROM_DEVICE, 0);
	CHECK(addr != DMA_MAPPING_ERROR && addr != (dma_addr_t)(uintptr_t)buf);
	CHECK_EQ(pp_dma_dev_write(&a.dev, addr, "abc", 3), 0);
	CHECK_EQ(pp_dma_unmap(&a.dev, addr, 64, DMA_FROM_DEVICE, 0), 0);
	CHECK(memcmp(buf, "abc", 3) == 0);
	CHECK_EQ(pp_dma_dev_write(&a.dev, addr, "abc", 3), -EFAULT);
	CHECK_EQ(pp_dma_dev_unbind(&a.dev), 0);
	pp_dma_dev_destroy(&a.dev);
	CHECK(a.dev.p == NULL);

	/* The caller's ops: priv given, release called at destroy. */
	embed_released = 0;
	CHECK_EQ(pp_dma_dev_init_ops(&a.dev, &ops, &embed_released, NULL), 0);
	CHECK(strcmp(pp_dma_dev_name(&a.dev), "eth0") == 0);
	CHECK(pp_dma_dev_priv(&a.dev) == &embed_released);
	CHECK_EQ(pp_dma_map(&a.dev, buf, 8, DMA_TO_DEVICE, 0),
		 (dma_addr_t)(uintptr_t)buf + 1);
	CHECK_EQ(pp_dma_unmap(&a.dev, (dma_addr_t)(uintptr_t)buf + 1, 8,
			      DMA_TO_DEVICE, 0), 0);
	pp_dma_dev_destroy(&a.dev);
	CHECK_EQ(embed_released, 1);
	CHECK(a.dev.p == NULL);

	/* Debug mode: its table goes with the state (a live mapping, quiet). */
	CHECK_EQ(pp_dma_identity_init(&a.dev, &dbg), 0);
	CHECK(pp_dma_map(&a.dev, buf, 16, DMA_TO_DEVICE, 0) !=
	      DMA_MAPPING_ERROR);
	pp_dma_dev_destroy(&a.dev);
	CHECK(a.dev.p == NULL);

	/* An allocation failure leaves the struct as it was. */
	for (n = 0; n < 10; n++) {
		int ret;

		pp_fault_inject_alloc(n, 1);
		errno = 0;
		ret = pp_iommu_init(&a.dev, &io);
		pp_fault_inject_alloc(-1, 0);
		if (ret == 0)
			break;
		CHECK_EQ(ret, -ENOMEM);
		CHECK_EQ(errno, ENOMEM);
		CHECK(a.dev.p == NULL);
	}
	CHECK(n > 1 && n < 10);
	pp_dma_dev_destroy(&a.dev);

	CHECK(a.before == 0x5a5a && a.after == 0x5a5a);
	CHECK(a.dev.driver_data == &a && a.dev.parent == NULL);
}

int
main(void)
{
	test_create_opts();
	test_embedded();
	test_bad_args();
	test_map_sync_access();
	test_faults();
	test_reports();
	test_unbind_op_reenters();
	test_unbind();
	test_stats_versions();
	test_custom_ops();
	test_alloc_failure();
	test_counter_shards();
	return T_EXIT_PASS;
}
