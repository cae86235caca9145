/* SPDX-License-Identifier: MIT */
/*
 * Copyright (c) 2026 The pagepool authors
 *
 * The DMA-API debug checks (PP_DMA_F_DEBUG), on the identity device and the
 * IOMMU model: unmap of an address never mapped, with another size or
 * direction, and twice; sync outside the mapping and in the wrong
 * direction; device access outside any mapping (which the identity device
 * alone cannot see); a device write into bytes the CPU owns, per byte; a
 * mapping still live at destroy, listed with its call site. Each is a
 * fault that changes nothing, is counted in debug_errors, names the call
 * site that made the mapping, and with PP_DMA_F_FATAL ends the process.
 * Also: the flag combinations refused, and the version-2 stats layout.
 */
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <pagepool/dma.h>

#include "helpers.h"

static char buf[3 * 4096] __attribute__((aligned(4096)));

static struct pp_dma_stats
stats_of(struct device *dev)
{
	PP_OPTS(pp_dma_stats, s);

	CHECK_EQ(pp_dma_dev_get_stats(dev, &s), 0);
	CHECK_EQ(s.version, PP_DMA_STATS_VERSION);
	return s;
}

/* The call site every mapping of this test is made from. */
static __attribute__((noinline)) dma_addr_t
map_here(struct device *dev, void *p, size_t n, enum dma_data_direction dir)
{
	dma_addr_t a = pp_dma_map(dev, p, n, dir, 0);

	/* Keep the call a call (not a tail jump), so the return address
	 * lies in this function. */
	__asm__ volatile("" ::: "memory");
	return a;
}

static bool
site_is_map_here(uint64_t site)
{
	uintptr_t f = (uintptr_t)map_here;

	return site > f && site < f + 4096;
}

static struct device *
make(bool iommu, unsigned int flags)
{
	struct device *dev;

	if (iommu) {
		PP_OPTS(pp_iommu_opts, o, .flags = flags, .name = "dbg0");
		dev = pp_iommu_create(&o);
	} else {
		PP_OPTS(pp_dma_dev_opts, o, .flags = flags, .name = "dbg0");
		dev = pp_dma_identity_create(&o);
	}
	CHECK(dev != NULL);
	return dev;
}

/* One fault of @reason, named with the map_here() site when @sited. */
static void
expect_fault(struct device *dev, uint64_t *errors, int ret,
	     enum pp_dma_fault_reason reason, bool sited)
{
	struct pp_dma_stats s = stats_of(dev);

	CHECK_EQ(ret, -EFAULT);
	CHECK_EQ(s.last_fault_reason, reason);
	CHECK_EQ(s.debug_errors, ++*errors);
	CHECK(sited ? site_is_map_here(s.last_fault_site) :
		      s.last_fault_site == 0);
}

static void
test_unmap_checks(bool iommu)
{
	struct device *dev = make(iommu, PP_DMA_F_QUIET | PP_DMA_F_DEBUG);
	uint64_t errors = 0;
	struct pp_dma_stats s;
	dma_addr_t a;

	a = map_here(dev, buf + 64, 1000, DMA_FROM_DEVICE);
	CHECK(a != DMA_MAPPING_ERROR);
	/* Never mapped: past the mapping's start, and far away. */
	expect_fault(dev, &errors,
		     pp_dma_unmap(dev, a + 8, 1000, DMA_FROM_DEVICE, 0),
		     PP_DMA_FAULT_UNMAPPED, true);
	CHECK_EQ(stats_of(dev).last_fault_size, 1000);
	expect_fault(dev, &errors,
		     pp_dma_unmap(dev, a + (1ULL << 30), 64,
				  DMA_FROM_DEVICE, 0),
		     PP_DMA_FAULT_UNMAPPED, false);
	/* Another size, another direction: the mapping stays. */
	expect_fault(dev, &errors,
		     pp_dma_unmap(dev, a, 999, DMA_FROM_DEVICE, 0),
		     PP_DMA_FAULT_SIZE, true);
	expect_fault(dev, &errors,
		     pp_dma_unmap(dev, a, 1000, DMA_BIDIRECTIONAL, 0),
		     PP_DMA_FAULT_DIR, true);
	CHECK_EQ(stats_of(dev).live_mappings, 1);
	CHECK_EQ(pp_dma_unmap(dev, a, 1000, DMA_FROM_DEVICE, 0), 0);
	/* Twice: named as such, with the site of the mapping it was. */
	expect_fault(dev, &errors,
		     pp_dma_unmap(dev, a, 1000, DMA_FROM_DEVICE, 0),
		     PP_DMA_FAULT_DOUBLE_UNMAP, true);
	s = stats_of(dev);
	CHECK_EQ(s.live_mappings, 0);
	CHECK_EQ(s.unmaps, 1);
	CHECK_EQ(s.faults, errors);
	pp_dma_dev_destroy(dev);
}

