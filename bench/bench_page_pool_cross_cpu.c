/* SPDX-License-Identifier: MIT */
/*
 * Copyright (c) 2026 The pagepool authors
 *
 * bench_page_pool_cross_cpu: the out-of-tree kernel benchmark of pages
 * returned from other CPUs (prototype-kernel's bench_page_pool_cross_cpu),
 * as a program. One RX thread, the pool's owner, plays the NIC: it
 * allocates pages and hands them round-robin to the returning threads over
 * one SPSC ptr_ring each (a full queue means the page is recycled directly,
 * as XDP_DROP would). Each returning thread drains its queue and puts every
 * page back with page_pool_put_page(pool, page, -1, false), so all of them
 * contend on the pool's ring (the MPSC return path), while the owner's
 * refills consume from it. Output: a per-CPU time_bench line for each
 * returning thread, the Sum line, and per CPU "recycled:%llu pages,
 * empty:%llu times", then the pool's counters.
 *
 * With more threads than CPUs (the default on a 2-CPU machine: RX + 2
 * returners) everyone waits with sched_yield(); the numbers then include
 * scheduling, which the header says.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pagepool/page_pool.h>

#include "cli.h"
#include "cpu.h"
#include "pool_report.h"
#include "time_bench.h"

#define MAX_CPUS 64
#define QUEUE_SIZE 1024
/* The kernel benchmark's MY_POOL_SIZE and prefill. */
#define POOL_SIZE 32000
#define PREFILL 256
#define PREFIX "bench_page_pool_cross_cpu: "
#define PROG "bench_page_pool_cross_cpu"

struct returner {
	struct ptr_ring queue PP_CACHELINE_ALIGNED;
	struct page_pool *pool;
	uint64_t recycled;
	uint64_t empty;
	int rx_done;		/* set by the RX thread when all is sent */
	int *started;		/* returners running (the RX thread waits) */
};

struct rx_state {
	struct page_pool *pool;
	struct returner *ret;
	int nret;
	uint64_t to_send;
	uint64_t sent;
	uint64_t queue_full;
	int started;
	int cpu;
};

static bool oversubscribed;

static void
relax(void)
{
	if (oversubscribed)
		sched_yield();
	else
		pp_cpu_relax();
}

static int
returner_run(struct time_bench_record *rec, void *data)
{
	struct returner *r = data;
	uint64_t recycled = 0, empty = 0;

	/* The RX thread starts sending once every returner is here. */
	pp_fetch_add_relaxed(r->started, 1);
	time_bench_start(rec);
	for (;;) {
		struct page *page = __ptr_ring_consume(&r->queue);

		if (page == NULL) {
			/* A5: pairs with release R5 in rx_main(); after it,
			 * one more drain finds everything sent. */
			if (pp_load_acquire(&r->rx_done) &&
			    __ptr_ring_empty(&r->queue))
				break;
			empty++;
			relax();
			continue;
		}
		page_pool_put_page(r->pool, page, -1, false);
		recycled++;
	}
	time_bench_stop(rec, recycled);
	r->recycled = recycled;
	r->empty = empty;
	return 0;
}

static void *
rx_main(void *arg)
{
	struct rx_state *rx = arg;
	struct napi_struct napi;
	uint64_t i;
	int q = 0;

	rx->cpu = pp_tool_pin_nth_cpu(0);
	napi_init_current(&napi);
	if (page_pool_enable_direct_recycling(rx->pool, &napi) != 0)
		abort();
	while (pp_load_relaxed(&rx->started) < rx->nret)
		sched_yield();
	for (i = 0; i < rx->to_send; i++) {
		struct page *page;

		while ((page = page_pool_dev_alloc_pages(rx->pool)) == NULL)
			relax();
		if (__ptr_ring_produce(&rx->ret[q].queue, page) != 0) {
			page_pool_recycle_direct(rx->pool, page);
			rx->queue_full++;
		} else {
			rx->sent++;
		}
		if (++q == rx->nret)
			q = 0;
	}
	for (q = 0; q < rx->nret; q++)
		/* R5: pairs with acquire A5 in returner_run(). */
		pp_store_release(&rx->ret[q].rx_done, 1);
	page_pool_disable_direct_recycling(rx->pool);
	return NULL;
}

static void
usage(FILE *out)
{
	fprintf(out,
		"Usage: bench_page_pool_cross_cpu [options]\n"
		"Pages allocated by one RX thread, returned from others through\n"
		"the pool's ring (the kernel's out-of-tree cross-CPU benchmark).\n"
		"\n"
		"  --loops N            pages per returning thread, 1000.. "
		"(default 1000000)\n"
		"  --returning_cpus N   returning threads, 1..%d (default 2)\n"
		"  -h, --help           this text\n"
		"\n"
		"The RX thread is pinned to the first usable CPU, returner k to\n"
		"the (k+1)-th, wrapping.\n",
		MAX_CPUS);
}

