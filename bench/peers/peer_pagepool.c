/* SPDX-License-Identifier: MIT */
/*
 * Copyright (c) 2026 The pagepool authors
 *
 * peer_pagepool: our side of the peer comparison (bench/peers_suite.sh), in
 * the same harness and with the same one-byte write per buffer as every
 * peer, so the rows line up with theirs:
 *   pagepool_pp_fast_same        page_pool_alloc_pages + recycle_direct
 *                                in the owner (the alloc cache)
 *   pagepool_pp_ring_same        pool without owner: alloc + put_page(-1,
 *                                false), returns through the ptr_ring
 *   pagepool_pp_slow_same        an extra reference blocks recycling, so
 *                                pages come from the page allocator in bulk
 *                                (bench_page_pool_simple's test 03)
 *   pagepool_pp_bulk32_same      the owner: page_pool_alloc_pages_bulk()
 *                                of 32 + page_pool_put_page_bulk() of 32,
 *                                per buffer (DPDK's get_bulk/put_bulk row);
 *                                checked: the kernel's page_pool tests of
 *                                every page
 *   pagepool_pp_bulk32_trusted_same  the same returning with
 *                                page_pool_recycle_direct_bulk(), trusted:
 *                                DPDK's shape, no test of any page
 *   pagepool_alloc_pages_same    alloc_pages(0) + __free_pages(0)
 *   pagepool_pp_ring_cross       A (owner) allocates with refill, B puts
 *                                with page_pool_put_full_page(false): the
 *                                pool's ring
 *   pagepool_pp_ring_bulk32_cross  the same, B returning 32 at a time
 *                                with page_pool_put_page_bulk()
 *   pagepool_alloc_pages_cross   A alloc_pages, B __free_pages
 *   pagepool_ptr_ring_spsc       __ptr_ring_produce / __ptr_ring_consume,
 *                                size 1024, values checked in order
 *   pagepool_ptr_ring_batch32_spsc  the same with the consumer taking up to
 *                                32 at a time (__ptr_ring_consume_batched)
 *   pagepool_ptr_ring_burst32_spsc  both sides in batches of 32
 *                                (__ptr_ring_produce_batched too: DPDK's
 *                                sp/sc burst row)
 * The bulk, cross and ring rows are in pp_rows.c (peer_dpdk runs them
 * too, beside DPDK's).
 * Page rows pass struct page pointers, and touch page_address(page).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include <pagepool/page_pool.h>

#include "peers.h"
#include "pp_rows.h"

/*
 * ---- page_pool, same thread (the others are in pp_rows.c) ----------
 */

/* The buffer a row hands around is the struct page; the write goes to
 * its memory. */
static inline __attribute__((always_inline)) uint64_t
pp_same_loop(struct page_pool *pool, uint64_t n, int kind)
{
	uint64_t i;

	for (i = 0; i < n; i++) {
		struct page *page = page_pool_alloc_pages(pool, GFP_ATOMIC);

		if (__builtin_expect(page == NULL, 0))
			break;
		peer_touch(page_address(page));
		if (kind == 0) {
			page_pool_recycle_direct(pool, page);
		} else if (kind == 1) {
			page_pool_put_page(pool, page, -1, false);
		} else {
			get_page(page);
			page_pool_put_page(pool, page, -1, false);
			put_page(page);
		}
	}
	return i;
}

static void
row_pp_same(const char *type, int kind)
{
	struct time_bench_record rec = { .step = 0 };
	struct napi_struct napi;
	struct page_pool *pool;
	uint64_t done;

	napi_init_current(&napi);
	pool = pp_rows_pool_create(kind == 0 ? &napi : NULL);
	if (pp_same_loop(pool, PEER_WARMUP, kind) < PEER_WARMUP)
		peer_die("%s: allocation failed", type);
	time_bench_start(&rec);
	if (kind == 0)
		done = pp_same_loop(pool, peer_opts.n, 0);
	else if (kind == 1)
		done = pp_same_loop(pool, peer_opts.n, 1);
	else
		done = pp_same_loop(pool, peer_opts.n, 2);
	time_bench_stop(&rec, done);
	if (done < peer_opts.n)
		peer_die("%s: allocation failed", type);
	peer_report(type, &rec);
	pp_rows_pool_stats(type, pool);
	pp_rows_pool_destroy(pool);
}

/*
 * ---- the page allocator --------------------------------------------------
 */

static void *
pa_get(void *ctx)
{
	struct page *page = alloc_pages(GFP_KERNEL, 0);

	(void)ctx;
	if (page != NULL)
		peer_touch(page_address(page));
	return page;
}

static void
pa_put(void *ctx, void *buf)
{
	(void)ctx;
	__free_pages(buf, 0);
}

static void
row_pa_same(void)
{
	struct time_bench_record rec = { .step = 0 };
	uint64_t done;

	peer_same_loop(NULL, PEER_WARMUP, pa_get, pa_put);
	time_bench_start(&rec);
	done = peer_same_loop(NULL, peer_opts.n, pa_get, pa_put);
	time_bench_stop(&rec, done);
	if (done < peer_opts.n)
		peer_die("alloc_pages failed");
	peer_report("pagepool_alloc_pages_same", &rec);
}

static void *
pa_cross_b(void *arg)
{
	struct peer_cross *x = arg;

	peer_cross_b_enter(x, true);
	peer_cross_consumer(x, pa_put);
	/* Give B's thread cache back before the thread goes. */
	pp_thread_cache_drain();
	return NULL;
}

static uint64_t
pa_cross_a(struct peer_cross *x)
{
	return peer_cross_producer(x, pa_get);
}

int
main(int argc, char **argv)
{
	unsigned int round;

	peer_init(argc, argv, "peer_pagepool",
		  "pagepool page_pool, page allocator and ptr_ring", NULL);
	for (round = 0; round < peer_opts.rounds; round++) {
		row_pp_same("pagepool_pp_fast_same", 0);
		row_pp_same("pagepool_pp_ring_same", 1);
		row_pp_same("pagepool_pp_slow_same", 2);
		pp_row_bulk32_same();
		pp_row_bulk32_trusted_same();
		row_pa_same();
		pp_row_ring_cross();
		pp_row_ring_bulk32_cross();
		peer_cross_run("pagepool_alloc_pages_cross", NULL, pa_cross_b,
			       pa_cross_a);
		pp_row_ptr_ring_spsc();
		pp_row_ptr_ring_batch32_spsc();
		pp_row_ptr_ring_burst32_spsc();
	}
	return 0;
}
