/* SPDX-License-Identifier: MIT */
/*
 * Copyright (c) 2026 The pagepool authors
 *
 * page_pool_destroy() and the DMA ops of its device (issue 8, section 1):
 * once destroy returns, no thread may be inside, or enter later, any DMA op
 * of the pool's device, so the driver may unbind and free the device at
 * once (seed 003's sequence). A custom device with a slow op makes the
 * window deterministic: another thread enters the op (an unmap from a
 * release, a sync for the device from a recycle, a sync for the CPU), the
 * main thread destroys the pool while the op runs, and checks that no op
 * is still running when destroy returns. Then it unbinds and destroys the
 * device; the op's late read of the device's private data is a
 * heap-use-after-free under ASan if destroy did not wait.
 *
 * Guards destroy waiting for the device's users (the unmapper count in
 * src/net/core/page_pool_dma.c). With that wait removed the unmap and
 * sync-for-CPU cases fail: destroy returns with the op still running.
 * The sync-for-device case guards the older syncer count.
 *
 * The late-unmap case (needs -Dtest_hooks=true) is the other half: an op
 * that starts after the scrub revoked the device and drained its users,
 * but before the scrub took the page's slot (destroy held there by the
 * delay point PP_TP_DMA_SCRUB_REVOKED), must find the device revoked and
 * leave the page to the scrub. Without dev_enter()'s test of revoked it
 * takes the slot, unmaps, and is still inside the device's op when
 * destroy returns.
 */
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <pagepool/atomic_pvt.h>
#include <pagepool/dma.h>
#include <pagepool/page_pool.h>

#include "../src/lib/test_hooks.h"
#include "page_pool_helpers.h"

enum slow_op { SLOW_UNMAP, SLOW_SYNC_DEV, SLOW_SYNC_CPU };

static const char *const op_names[] = { "unmap", "sync for device",
					"sync for CPU" };

#define MAGIC 0x5eed0003u

/* The device's private data; freed by pp_dma_dev_destroy(). */
struct slowdev {
	unsigned int magic;
};

/* Test state, outside the device so it outlives it. */
static int slow_kind = -1;	/* enum slow_op to slow down, -1: none */
static int inside;		/* threads inside a slow op */
static int entered;		/* a slow op has started */

static void
slow_op(struct device *dev, int kind)
{
	struct slowdev *sd = pp_dma_dev_priv(dev);
	struct timespec ts = { 0, 200 * 1000 * 1000 };

	if (__atomic_load_n(&slow_kind, __ATOMIC_ACQUIRE) != kind)
		return;
	/* One slow op per case: the first caller. */
	if (__atomic_exchange_n(&slow_kind, -1, __ATOMIC_ACQ_REL) != kind)
		return;
	__atomic_fetch_add(&inside, 1, __ATOMIC_SEQ_CST);
	__atomic_store_n(&entered, 1, __ATOMIC_SEQ_CST);
	/* The device finishing its work: destroy must wait for it. */
	nanosleep(&ts, NULL);
	/* After a premature destroy this reads freed memory. */
	CHECK_EQ(sd->magic, MAGIC);
	__atomic_fetch_sub(&inside, 1, __ATOMIC_SEQ_CST);
}

static dma_addr_t
op_map(struct device *dev, void *vaddr, size_t size,
       enum dma_data_direction dir, unsigned long attrs)
{
	(void)dev;
	(void)size;
	(void)dir;
	(void)attrs;
	return (dma_addr_t)(uintptr_t)vaddr;
}

static int
op_unmap(struct device *dev, dma_addr_t addr, size_t size,
	 enum dma_data_direction dir, unsigned long attrs)
{
	(void)addr;
	(void)size;
	(void)dir;
	(void)attrs;
	slow_op(dev, SLOW_UNMAP);
	return 0;
}

static int
op_sync_dev(struct device *dev, dma_addr_t addr, size_t size,
	    enum dma_data_direction dir)
{
	(void)addr;
	(void)size;
	(void)dir;
	slow_op(dev, SLOW_SYNC_DEV);
	return 0;
}