int
main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "loops", required_argument, NULL, 'l' },
		{ "returning_cpus", required_argument, NULL, 'r' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	static struct returner ret[MAX_CPUS];
	struct time_bench_cpu tasks[MAX_CPUS];
	struct page_pool_params pp = {
		.pool_size = POOL_SIZE,
		.nid = NUMA_NO_NODE,
		.dma_dir = DMA_BIDIRECTIONAL,
	};
	struct rx_state rx;
	uint64_t loops = 1000000;
	int nret = 2, c, i, err;
	pthread_t rx_thread;
	struct page *pages[PREFILL];

	while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		switch (c) {
		case 'l':
			loops = pp_tool_parse_num(PROG, "--loops", optarg,
						  1000, UINT32_MAX);
			break;
		case 'r':
			nret = (int)pp_tool_parse_num(
				PROG, "--returning_cpus", optarg, 1, MAX_CPUS);
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind < argc) {
		fprintf(stderr,
			"bench_page_pool_cross_cpu: unexpected argument '%s'\n",
			argv[optind]);
		return 2;
	}
	oversubscribed = nret + 1 > pp_tool_ncpus();
	pp_tool_print_machine(stdout);
	printf("# bench_page_pool_cross_cpu: loops %llu, returning_cpus %d, "
	       "pool_size %d, prefill %d, queue %d, clock %s%s\n",
	       (unsigned long long)loops, nret, POOL_SIZE, PREFILL,
	       QUEUE_SIZE, time_bench_clock_name(),
	       oversubscribed ? ", OVERSUBSCRIBED: threads yield" : "");

	rx.pool = page_pool_create(&pp);
	if (rx.pool == NULL) {
		fprintf(stderr, "bench_page_pool_cross_cpu: page_pool_create: "
				"%s\n",
			strerror(errno));
		return 1;
	}
	/* Prefill the ring, as the kernel benchmark does. */
	for (i = 0; i < PREFILL; i++)
		pages[i] = page_pool_alloc_pages(rx.pool, GFP_KERNEL);
	for (i = 0; i < PREFILL; i++)
		if (pages[i] != NULL)
			page_pool_put_full_page(rx.pool, pages[i], false);

	memset(tasks, 0, sizeof(tasks));
	for (i = 0; i < nret; i++) {
		if (ptr_ring_init(&ret[i].queue, QUEUE_SIZE, GFP_KERNEL) != 0)
			return 1;
		ret[i].pool = rx.pool;
		ret[i].started = &rx.started;
		tasks[i].data = &ret[i];
		tasks[i].cpu_index = i + 1;
		tasks[i].func = returner_run;
	}
	rx.ret = ret;
	rx.nret = nret;
	rx.to_send = (uint64_t)nret * loops + (uint64_t)nret;
	rx.sent = rx.queue_full = 0;
	rx.started = 0;
	err = pthread_create(&rx_thread, NULL, rx_main, &rx);
	if (err != 0)
		return 1;
	err = time_bench_run_concurrent(tasks, nret, (uint32_t)loops, 0);
	pthread_join(rx_thread, NULL);
	if (err != 0) {
		fprintf(stderr, "bench_page_pool_cross_cpu: threads: %s\n",
			strerror(-err));
		return 1;
	}

	time_bench_print_stats_cpus(stdout, PREFIX, "page_pool_cross_cpu",
				    tasks, nret);
	for (i = 0; i < nret; i++)
		printf("%sCPU(%d) recycled:%llu pages, empty:%llu times\n",
		       PREFIX, tasks[i].cpu,
		       (unsigned long long)ret[i].recycled,
		       (unsigned long long)ret[i].empty);
	printf("%sRX CPU(%d) sent:%llu pages, queue full (recycled "
	       "directly):%llu\n",
	       PREFIX, rx.cpu, (unsigned long long)rx.sent,
	       (unsigned long long)rx.queue_full);
	pp_tool_print_pool_stats(stdout, "  stats: ", rx.pool);
	{
		uint64_t back = 0;

		for (i = 0; i < nret; i++) {
			back += ret[i].recycled;
			ptr_ring_cleanup(&ret[i].queue, NULL);
		}
		if (back != rx.sent) {
			fprintf(stderr,
				"bench_page_pool_cross_cpu: FAILED: %llu sent, "
				"%llu returned\n",
				(unsigned long long)rx.sent,
				(unsigned long long)back);
			return 1;
		}
	}
	page_pool_destroy(rx.pool);
	return 0;
}
