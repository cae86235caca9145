/* SPDX-License-Identifier: MIT */
/*
 * Copyright (c) 2026 The pagepool authors
 *
 * PP_MEM_HUGETLB: with no 2 MiB hugepages reserved, creation fails with
 * ENOMEM (silently with PP_MEM_F_NOWARN), and PP_MEM_F_HUGETLB_FALLBACK
 * gives a working anonymous source instead. With hugepages (reserved by the
 * machine, or by this test as root: two pages via vm.nr_hugepages, restored
 * on exit), blocks really are backed by 2 MiB pages and a source stops at
 * what is reserved. Skips (77) if neither case can be set up.
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

#include "page_helpers.h"

#define NR_HUGEPAGES "/proc/sys/vm/nr_hugepages"

static long saved_nr = -1;

static long
meminfo(const char *key)
{
	char line[256];
	long v = -1;
	FILE *f = fopen("/proc/meminfo", "r");

	if (f == NULL)
		return -1;
	while (fgets(line, sizeof(line), f) != NULL)
		if (strncmp(line, key, strlen(key)) == 0) {
			v = strtol(line + strlen(key), NULL, 10);
			break;
		}
	fclose(f);
	return v;
}

static long
read_nr(void)
{
	long v = -1;
	FILE *f = fopen(NR_HUGEPAGES, "r");

	if (f == NULL)
		return -1;
	if (fscanf(f, "%ld", &v) != 1)
		v = -1;
	fclose(f);
	return v;
}

static int
write_nr(long v)
{
	FILE *f = fopen(NR_HUGEPAGES, "w");
	int ok;

	if (f == NULL)
		return -1;
	ok = fprintf(f, "%ld\n", v) > 0;
	return (fclose(f) == 0 && ok) ? 0 : -1;
}

static void
restore_nr(void)
{
	if (saved_nr >= 0)
		write_nr(saved_nr);
	saved_nr = -1;
}

/* Kernel page size, in kB, of the mapping containing @addr (-1: unknown). */
static long
kernel_page_kb(const void *addr)
{
	unsigned long lo, hi;
	char line[512];
	int inside = 0;
	long kb = -1;
	FILE *f = fopen("/proc/self/smaps", "r");

	if (f == NULL)
		return -1;
	while (fgets(line, sizeof(line), f) != NULL) {
		/* Mapping headers start "lo-hi "; field names never parse
		 * as two hex numbers joined by '-'. */
		if (sscanf(line, "%lx-%lx ", &lo, &hi) == 2) {
			inside = (uintptr_t)addr >= lo && (uintptr_t)addr < hi;
			continue;
		}
		if (inside && strncmp(line, "KernelPageSize:", 15) == 0) {
			kb = strtol(line + 15, NULL, 10);
			break;
		}
	}
	fclose(f);
	return kb;
}

static void
test_none_reserved(void)
{
	PP_OPTS(pp_mem_source_opts, quiet, .kind = PP_MEM_HUGETLB,
		.flags = PP_MEM_F_NOWARN);
	PP_OPTS(pp_mem_source_opts, fb, .kind = PP_MEM_HUGETLB,
		.flags = PP_MEM_F_HUGETLB_FALLBACK);
	struct pp_mem_source *src;
	struct page *p;

	errno = 0;
	CHECK(pp_mem_source_create(&quiet) == NULL);
	CHECK_EQ(errno, ENOMEM);
	src = pp_mem_source_create(&fb);
	CHECK(src != NULL);
	CHECK_EQ(pp_mem_source_kind(src), PP_MEM_ANON);
	p = alloc_pages_src(src, NUMA_NO_NODE, GFP_KERNEL, 9);
	CHECK(p != NULL);
	memset(page_address(p), 1, PAGE_SIZE << 9);
	put_page(p);
	t_check_whole(src);
	CHECK_EQ(pp_mem_source_destroy(src), 0);
}

static void
test_reserved(long free_pages)
{
	PP_OPTS(pp_mem_source_opts, o, .kind = PP_MEM_HUGETLB);
	struct pp_mem_source *src = pp_mem_source_create(&o);
	struct page *p, *q;
	long kb;

	CHECK(src != NULL);
	CHECK_EQ(pp_mem_source_kind(src), PP_MEM_HUGETLB);
	p = alloc_pages_src(src, NUMA_NO_NODE, GFP_KERNEL, 9);
	q = alloc_pages_src(src, NUMA_NO_NODE, GFP_KERNEL, 0);
	CHECK(p != NULL && q != NULL);
	CHECK_EQ((uintptr_t)page_address(p) & ((2UL << 20) - 1), 0);
	memset(page_address(p), 1, PAGE_SIZE << 9);
	memset(page_address(q), 2, PAGE_SIZE);
	kb = kernel_page_kb(page_address(p));
	if (kb >= 0)
		CHECK_EQ(kb, 2048);
	kb = kernel_page_kb(page_address(q));
	if (kb >= 0)
		CHECK_EQ(kb, 2048);
	if (free_pages == 2) {
		/* Both reserved pages are this source's first region. */
		errno = 0;
		CHECK(alloc_pages_src(src, NUMA_NO_NODE,
				      GFP_KERNEL | __GFP_NOWARN,
				      MAX_PAGE_ORDER) == NULL);
		CHECK_EQ(errno, ENOMEM);
	}
	put_page(p);
	put_page(q);
	t_check_whole(src);
	CHECK_EQ(pp_mem_source_destroy(src), 0);
}

int
main(void)
{
	long free_pages = meminfo("HugePages_Free:");
	char lockpath[256];
	int ran = 0, fd;

	if (free_pages < 0)
		return T_EXIT_SKIP;		/* no hugetlb support */
	if (free_pages < 2) {
		test_none_reserved();
		ran = 1;
	} else {
		test_reserved(free_pages);
		return T_EXIT_PASS;
	}
	if (geteuid() != 0)
		return ran ? T_EXIT_PASS : T_EXIT_SKIP;

	/* Reserve two pages ourselves; serialise with other runs of this
	 * test so restores cannot interleave. */
	snprintf(lockpath, sizeof(lockpath), "%s/pagepool-hugetlb-test.lock",
		 P_tmpdir);
	fd = open(lockpath, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	if (fd < 0 || flock(fd, LOCK_EX) != 0)
		return ran ? T_EXIT_PASS : T_EXIT_SKIP;
	saved_nr = read_nr();
	if (saved_nr < 0) {
		close(fd);
		return ran ? T_EXIT_PASS : T_EXIT_SKIP;
	}
	atexit(restore_nr);
	if (write_nr(saved_nr + 2) != 0 ||
	    (free_pages = meminfo("HugePages_Free:")) < 2) {
		restore_nr();
		close(fd);
		return ran ? T_EXIT_PASS : T_EXIT_SKIP;
	}
	test_reserved(free_pages);
	restore_nr();
	close(fd);
	return T_EXIT_PASS;
}
