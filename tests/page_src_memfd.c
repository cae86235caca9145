/* SPDX-License-Identifier: MIT */
/*
 * Copyright (c) 2026 The pagepool authors
 *
 * PP_MEM_MEMFD: pages live in a memfd that another mapping sees. A second
 * mapping of the fd at the page's offset shows the same bytes both ways,
 * a forked child mapping it afresh reads what the parent wrote and the
 * parent reads the child's answer, across more than one region.
 */
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "page_helpers.h"

static void
fill(void *p, size_t len, uint32_t seed)
{
	uint32_t *w = p;
	size_t i;

	for (i = 0; i < len / sizeof(*w); i++)
		w[i] = seed ^ (uint32_t)(i * 2654435761u);
}

static int
check(const void *p, size_t len, uint32_t seed)
{
	const uint32_t *w = p;
	size_t i;

	for (i = 0; i < len / sizeof(*w); i++)
		if (w[i] != (seed ^ (uint32_t)(i * 2654435761u)))
			return 0;
	return 1;
}

/* In a child: map @fd at @off, check the parent's bytes, answer. */
static int
child(int fd, uint64_t off, size_t len)
{
	void *m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
		       (off_t)off);

	if (m == MAP_FAILED || !check(m, len, 0x1234))
		return 1;
	fill(m, len, 0xbeef);
	munmap(m, len);
	return 0;
}

int
main(void)
{
	PP_OPTS(pp_mem_source_opts, o, .kind = PP_MEM_MEMFD,
		.name = "pagepool-test");
	struct pp_mem_source *src = pp_mem_source_create(&o);
	struct page *p, *big;
	uint64_t off, off_big;
	size_t len = 2 * PAGE_SIZE;
	void *m;
	pid_t pid;
	int fd, status;

	CHECK(src != NULL);
	CHECK_EQ(pp_mem_source_kind(src), PP_MEM_MEMFD);
	fd = pp_mem_source_fd(src);
	CHECK(fd >= 0);

	p = alloc_pages_src(src, NUMA_NO_NODE, GFP_KERNEL, 1);
	CHECK(p != NULL);
	CHECK_EQ(pp_mem_source_page_offset(src, p, &off), 0);
	CHECK_EQ(off % PAGE_SIZE, 0);
	CHECK(off < PP_REGION_SIZE);
	/* Tail pages have their own offsets. */
	CHECK_EQ(pp_mem_source_page_offset(src, p + 1, &off_big), 0);
	CHECK_EQ(off_big, off + PAGE_SIZE);

	/* Same process, second mapping: both directions. */
	fill(page_address(p), len, 0x1234);
	m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
		 (off_t)off);
	CHECK(m != MAP_FAILED);
	CHECK(check(m, len, 0x1234));
	fill(m, len, 0x5678);
	CHECK(check(page_address(p), len, 0x5678));
	fill(page_address(p), len, 0x1234);

	/* Another process. */
	pid = fork();
	CHECK(pid >= 0);
	if (pid == 0)
		_exit(child(fd, off, len));
	CHECK_EQ(waitpid(pid, &status, 0), pid);
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	CHECK(check(page_address(p), len, 0xbeef));
	CHECK(check(m, len, 0xbeef));
	munmap(m, len);

	/* A second region sits further into the file. */
	big = alloc_pages_src(src, NUMA_NO_NODE, GFP_KERNEL, MAX_PAGE_ORDER);
	CHECK(big != NULL);
	CHECK_EQ(pp_mem_source_page_offset(src, big, &off_big), 0);
	CHECK_EQ(off_big, PP_REGION_SIZE);
	fill(page_address(big), PP_REGION_SIZE, 0x1234);
	pid = fork();
	CHECK(pid >= 0);
	if (pid == 0)
		_exit(child(fd, off_big, PP_REGION_SIZE));
	CHECK_EQ(waitpid(pid, &status, 0), pid);
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	CHECK(check(page_address(big), PP_REGION_SIZE, 0xbeef));

	put_page(big);
	put_page(p);
	t_check_whole(src);
	CHECK_EQ(pp_mem_source_destroy(src), 0);
	return T_EXIT_PASS;
}