static void
test_sync_checks(bool iommu)
{
	struct device *dev = make(iommu, PP_DMA_F_QUIET | PP_DMA_F_DEBUG);
	uint64_t errors = 0;
	dma_addr_t a, b;

	a = map_here(dev, buf, 2048, DMA_FROM_DEVICE);
	b = map_here(dev, buf + 4096, 2048, DMA_BIDIRECTIONAL);
	CHECK(a != DMA_MAPPING_ERROR && b != DMA_MAPPING_ERROR);
	CHECK_EQ(pp_dma_sync_for_cpu(dev, a, 0, 2048, DMA_FROM_DEVICE), 0);
	CHECK_EQ(pp_dma_sync_for_device(dev, a, 2047, 1, DMA_FROM_DEVICE), 0);
	/* Past the end, by one byte. */
	expect_fault(dev, &errors,
		     pp_dma_sync_for_cpu(dev, a, 1024, 1025, DMA_FROM_DEVICE),
		     PP_DMA_FAULT_RANGE, true);
	expect_fault(dev, &errors,
		     pp_dma_sync_for_device(dev, a, 2047, 2, DMA_FROM_DEVICE),
		     PP_DMA_FAULT_RANGE, true);
	/* Wrong direction; a bidirectional mapping takes any. */
	expect_fault(dev, &errors,
		     pp_dma_sync_for_cpu(dev, a, 0, 64, DMA_TO_DEVICE),
		     PP_DMA_FAULT_DIR, true);
	CHECK_EQ(pp_dma_sync_for_cpu(dev, b, 0, 64, DMA_TO_DEVICE), 0);
	CHECK_EQ(pp_dma_sync_for_device(dev, b, 0, 64, DMA_FROM_DEVICE), 0);
	/* Nothing mapped there. */
	expect_fault(dev, &errors,
		     pp_dma_sync_for_cpu(dev, a + (1ULL << 30), 0, 64,
					 DMA_FROM_DEVICE),
		     PP_DMA_FAULT_UNMAPPED, false);
	CHECK_EQ(pp_dma_unmap(dev, a, 2048, DMA_FROM_DEVICE, 0), 0);
	CHECK_EQ(pp_dma_unmap(dev, b, 2048, DMA_BIDIRECTIONAL, 0), 0);
	expect_fault(dev, &errors,
		     pp_dma_sync_for_cpu(dev, a, 0, 64, DMA_FROM_DEVICE),
		     PP_DMA_FAULT_UNMAPPED, false);
	pp_dma_dev_destroy(dev);
}