static int
op_sync_cpu(struct device *dev, dma_addr_t addr, size_t size,
	    enum dma_data_direction dir)
{
	(void)addr;
	(void)size;
	(void)dir;
	slow_op(dev, SLOW_SYNC_CPU);
	return 0;
}

static void
op_release(struct device *dev)
{
	struct slowdev *sd = pp_dma_dev_priv(dev);

	sd->magic = 0;
	free(sd);
}

struct job {
	struct page_pool *pool;
	struct page *page;
	int kind;
};

/* The other thread: the stack giving the page back, or the driver's RX
 * path syncing it for the CPU. */
static void *
worker(void *arg)
{
	struct job *j = arg;

	switch (j->kind) {
	case SLOW_UNMAP:
		/* Shared: the pool lets go of it (release path, unmap). */
		get_page(j->page);
		page_pool_put_full_page(j->pool, j->page, false);
		put_page(j->page);
		break;
	case SLOW_SYNC_DEV:
		/* Recycled from another thread: synced for the device. */
		page_pool_put_full_page(j->pool, j->page, false);
		break;
	case SLOW_SYNC_CPU:
		page_pool_dma_sync_for_cpu(j->pool, j->page, 0, 64);
		page_pool_put_full_page(j->pool, j->page, false);
		break;
	}
	return NULL;
}

static const struct pp_dma_ops slow_ops = {
	.sz = sizeof(slow_ops),
	.map_page = op_map,
	.unmap_page = op_unmap,
	.sync_single_for_device = op_sync_dev,
	.sync_single_for_cpu = op_sync_cpu,
	.release = op_release,
};

static const struct page_pool_params slow_pp = {
	.flags = PP_FLAG_DMA_MAP | PP_FLAG_DMA_SYNC_DEV,
	.dma_dir = DMA_FROM_DEVICE,
	.max_len = PAGE_SIZE,
	.nid = NUMA_NO_NODE,
	.defer_ms = 1,
	.defer_warn_ms = 600000,
};

static struct device *
slow_dev_create(void)
{
	PP_OPTS(pp_dma_dev_opts, o, .flags = PP_DMA_F_QUIET, .name = "slow");
	struct slowdev *sd = malloc(sizeof(*sd));
	struct device *dev;

	CHECK(sd != NULL);
	sd->magic = MAGIC;
	dev = pp_dma_dev_create_ops(&slow_ops, sd, &o);
	CHECK(dev != NULL);
	return dev;
}

/* The driver unbinds and frees the device: every mapping undone before,
 * nothing touched after. */
static void
slow_dev_remove(struct device *dev, bool check)
{
	struct pp_dma_stats s;

	memset(&s, 0, sizeof(s));
	s.sz = sizeof(s);
	CHECK_EQ(pp_dma_dev_unbind(dev), 0);
	CHECK_EQ(pp_dma_dev_get_stats(dev, &s), 0);
	pp_dma_dev_destroy(dev);
	if (check) {
		CHECK_EQ(s.unbind_live_mappings, 0);
		CHECK_EQ(s.faults, 0);
	}
}

static int
one_case(int kind)
{
	struct page_pool_params pp = slow_pp;
	struct device *dev = slow_dev_create();
	struct job j = { .kind = kind };
	pthread_t th;
	int still_inside;

	pp.dev = dev;
	j.pool = page_pool_create(&pp);
	CHECK(j.pool != NULL);
	pp_test_watch_free(j.pool);
	j.page = page_pool_alloc_pages(j.pool, GFP_KERNEL);
	CHECK(j.page != NULL);

	__atomic_store_n(&entered, 0, __ATOMIC_SEQ_CST);
	__atomic_store_n(&slow_kind, kind, __ATOMIC_RELEASE);
	CHECK_EQ(pthread_create(&th, NULL, worker, &j), 0);
	while (!__atomic_load_n(&entered, __ATOMIC_SEQ_CST))
		sched_yield();
	/* The driver goes away while the op runs. */
	page_pool_destroy(j.pool);
	still_inside = __atomic_load_n(&inside, __ATOMIC_SEQ_CST);
	if (still_inside)
		fprintf(stderr, "%s: page_pool_destroy() returned while the "
			"device's %s op was running\n", op_names[kind],
			op_names[kind]);
	slow_dev_remove(dev, !still_inside);
	CHECK_EQ(pthread_join(th, NULL), 0);
	pp_test_wait_freed(5000);
	return still_inside ? 1 : 0;
}

