/* SPDX-License-Identifier: MIT */
/*
 * Copyright (c) 2026 The pagepool authors
 *
 * bench_page_pool_simple: the kernel's page_pool micro-benchmark module
 * (prototype-kernel's bench_page_pool_simple.c, in tree since 6.17 under
 * tools/testing/selftests/net/bench/page_pool/) as a program, with its
 * parameters, its tests, its pool set-up and its output lines, so
 * test_bench_page_pool.sh's regex ("no-softirq-page_pool0N Per elem: N
 * cycles(tsc) N.N ns") reads our results unchanged.
 *
 * Baselines measure the building blocks: an empty loop, an atomic
 * increment, a spinlock round trip, and the owner test our put path makes
 * instead of the kernel's napi_local (a thread-pointer compare), which is
 * what closes seed 000's NAPI use-after-free. Each page_pool test times
 * page_pool_alloc_pages() plus one return:
 *   01 fast_path  page_pool_recycle_direct()        alloc cache round trip
 *   02 ptr_ring   page_pool_put_page(-1, false)     through the ring
 *   03 slow       get_page + put_page(-1, false) + put_page: the extra
 *                 reference blocks recycling, so every 64th alloc takes
 *                 the bulk slow path into the page allocator
 * in two contexts: "no-softirq" (the kernel's process context: a pool with
 * no owner) and "tasklet" (the owner's context: the pool's NAPI is this
 * thread, so a put with allow_direct false is recycled directly, as the
 * kernel does for a NAPI-local put). The pool's counters are printed after
 * each test, so the path that really ran is visible.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pagepool/page_pool.h>
#include <pagepool/version.h>

#include "cli.h"
#include "cpu.h"
#include "pool_report.h"
#include "time_bench.h"

#ifndef PP_BENCH_CFLAGS
#define PP_BENCH_CFLAGS "unknown"
#endif

enum benchmark_bit {
	bit_run_bench_baseline,
	bit_run_bench_no_softirq01,
	bit_run_bench_no_softirq02,
	bit_run_bench_no_softirq03,
	bit_run_bench_tasklet01,
	bit_run_bench_tasklet02,
	bit_run_bench_tasklet03,
};

#define BIT(n) (1UL << (n))
#define PREFIX "bench_page_pool: "
#define PROG "bench_page_pool_simple"

static unsigned long run_flags = 0xffffffffUL;
static uint32_t loops = 10000000;
static bool json;

static void
report(const char *type, struct time_bench_record *rec)
{
	if (!time_bench_calc_stats(rec))
		return;
	if (json) {
		printf("{\"type\":\"%s\",\"cycles\":%llu,\"ns\":%llu.%03llu,"
		       "\"loops\":%llu}\n",
		       type, (unsigned long long)rec->tsc_cycles,
		       (unsigned long long)rec->ns_per_call_quotient,
		       (unsigned long long)rec->ns_per_call_decimal,
		       (unsigned long long)rec->invoked_cnt);
		return;
	}
	time_bench_print(stdout, PREFIX, type, rec);
}

/* ---- Baselines ------------------------------------------------------- */

static void
bench_for_loop(void)
{
	struct time_bench_record rec = { .step = 0 };
	uint64_t i, n = (uint64_t)loops * 10, cnt = 0;

	time_bench_start(&rec);
	for (i = 0; i < n; i++) {
		cnt++;
		pp_barrier();
	}
	time_bench_stop(&rec, cnt);
	report("for_loop", &rec);
}

static void
bench_atomic_inc(void)
{
	struct time_bench_record rec = { .step = 0 };
	uint64_t i, n = (uint64_t)loops * 10;
	static long counter;

	time_bench_start(&rec);
	for (i = 0; i < n; i++)
		__atomic_fetch_add(&counter, 1, __ATOMIC_RELAXED);
	time_bench_stop(&rec, n);
	report("atomic_inc", &rec);
}

