/* SPDX-License-Identifier: MIT */
/*
 * Copyright (c) 2026 The pagepool authors
 *
 * bench_page_pool_simple: the kernel's page_pool micro-benchmark module
 * (prototype-kernel's bench_page_pool_simple.c, in tree since 6.17 under
 * tools/testing/selftests/net/bench/page_pool/) as a program, with its
 * parameters, its tests, its pool set-up and its output lines. By default
 * the output ends as the in-tree module's log does (baselines, then the
 * three no-softirq tests), so the kernel's selftest, which reads the last
 * ten lines and greps "no-softirq-page_pool0N Per elem: N cycles(tsc)
 * N.N ns", reads our results unchanged.
 *
 * Baselines measure the building blocks: an empty loop, an atomic
 * increment, a spinlock round trip, and the owner test our put path makes
 * instead of the kernel's napi_local (a thread-pointer compare). Each
 * page_pool test times page_pool_alloc_pages() plus one return:
 *   01 fast_path  page_pool_recycle_direct()        alloc cache round trip
 *   02 ptr_ring   page_pool_put_page(-1, false)     through the ring
 *   03 slow       get_page + put_page(-1, false) + put_page: the extra
 *                 reference blocks recycling, so every 64th alloc takes
 *                 the bulk slow path into the page allocator
 * in three contexts, selected by run_flags bits as in the modules:
 *   bits 1-3 "no-softirq" (in-tree module): a pool without NAPI;
 *   bits 4-6 "tasklet" (out-of-tree module): the module's tasklet runs in
 *            softirq, but its pool has no NAPI either, so a put with
 *            allow_direct false goes through the ring there too; userspace
 *            has no softirq, so these take the no-softirq rows' paths;
 *   bits 7-9 "owner" (ours, no kernel counterpart): the pool's NAPI is
 *            this thread, so a put with allow_direct false is NAPI-local
 *            and recycles directly; never compare these with a kernel row.
 * The default, 0xf, is what the in-tree module's default runs.
 *
 * With --bulk N (a pagepool extension), tests 01 and 02 take N pages at a
 * time with page_pool_alloc_pages_bulk() and give them back with
 * page_pool_put_page_bulk() (the owner's: straight into the alloc cache;
 * anyone else's: the ring), counted per page; the labels gain "_bulkN".
 * --trusted returns them with page_pool_recycle_direct_bulk() instead,
 * which tests no page (DPDK's rte_mempool_put_bulk() shape; in a pool
 * without an owner it falls back to the checked put); "_trusted" is
 * added to the labels.
 *
 * Two ways of calling the library:
 *   inline (default)  the header's inline fast paths, as a userspace user
 *                     gets them (compare with DPDK, whose get/put inline);
 *   --outline         the kernel module's shape: the library's exported
 *                     out-of-line functions, one call to allocate and one
 *                     to put (__page_pool_alloc_pages_slow(), which serves
 *                     from the alloc cache when it is called with one, and
 *                     page_pool_put_unrefed_page() after the inline
 *                     page_pool_unref_and_test(), as the kernel's
 *                     page_pool_put_page() calls page_pool_put_unrefed_*),
 *                     and a compiler barrier per iteration: compare these
 *                     with the kernel's published figures.
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
	bit_run_bench_owner01,
	bit_run_bench_owner02,
	bit_run_bench_owner03,
};

#define BIT(n) (1UL << (n))
#define PREFIX "bench_page_pool: "
#define PROG "bench_page_pool_simple"
/* The in-tree module's tests: what its default 0xFFFFFFFF runs there. */
#define RUN_FLAGS_DEFAULT 0xfUL

static unsigned long run_flags = RUN_FLAGS_DEFAULT;
static uint32_t loops = 10000000;
/* --bulk: pages per bulk call in tests 01 and 02 (0: single pages). */
#define BULK_MAX 64
static unsigned int bulk;
static bool json, outline, stats, trusted;

