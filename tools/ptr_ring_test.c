/* SPDX-License-Identifier: MIT */
/*
 * Copyright (c) 2026 The pagepool authors
 *
 * ptr_ring_test: the benchmark of seed 002 (the kernel selftest Yunsheng Lin
 * proposed with "ptr_ring: move r->queue[] clearing after r->consumer_head
 * updating"), with its options and its result line, plus what the seed left
 * out: timing of its own (the seed relied on perf stat), several producers
 * (the pfifo_fast/pktgen case), a consume batch, and both zeroing orders
 * selectable at run time so they are compared in one binary.
 *
 * Every value is checked: with one producer the consumer expects 1..N in
 * order; with several, each producer's values arrive in that producer's
 * order and the total is N.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pagepool/ptr_ring.h>

#include "cli.h"
#include "cpu.h"
#include "time_bench.h"

#define MAX_PRODUCERS 64
#define MAX_BATCH 1024
/* Low bits of a multi-producer value name the producer. */
#define PRODUCER_BITS 8

enum relax_kind { RELAX_PAUSE, RELAX_YIELD };

struct config {
	int size;
	int mode;		/* 0 simple, 1 threaded */
	long count;
	int producers;
	int batch;		/* consume batch; 1 = one at a time */
	enum ptr_ring_zeroing variant;
	enum relax_kind relax;
	bool relax_set;
	bool locked;		/* producers take producer_lock */
};

struct shared {
	struct ptr_ring ring;
	const struct config *cfg;
	int start;		/* set by main to release the threads */
	int ready;		/* threads pinned and waiting */
	long errors;
	long consumed;
	int consumer_cpu;
};

struct producer_arg {
	struct shared *sh;
	int id;
	long count;
	int cpu;
};

static void
relax(enum relax_kind kind)
{
	if (kind == RELAX_YIELD)
		sched_yield();
	else
		pp_cpu_relax();
}

static void
wait_for_start(struct shared *sh)
{
	/* A2: pairs with release R2 in run_threaded(): the ring is set up. */
	pp_fetch_add_relaxed(&sh->ready, 1);
	while (pp_load_acquire(&sh->start) == 0)
		relax(sh->cfg->relax);
}

static void *
producer_main(void *arg)
{
	struct producer_arg *pa = arg;
	struct shared *sh = pa->sh;
	struct ptr_ring *r = &sh->ring;
	enum relax_kind rk = sh->cfg->relax;
	long i;

	pa->cpu = pp_tool_pin_nth_cpu(pa->id + 1);
	wait_for_start(sh);
	if (!sh->cfg->locked) {
		/* The seed's SPSC loop: lockless, spin while full. */
		for (i = 1; i <= pa->count; i++) {
			while (__ptr_ring_full(r))
				relax(rk);
			if (__ptr_ring_produce(r, (void *)(uintptr_t)i) != 0)
				pp_fetch_add_relaxed(&sh->errors, 1);
		}
		return NULL;
	}
	for (i = 1; i <= pa->count; i++) {
		/* One producer sends 1..N, as the seed; several tag theirs. */
		uintptr_t v = sh->cfg->producers == 1
				      ? (uintptr_t)i
				      : ((uintptr_t)i << PRODUCER_BITS) |
						(uintptr_t)pa->id;

		while (ptr_ring_produce(r, (void *)v) == -ENOSPC)
			relax(rk);
	}
	return NULL;
}

/*
 * The consumer, specialised per zeroing order and batch mode by constant
 * arguments, so the loop measured is the loop a user of that order would
 * compile.
 */
