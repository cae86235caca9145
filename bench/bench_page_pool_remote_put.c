/* SPDX-License-Identifier: MIT */
/*
 * Copyright (c) 2026 The pagepool authors
 *
 * The non-owner put, in lock step: thread A, the pool's owner (its NAPI),
 * allocates a batch of BATCH pages; thread B, not the owner, returns them
 * all with page_pool_put_full_page(pool, page, false) (or, with --bulk N,
 * page_pool_put_page_bulk() of N at a time), which goes through B's
 * return stash; a barrier hands each batch over and back. No thread
 * waits on the other inside a batch, so the count of instructions per
 * page (A's allocation plus B's put) is the same from run to run under
 * callgrind: tests/perf/budget.txt keeps a budget of it. The time it
 * prints is the pair's wall time per page, barriers included; timed
 * cross-thread comparisons live in bench/peers (pagepool_pp_ring_cross).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <pagepool/page_pool.h>

#include "cli.h"
#include "cpu.h"

#define PROG "bench_page_pool_remote_put"
#define BATCH 1000

static struct page_pool *pool;
static struct page *pages[BATCH];
static pthread_barrier_t handover;
static uint64_t rounds;
static unsigned int bulk;	/* 0: single puts */

static void *
b_main(void *arg)
{
	uint64_t r;
	unsigned int n;
	int i;

	(void)arg;
	pp_tool_pin_nth_cpu(1);
	for (r = 0; r < rounds; r++) {
		pthread_barrier_wait(&handover);
		if (bulk == 0)
			for (i = 0; i < BATCH; i++)
				page_pool_put_full_page(pool, pages[i], false);
		for (i = 0; bulk != 0 && i < BATCH; i += (int)n) {
			n = (unsigned int)(BATCH - i);
			if (n > bulk)
				n = bulk;
			page_pool_put_page_bulk(&pages[i], n);
		}
		pthread_barrier_wait(&handover);
	}
	/* What is still stashed goes to the ring before the destroy. */
	pp_stash_flush();
	return NULL;
}

static void
usage(FILE *f)
{
	fprintf(f,
		"Usage: " PROG " [--loops N] [--bulk N]\n"
		"Thread A (the pool's owner) allocates pages, thread B returns\n"
		"them with page_pool_put_full_page(pool, page, false), %d at a\n"
		"time, in lock step.\n\n"
		"  --loops N   pages, a multiple of %d, %d.. (default 10000000)\n"
		"  --bulk N    B returns them with page_pool_put_page_bulk(), N\n"
		"              at a time, 1..%d (default: single puts)\n"
		"  -h, --help  this text\n",
		BATCH, BATCH, BATCH, BATCH);
}

int
main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "loops", required_argument, NULL, 'l' },
		{ "bulk", required_argument, NULL, 'b' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct page_pool_params pp = {
		.order = 0,
		.pool_size = 2 * BATCH,
		.nid = NUMA_NO_NODE,
		.dma_dir = DMA_BIDIRECTIONAL,
	};
	unsigned long long loops = 10000000;
	struct napi_struct napi;
	struct timespec t0, t1;
	pthread_t b;
	uint64_t r;
	double ns;
	int c, i;

	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'l':
			loops = pp_tool_parse_num(PROG, "--loops", optarg,
						  BATCH, UINT64_MAX);
			break;
		case 'b':
			bulk = (unsigned int)pp_tool_parse_num(PROG, "--bulk",
							       optarg, 1,
							       BATCH);
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind < argc || loops % BATCH != 0) {
		fprintf(stderr, PROG ": --loops must be a multiple of %d\n",
			BATCH);
		return 2;
	}
	rounds = loops / BATCH;
	pp_tool_pin_nth_cpu(0);
	napi_init_current(&napi);
	pp.napi = &napi;
	pool = page_pool_create(&pp);
	if (pool == NULL) {
		fprintf(stderr, PROG ": page_pool_create: %s\n",
			strerror(errno));
		return 1;
	}
	if (pthread_barrier_init(&handover, NULL, 2) != 0 ||
	    pthread_create(&b, NULL, b_main, NULL) != 0) {
		fprintf(stderr, PROG ": cannot start thread B\n");
		return 1;
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (r = 0; r < rounds; r++) {
		for (i = 0; i < BATCH; i++) {
			pages[i] = page_pool_alloc_pages(pool, GFP_ATOMIC);
			if (pages[i] == NULL) {
				fprintf(stderr, PROG ": allocation failed\n");
				abort();
			}
		}
		pthread_barrier_wait(&handover);
		pthread_barrier_wait(&handover);
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	pthread_join(b, NULL);
	ns = (double)(t1.tv_sec - t0.tv_sec) * 1e9 +
	     (double)(t1.tv_nsec - t0.tv_nsec);
	if (bulk == 0)
		printf("remote_put: %llu pages, %.2f ns per page (A alloc + B "
		       "put, lock step)\n", loops, ns / (double)loops);
	else
		printf("remote_put: %llu pages, %.2f ns per page (A alloc + B "
		       "put_page_bulk of %u, lock step)\n", loops,
		       ns / (double)loops, bulk);
	page_pool_disable_direct_recycling(pool);
	page_pool_destroy(pool);
	pthread_barrier_destroy(&handover);
	return 0;
}
