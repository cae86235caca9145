/* SPDX-License-Identifier: MIT */
/*
 * Copyright (c) 2026 The pagepool authors
 *
 * peer_dpdk: DPDK's rte_mempool and rte_ring, the peers of page_pool and
 * ptr_ring, in the same harness as peer_pagepool. EAL runs without
 * hugepages, PCI or telemetry (--no-huge --no-pci -m 512 --no-shconf
 * --no-telemetry, a runtime directory of our own), with lcore 0
 * on thread A's CPU and lcore 1 on thread B's.
 *
 * rte_mempool of 8191 4 KiB elements, the default ring_mp_mc driver:
 *   dpdk_mempool_c256_same        cache 256, rte_mempool_get/put on lcore 0
 *   dpdk_mempool_c0_same          cache 0: every get/put is a ring CAS
 *   dpdk_mempool_c256_bulk32_same get_bulk/put_bulk of 32, per element
 *   dpdk_mempool_c256_cross       A lcore 0 gets, B lcore 1 puts; both
 *                                 have their lcore cache
 *   dpdk_mempool_c0_cross         the same without caches
 *   dpdk_mempool_c256_noneal_cross  B a non-EAL pthread: rte_lcore_id()
 *                                 is LCORE_ID_ANY, so it has no cache and
 *                                 every put goes to the ring (DPDK's rule)
 *   dpdk_mempool_c256_usercache_cross  B non-EAL with its own cache from
 *                                 rte_mempool_cache_create(256) and
 *                                 rte_mempool_generic_put()
 *   dpdk_mempool_c256_bulk32_cross  c256_cross, B returning 32 at a
 *                                 time with rte_mempool_put_bulk()
 * rte_ring, 1024 slots, RING_F_SP_ENQ | RING_F_SC_DEQ (1023 usable):
 *   dpdk_rte_ring_spsc            rte_ring_sp_enqueue / rte_ring_sc_dequeue
 *   dpdk_rte_ring_burst32_spsc    sp_enqueue_burst / sc_dequeue_burst of 32
 * B of every EAL row runs on lcore 1 through rte_eal_remote_launch().
 *
 * pagepool's rows that the targets compare with these (pp_rows.c:
 * pagepool_pp_bulk32_same and pagepool_pp_bulk32_trusted_same, the
 * checked and the trusted bulk return, pagepool_pp_ring_cross and
 * pagepool_pp_ring_bulk32_cross, B's single and bulk returns,
 * pagepool_ptr_ring_burst32_spsc) run right after the DPDK row they are
 * compared with, in this process, A on lcore 0's CPU and B a pthread
 * pinned to lcore 1's, every round (-R), so a ratio's two sides share the
 * machine's state; their lines join peer_pagepool's under the same names.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_launch.h>
#include <rte_lcore.h>
#include <rte_mempool.h>
#include <rte_ring.h>
#include <rte_version.h>

#include "peers.h"
#include "pp_rows.h"

#define POOL_SIZE 8191		/* 2^n - 1: the ring's best fit */
#define POOL_CACHE 256
#define BULK 32
#define B_LCORE 1

static unsigned int pool_seq;

static struct rte_mempool *
pool_create(unsigned int cache)
{
	char name[RTE_MEMPOOL_NAMESIZE];
	struct rte_mempool *mp;

	snprintf(name, sizeof(name), "peer_mp%u", pool_seq++);
	mp = rte_mempool_create(name, POOL_SIZE, PEER_BUF_SIZE, cache, 0,
				NULL, NULL, NULL, NULL, SOCKET_ID_ANY, 0);
	if (mp == NULL)
		peer_die("rte_mempool_create: %s", rte_strerror(rte_errno));
	return mp;
}

/*
 * ---- same ----------------------------------------------------------------
 */

static void *
mp_get(void *ctx)
{
	void *obj;

	if (rte_mempool_get(ctx, &obj) != 0)
		return NULL;
	peer_touch(obj);
	return obj;
}

static void
mp_put(void *ctx, void *obj)
{
	rte_mempool_put(ctx, obj);
}

