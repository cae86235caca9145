/* SPDX-License-Identifier: MIT */
/*
 * Copyright (c) 2026 The pagepool authors
 *
 * Seed 000's second bug: puts from other threads racing with
 * page_pool_destroy(). Each round creates a pool, hands its pages to
 * returner threads, and destroys the pool while they are returning them,
 * through the ring (which may fill: ring_full then release), the bulk
 * return, and the release path (pages with an extra reference). The last
 * return frees the pool on the background thread. Every other round uses a
 * PP_FLAG_DMA_MAP | PP_FLAG_DMA_SYNC_DEV pool on the IOMMU model, whose
 * device is unbound as soon as destroy returns: any later DMA op is a
 * counted fault. In one undisturbed round in four, a returner drops the
 * second user (the XDP memory model's) while the main thread drops the
 * first, so either may release the pool. ASan reports any access to freed pool memory, TSan any
 * unsynchronised one; the model in tests/model checks the protocol
 * exhaustively for small cases.
 *
 * Undisturbed, the windows these fixes close last a few instructions and a
 * revert goes unnoticed. So, with -Dtest_hooks=true, each fix also has a
 * mode of its own: in every round the last returner, once the others are
 * done, gives back its last page with a delay point armed that sleeps
 * inside the window the fix closes, while the deferred release runs every
 * millisecond. Without the fix the release frees the pool during the
 * sleep, and the sleeper's next touch of the pool is a use after free
 * (reported by ASan and TSan; a plain build writes freed memory silently,
 * so these modes are for the sanitizer builds, which CI runs with the
 * hooks). The modes, and the fix each guards:
 *
 *   barrier       page_pool_release() takes and drops the producer lock
 *                 after reading in-flight (the kernel's 271683bb2cf3):
 *                 a producer sleeps between its produce and its unlock.
 *   stats-locked  the ring statistics are counted before the producer
 *                 unlock, in recycle_in_ring() and recycle_ring_bulk()
 *                 (the other half of 271683bb2cf3): the producer sleeps
 *                 right after its unlock.
 *   release-last  _pp_return_page()'s release-count increment is the last
 *                 touch of the pool (put_decide() counts released_refcnt
 *                 before it): the releaser sleeps right after it.
 *
 * Destroy waiting for the DMA ops of other threads (seed 003) has its own
 * tests, page_pool_dma_destroy and page_pool_dma_destroy_stress.
 *
 * Without the hooks the undisturbed rounds run, then the test exits 77.
 */
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include <pagepool/dma.h>
#include <pagepool/page_pool.h>

#include "../src/lib/test_hooks.h"
#include "cpu.h"
#include "helpers.h"

#define NRET 2
#define PAGES 48
#define DELAY_US 5000

struct mode {
	const char *name;
	int point;		/* enum pp_test_point, or -1: undisturbed */
	long rounds;
	int last_release;	/* the delayed page takes the release path */
};

struct round {
	struct page_pool *pool;
	const struct mode *mode;
	struct page *pages[NRET][PAGES];
	int round_no;
	int late_user;		/* returner 0 drops the memory model's user */
	int go;
	int done;		/* returners finished, but the last page */
	int freed;
};

struct returner_arg {
	struct round *r;
	int id;
};

static void
on_free(void *pool)
{
	struct round *r = ((struct page_pool *)pool)->p.init_arg;

	pp_store_release(&r->freed, 1);
}

/* Give @page back in way number @how. */
static void
give_back(struct page_pool *pool, struct page *page, int how)
{
	switch (how) {
	case 0:
		/* Shared with "the stack": released, then freed by the
		 * last holder. */
		get_page(page);
		page_pool_put_full_page(pool, page, false);
		put_page(page);
		break;
	case 1:
		page_pool_put_page_bulk(&page, 1);
		break;
	default:
		page_pool_put_full_page(pool, page, false);
		break;
	}
}

static void *
returner(void *arg)
{
	struct returner_arg *a = arg;
	struct round *r = a->r;
	const struct mode *m = r->mode;
	int last = m->point >= 0 && a->id == NRET - 1;
	int i, n = last ? PAGES - 1 : PAGES;

	while (!pp_load_acquire(&r->go))
		sched_yield();
	for (i = 0; i < n; i++) {
		struct page *page = r->pages[a->id][i];

		give_back(r->pool, page, i % 5 == 0 ? 0 : i % 5 == 1 ? 1 : 2);
		if (i % 7 == 0)
			sched_yield();
	}
	if (!last) {
		/* An XDP memory model unregistering on another CPU: its
		 * destroy may be the last, and release the pool here. */
		if (r->late_user && a->id == 0)
			page_pool_destroy(r->pool);
		pp_fetch_add_relaxed(&r->done, 1);
		return NULL;
	}
	/*
	 * The delayed return: the other returners are done, so this page is
	 * the last in flight and the deferred release may free the pool
	 * during the sleep if the fix is missing. Relaxed: the count only
	 * decides when to go on; pairs with nothing.
	 */
	while (pp_load_relaxed(&r->done) != NRET - 1)
		sched_yield();
	/* For this thread and this page only: no other put sleeps. */
	CHECK_EQ(_pp_test_delay_self((unsigned int)m->point, DELAY_US), 0);
	give_back(r->pool, r->pages[a->id][PAGES - 1],
		  m->last_release ? 0 : r->round_no % 2 ? 1 : 2);
	CHECK_EQ(_pp_test_delay_self((unsigned int)m->point, 0), 0);
	return NULL;
}

