/* SPDX-License-Identifier: MIT */
/*
 * Copyright (c) 2026 The pagepool authors
 *
 * page_pool_create() validation and set-up: every bad parameter the kernel
 * rejects is rejected with EINVAL, the ring is sized and clamped as in Linux
 * 6.18, ids are unique, user references and the disconnect callback work,
 * destroy of an idle pool frees everything at once, and an allocation
 * failure injected at every allocation point of create leaves nothing
 * behind.
 */
#include <errno.h>
#include <string.h>

#include <pagepool/fault.h>
#include <pagepool/page_pool.h>

#include "helpers.h"

static struct page_pool *
create(const struct page_pool_params *pp)
{
	errno = 0;
	return page_pool_create(pp);
}

static void
expect_einval(const struct page_pool_params *pp, const char *what)
{
	struct page_pool *pool = create(pp);

	if (pool != NULL || errno != EINVAL) {
		fprintf(stderr, "%s: accepted (errno %d)\n", what, errno);
		exit(T_EXIT_FAIL);
	}
}

static void
test_validation(struct device *dev)
{
	struct napi_struct idle = { 0 };
	struct page_pool_params pp;

	CHECK(create(NULL) == NULL && errno == EINVAL);

	memset(&pp, 0, sizeof(pp));
	pp.flags = 1u << 4;
	expect_einval(&pp, "unknown flag");

	memset(&pp, 0, sizeof(pp));
	pp.order = MAX_PAGE_ORDER + 1;
	expect_einval(&pp, "order too large");

	memset(&pp, 0, sizeof(pp));
	pp.flags = PP_FLAG_DMA_MAP;
	pp.dma_dir = DMA_FROM_DEVICE;
	expect_einval(&pp, "DMA_MAP without a device");

	pp.dev = dev;
	pp.dma_dir = DMA_TO_DEVICE;
	expect_einval(&pp, "DMA_MAP with DMA_TO_DEVICE");
	pp.dma_dir = DMA_NONE;
	expect_einval(&pp, "DMA_MAP with DMA_NONE");

	memset(&pp, 0, sizeof(pp));
	pp.flags = PP_FLAG_DMA_SYNC_DEV;
	pp.max_len = 2048;
	expect_einval(&pp, "SYNC_DEV without DMA_MAP");

	pp.flags = PP_FLAG_DMA_MAP | PP_FLAG_DMA_SYNC_DEV;
	pp.dev = dev;
	pp.dma_dir = DMA_BIDIRECTIONAL;
	pp.max_len = 0;
	expect_einval(&pp, "SYNC_DEV with max_len 0");
	pp.max_len = PAGE_SIZE;
	pp.offset = 256;
	expect_einval(&pp, "offset + max_len beyond the page");

	/* Without SYNC_DEV too, the offset must leave room in the block. */
	memset(&pp, 0, sizeof(pp));
	pp.flags = PP_FLAG_DMA_MAP;
	pp.dev = dev;
	pp.dma_dir = DMA_FROM_DEVICE;
	pp.offset = PAGE_SIZE;
	expect_einval(&pp, "offset at the end of the page");
	pp.offset = ~0u;
	expect_einval(&pp, "offset far past the page");
	pp.flags = 0;
	pp.dev = NULL;
	pp.order = 2;
	pp.offset = 4 * PAGE_SIZE;
	expect_einval(&pp, "offset past an order-2 block");

	memset(&pp, 0, sizeof(pp));
	pp.nid = 4096;
	expect_einval(&pp, "node that does not exist");
	pp.nid = -5;
	expect_einval(&pp, "negative node");

	memset(&pp, 0, sizeof(pp));
	pp.napi = &idle;
	expect_einval(&pp, "napi without an owner");
}

static void
test_ring_size(void)
{
	static const struct {
		unsigned int pool_size;
		int ring;
	} cases[] = {
		{ 0, 1024 }, { 1, 1 }, { 256, 256 }, { 16384, 16384 },
		{ 16385, 16384 }, { 100000, 16384 },
	};
	unsigned int i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct page_pool_params pp = {
			.pool_size = cases[i].pool_size,
			.nid = NUMA_NO_NODE,
		};
		struct page_pool *pool = create(&pp);

		CHECK(pool != NULL);
		CHECK_EQ(pool->ring.size, cases[i].ring);
		page_pool_destroy(pool);
	}
}

static int disconnected;

static void
disconnect(void *pool)
{
	CHECK(pool != NULL);
	disconnected++;
}

static void
test_ids_and_refs(void)
{
	struct page_pool_params pp = { .nid = NUMA_NO_NODE };
	struct page_pool *a = create(&pp), *b = create(&pp);

	CHECK(a != NULL && b != NULL);
	CHECK(page_pool_id(a) >= 1 && page_pool_id(b) >= 1);
	CHECK(page_pool_id(a) != page_pool_id(b));

	/* The memory model's extra reference: two destroys free it. */
	page_pool_use_xdp_mem(a, disconnect, NULL);
	page_pool_destroy(a);
	CHECK_EQ(disconnected, 0);
	page_pool_destroy(a);
	CHECK_EQ(disconnected, 1);

	page_pool_get(b);
	page_pool_destroy(b);
	page_pool_destroy(b);
	page_pool_destroy(NULL);
	page_pool_get(NULL);
}

static void
test_create_faults(struct device *dev)
{
	struct page_pool_params pp = {
		.flags = PP_FLAG_DMA_MAP | PP_FLAG_DMA_SYNC_DEV,
		.dev = dev,
		.dma_dir = DMA_FROM_DEVICE,
		.max_len = PAGE_SIZE,
		.nid = NUMA_NO_NODE,
	};
	long n;

	for (n = 0;; n++) {
		struct page_pool *pool;

		pp_fault_inject_alloc(n, 1);
		pool = create(&pp);
		if (pp_fault_injected() == 0) {
			CHECK(pool != NULL);
			page_pool_destroy(pool);
			break;
		}
		CHECK(pool == NULL);
		CHECK_EQ(errno, ENOMEM);
	}
	pp_fault_inject_alloc(-1, 0);
	/* pool, ring queue, DMA tracking table */
	CHECK_EQ(n, 3);
}

int
main(void)
{
	struct device *dev = pp_dma_identity_create(NULL);

	CHECK(dev != NULL);
	test_validation(dev);
	test_ring_size();
	test_ids_and_refs();
	test_create_faults(dev);
	pp_dma_dev_destroy(dev);
	return T_EXIT_PASS;
}