static void
bench_lock(void)
{
	struct time_bench_record rec = { .step = 0 };
	struct pp_spinlock lock = PP_SPINLOCK_INIT;
	uint64_t i;

	time_bench_start(&rec);
	for (i = 0; i < loops; i++) {
		pp_spin_lock(&lock);
		pp_barrier();
		pp_spin_unlock(&lock);
	}
	time_bench_stop(&rec, loops);
	report("lock", &rec);
}

static void
bench_owner_check(void)
{
	struct time_bench_record rec = { .step = 0 };
	uint64_t i, n = (uint64_t)loops * 10, hits = 0;
	static unsigned long owner;

	owner = pp_thread_self();
	time_bench_start(&rec);
	for (i = 0; i < n; i++) {
		hits += pp_load_relaxed(&owner) == pp_thread_self();
		pp_barrier();
	}
	time_bench_stop(&rec, hits);
	report("owner_check", &rec);
}

/* ---- page_pool tests ---------------------------------------------------- */

enum test_type { TYPE_FAST_PATH, TYPE_PTR_RING, TYPE_SLOW };

/* Put @nr pages into the ring, as the kernel's pp_fill_ptr_ring(). */
static void
fill_ptr_ring(struct page_pool *pool, int nr)
{
	struct page *pages[64];
	int i;

	for (i = 0; i < nr; i++) {
		pages[i] = page_pool_alloc_pages(pool, GFP_ATOMIC);
		if (pages[i] == NULL) {
			fprintf(stderr, "bench_page_pool: prefill failed\n");
			exit(1);
		}
	}
	for (i = 0; i < nr; i++)
		__page_pool_put_page(pool, pages[i], -1, false);
}

/*
 * The timed loop, specialised per test by a constant argument so each
 * measures only its own return path.
 */