static PP_ALWAYS_INLINE void
consume_loop(struct shared *sh, enum ptr_ring_zeroing order, bool batched)
{
	const struct config *cfg = sh->cfg;
	struct ptr_ring *r = &sh->ring;
	long next[MAX_PRODUCERS];
	void *buf[MAX_BATCH];
	long got = 0, errors = 0;
	int p;

	for (p = 0; p < MAX_PRODUCERS; p++)
		next[p] = 1;
	while (got < cfg->count) {
		int n, k;

		while (__ptr_ring_empty(r))
			relax(cfg->relax);
		if (batched) {
			n = __ptr_ring_consume_batched_variant(r, buf,
							       cfg->batch,
							       order);
		} else {
			buf[0] = __ptr_ring_consume_variant(r, order);
			n = buf[0] != NULL;
		}
		for (k = 0; k < n; k++) {
			uintptr_t v = (uintptr_t)buf[k];

			if (cfg->producers == 1) {
				errors += (long)v != got + k + 1;
				continue;
			}
			p = (int)(v & ((1u << PRODUCER_BITS) - 1));
			if (p >= cfg->producers ||
			    (long)(v >> PRODUCER_BITS) != next[p]) {
				errors++;
				continue;
			}
			next[p]++;
		}
		got += n;
	}
	if (!__ptr_ring_empty(r))
		errors++;
	sh->consumed = got;
	pp_fetch_add_relaxed(&sh->errors, errors);
}

static void *
consumer_main(void *arg)
{
	struct shared *sh = arg;
	bool batched = sh->cfg->batch > 1;

	sh->consumer_cpu = pp_tool_pin_nth_cpu(0);
	wait_for_start(sh);
	if (sh->cfg->variant == PTR_RING_ZERO_HEAD_FIRST) {
		if (batched)
			consume_loop(sh, PTR_RING_ZERO_HEAD_FIRST, true);
		else
			consume_loop(sh, PTR_RING_ZERO_HEAD_FIRST, false);
	} else {
		if (batched)
			consume_loop(sh, PTR_RING_ZERO_MAINLINE, true);
		else
			consume_loop(sh, PTR_RING_ZERO_MAINLINE, false);
	}
	return NULL;
}

static PP_ALWAYS_INLINE long
simple_loop(struct ptr_ring *r, long count, enum ptr_ring_zeroing order)
{
	long i, errors = 0;

	for (i = 1; i <= count; i++) {
		void *v = (void *)(uintptr_t)i;

		errors += __ptr_ring_produce(r, v) != 0;
		errors += __ptr_ring_consume_variant(r, order) != v;
	}
	return errors;
}

static int
run_simple(struct shared *sh, struct time_bench_record *rec)
{
	long errors;

	printf("# single thread on CPU %d\n", pp_tool_pin_nth_cpu(0));
	time_bench_start(rec);
	if (sh->cfg->variant == PTR_RING_ZERO_HEAD_FIRST)
		errors = simple_loop(&sh->ring, sh->cfg->count,
				     PTR_RING_ZERO_HEAD_FIRST);
	else
		errors = simple_loop(&sh->ring, sh->cfg->count,
				     PTR_RING_ZERO_MAINLINE);
	time_bench_stop(rec, (uint64_t)sh->cfg->count);
	sh->consumed = sh->cfg->count;
	sh->errors = errors;
	return 0;
}

static int
run_threaded(struct shared *sh, struct time_bench_record *rec)
{
	const struct config *cfg = sh->cfg;
	struct producer_arg pa[MAX_PRODUCERS];
	pthread_t prod[MAX_PRODUCERS], cons;
	long share = cfg->count / cfg->producers;
	int p, err;

	err = pthread_create(&cons, NULL, consumer_main, sh);
	if (err != 0) {
		fprintf(stderr, "ptr_ring_test: pthread_create: %s\n",
			strerror(err));
		return -1;
	}
	for (p = 0; p < cfg->producers; p++) {
		pa[p].sh = sh;
		pa[p].id = p;
		pa[p].count = share + (p == 0 ? cfg->count % cfg->producers : 0);
		err = pthread_create(&prod[p], NULL, producer_main, &pa[p]);
		if (err != 0) {
			fprintf(stderr, "ptr_ring_test: pthread_create: %s\n",
				strerror(err));
			exit(1);
		}
	}
	while (pp_load_relaxed(&sh->ready) != cfg->producers + 1)
		sched_yield();
	time_bench_start(rec);
	/* R2: pairs with acquire A2 in wait_for_start(). */
	pp_store_release(&sh->start, 1);
	pthread_join(cons, NULL);
	time_bench_stop(rec, (uint64_t)cfg->count);
	for (p = 0; p < cfg->producers; p++)
		pthread_join(prod[p], NULL);
	printf("# consumer on CPU %d", sh->consumer_cpu);
	for (p = 0; p < cfg->producers; p++)
		printf(", producer %d on CPU %d", p, pa[p].cpu);
	printf("\n");
	return 0;
}

