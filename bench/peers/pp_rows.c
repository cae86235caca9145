/* SPDX-License-Identifier: MIT */
/*
 * Copyright (c) 2026 The pagepool authors
 *
 * pagepool's rows that other peer programs run too (bench/peers/pp_rows.h):
 * peer_pagepool runs them all; peer_dpdk runs the ones compared with DPDK
 * right after DPDK's own, in the same process, on the same pinned CPUs,
 * round after round, so that both sides of a ratio see the same machine.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include <pagepool/page_pool.h>

#include "peers.h"
#include "pool_report.h"
#include "pp_rows.h"

/*
 * ---- page_pool -----------------------------------------------------------
 */

struct page_pool *
pp_rows_pool_create(struct napi_struct *napi)
{
	struct page_pool_params pp = {
		.order = 0,
		.pool_size = 1024,
		.nid = NUMA_NO_NODE,
		.dma_dir = DMA_BIDIRECTIONAL,
		.napi = napi,
	};
	struct page_pool *pool = page_pool_create(&pp);

	if (pool == NULL)
		peer_die("page_pool_create: %s", strerror(errno));
	return pool;
}

/* The pool's counters, so the path a row really took is visible. */
void
pp_rows_pool_stats(const char *type, const struct page_pool *pool)
{
	char lead[96];

	snprintf(lead, sizeof(lead), "# %s: ", type);
	pp_tool_print_pool_stats(stdout, lead, pool);
}

void
pp_rows_pool_destroy(struct page_pool *pool)
{
	page_pool_disable_direct_recycling(pool);
	page_pool_destroy(pool);
}

/*
 * The owner's bulk round trip: page_pool_alloc_pages_bulk() of 32, a touch
 * of each page, and the return of all 32. @trusted picks the return:
 * page_pool_put_page_bulk(), which tests every page as the kernel's
 * page_pool puts do (the pool signature, the pool, a sole page reference
 * and a sole pool reference), or page_pool_recycle_direct_bulk(), which
 * trusts its caller as DPDK's rte_mempool_put_bulk() does (checks only in
 * debug builds). A constant in each caller, so each loop is its own.
 */
static inline __attribute__((always_inline)) uint64_t
pp_bulk_loop(struct page_pool *pool, uint64_t rounds, bool trusted)
{
	struct page *pages[PP_BULK];
	uint64_t i;
	unsigned int k;

	for (i = 0; i < rounds; i++) {
		if (page_pool_alloc_pages_bulk(pool, GFP_ATOMIC, pages,
					       PP_BULK) != PP_BULK)
			break;
		for (k = 0; k < PP_BULK; k++)
			peer_touch(page_address(pages[k]));
		peer_escape(pages);
		if (trusted)
			page_pool_recycle_direct_bulk(pool, pages, PP_BULK);
		else
			page_pool_put_page_bulk(pages, PP_BULK);
	}
	return i;
}

static void
pp_row_bulk32(const char *type, bool trusted)
{
	struct time_bench_record rec = { .step = 0 };
	struct napi_struct napi;
	struct page_pool *pool;
	uint64_t rounds = peer_opts.n / PP_BULK, done;

	napi_init_current(&napi);
	pool = pp_rows_pool_create(&napi);
	if ((trusted ? pp_bulk_loop(pool, PEER_WARMUP / PP_BULK, true)
		     : pp_bulk_loop(pool, PEER_WARMUP / PP_BULK, false)) <
	    PEER_WARMUP / PP_BULK)
		peer_die("%s: allocation failed", type);
	time_bench_start(&rec);
	done = trusted ? pp_bulk_loop(pool, rounds, true)
		       : pp_bulk_loop(pool, rounds, false);
	time_bench_stop(&rec, done * PP_BULK);
	if (done < rounds)
		peer_die("%s: allocation failed", type);
	peer_report(type, &rec);
	pp_rows_pool_stats(type, pool);
	pp_rows_pool_destroy(pool);
}

void
pp_row_bulk32_same(void)
{
	pp_row_bulk32("pagepool_pp_bulk32_same", false);
}

void
pp_row_bulk32_trusted_same(void)
{
	pp_row_bulk32("pagepool_pp_bulk32_trusted_same", true);
}

static void *
pp_get(void *ctx)
{
	struct page_pool *pool = ctx;
	struct page *page = page_pool_alloc_pages(pool, GFP_ATOMIC);

	/* The touch goes to the page's memory, not to struct page. */
	if (page != NULL)
		peer_touch(page_address(page));
	return page;
}

static void
pp_put_remote(void *ctx, void *buf)
{
	page_pool_put_full_page(ctx, buf, false);
}

static void *
pp_cross_b(void *arg)
{
	struct peer_cross *x = arg;

	peer_cross_b_enter(x, true);
	peer_cross_consumer(x, pp_put_remote);
	return NULL;
}