static void
report(const char *type, struct time_bench_record *rec)
{
	if (!time_bench_calc_stats(rec))
		return;
	if (json) {
		printf("{\"type\":\"%s\",\"cycles\":%llu,\"ns\":%llu.%03llu,"
		       "\"loops\":%llu,\"cycles_exact\":%.3f,"
		       "\"unit\":\"%s\",\"mode\":\"%s\"}\n",
		       type, (unsigned long long)rec->tsc_cycles,
		       (unsigned long long)rec->ns_per_call_quotient,
		       (unsigned long long)rec->ns_per_call_decimal,
		       (unsigned long long)rec->invoked_cnt,
		       time_bench_cycles_exact(rec), time_bench_cycles_label(),
		       outline ? "outline" : "inline");
		return;
	}
	time_bench_print(stdout, PREFIX, type, rec);
}

/* ---- Baselines ------------------------------------------------------- */

/*
 * The kernel runs these loops * 10 times in a u32, which wraps from loops
 * 429496730 on; here the count is 64 bits wide, so they run what they say.
 */
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
enum test_ctx { CTX_NO_SOFTIRQ, CTX_TASKLET, CTX_OWNER };

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
 * The timed loop with the header's inline paths, specialised per test by a
 * constant argument so each measures only its own return path.
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

/*
 * The kernel module's loop: the allocation and the put each call an
 * exported, out-of-line function (the kernel's page_pool_alloc_pages() and
 * page_pool_put_unrefed_netmem() are), the reference drop in front of the
 * put stays inline as in the kernel's helpers, and a compiler barrier per
 * iteration keeps the loop from being rearranged, as the module's does.
 */
static PP_ALWAYS_INLINE uint64_t
pp_loop_outline(struct page_pool *pool, enum test_type type)
{
	uint64_t i, cnt = 0;

	for (i = 0; i < loops; i++) {
		struct page *page = __page_pool_alloc_pages_slow(pool,
								 GFP_ATOMIC);

		if (PP_UNLIKELY(page == NULL))
			break;
		cnt++;
		pp_barrier();
		if (type == TYPE_FAST_PATH) {
			if (page_pool_unref_and_test(page))
				page_pool_put_unrefed_page(pool, page, -1,
							   true);
		} else if (type == TYPE_PTR_RING) {
			if (page_pool_unref_and_test(page))
				page_pool_put_unrefed_page(pool, page, -1,
							   false);
		} else {
			get_page(page);
			if (page_pool_unref_and_test(page))
				page_pool_put_unrefed_page(pool, page, -1,
							   false);
			put_page(page);
		}
	}
	return cnt;
}

/*
 * --bulk: page_pool_alloc_pages_bulk() and page_pool_put_page_bulk() (or,
 * @trust, page_pool_recycle_direct_bulk()) of @bulk pages, through the
 * header's inline paths or, with --outline, the exported functions (the
 * parenthesised names) with a barrier per round. Returns the pages
 * allocated and returned.
 */
static PP_ALWAYS_INLINE uint64_t
pp_loop_bulk(struct page_pool *pool, bool out_of_line, bool trust)
{
	struct page *pages[BULK_MAX];
	uint64_t i, rounds = loops / bulk;

	for (i = 0; i < rounds; i++) {
		if (out_of_line) {
			if ((page_pool_alloc_pages_bulk)(pool, GFP_ATOMIC,
							 pages, bulk) != bulk)
				break;
			pp_barrier();
			if (trust)
				(page_pool_recycle_direct_bulk)(pool, pages,
								bulk);
			else
				(page_pool_put_page_bulk)(pages, bulk);
		} else {
			if (page_pool_alloc_pages_bulk(pool, GFP_ATOMIC, pages,
						       bulk) != bulk)
				break;
			/* The array escapes, as a driver's ring would. */
			__asm__ __volatile__("" : : "r"(pages) : "memory");
			if (trust)
				page_pool_recycle_direct_bulk(pool, pages,
							      bulk);
			else
				page_pool_put_page_bulk(pages, bulk);
		}
	}
	return i * bulk;
}