static void
row_same(const char *type, unsigned int cache)
{
	struct time_bench_record rec = { .step = 0 };
	struct rte_mempool *mp = pool_create(cache);
	uint64_t done;

	peer_same_loop(mp, PEER_WARMUP, mp_get, mp_put);
	time_bench_start(&rec);
	done = peer_same_loop(mp, peer_opts.n, mp_get, mp_put);
	time_bench_stop(&rec, done);
	if (done < peer_opts.n)
		peer_die("%s: rte_mempool_get failed", type);
	peer_report(type, &rec);
	rte_mempool_free(mp);
}

static void
row_bulk_same(void)
{
	struct time_bench_record rec = { .step = 0 };
	struct rte_mempool *mp = pool_create(POOL_CACHE);
	uint64_t i, rounds = peer_opts.n / BULK;
	void *objs[BULK];
	unsigned int k;

	for (i = 0; i < PEER_WARMUP / BULK; i++) {
		if (rte_mempool_get_bulk(mp, objs, BULK) != 0)
			peer_die("rte_mempool_get_bulk failed");
		rte_mempool_put_bulk(mp, objs, BULK);
	}
	time_bench_start(&rec);
	for (i = 0; i < rounds; i++) {
		if (rte_mempool_get_bulk(mp, objs, BULK) != 0)
			break;
		for (k = 0; k < BULK; k++)
			peer_touch(objs[k]);
		peer_escape(objs);
		rte_mempool_put_bulk(mp, objs, BULK);
	}
	time_bench_stop(&rec, i * BULK);
	if (i < rounds)
		peer_die("rte_mempool_get_bulk failed");
	peer_report("dpdk_mempool_c256_bulk32_same", &rec);
	rte_mempool_free(mp);
}

/*
 * ---- cross ---------------------------------------------------------------
 */

static uint64_t
mp_cross_a(struct peer_cross *x)
{
	return peer_cross_producer(x, mp_get);
}

/* B on lcore 1: an EAL thread, with its lcore's cache. */
static int
mp_cross_b_lcore(void *arg)
{
	struct peer_cross *x = arg;

	peer_cross_b_enter(x, false);
	peer_cross_consumer(x, mp_put);
	return 0;
}

static void
mp_put_bulk(void *ctx, void **objs, unsigned int count)
{
	rte_mempool_put_bulk(ctx, objs, count);
}

/* B on lcore 1, returning 32 at a time with rte_mempool_put_bulk(). */
static int
mp_cross_b_lcore_bulk(void *arg)
{
	struct peer_cross *x = arg;

	peer_cross_b_enter(x, false);
	peer_cross_consumer_batched(x, mp_put_bulk);
	return 0;
}

/* B as a non-EAL pthread: no cache. */
static void *
mp_cross_b_noneal(void *arg)
{
	struct peer_cross *x = arg;
	struct rte_mempool *mp = x->ctx;

	peer_cross_b_enter(x, true);
	if (rte_lcore_id() != LCORE_ID_ANY ||
	    rte_mempool_default_cache(mp, rte_lcore_id()) != NULL)
		peer_die("non-EAL thread unexpectedly has an lcore cache");
	peer_cross_consumer(x, mp_put);
	return NULL;
}

/* B non-EAL, putting through a cache of its own. */
static struct rte_mempool_cache *b_cache;

static void
mp_put_usercache(void *ctx, void *obj)
{
	rte_mempool_generic_put(ctx, &obj, 1, b_cache);
}

static void *
mp_cross_b_usercache(void *arg)
{
	struct peer_cross *x = arg;

	peer_cross_b_enter(x, true);
	peer_cross_consumer(x, mp_put_usercache);
	rte_mempool_cache_flush(b_cache, x->ctx);
	return NULL;
}