static void
test_access_checks(bool iommu)
{
	struct device *dev = make(iommu, PP_DMA_F_QUIET | PP_DMA_F_DEBUG);
	unsigned char pkt[256], out[256];
	uint64_t errors = 0;
	dma_addr_t a, t;

	memset(pkt, 0x5a, sizeof(pkt));
	memset(buf, 0, 4096);
	a = map_here(dev, buf, 4096, DMA_FROM_DEVICE);
	t = map_here(dev, buf + 4096, 256, DMA_TO_DEVICE);
	CHECK(a != DMA_MAPPING_ERROR && t != DMA_MAPPING_ERROR);
	CHECK_EQ(pp_dma_dev_write(dev, a + 100, pkt, 256), 0);
	CHECK_EQ(pp_dma_dev_read(dev, t, out, 256), 0);
	/* Past the end; the wrong way. */
	expect_fault(dev, &errors, pp_dma_dev_write(dev, a + 3900, pkt, 256),
		     PP_DMA_FAULT_RANGE, true);
	expect_fault(dev, &errors, pp_dma_dev_read(dev, a, out, 16),
		     PP_DMA_FAULT_DIR, true);
	expect_fault(dev, &errors, pp_dma_dev_write(dev, t, pkt, 16),
		     PP_DMA_FAULT_DIR, true);

	/*
	 * Ownership, per byte: the CPU takes [100, 356) for reading; the
	 * device may still fill the bytes around it, not those.
	 */
	CHECK_EQ(pp_dma_sync_for_cpu(dev, a, 100, 256, DMA_FROM_DEVICE), 0);
	CHECK_EQ(pp_dma_dev_write(dev, a + 356, pkt, 256), 0);
	CHECK_EQ(pp_dma_dev_write(dev, a, pkt, 100), 0);
	memset(buf + 100, 0x11, 256);
	expect_fault(dev, &errors, pp_dma_dev_write(dev, a + 355, pkt, 1),
		     PP_DMA_FAULT_CPU_OWNED, true);
	expect_fault(dev, &errors, pp_dma_dev_write(dev, a + 1, pkt, 100),
		     PP_DMA_FAULT_CPU_OWNED, true);
	/* The faulting writes touched nothing. */
	CHECK_EQ(buf[100], 0x11);
	CHECK_EQ(buf[355], 0x11);
	/* Given back in part: that part is the device's again. */
	CHECK_EQ(pp_dma_sync_for_device(dev, a, 100, 200, DMA_FROM_DEVICE),
		 0);
	CHECK_EQ(pp_dma_dev_write(dev, a + 100, pkt, 200), 0);
	expect_fault(dev, &errors, pp_dma_dev_write(dev, a + 250, pkt, 51),
		     PP_DMA_FAULT_CPU_OWNED, true);
	CHECK_EQ(pp_dma_sync_for_device(dev, a, 0, 4096, DMA_FROM_DEVICE), 0);
	CHECK_EQ(pp_dma_dev_write(dev, a, pkt, 256), 0);

	/* After unmap: no mapping there any more. */
	CHECK_EQ(pp_dma_unmap(dev, a, 4096, DMA_FROM_DEVICE, 0), 0);
	CHECK_EQ(pp_dma_unmap(dev, t, 256, DMA_TO_DEVICE, 0), 0);
	expect_fault(dev, &errors, pp_dma_dev_write(dev, a + 8, pkt, 8),
		     PP_DMA_FAULT_UNMAPPED, true);
	pp_dma_dev_destroy(dev);
}

/* Ownership against a byte-per-byte model: random syncs either way, random
 * device writes, each write a fault exactly when it touches a CPU byte. */