static uint64_t
run_loop(struct page_pool *pool, enum test_type type)
{
	if (bulk > 0 && type != TYPE_SLOW && trusted)
		return outline ? pp_loop_bulk(pool, true, true)
			       : pp_loop_bulk(pool, false, true);
	if (bulk > 0 && type != TYPE_SLOW)
		return outline ? pp_loop_bulk(pool, true, false)
			       : pp_loop_bulk(pool, false, false);
	if (outline) {
		if (type == TYPE_FAST_PATH)
			return pp_loop_outline(pool, TYPE_FAST_PATH);
		if (type == TYPE_PTR_RING)
			return pp_loop_outline(pool, TYPE_PTR_RING);
		return pp_loop_outline(pool, TYPE_SLOW);
	}
	if (type == TYPE_FAST_PATH)
		return pp_loop(pool, TYPE_FAST_PATH);
	if (type == TYPE_PTR_RING)
		return pp_loop(pool, TYPE_PTR_RING);
	return pp_loop(pool, TYPE_SLOW);
}

/* The labels: the in-tree module's, the out-of-tree module's, ours. */
static const char *const type_names[3][3] = {
	[CTX_NO_SOFTIRQ] = { "no-softirq-page_pool01", "no-softirq-page_pool02",
			     "no-softirq-page_pool03" },
	[CTX_TASKLET] = { "tasklet_page_pool01_fast_path",
			  "tasklet_page_pool02_ptr_ring",
			  "tasklet_page_pool03_slow" },
	/* 02 from the owner is a NAPI-local put: direct, not the ring. */
	[CTX_OWNER] = { "owner_page_pool01_fast_path",
			"owner_page_pool02_napi_local",
			"owner_page_pool03_slow" },
};

static const char *const ctx_notes[3] = {
	[CTX_NO_SOFTIRQ] = "no NAPI: only allow_direct puts recycle directly",
	[CTX_TASKLET] = "the tasklet's pool has no NAPI: only allow_direct "
			"puts recycle directly",
	[CTX_OWNER] = "owner thread (NAPI-local): every put may recycle "
		      "directly",
};

static void
time_bench_page_pool(const char *name, enum test_type type,
		     enum test_ctx ctx)
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

	if (ctx == CTX_OWNER) {
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
	/* One line before each result, as the module's pr_warn(). */
	printf("%s%s(): %s\n", json ? "# " : PREFIX, name, ctx_notes[ctx]);

	time_bench_start(&rec);
	done = run_loop(pool, type);
	time_bench_stop(&rec, done);
	if (done < (bulk > 0 && type != TYPE_SLOW ? loops / bulk * bulk
						   : loops))
		fprintf(stderr, "bench_page_pool: %s: only %llu of %u loops "
				"(allocation failed)\n",
			name, (unsigned long long)done, loops);
	if (bulk > 0 && type != TYPE_SLOW) {
		char label[96];

		snprintf(label, sizeof(label), "%s_bulk%u%s",
			 type_names[ctx][type], bulk,
			 trusted ? "_trusted" : "");
		report(label, &rec);
	} else {
		report(type_names[ctx][type], &rec);
	}
	if (stats)
		pp_tool_print_pool_stats(stdout,
					 json ? "#   stats: " : "  stats: ", pool);
	page_pool_disable_direct_recycling(pool);
	page_pool_destroy(pool);
}

static void
usage(FILE *out)
{
	fprintf(out,
		"Usage: " PROG " [options] [loops=N] [run_flags=M]\n"
		"The kernel's page_pool micro-benchmark module as a program;\n"
		"module parameters may be given as for modprobe.\n"
		"\n"
		"  --loops N        iterations per test, 1000..4294967295 "
		"(default 10000000;\n"
		"                   the baselines run 10 times as many)\n"
		"  --run_flags M    bitmask of tests, as the modules' run_flags "
		"(default 0xf):\n"
		"                     bit 0 baselines, bits 1-3 no-softirq 01-03 "
		"(in-tree module),\n"
		"                     bits 4-6 tasklet 01-03 (out-of-tree "
		"module; no NAPI),\n"
		"                     bits 7-9 owner 01-03 (ours: NAPI-local "
		"puts recycle directly)\n"
		"  --outline        call the library's exported out-of-line "
		"functions with a\n"
		"                   barrier per iteration, as the kernel module "
		"does\n"
		"  --bulk N         tests 01 and 02 allocate and return N "
		"pages at a time\n"
		"                   (page_pool_alloc_pages_bulk(), "
		"page_pool_put_page_bulk();\n"
		"                   1..%d; a pagepool extension), per page\n"
		"  --trusted        with --bulk, return them with "
		"page_pool_recycle_direct_bulk(),\n"
		"                   which tests no page (DPDK's put_bulk "
		"shape)\n"
		"  --stats          print the pool's counters after each test\n"
		"  --cpu N          pin to the N-th usable CPU (default 0)\n"
		"  --json           one JSON object per result line\n"
		"  -h, --help       this text\n",
		BULK_MAX);
}