/* Returns the device faults seen (0 without a DMA pool). */
static uint64_t
one_round(const struct mode *m, int round_no)
{
	struct round r;
	struct returner_arg args[NRET];
	pthread_t th[NRET];
	PP_OPTS(pp_iommu_opts, o, .flags = PP_DMA_F_QUIET);
	struct device *dev = NULL;
	struct page_pool_params pp = {
		/* A small ring so some returns find it full; room for every
		 * page when the delayed one must reach the ring. */
		.pool_size = m->point >= 0 ? 256 : 16,
		.nid = NUMA_NO_NODE,
		.defer_ms = 1,
		.defer_warn_ms = 600000,
		.init_arg = &r,
	};
	struct pp_dma_stats s;
	int i, j, waited;

	memset(&r, 0, sizeof(r));
	r.mode = m;
	r.round_no = round_no;
	if (round_no % 2 == 1) {
		dev = pp_iommu_create(&o);
		CHECK(dev != NULL);
		pp.flags = PP_FLAG_DMA_MAP | PP_FLAG_DMA_SYNC_DEV;
		pp.dev = dev;
		pp.dma_dir = DMA_FROM_DEVICE;
		pp.max_len = PAGE_SIZE;
	}
	r.pool = page_pool_create(&pp);
	CHECK(r.pool != NULL);
	page_pool_use_xdp_mem(r.pool, on_free, NULL);
	/* One undisturbed round in four, the two users' destroys race. */
	r.late_user = m->point < 0 && round_no % 4 == 2;
	if (!r.late_user)
		page_pool_destroy(r.pool);
	for (i = 0; i < NRET; i++)
		for (j = 0; j < PAGES; j++) {
			r.pages[i][j] = page_pool_alloc_pages(r.pool,
							      GFP_KERNEL);
			CHECK(r.pages[i][j] != NULL);
		}
	for (i = 0; i < NRET; i++) {
		args[i].r = &r;
		args[i].id = i;
		CHECK_EQ(pthread_create(&th[i], NULL, returner, &args[i]), 0);
	}
	pp_store_release(&r.go, 1);
	if (round_no % 3 == 1)
		sched_yield();
	page_pool_destroy(r.pool);
	/* The device goes once the last destroy returned: at once, or
	 * once the returner with the other user's destroy is done. */
	if (dev != NULL && !r.late_user)
		CHECK_EQ(pp_dma_dev_unbind(dev), 0);
	for (i = 0; i < NRET; i++)
		CHECK_EQ(pthread_join(th[i], NULL), 0);
	if (dev != NULL && r.late_user)
		CHECK_EQ(pp_dma_dev_unbind(dev), 0);
	for (waited = 0; !pp_load_acquire(&r.freed); waited++) {
		CHECK(waited < 5000);
		usleep(1000);
	}
	if (m->point >= 0) {
		/* The point must be on the path, or the mode tests nothing. */
		CHECK(_pp_test_delay_hits((unsigned int)m->point) > 0);
		CHECK_EQ(_pp_test_delay_set((unsigned int)m->point, 0, 1), 0);
	}
	if (dev == NULL)
		return 0;
	memset(&s, 0, sizeof(s));
	s.sz = sizeof(s);
	CHECK_EQ(pp_dma_dev_get_stats(dev, &s), 0);
	pp_dma_dev_destroy(dev);
	if (s.faults != 0 || s.unbind_live_mappings != 0)
		fprintf(stderr, "%s round %d: %llu faults, %llu mappings "
			"live at unbind\n", m->name, round_no,
			(unsigned long long)s.faults,
			(unsigned long long)s.unbind_live_mappings);
	return s.faults + s.unbind_live_mappings;
}

int
main(void)
{
	/* Delayed rounds take DELAY_US and then some: 40 of them, about
	 * 0.5 s per mode, where a missing fix fails in the first. */
	static const struct mode modes[] = {
		{ "barrier", PP_TP_RING_PRODUCED, 40, 0 },
		{ "stats-locked", PP_TP_RING_UNLOCKED, 40, 0 },
		{ "release-last", PP_TP_RETURN_RELEASED, 40, 1 },
		{ "undisturbed", -1, 2000, 0 },
	};
	unsigned int k;
	long i;

	if (_pp_test_delay_set(PP_TP_RING_PRODUCED, 0, 1) != 0) {
		for (i = 0; i < t_scale(modes[3].rounds); i++)
			CHECK_EQ(one_round(&modes[3], (int)i), 0);
		fprintf(stderr, "SKIP: built without -Dtest_hooks=true: only "
			"the undisturbed rounds ran, not the delayed ones that "
			"guard each fix\n");
		return T_EXIT_SKIP;
	}
	for (k = 0; k < sizeof(modes) / sizeof(modes[0]); k++) {
		/* Undisturbed rounds are quick: half of them under the
		 * sanitizers, which CI runs with the hooks. */
		long rounds = modes[k].point >= 0 ? modes[k].rounds
			      : T_SANITIZED ? modes[k].rounds / 2
					    : modes[k].rounds;

		for (i = 0; i < rounds; i++)
			CHECK_EQ(one_round(&modes[k], (int)i), 0);
		fprintf(stderr, "%s: %ld rounds\n", modes[k].name, rounds);
	}
	return T_EXIT_PASS;
}