static void
test_ownership_model(bool iommu)
{
	struct device *dev = make(iommu, PP_DMA_F_QUIET | PP_DMA_F_DEBUG);
	static bool cpu[4096];
	uint64_t seed = 88172645463325252ULL, faults = 0;
	unsigned char pkt[4096];
	dma_addr_t a;
	int i;

	memset(cpu, 0, sizeof(cpu));
	memset(pkt, 0x3c, sizeof(pkt));
	a = map_here(dev, buf, 4096, DMA_FROM_DEVICE);
	CHECK(a != DMA_MAPPING_ERROR);
	for (i = 0; i < 20000; i++) {
		size_t off, len, j;
		bool any = false;
		int op;

		seed ^= seed << 13;
		seed ^= seed >> 7;
		seed ^= seed << 17;
		op = (int)(seed % 3);
		off = (seed >> 8) % 4096;
		len = 1 + (seed >> 24) % (op == 2 ? 300 : 1500);
		if (len > 4096 - off)
			len = 4096 - off;
		if (op == 0 || op == 1) {
			CHECK_EQ(op == 0 ?
				 pp_dma_sync_for_cpu(dev, a, off, len,
						     DMA_FROM_DEVICE) :
				 pp_dma_sync_for_device(dev, a, off, len,
							DMA_FROM_DEVICE), 0);
			memset(cpu + off, op == 0, len);
			continue;
		}
		for (j = off; j < off + len; j++)
			any = any || cpu[j];
		CHECK_EQ(pp_dma_dev_write(dev, a + off, pkt, len),
			 any ? -EFAULT : 0);
		faults += any;
	}
	CHECK_EQ(stats_of(dev).debug_errors, faults);
	CHECK(faults > 100);
	CHECK_EQ(pp_dma_unmap(dev, a, 4096, DMA_FROM_DEVICE, 0), 0);
	pp_dma_dev_destroy(dev);
}

/* Run @fn in a child with stderr in a file: its exit status, and whether
 * the file has a line with every one of @needles (NULL-terminated). */
static int
in_child(void (*fn)(bool), bool arg, bool *found, const char *const *needles)
{
	FILE *tmp = tmpfile();
	char line[512];
	int status;
	pid_t pid;

	CHECK(tmp != NULL);
	fflush(stderr);
	pid = fork();
	CHECK(pid >= 0);
	if (pid == 0) {
		dup2(fileno(tmp), STDERR_FILENO);
		fn(arg);
		fflush(stderr);
		_exit(0);
	}
	CHECK_EQ(waitpid(pid, &status, 0), pid);
	rewind(tmp);
	*found = false;
	while (fgets(line, sizeof(line), tmp) != NULL) {
		bool all = true;
		int i;

		for (i = 0; needles[i] != NULL; i++)
			all = all && strstr(line, needles[i]) != NULL;
		*found = *found || all;
	}
	fclose(tmp);
	return status;
}

static void
leak_one(bool fatal)
{
	struct device *dev = make(false, PP_DMA_F_DEBUG |
					 (fatal ? PP_DMA_F_FATAL : 0));

	CHECK(map_here(dev, buf, 512, DMA_TO_DEVICE) != DMA_MAPPING_ERROR);
	pp_dma_dev_destroy(dev);
}

static void
double_unmap_fatal(bool iommu)
{
	struct device *dev = make(iommu, PP_DMA_F_DEBUG | PP_DMA_F_FATAL);
	dma_addr_t a = map_here(dev, buf, 512, DMA_FROM_DEVICE);

	CHECK(a != DMA_MAPPING_ERROR);
	CHECK_EQ(pp_dma_unmap(dev, a, 512, DMA_FROM_DEVICE, 0), 0);
	(void)pp_dma_unmap(dev, a, 512, DMA_FROM_DEVICE, 0);
	_exit(3);	/* not reached: the fault aborts */
}

static void
test_reports(void)
{
	static const char *const leak[] = {
		"device dbg0 destroyed with mapping", "size 512",
		"DMA_TO_DEVICE still live, mapped at", NULL };
	static const char *const dbl[] = {
		"DMA-API debug: device dbg0:",
		"unmap of a mapping already unmapped", "size 512",
		"mapping made at", ", aborting", NULL };
	bool found;
	int st;

	/* The leak is listed with its size, direction and site; a fatal
	 * device ends the process after the list. */
	st = in_child(leak_one, false, &found, leak);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	CHECK(found);
	st = in_child(leak_one, true, &found, leak);
	CHECK(WIFSIGNALED(st) && WTERMSIG(st) == SIGABRT);
	CHECK(found);
	/* The first debug error is fatal, reported before the abort. */
	st = in_child(double_unmap_fatal, false, &found, dbl);
	CHECK(WIFSIGNALED(st) && WTERMSIG(st) == SIGABRT);
	CHECK(found);
	st = in_child(double_unmap_fatal, true, &found, dbl);
	CHECK(WIFSIGNALED(st) && WTERMSIG(st) == SIGABRT);
	CHECK(found);
}