static void
usage(FILE *out)
{
	fprintf(out,
		"Usage: ptr_ring_test [options]\n"
		"Benchmark and check pagepool's ptr_ring: the kernel selftest of\n"
		"\"ptr_ring: move r->queue[] clearing after r->consumer_head updating\".\n"
		"\n"
		"  -s SIZE         ring size, 2..10000000 (default 1000)\n"
		"  -m MODE         0: simple, one thread produces then consumes;\n"
		"                  1: threaded, producers and one consumer (default 0)\n"
		"  -N COUNT        items to pass, 1..%ld (default 1000000)\n"
		"  -p PRODUCERS    producer threads in mode 1, 1..%d (default 1);\n"
		"                  more than one use the locked ptr_ring_produce()\n"
		"  --locked        use ptr_ring_produce() even with one producer\n"
		"  -b BATCH        consumer batch for __ptr_ring_consume_batched(),\n"
		"                  1..%d (default 1: __ptr_ring_consume())\n"
		"  --variant V     tail-zeroing order: mainline (default) or head-first\n"
		"  --relax R       wait with pause (default when every thread has its\n"
		"                  own CPU) or yield (default when oversubscribed)\n"
		"  -h, --help      this text\n"
		"\n"
		"Threads are pinned: the consumer to the first usable CPU, producer k\n"
		"to the (k+1)-th, wrapping. Exit status: 0 ok, 1 a value was lost,\n"
		"duplicated or out of order, 2 bad usage.\n",
		(long)INT_MAX, MAX_PRODUCERS, MAX_BATCH);
}

/* An option's number, or exit 2 with a message. */
#define NUM(opt, arg, min, max)                                              \
	pp_tool_parse_num("ptr_ring_test", opt, arg, min, max)

