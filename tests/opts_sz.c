/* SPDX-License-Identifier: MIT */
/*
 * Copyright (c) 2026 The pagepool authors
 *
 * Option structs (PP_OPTS) with a hostile sz: every constructor that takes
 * one reads at most PP_OPTS_MAX_SZ (4096) bytes of it, so sz = SIZE_MAX,
 * or anything above the bound, fails with EINVAL instead of scanning past
 * the caller's struct for a non-zero byte. Each struct is placed right
 * before an inaccessible page, so a read past it faults in every build.
 * A longer struct with a zero tail is still accepted within the bound, and
 * a non-zero tail byte is still refused.
 */
#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>

#include <pagepool/dma.h>
#include <pagepool/opts.h>
#include <pagepool/page.h>

#include "helpers.h"

#define GUARD_PAGE 4096

static unsigned char *area;

/* @len bytes of zeroes ending where the inaccessible page starts. */
static void *
at_guard(size_t len)
{
	memset(area, 0, GUARD_PAGE);
	return area + GUARD_PAGE - len;
}

static dma_addr_t
map_page(struct device *dev, void *vaddr, size_t size,
	 enum dma_data_direction dir, unsigned long attrs)
{
	(void)dev, (void)size, (void)dir, (void)attrs;
	return (dma_addr_t)(uintptr_t)vaddr;
}

static int
unmap_page(struct device *dev, dma_addr_t addr, size_t size,
	   enum dma_data_direction dir, unsigned long attrs)
{
	(void)dev, (void)addr, (void)size, (void)dir, (void)attrs;
	return 0;
}

#define EXPECT_EINVAL(call)                                                  \
	do {                                                                 \
		errno = 0;                                                   \
		CHECK((call) == NULL);                                       \
		CHECK_EQ(errno, EINVAL);                                     \
	} while (0)

static void
test_size_max(void)
{
	struct pp_dma_dev_opts *d;
	struct pp_iommu_opts *io;
	struct pp_mem_source_opts *m;
	struct pp_dma_ops *ops;

	d = at_guard(sizeof(*d));
	d->sz = SIZE_MAX;
	EXPECT_EINVAL(pp_dma_identity_create(d));

	io = at_guard(sizeof(*io));
	io->sz = SIZE_MAX;
	EXPECT_EINVAL(pp_iommu_create(io));

	m = at_guard(sizeof(*m));
	m->sz = SIZE_MAX;
	EXPECT_EINVAL(pp_mem_source_create(m));

	ops = at_guard(sizeof(*ops));
	ops->sz = SIZE_MAX;
	ops->map_page = map_page;
	ops->unmap_page = unmap_page;
	EXPECT_EINVAL(pp_dma_dev_create_ops(ops, NULL, NULL));

	/* Just above the bound: refused without reading the tail. */
	d = at_guard(sizeof(*d));
	d->sz = 4097;
	EXPECT_EINVAL(pp_dma_identity_create(d));
	m = at_guard(sizeof(*m));
	m->sz = (size_t)1 << 40;
	EXPECT_EINVAL(pp_mem_source_create(m));
}

static void
test_within_bound(void)
{
	/* A struct from a "newer" caller: 4096 bytes, tail all zero. */
	unsigned char *buf = at_guard(GUARD_PAGE);
	struct pp_dma_dev_opts *d = (void *)buf;
	struct pp_mem_source_opts *m = (void *)buf;
	struct pp_mem_source *src;
	struct device *dev;

	d->sz = 4096;
	dev = pp_dma_identity_create(d);
	CHECK(dev != NULL);
	pp_dma_dev_destroy(dev);
	buf[4095] = 1;
	EXPECT_EINVAL(pp_dma_identity_create(d));

	buf = at_guard(GUARD_PAGE);
	m = (void *)buf;
	m->sz = 4096;
	src = pp_mem_source_create(m);
	CHECK(src != NULL);
	pp_mem_source_destroy(src);
	buf[sizeof(*m)] = 1;
	EXPECT_EINVAL(pp_mem_source_create(m));
}

int
main(void)
{
	area = mmap(NULL, 2 * GUARD_PAGE, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	CHECK(area != MAP_FAILED);
	CHECK_EQ(mprotect(area + GUARD_PAGE, GUARD_PAGE, PROT_NONE), 0);
	test_size_max();
	test_within_bound();
	munmap(area, 2 * GUARD_PAGE);
	return T_EXIT_PASS;
}
