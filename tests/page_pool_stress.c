/* SPDX-License-Identifier: MIT */
/*
 * Copyright (c) 2026 The pagepool authors
 *
 * Cross-thread page_pool stress with checksummed payloads. The owner (RX)
 * thread allocates pages, fills each with a sequence number and a checksum,
 * and hands them round-robin to worker threads over SPSC rings; a worker
 * verifies the payload (a torn write or an early reuse breaks it), marks
 * the page free and returns it through the pool from its own thread (the
 * ring path). The owner also drops a share itself (direct recycling). A
 * page handed out while someone still holds it is caught by its state
 * word. Runs under TSan and ASan in CI.
 */
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <string.h>

#include <pagepool/page_pool.h>

#include "cpu.h"
#include "helpers.h"

#define NWORKERS 2
#define PAYLOAD_WORDS 64
#define STATE_OWNED 0x4f574e4544214f4bULL	/* "OWNED!OK" */
#define STATE_FREE 0x4652454544214f4bULL	/* "FREED!OK" */

struct payload {
	uint64_t state;
	uint64_t seq;
	uint64_t words[PAYLOAD_WORDS];
	uint64_t sum;
};

struct worker {
	struct page_pool *pool;
	struct ptr_ring ring;
	long received;
	long errors;
	int done;
	int id;
};

static uint64_t
checksum(const struct payload *p)
{
	uint64_t s = p->seq * 0x9e3779b97f4a7c15ULL;
	int i;

	for (i = 0; i < PAYLOAD_WORDS; i++)
		s = (s ^ p->words[i]) * 0x100000001b3ULL;
	return s;
}

static void *
worker_main(void *arg)
{
	struct worker *w = arg;

	pp_tool_pin_nth_cpu(w->id + 1);
	for (;;) {
		struct page *page = ptr_ring_consume(&w->ring);
		struct payload *p;

		if (page == NULL) {
			if (pp_load_acquire(&w->done))
				break;
			sched_yield();
			continue;
		}
		p = page_address(page);
		if (p->state != STATE_OWNED || p->sum != checksum(p))
			w->errors++;
		p->state = STATE_FREE;
		w->received++;
		page_pool_put_full_page(w->pool, page, false);
	}
	/* Anything produced after our last empty check. */
	for (;;) {
		struct page *page = ptr_ring_consume(&w->ring);

		if (page == NULL)
			break;
		((struct payload *)page_address(page))->state = STATE_FREE;
		w->received++;
		page_pool_put_full_page(w->pool, page, false);
	}
	return NULL;
}

int
main(void)
{
	struct worker workers[NWORKERS];
	struct napi_struct napi;
	struct page_pool_params pp = {
		.pool_size = 512,
		.nid = NUMA_NO_NODE,
		.napi = &napi,
	};
	struct page_pool *pool;
	struct page_pool_stats st;
	long n = t_scale(400000), seq, owner_dropped = 0, double_handout = 0;
	int i;

	pp_tool_pin_nth_cpu(0);
	napi_init_current(&napi);
	pool = page_pool_create(&pp);
	CHECK(pool != NULL);
	for (i = 0; i < NWORKERS; i++) {
		memset(&workers[i], 0, sizeof(workers[i]));
		workers[i].pool = pool;
		workers[i].id = i;
		CHECK_EQ(ptr_ring_init(&workers[i].ring, 256, GFP_KERNEL), 0);
	}
	{
		pthread_t th[NWORKERS];

		for (i = 0; i < NWORKERS; i++)
			CHECK_EQ(pthread_create(&th[i], NULL, worker_main,
						&workers[i]),
				 0);
		for (seq = 1; seq <= n; seq++) {
			struct page *page;
			struct payload *p;
			int k;

			while ((page = page_pool_dev_alloc_pages(pool)) == NULL)
				sched_yield();
			p = page_address(page);
			if (p->state == STATE_OWNED)
				double_handout++;
			p->state = STATE_OWNED;
			p->seq = (uint64_t)seq;
			for (k = 0; k < PAYLOAD_WORDS; k++)
				p->words[k] = (uint64_t)seq * 31 + (uint64_t)k;
			p->sum = checksum(p);
			if (seq % 8 == 0) {	/* XDP_DROP in the owner */
				p->state = STATE_FREE;
				owner_dropped++;
				page_pool_recycle_direct(pool, page);
				continue;
			}
			while (ptr_ring_produce(
				       &workers[seq % NWORKERS].ring, page) != 0)
				sched_yield();
		}
		for (i = 0; i < NWORKERS; i++)
			pp_store_release(&workers[i].done, 1);
		for (i = 0; i < NWORKERS; i++)
			CHECK_EQ(pthread_join(th[i], NULL), 0);
	}
	CHECK_EQ(double_handout, 0);
	{
		long received = 0;

		for (i = 0; i < NWORKERS; i++) {
			CHECK_EQ(workers[i].errors, 0);
			received += workers[i].received;
			ptr_ring_cleanup(&workers[i].ring, NULL);
		}
		CHECK_EQ(received + owner_dropped, n);
	}
	memset(&st, 0, sizeof(st));
	CHECK(page_pool_get_stats(pool, &st));
	/* Every page came back through one of the three doors. */
	CHECK_EQ(st.recycle_stats.cached + st.recycle_stats.ring +
			 st.recycle_stats.ring_full +
			 st.recycle_stats.released_refcnt,
		 (uint64_t)n);
	CHECK(st.recycle_stats.ring > 0);
	page_pool_disable_direct_recycling(pool);
	page_pool_destroy(pool);
	return T_EXIT_PASS;
}
