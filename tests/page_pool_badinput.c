/* SPDX-License-Identifier: MIT */
/*
 * Copyright (c) 2026 The pagepool authors
 *
 * page_pool: bad input on the out-of-line entry points. A NULL pool is
 * refused the way the other pool functions refuse it (NULL with errno
 * EINVAL from allocations, 0 from counters, nothing done by void calls),
 * and nothing crashes. The inline fast paths (page_pool_alloc_pages(),
 * page_pool_put_page() and relatives) are not covered: like the kernel's,
 * they take the pool on trust.
 */
#include <errno.h>
#include <string.h>

#include <pagepool/page_pool.h>

#include "helpers.h"

static void
test_null_pool(void)
{
	CHECK_EQ(page_pool_inflight(NULL), 0);
	errno = 0;
	CHECK(__page_pool_alloc_pages_slow(NULL, GFP_KERNEL) == NULL);
	CHECK_EQ(errno, EINVAL);
	errno = 0;
	CHECK(__page_pool_alloc_pages_slow(NULL, GFP_ATOMIC) == NULL);
	CHECK_EQ(errno, EINVAL);
}

int
main(void)
{
	test_null_pool();
	return T_EXIT_PASS;
}