static PP_ALWAYS_INLINE uint64_t
pp_loop(struct page_pool *pool, enum test_type type)
{
	uint64_t i;

	for (i = 0; i < loops; i++) {
		struct page *page = page_pool_alloc_pages(pool, GFP_ATOMIC);

		if (PP_UNLIKELY(page == NULL))
			break;
		if (type == TYPE_FAST_PATH) {
			page_pool_recycle_direct(pool, page);
		} else if (type == TYPE_PTR_RING) {
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
time_bench_page_pool(const char *name, enum test_type type, bool owner)
{
	struct time_bench_record rec = { .step = 0 };
	struct napi_struct napi;
	struct page_pool_params pp = {
		.order = 0,
		.pool_size = 1024,
		.nid = NUMA_NO_NODE,
		.dma_dir = DMA_BIDIRECTIONAL,
	};
	struct page_pool *pool;
	uint64_t done;

	if (owner) {
		napi_init_current(&napi);
		pp.napi = &napi;
	}
	pool = page_pool_create(&pp);
	if (pool == NULL) {
		fprintf(stderr, "bench_page_pool: page_pool_create: %s\n",
			strerror(errno));
		exit(1);
	}
	fill_ptr_ring(pool, 64);
	printf("%s%s(): %s\n", json ? "# " : PREFIX, name,
	       owner ? "owner thread: every put may recycle directly"
		     : "no owner: only allow_direct puts recycle directly");

	time_bench_start(&rec);
	if (type == TYPE_FAST_PATH)
		done = pp_loop(pool, TYPE_FAST_PATH);
	else if (type == TYPE_PTR_RING)
		done = pp_loop(pool, TYPE_PTR_RING);
	else
		done = pp_loop(pool, TYPE_SLOW);
	time_bench_stop(&rec, done);
	if (done < loops)
		fprintf(stderr, "bench_page_pool: %s: only %llu of %u loops "
				"(allocation failed)\n",
			name, (unsigned long long)done, loops);
	{
		/* The in-tree labels the selftest greps, and the out-of-tree
		 * module's tasklet labels. */
		static const char *const in_tree[] = {
			"page_pool01", "page_pool02", "page_pool03",
		};
		static const char *const oot[] = {
			"page_pool01_fast_path", "page_pool02_ptr_ring",
			"page_pool03_slow",
		};
		char type_name[64];

		snprintf(type_name, sizeof(type_name),
			 owner ? "tasklet_%s" : "no-softirq-%s",
			 owner ? oot[type] : in_tree[type]);
		report(type_name, &rec);
	}
	pp_tool_print_pool_stats(stdout, json ? "#   stats: " : "  stats: ",
				 pool);
	page_pool_disable_direct_recycling(pool);
	page_pool_destroy(pool);
}

static void
usage(FILE *out)
{
	fprintf(out,
		"Usage: bench_page_pool_simple [options]\n"
		"The kernel's page_pool micro-benchmark as a program.\n"
		"\n"
		"  --loops N        iterations per test, 1000..4294967295 "
		"(default 10000000)\n"
		"  --run_flags M    bitmask of tests (default 0xffffffff):\n"
		"                     bit 0 baselines, bits 1-3 no-softirq 01-03,\n"
		"                     bits 4-6 tasklet (owner) 01-03\n"
		"  --cpu N          pin to the N-th usable CPU (default 0)\n"
		"  --json           one JSON object per result line\n"
		"  -h, --help       this text\n");
}

int
main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "loops", required_argument, NULL, 'l' },
		{ "run_flags", required_argument, NULL, 'r' },
		{ "cpu", required_argument, NULL, 'c' },
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c, cpu = 0, pinned;

	while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		switch (c) {
		case 'l':
			/* The kernel's bound: its time_bench divides by 32
			 * bits (-ECHRNG above U32_MAX). */
			loops = (uint32_t)pp_tool_parse_num(
				PROG, "--loops", optarg, 1000, UINT32_MAX);
			break;
		case 'r':
			run_flags = (unsigned long)pp_tool_parse_num(PROG,
				"--run_flags", optarg, 0, UINT32_MAX);
			break;
		case 'c':
			cpu = (int)pp_tool_parse_num(PROG, "--cpu", optarg, 0,
						     4095);
			break;
		case 'j':
			json = true;
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
		fprintf(stderr, "bench_page_pool_simple: unexpected argument "
				"'%s'\n",
			argv[optind]);
		return 2;
	}

	if (!json)
		pp_tool_print_machine(stdout);	/* before pinning narrows it */
	pinned = pp_tool_pin_nth_cpu(cpu);
	if (!json) {
		printf("# bench_page_pool_simple: loops %u, run_flags %#lx, "
		       "pinned to CPU %d, clock %s\n",
		       loops, run_flags, pinned, time_bench_clock_name());
		printf("# Build flags: %s; pagepool %s%s%s\n", PP_BENCH_CFLAGS,
		       pp_version(), PAGE_POOL_STATS ? ", stats on" : "",
		       PP_DEBUG ? ", DEBUG CHECKS ON (not a speed build)" : "");
	}

	if (run_flags & BIT(bit_run_bench_baseline)) {
		bench_for_loop();
		bench_atomic_inc();
		bench_lock();
		bench_owner_check();
	}
	if (run_flags & BIT(bit_run_bench_no_softirq01))
		time_bench_page_pool("time_bench_page_pool01_fast_path",
				     TYPE_FAST_PATH, false);
	if (run_flags & BIT(bit_run_bench_no_softirq02))
		time_bench_page_pool("time_bench_page_pool02_ptr_ring",
				     TYPE_PTR_RING, false);
	if (run_flags & BIT(bit_run_bench_no_softirq03))
		time_bench_page_pool("time_bench_page_pool03_slow", TYPE_SLOW,
				     false);
	if (run_flags & BIT(bit_run_bench_tasklet01))
		time_bench_page_pool("time_bench_page_pool01_fast_path",
				     TYPE_FAST_PATH, true);
	if (run_flags & BIT(bit_run_bench_tasklet02))
		time_bench_page_pool("time_bench_page_pool02_ptr_ring",
				     TYPE_PTR_RING, true);
	if (run_flags & BIT(bit_run_bench_tasklet03))
		time_bench_page_pool("time_bench_page_pool03_slow", TYPE_SLOW,
				     true);
	return 0;
}