static void
row_cross_lcore(const char *type, unsigned int cache, lcore_function_t *b)
{
	struct time_bench_record rec = { .step = 0 };
	struct rte_mempool *mp = pool_create(cache);
	struct peer_cross x;
	uint64_t done;
	int ret;

	peer_cross_init(&x, mp, peer_opts.n_cross);
	ret = rte_eal_remote_launch(b, &x, B_LCORE);
	if (ret != 0)
		peer_die("rte_eal_remote_launch: %s", strerror(-ret));
	peer_cross_a_begin(&x, &rec);
	done = mp_cross_a(&x);
	peer_cross_a_end(&x, done);
	rte_eal_wait_lcore(B_LCORE);
	time_bench_stop(&rec, done);
	peer_cross_report(type, &x, done, &rec);
	peer_cross_fini(&x);
	rte_mempool_free(mp);
}

static void
row_cross_noneal(void)
{
	struct rte_mempool *mp = pool_create(POOL_CACHE);

	peer_cross_run("dpdk_mempool_c256_noneal_cross", mp,
		       mp_cross_b_noneal, mp_cross_a);
	rte_mempool_free(mp);

	mp = pool_create(POOL_CACHE);
	b_cache = rte_mempool_cache_create(POOL_CACHE, SOCKET_ID_ANY);
	if (b_cache == NULL)
		peer_die("rte_mempool_cache_create: %s",
			 rte_strerror(rte_errno));
	peer_cross_run("dpdk_mempool_c256_usercache_cross", mp,
		       mp_cross_b_usercache, mp_cross_a);
	rte_mempool_cache_free(b_cache);
	b_cache = NULL;
	rte_mempool_free(mp);
}

/*
 * ---- rte_ring SPSC -------------------------------------------------------
 */

static bool
ring_enq(void *ring, void *v)
{
	return rte_ring_sp_enqueue(ring, v) == 0;
}

static void *
ring_deq(void *ring)
{
	void *v;

	if (rte_ring_sc_dequeue(ring, &v) != 0)
		return NULL;
	return v;
}

static unsigned int
ring_deq_burst(void *ring, void **v, unsigned int max)
{
	return rte_ring_sc_dequeue_burst(ring, v, max, NULL);
}

static int
ring_b(void *arg)
{
	struct peer_spsc *s = arg;

	peer_spsc_b_enter(s, false);
	peer_spsc_consumer(s, ring_deq);
	return 0;
}

static int
ring_b_burst(void *arg)
{
	struct peer_spsc *s = arg;

	peer_spsc_b_enter(s, false);
	peer_spsc_consumer_burst(s, ring_deq_burst);
	return 0;
}

/* A, burst form: enqueue values in groups of up to 32, in order. */
static void
ring_a_burst(struct peer_spsc *s)
{
	struct rte_ring *r = s->ring;
	uint64_t next = 1;
	void *v[BULK];

	while (next <= s->n) {
		unsigned int k, want = BULK, put;

		if (s->n - next + 1 < want)
			want = (unsigned int)(s->n - next + 1);
		for (k = 0; k < want; k++)
			v[k] = (void *)(uintptr_t)(next + k);
		put = rte_ring_sp_enqueue_burst(r, v, want, NULL);
		if (put == 0)
			pp_cpu_relax();
		next += put;
	}
}

static void
row_ring(const char *type, bool burst)
{
	struct time_bench_record rec = { .step = 0 };
	struct peer_spsc s;
	struct rte_ring *r;
	int ret;

	r = rte_ring_create(burst ? "peer_ring_b" : "peer_ring",
			    PEER_RING_SIZE, SOCKET_ID_ANY,
			    RING_F_SP_ENQ | RING_F_SC_DEQ);
	if (r == NULL)
		peer_die("rte_ring_create: %s", rte_strerror(rte_errno));
	peer_spsc_init(&s, r, peer_opts.n);
	ret = rte_eal_remote_launch(burst ? ring_b_burst : ring_b, &s,
				    B_LCORE);
	if (ret != 0)
		peer_die("rte_eal_remote_launch: %s", strerror(-ret));
	peer_spsc_a_begin(&s, &rec);
	if (burst)
		ring_a_burst(&s);
	else
		peer_spsc_producer(&s, ring_enq);
	rte_eal_wait_lcore(B_LCORE);
	time_bench_stop(&rec, s.n);
	peer_spsc_done(type, &s, &rec);
	rte_ring_free(r);
}