static void
parse_loops(const char *opt, const char *arg)
{
	/* The kernel's bound: its module refuses loops above U32_MAX
	 * (-ECHRNG). */
	loops = (uint32_t)pp_tool_parse_num(PROG, opt, arg, 1000, UINT32_MAX);
}

static void
parse_run_flags(const char *opt, const char *arg)
{
	run_flags = (unsigned long)pp_tool_parse_num(PROG, opt, arg, 0,
						     UINT32_MAX);
}

int
main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "loops", required_argument, NULL, 'l' },
		{ "run_flags", required_argument, NULL, 'r' },
		{ "cpu", required_argument, NULL, 'c' },
		{ "json", no_argument, NULL, 'j' },
		{ "outline", no_argument, NULL, 'o' },
		{ "stats", no_argument, NULL, 's' },
		{ "bulk", required_argument, NULL, 'b' },
		{ "trusted", no_argument, NULL, 't' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c, i, cpu = 0, pinned;

	while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		switch (c) {
		case 'l':
			parse_loops("--loops", optarg);
			break;
		case 'r':
			parse_run_flags("--run_flags", optarg);
			break;
		case 'c':
			cpu = (int)pp_tool_parse_num(PROG, "--cpu", optarg, 0,
						     4095);
			break;
		case 'j':
			json = true;
			break;
		case 'o':
			outline = true;
			break;
		case 's':
			stats = true;
			break;
		case 'b':
			bulk = (unsigned int)pp_tool_parse_num(PROG, "--bulk",
							       optarg, 1,
							       BULK_MAX);
			break;
		case 't':
			trusted = true;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	for (i = optind; i < argc; i++) {
		const char *v;

		if ((v = pp_tool_param_value(argv[i], "loops")) != NULL) {
			parse_loops("loops", v);
		} else if ((v = pp_tool_param_value(argv[i], "run_flags")) !=
			   NULL) {
			parse_run_flags("run_flags", v);
		} else {
			fprintf(stderr, PROG ": unexpected argument '%s'\n",
				argv[i]);
			return 2;
		}
	}
	if (trusted && bulk == 0) {
		fprintf(stderr, PROG ": --trusted needs --bulk N\n");
		return 2;
	}

	if (!json)
		pp_tool_print_machine(stdout);	/* before pinning narrows it */
	pinned = pp_tool_pin_nth_cpu(cpu);
	if (!json) {
		printf("# bench_page_pool_simple: loops %u, run_flags %#lx, "
		       "pinned to CPU %d, clock %s\n",
		       loops, run_flags, pinned, time_bench_clock_name());
		printf("# Calls: %s\n",
		       outline ? "outline (exported out-of-line functions, "
				 "a barrier per iteration: the kernel "
				 "module's shape)"
			       : "inline (the header's inline fast paths)");
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
	for (c = CTX_NO_SOFTIRQ; c <= CTX_OWNER; c++) {
		static const char *const funcs[3] = {
			"time_bench_page_pool01_fast_path",
			"time_bench_page_pool02_ptr_ring",
			"time_bench_page_pool03_slow",
		};
		int t;

		for (t = TYPE_FAST_PATH; t <= TYPE_SLOW; t++)
			if (run_flags & BIT(bit_run_bench_no_softirq01 + 3 * c +
					    t))
				time_bench_page_pool(funcs[t],
						     (enum test_type)t,
						     (enum test_ctx)c);
	}
	return 0;
}
