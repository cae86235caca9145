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
 *                                per buffer (DPDK's get_bulk/put_bulk row)
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
 * Page rows pass struct page pointers, and touch page_address(page).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include <pagepool/page_pool.h>

#include "peers.h"
#include "pool_report.h"

/*
 * ---- page_pool -----------------------------------------------------------
 */

static struct page_pool *
pool_create(struct napi_struct *napi)
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
static void
pool_stats(const char *type, const struct page_pool *pool)
{
	char lead[96];

	snprintf(lead, sizeof(lead), "# %s: ", type);
	pp_tool_print_pool_stats(stdout, lead, pool);
}

static void
pool_destroy(struct page_pool *pool)
{
	page_pool_disable_direct_recycling(pool);
	page_pool_destroy(pool);
}

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
	pool = pool_create(kind == 0 ? &napi : NULL);
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
	pool_stats(type, pool);
	pool_destroy(pool);
}

#define PP_BULK 32

static uint64_t
pp_bulk_loop(struct page_pool *pool, uint64_t rounds)
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
		page_pool_put_page_bulk(pages, PP_BULK);
	}
	return i;
}

static void
row_pp_bulk_same(void)
{
	struct time_bench_record rec = { .step = 0 };
	struct napi_struct napi;
	struct page_pool *pool;
	uint64_t rounds = peer_opts.n / PP_BULK, done;

	napi_init_current(&napi);
	pool = pool_create(&napi);
	if (pp_bulk_loop(pool, PEER_WARMUP / PP_BULK) < PEER_WARMUP / PP_BULK)
		peer_die("pagepool_pp_bulk32_same: allocation failed");
	time_bench_start(&rec);
	done = pp_bulk_loop(pool, rounds);
	time_bench_stop(&rec, done * PP_BULK);
	if (done < rounds)
		peer_die("pagepool_pp_bulk32_same: allocation failed");
	peer_report("pagepool_pp_bulk32_same", &rec);
	pool_stats("pagepool_pp_bulk32_same", pool);
	pool_destroy(pool);
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
 * B batching its returns with page_pool_put_page_bulk() of 32: both this
 * and put_full_page() go through B's return stash, which produces into
 * the ring 32 pages per producer-lock section (what DPDK's lcore cache
 * does for its puts); the bulk call saves the per-page call.
 */

static void *
pp_cross_b_bulk(void *arg)
{
	struct peer_cross *x = arg;
	struct page *batch[PP_BULK];
	unsigned int nb = 0;
	uint64_t got;

	peer_cross_b_enter(x, true);
	for (got = 0; got < x->n; got++) {
		struct page *page;

		while ((page = __ptr_ring_consume(&x->ring)) == NULL) {
			if (pp_load_acquire(&x->start) == 2)
				goto out;
			pp_cpu_relax();
		}
		batch[nb++] = page;
		if (nb == PP_BULK) {
			page_pool_put_page_bulk(batch, nb);
			nb = 0;
		}
	}
out:
	if (nb > 0)
		page_pool_put_page_bulk(batch, nb);
	pp_store_release(&x->freed, got);
	return NULL;
}

static uint64_t
pp_cross_a(struct peer_cross *x)
{
	return peer_cross_producer(x, pp_get);
}

static void
row_pp_cross(void)
{
	struct napi_struct napi;
	struct page_pool *pool;

	/* A, the caller, owns the pool; B is a remote returner. */
	napi_init_current(&napi);
	pool = pool_create(&napi);
	peer_cross_run("pagepool_pp_ring_cross", pool, pp_cross_b, pp_cross_a);
	pool_stats("pagepool_pp_ring_cross", pool);
	pool_destroy(pool);

	napi_init_current(&napi);
	pool = pool_create(&napi);
	peer_cross_run("pagepool_pp_ring_bulk32_cross", pool, pp_cross_b_bulk,
		       pp_cross_a);
	pool_stats("pagepool_pp_ring_bulk32_cross", pool);
	pool_destroy(pool);
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

static void
row_ptr_ring(const char *type, void *(*b_main)(void *))
{
	struct ptr_ring r;

	if (ptr_ring_init(&r, PEER_RING_SIZE, GFP_KERNEL) != 0)
		peer_die("ptr_ring_init failed");
	peer_spsc_run(type, &r, b_main, pr_a);
	ptr_ring_cleanup(&r, NULL);
}

int
main(int argc, char **argv)
{
	peer_init(argc, argv, "peer_pagepool",
		  "pagepool page_pool, page allocator and ptr_ring", NULL);
	row_pp_same("pagepool_pp_fast_same", 0);
	row_pp_same("pagepool_pp_ring_same", 1);
	row_pp_same("pagepool_pp_slow_same", 2);
	row_pp_bulk_same();
	row_pa_same();
	row_pp_cross();
	peer_cross_run("pagepool_alloc_pages_cross", NULL, pa_cross_b,
		       pa_cross_a);
	row_ptr_ring("pagepool_ptr_ring_spsc", pr_b);
	row_ptr_ring("pagepool_ptr_ring_batch32_spsc", pr_b_burst);
	return 0;
}