/*
 * B batching its returns with page_pool_put_page_bulk() of 32 (the
 * harness's batched loop, as DPDK's put_bulk row): both this and
 * put_full_page() go through B's return stash, which produces into the
 * ring 32 pages per producer-lock section (what DPDK's lcore cache does
 * for its puts); a batch of one pool's pages held alone goes to the stash
 * whole.
 */
static void
pp_put_remote_bulk(void *ctx, void **bufs, unsigned int count)
{
	(void)ctx;
	page_pool_put_page_bulk((struct page **)bufs, count);
}

static void *
pp_cross_b_bulk(void *arg)
{
	struct peer_cross *x = arg;

	peer_cross_b_enter(x, true);
	peer_cross_consumer_batched(x, pp_put_remote_bulk);
	return NULL;
}

static uint64_t
pp_cross_a(struct peer_cross *x)
{
	return peer_cross_producer(x, pp_get);
}

void
pp_row_ring_cross(void)
{
	struct napi_struct napi;
	struct page_pool *pool;

	/* A, the caller, owns the pool; B is a remote returner. */
	napi_init_current(&napi);
	pool = pp_rows_pool_create(&napi);
	peer_cross_run("pagepool_pp_ring_cross", pool, pp_cross_b, pp_cross_a);
	pp_rows_pool_stats("pagepool_pp_ring_cross", pool);
	pp_rows_pool_destroy(pool);
}

void
pp_row_ring_bulk32_cross(void)
{
	struct napi_struct napi;
	struct page_pool *pool;

	napi_init_current(&napi);
	pool = pp_rows_pool_create(&napi);
	peer_cross_run("pagepool_pp_ring_bulk32_cross", pool, pp_cross_b_bulk,
		       pp_cross_a);
	pp_rows_pool_stats("pagepool_pp_ring_bulk32_cross", pool);
	pp_rows_pool_destroy(pool);
}

/*
 * ---- ptr_ring SPSC -------------------------------------------------------
 */

static bool
pr_enq(void *ring, void *v)
{
	return __ptr_ring_produce(ring, v) == 0;
}

static void *
pr_deq(void *ring)
{
	return __ptr_ring_consume(ring);
}

static unsigned int
pr_deq_burst(void *ring, void **v, unsigned int max)
{
	return (unsigned int)__ptr_ring_consume_batched(ring, v, (int)max);
}

static void *
pr_b(void *arg)
{
	struct peer_spsc *s = arg;

	peer_spsc_b_enter(s, true);
	peer_spsc_consumer(s, pr_deq);
	return NULL;
}

static void *
pr_b_burst(void *arg)
{
	struct peer_spsc *s = arg;

	peer_spsc_b_enter(s, true);
	peer_spsc_consumer_burst(s, pr_deq_burst);
	return NULL;
}

static void
pr_a(struct peer_spsc *s)
{
	peer_spsc_producer(s, pr_enq);
}

/* A, burst form: produce values in groups of up to 32, in order, with
 * __ptr_ring_produce_batched() (DPDK's sp_enqueue_burst row). */
static void
pr_a_burst(struct peer_spsc *s)
{
	struct ptr_ring *r = s->ring;
	uint64_t next = 1;
	void *v[PP_BULK];

	while (next <= s->n) {
		int k, want = PP_BULK, put;

		if (s->n - next + 1 < (uint64_t)want)
			want = (int)(s->n - next + 1);
		for (k = 0; k < want; k++)
			v[k] = (void *)(uintptr_t)(next + (uint64_t)k);
		put = __ptr_ring_produce_batched(r, v, want);
		if (put == 0)
			pp_cpu_relax();
		next += (uint64_t)put;
	}
}

static void
row_ptr_ring(const char *type, void *(*b_main)(void *),
	     void (*a_main)(struct peer_spsc *s))
{
	struct ptr_ring r;

	if (ptr_ring_init(&r, PEER_RING_SIZE, GFP_KERNEL) != 0)
		peer_die("ptr_ring_init failed");
	peer_spsc_run(type, &r, b_main, a_main);
	ptr_ring_cleanup(&r, NULL);
}

void
pp_row_ptr_ring_spsc(void)
{
	row_ptr_ring("pagepool_ptr_ring_spsc", pr_b, pr_a);
}

void
pp_row_ptr_ring_batch32_spsc(void)
{
	row_ptr_ring("pagepool_ptr_ring_batch32_spsc", pr_b_burst, pr_a);
}

void
pp_row_ptr_ring_burst32_spsc(void)
{
	row_ptr_ring("pagepool_ptr_ring_burst32_spsc", pr_b_burst,
		     pr_a_burst);
}
