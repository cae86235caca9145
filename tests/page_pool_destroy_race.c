/* SPDX-License-Identifier: MIT */
/*
 * Copyright (c) 2026 The pagepool authors
 *
 * Seed 000's second bug: puts from other threads racing with
 * page_pool_destroy(). Each round creates a pool, hands its pages to
 * returner threads, and destroys the pool while they are returning them,
 * through the ring (which may fill: ring_full then release) and through
 * the release path (pages with an extra reference). The last return frees
 * the pool on the background thread. ASan reports any access to freed pool
 * memory, TSan any unsynchronised one; the model in tests/model checks the
 * protocol exhaustively for small cases.
 */
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <unistd.h>

#include <pagepool/page_pool.h>

#include "cpu.h"
#include "helpers.h"

#define NRET 2
#define PAGES 48

struct round {
	struct page_pool *pool;
	struct page *pages[NRET][PAGES];
	int go;
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

static void *
returner(void *arg)
{
	struct returner_arg *a = arg;
	struct round *r = a->r;
	int i;

	while (!pp_load_acquire(&r->go))
		sched_yield();
	for (i = 0; i < PAGES; i++) {
		struct page *page = r->pages[a->id][i];

		if (i % 5 == 0) {
			/* Shared with "the stack": released, then freed by
			 * the last holder. */
			get_page(page);
			page_pool_put_full_page(r->pool, page, false);
			put_page(page);
		} else {
			page_pool_put_full_page(r->pool, page, false);
		}
		if (i % 7 == 0)
			sched_yield();
	}
	return NULL;
}

static void
one_round(int round_no)
{
	struct round r = { 0 };
	struct returner_arg args[NRET];
	pthread_t th[NRET];
	struct page_pool_params pp = {
		/* A small ring so some returns find it full. */
		.pool_size = 16,
		.nid = NUMA_NO_NODE,
		.defer_ms = 1,
		.defer_warn_ms = 600000,
		.init_arg = &r,
	};
	int i, j, waited;

	r.pool = page_pool_create(&pp);
	CHECK(r.pool != NULL);
	page_pool_use_xdp_mem(r.pool, on_free, NULL);
	page_pool_destroy(r.pool);
	for (i = 0; i < NRET; i++)
		for (j = 0; j < PAGES; j++)
			r.pages[i][j] = page_pool_alloc_pages(r.pool,
							      GFP_KERNEL);
	for (i = 0; i < NRET; i++) {
		args[i].r = &r;
		args[i].id = i;
		CHECK_EQ(pthread_create(&th[i], NULL, returner, &args[i]), 0);
	}
	pp_store_release(&r.go, 1);
	if (round_no % 3 == 1)
		sched_yield();
	page_pool_destroy(r.pool);
	for (i = 0; i < NRET; i++)
		CHECK_EQ(pthread_join(th[i], NULL), 0);
	for (waited = 0; !pp_load_acquire(&r.freed); waited++) {
		CHECK(waited < 5000);
		usleep(1000);
	}
}

int
main(void)
{
	long rounds = t_scale(2000);
	long i;

	for (i = 0; i < rounds; i++)
		one_round((int)i);
	return T_EXIT_PASS;
}
