/* SPDX-License-Identifier: MIT */
/*
 * Copyright (c) 2026 The pagepool authors
 *
 * NUMA placement: every node id the system has can be asked for, and the
 * page comes back recorded (page_to_nid()) and, where the kernel reports
 * it, placed on that node; NUMA_NO_NODE means the calling thread's node;
 * ids past the last node are refused. This machine kind has one node, so
 * the many-node paths run with one; the code is the same.
 */
#define _GNU_SOURCE
#include <sched.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "page_helpers.h"

#ifndef MPOL_F_NODE
#define MPOL_F_NODE (1 << 0)
#define MPOL_F_ADDR (1 << 1)
#endif

/* The node the kernel placed @addr on, or -1 if it will not say. */
static int
kernel_node_of(void *addr)
{
	int nid = -1;

	if (syscall(SYS_get_mempolicy, &nid, NULL, 0UL, addr,
		    (unsigned long)(MPOL_F_NODE | MPOL_F_ADDR)) != 0)
		return -1;
	return nid;
}

int
main(void)
{
	int nodes = _pp_numa_nr_nodes();
	struct page *p, *q;
	int nid, knid;

	CHECK(nodes >= 1);
	for (nid = 0; nid < nodes; nid++) {
		p = alloc_pages_node(nid, GFP_KERNEL, 0);
		q = alloc_pages_node(nid, GFP_KERNEL, 4);
		CHECK(p != NULL && q != NULL);
		CHECK_EQ(page_to_nid(p), nid);
		CHECK_EQ(page_to_nid(q), nid);
		CHECK_EQ(page_to_nid(q + 15), nid);
		memset(page_address(p), 1, PAGE_SIZE);	/* fault it in */
		knid = kernel_node_of(page_address(p));
		if (knid >= 0)
			CHECK_EQ(knid, nid);
		put_page(p);
		put_page(q);
	}
	p = alloc_pages_node(NUMA_NO_NODE, GFP_KERNEL, 0);
	CHECK(p != NULL);
	CHECK(page_to_nid(p) >= 0 && page_to_nid(p) < nodes);
	if (nodes == 1)
		CHECK_EQ(page_to_nid(p), 0);
	put_page(p);
	p = alloc_pages(GFP_KERNEL, 0);
	CHECK(p != NULL);
	CHECK(page_to_nid(p) >= 0 && page_to_nid(p) < nodes);
	put_page(p);

	errno = 0;
	CHECK(alloc_pages_node(nodes, GFP_KERNEL, 0) == NULL);
	CHECK_EQ(errno, EINVAL);
	errno = 0;
	CHECK(alloc_pages_node(-7, GFP_KERNEL, 0) == NULL);
	CHECK_EQ(errno, EINVAL);
	return T_EXIT_PASS;
}