/*
 * ---- EAL -----------------------------------------------------------------
 */

static void
eal_start(void)
{
	char lcores[64], prefix[64];
	char *eal_argv[] = {
		(char *)"peer_dpdk", lcores, (char *)"--no-huge",
		(char *)"--no-pci", (char *)"-m", (char *)"512",
		(char *)"--no-shconf", (char *)"--no-telemetry",
		(char *)"--log-level=1",
		prefix, NULL,
	};
	int eal_argc = (int)(sizeof(eal_argv) / sizeof(eal_argv[0])) - 1;

	snprintf(lcores, sizeof(lcores), "--lcores=0@%d,%d@%d",
		 peer_opts.cpu_a, B_LCORE, peer_opts.cpu_b);
	/* Our own runtime directory name, so concurrent runs never share
	 * one and the suite knows what to remove. */
	snprintf(prefix, sizeof(prefix), "--file-prefix=peer_dpdk_%ld",
		 (long)getpid());
	optind = 1;
	if (rte_eal_init(eal_argc, eal_argv) < 0)
		peer_die("rte_eal_init: %s", rte_strerror(rte_errno));
	if (rte_lcore_count() < 2)
		peer_die("EAL gave %u lcores, need 2", rte_lcore_count());
}

/*
 * Leave no runtime directory behind: ours (named by --file-prefix), then
 * its parent if that is now empty. rmdir() never removes anything else.
 */
static void
eal_stop(void)
{
	char dir[PATH_MAX];
	char *slash;

	snprintf(dir, sizeof(dir), "%s", rte_eal_get_runtime_dir());
	rte_eal_cleanup();
	if (dir[0] == '\0' || strstr(dir, "peer_dpdk_") == NULL)
		return;
	if (rmdir(dir) != 0)
		return;
	slash = strrchr(dir, '/');
	if (slash != NULL && slash != dir) {
		*slash = '\0';
		rmdir(dir);
	}
}

int
main(int argc, char **argv)
{
	unsigned int round;

	peer_init(argc, argv, "peer_dpdk",
		  "DPDK rte_mempool and rte_ring", NULL);
	eal_start();
	printf("# dpdk %s: EAL --no-huge --no-pci, lcore 0 on CPU %d, "
	       "lcore %d on CPU %d; pool %d x %d B, ring_mp_mc\n",
	       rte_version(), peer_opts.cpu_a, B_LCORE, peer_opts.cpu_b,
	       POOL_SIZE, PEER_BUF_SIZE);
	printf("# dpdk: a non-EAL thread has no mempool cache "
	       "(rte_lcore_id() == LCORE_ID_ANY): the noneal row's puts go "
	       "straight to the pool ring; the usercache row gives it one "
	       "(rte_mempool_cache_create)\n");
	fflush(stdout);
	for (round = 0; round < peer_opts.rounds; round++) {
		row_same("dpdk_mempool_c256_same", POOL_CACHE);
		row_same("dpdk_mempool_c0_same", 0);
		/* Each row that is a target's measure, then ours beside
		 * it (pp_rows.c): the same process, CPUs and moment. */
		row_bulk_same();
		pp_row_bulk32_same();
		pp_row_bulk32_trusted_same();
		row_cross_lcore("dpdk_mempool_c256_cross", POOL_CACHE,
				mp_cross_b_lcore);
		pp_row_ring_cross();
		row_cross_lcore("dpdk_mempool_c256_bulk32_cross", POOL_CACHE,
				mp_cross_b_lcore_bulk);
		pp_row_ring_bulk32_cross();
		row_cross_lcore("dpdk_mempool_c0_cross", 0, mp_cross_b_lcore);
		row_cross_noneal();
		row_ring("dpdk_rte_ring_spsc", false);
		row_ring("dpdk_rte_ring_burst32_spsc", true);
		pp_row_ptr_ring_burst32_spsc();
	}
	eal_stop();
	return 0;
}