static void
parse_args(int argc, char **argv, struct config *cfg)
{
	static const struct option longopts[] = {
		{ "variant", required_argument, NULL, 'V' },
		{ "relax", required_argument, NULL, 'R' },
		{ "locked", no_argument, NULL, 'L' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	while ((c = getopt_long(argc, argv, "s:m:N:p:b:h", longopts, NULL)) !=
	       -1) {
		switch (c) {
		case 's':
			cfg->size = (int)NUM("-s", optarg, 2, 10000000);
			break;
		case 'm':
			cfg->mode = (int)NUM("-m", optarg, 0, 1);
			break;
		case 'N':
			cfg->count = (long)NUM("-N", optarg, 1, INT_MAX);
			break;
		case 'p':
			cfg->producers = (int)NUM("-p", optarg, 1,
						  MAX_PRODUCERS);
			break;
		case 'b':
			cfg->batch = (int)NUM("-b", optarg, 1, MAX_BATCH);
			break;
		case 'V':
			if (strcmp(optarg, "mainline") == 0) {
				cfg->variant = PTR_RING_ZERO_MAINLINE;
			} else if (strcmp(optarg, "head-first") == 0) {
				cfg->variant = PTR_RING_ZERO_HEAD_FIRST;
			} else {
				fprintf(stderr,
					"ptr_ring_test: --variant: '%s' is "
					"neither mainline nor head-first\n",
					optarg);
				exit(2);
			}
			break;
		case 'R':
			if (strcmp(optarg, "pause") == 0) {
				cfg->relax = RELAX_PAUSE;
			} else if (strcmp(optarg, "yield") == 0) {
				cfg->relax = RELAX_YIELD;
			} else {
				fprintf(stderr,
					"ptr_ring_test: --relax: '%s' is "
					"neither pause nor yield\n",
					optarg);
				exit(2);
			}
			cfg->relax_set = true;
			break;
		case 'L':
			cfg->locked = true;
			break;
		case 'h':
			usage(stdout);
			exit(0);
		default:
			usage(stderr);
			exit(2);
		}
	}
	if (optind < argc) {
		fprintf(stderr, "ptr_ring_test: unexpected argument '%s'\n",
			argv[optind]);
		exit(2);
	}
	if (cfg->mode == 0 && cfg->producers != 1) {
		fprintf(stderr, "ptr_ring_test: -p needs -m 1\n");
		exit(2);
	}
	if (cfg->count < cfg->producers) {
		fprintf(stderr,
			"ptr_ring_test: -N must be at least -p (%d)\n",
			cfg->producers);
		exit(2);
	}
	if (cfg->producers > 1)
		cfg->locked = true;
	if (cfg->locked && cfg->mode == 0) {
		fprintf(stderr, "ptr_ring_test: --locked needs -m 1\n");
		exit(2);
	}
	if (!cfg->relax_set)
		cfg->relax = cfg->mode == 1 &&
				     cfg->producers + 1 > pp_tool_ncpus()
			     ? RELAX_YIELD
			     : RELAX_PAUSE;
}

int
main(int argc, char **argv)
{
	struct config cfg = {
		.size = 1000,
		.mode = 0,
		.count = 1000000,
		.producers = 1,
		.batch = 1,
		.variant = PTR_RING_ZERO_MAINLINE,
	};
	struct time_bench_record rec = { .version_abi = 1, .cpu = -1 };
	const char *mode_name, *variant_name;
	static struct shared sh;
	char type[96];
	double secs;
	int ret;

	parse_args(argc, argv, &cfg);
	mode_name = cfg.mode == 0 ? "simple"
		    : cfg.producers == 1 ? "spsc" : "mpsc";
	variant_name = cfg.variant == PTR_RING_ZERO_HEAD_FIRST ? "head-first"
							       : "mainline";

	printf("# ptr_ring_test: size %d, mode %d (%s), count %ld, "
	       "producers %d%s, consume batch %d, variant %s, relax %s, "
	       "clock %s\n",
	       cfg.size, cfg.mode, mode_name, cfg.count, cfg.producers,
	       cfg.locked ? " (locked)" : "",
	       cfg.batch, variant_name,
	       cfg.relax == RELAX_YIELD ? "yield" : "pause",
	       time_bench_clock_name());
	pp_tool_print_machine(stdout);

	sh.cfg = &cfg;
	ret = ptr_ring_init(&sh.ring, cfg.size, GFP_KERNEL);
	if (ret != 0) {
		fprintf(stderr, "ptr_ring_test: ptr_ring_init(%d): %s\n",
			cfg.size, strerror(-ret));
		return 1;
	}
	rec.loops = (uint32_t)cfg.count;
	rec.step = cfg.size;
	if (cfg.mode == 0)
		ret = run_simple(&sh, &rec);
	else
		ret = run_threaded(&sh, &rec);
	ptr_ring_cleanup(&sh.ring, NULL);
	if (ret != 0)
		return 1;

	/* The seed's line, its spelling included, for scripts that grep. */
	printf("ptr_ring(size:%d) perf %s test produced/comsumed %ld items, "
	       "finished\n",
	       cfg.size, mode_name, sh.consumed);
	secs = (double)(rec.ts_stop - rec.ts_start) / 1e9;
	printf("elapsed: %.6f s, %.2f ns/item, %.2f Mitems/s\n", secs,
	       secs * 1e9 / (double)cfg.count,
	       (double)cfg.count / secs / 1e6);
	snprintf(type, sizeof(type), "ptr_ring_%s_%s%s%s", mode_name,
		 variant_name, cfg.locked ? "_locked" : "",
		 cfg.batch > 1 ? "_batched" : "");
	if (time_bench_calc_stats(&rec))
		time_bench_print(stdout, "ptr_ring_test: ", type, &rec);
	if (sh.errors != 0 || sh.consumed != cfg.count) {
		fprintf(stderr,
			"ptr_ring_test: FAILED: %ld bad values, %ld of %ld "
			"items consumed\n",
			sh.errors, sh.consumed, cfg.count);
		return 1;
	}
	return 0;
}