/* late-unmap: the destroyer, held inside the scrub after the revocation. */
static int destroy_returned_inside = -1;

static void *
destroyer(void *arg)
{
	struct page_pool *pool = arg;

	CHECK_EQ(_pp_test_delay_self(PP_TP_DMA_SCRUB_REVOKED, 100 * 1000), 0);
	page_pool_destroy(pool);
	__atomic_store_n(&destroy_returned_inside,
			 __atomic_load_n(&inside, __ATOMIC_SEQ_CST),
			 __ATOMIC_SEQ_CST);
	return NULL;
}

static int
late_unmap_case(void)
{
	struct page_pool_params pp = slow_pp;
	struct device *dev;
	struct job j = { .kind = SLOW_UNMAP };
	pthread_t th;
	int waited, still_inside;

	if (_pp_test_delay_set(PP_TP_DMA_SCRUB_REVOKED, 0, 1) == -ENOSYS) {
		printf("late unmap: needs -Dtest_hooks=true, skipped\n");
		return 0;
	}
	dev = slow_dev_create();
	pp.dev = dev;
	j.pool = page_pool_create(&pp);
	CHECK(j.pool != NULL);
	pp_test_watch_free(j.pool);
	j.page = page_pool_alloc_pages(j.pool, GFP_KERNEL);
	CHECK(j.page != NULL);

	CHECK_EQ(pthread_create(&th, NULL, destroyer, j.pool), 0);
	for (waited = 0;
	     _pp_test_delay_hits(PP_TP_DMA_SCRUB_REVOKED) == 0; waited++) {
		CHECK(waited < 5000);
		usleep(1000);
	}
	/* Armed only now: the alloc cache's pages, unmapped by destroy
	 * before the scrub, must not take the one slow op. */
	__atomic_store_n(&slow_kind, SLOW_UNMAP, __ATOMIC_RELEASE);
	/* The stack lets go of the page while the scrub is held: with the
	 * device revoked, the release must leave the unmap to the scrub. */
	worker(&j);
	CHECK_EQ(pthread_join(th, NULL), 0);
	still_inside = __atomic_load_n(&destroy_returned_inside,
				       __ATOMIC_SEQ_CST);
	if (still_inside)
		fprintf(stderr, "late unmap: page_pool_destroy() returned "
			"while an unmap that started after the revocation "
			"was running\n");
	/* The slow op ran either way: in the scrub (as it should) or in
	 * the late release. */
	CHECK_EQ(__atomic_load_n(&slow_kind, __ATOMIC_ACQUIRE), -1);
	slow_dev_remove(dev, !still_inside);
	pp_test_wait_freed(5000);
	return still_inside ? 1 : 0;
}

/* No argument: every case; otherwise the one numbered (enum slow_op, then
 * 3 for the late unmap). */
int
main(int argc, char **argv)
{
	int failed = 0, kind;

	for (kind = SLOW_UNMAP; kind <= SLOW_SYNC_CPU; kind++)
		if (argc < 2 || atoi(argv[1]) == kind)
			failed += one_case(kind);
	if (argc < 2 || atoi(argv[1]) == SLOW_SYNC_CPU + 1)
		failed += late_unmap_case();
	return failed ? T_EXIT_FAIL : T_EXIT_PASS;
}