static int
custom_unmap(struct device *dev, dma_addr_t addr, size_t size,
	     enum dma_data_direction dir, unsigned long attrs)
{
	(void)dev, (void)addr, (void)size, (void)dir, (void)attrs;
	return 0;
}

static dma_addr_t
custom_map(struct device *dev, void *vaddr, size_t size,
	   enum dma_data_direction dir, unsigned long attrs)
{
	(void)dev, (void)size, (void)dir, (void)attrs;
	return (dma_addr_t)((uintptr_t)vaddr - (uintptr_t)buf + 0x10000);
}

static void
test_flags(void)
{
	static const unsigned int bad[] = {
		PP_DMA_F_POISON, PP_DMA_F_POISON | PP_DMA_F_DEBUG,
		PP_DMA_F_BOUNCE | PP_DMA_F_COHERENT };
	struct pp_dma_ops ops = { .sz = sizeof(ops), .map_page = custom_map,
				  .unmap_page = custom_unmap };
	struct pp_dma_stats small;
	struct device *dev;
	unsigned int i;
	uint64_t errors = 0;
	dma_addr_t a;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		PP_OPTS(pp_dma_dev_opts, o, .flags = bad[i]);
		PP_OPTS(pp_iommu_opts, io, .flags = bad[i]);

		errno = 0;
		CHECK(pp_dma_identity_create(&o) == NULL && errno == EINVAL);
		errno = 0;
		CHECK(pp_iommu_create(&io) == NULL && errno == EINVAL);
	}
	/* A custom device checks, but never bounces: its map op may take
	 * only its own memory. */
	{
		PP_OPTS(pp_dma_dev_opts, o, .flags = PP_DMA_F_BOUNCE);

		errno = 0;
		CHECK(pp_dma_dev_create_ops(&ops, NULL, &o) == NULL &&
		      errno == EINVAL);
	}
	{
		PP_OPTS(pp_dma_dev_opts, o,
			.flags = PP_DMA_F_DEBUG | PP_DMA_F_QUIET);

		dev = pp_dma_dev_create_ops(&ops, NULL, &o);
	}
	CHECK(dev != NULL);
	a = map_here(dev, buf + 8, 100, DMA_FROM_DEVICE);
	CHECK_EQ(a, 0x10008);
	expect_fault(dev, &errors,
		     pp_dma_unmap(dev, a, 99, DMA_FROM_DEVICE, 0),
		     PP_DMA_FAULT_SIZE, true);
	CHECK_EQ(pp_dma_unmap(dev, a, 100, DMA_FROM_DEVICE, 0), 0);

	/* A caller built against version 1 gets exactly version 1's
	 * fields: nothing is written past its sz. */
	memset(&small, 0xee, sizeof(small));
	small.sz = offsetof(struct pp_dma_stats, unbind_live_mappings) +
		   sizeof(small.unbind_live_mappings);
	CHECK_EQ(pp_dma_dev_get_stats(dev, &small), 0);
	CHECK_EQ(small.faults, 1);
	CHECK_EQ(small.debug_errors, 0xeeeeeeeeeeeeeeeeULL);
	CHECK_EQ(small.last_fault_site, 0xeeeeeeeeeeeeeeeeULL);
	pp_dma_dev_destroy(dev);
}

int
main(void)
{
	int iommu;

	for (iommu = 0; iommu <= 1; iommu++) {
		test_unmap_checks(iommu);
		test_sync_checks(iommu);
		test_access_checks(iommu);
		test_ownership_model(iommu);
	}
	test_reports();
	test_flags();
	return T_EXIT_PASS;
}
