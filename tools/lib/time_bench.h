/* SPDX-License-Identifier: MIT */
/*
 * Copyright (c) 2026 The pagepool authors
 *
 * time_bench: the kernel's micro-benchmark timing (prototype-kernel's and
 * the page_pool selftest's time_bench) for userspace. A record holds start
 * and stop readings of the TSC and of the wall clock; the result line is the
 * kernel's, character for character, so scripts written for the kernel's
 * bench modules (the selftest's "Per elem: N cycles(tsc) N.N ns" regex)
 * parse ours unchanged.
 *
 * The cycle counter is the invariant TSC on x86 (read with lfence/rdtsc at
 * start and rdtscp/lfence at stop, so the timed code cannot leak out of the
 * window), the virtual counter on arm64, and CLOCK_MONOTONIC nanoseconds
 * elsewhere; time_bench_clock_name() says which, and tools print it. The
 * kernel's line carries whole ticks per call; time_bench_cycles_exact()
 * gives the fraction too.
 */
#ifndef PAGEPOOL_TOOLS_TIME_BENCH_H
#define PAGEPOOL_TOOLS_TIME_BENCH_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#define TIME_BENCH_LOOP		(1u << 0)
#define TIME_BENCH_TSC		(1u << 1)
#define TIME_BENCH_WALLCLOCK	(1u << 2)
#define TIME_BENCH_PMU		(1u << 3)

struct time_bench_record {
	uint32_t version_abi;
	uint32_t loops;		/* requested */
	int step;		/* the caller's parameter, printed as is */
	uint32_t flags;
	int cpu;		/* where it ran, or -1 */

	uint64_t invoked_cnt;	/* what really ran */
	uint64_t tsc_start, tsc_stop;
	uint64_t ts_start, ts_stop;	/* wall clock, ns */

	/* Derived by time_bench_calc_stats(). */
	uint64_t tsc_interval;
	uint64_t time_interval;	/* ns */
	uint64_t tsc_cycles;	/* per call */
	uint64_t ns_per_call_quotient;
	uint64_t ns_per_call_decimal;
	uint64_t time_sec;
	uint32_t time_sec_remainder;
};

uint64_t time_bench_wallclock_ns(void);

static inline uint64_t
time_bench_cycles_start(void)
{
#if defined(__x86_64__) || defined(__i386__)
	uint32_t lo, hi;

	__asm__ __volatile__("lfence\n\trdtsc" : "=a"(lo), "=d"(hi)::"memory");
	return ((uint64_t)hi << 32) | lo;
#elif defined(__aarch64__)
	uint64_t v;

	__asm__ __volatile__("isb\n\tmrs %0, cntvct_el0" : "=r"(v)::"memory");
	return v;
#else
	return time_bench_wallclock_ns();
#endif
}

static inline uint64_t
time_bench_cycles_stop(void)
{
#if defined(__x86_64__) || defined(__i386__)
	uint32_t lo, hi, aux;

	__asm__ __volatile__("rdtscp\n\tlfence"
			     : "=a"(lo), "=d"(hi), "=c"(aux)::"memory");
	return ((uint64_t)hi << 32) | lo;
#else
	return time_bench_cycles_start();
#endif
}

/* Which counter "cycles" means on this build. */
const char *time_bench_clock_name(void);

/*
 * The unit of the per-call count in the result line: the kernel's
 * "cycles(tsc)" over a cycle counter, "ns(monotonic)" over the wall clock
 * (PP_TIME_BENCH_CLOCK=monotonic, or no cycle counter).
 */
const char *time_bench_cycles_label(void);

/* Wall clock first, then the counter, as the kernel orders them. */
void time_bench_start(struct time_bench_record *rec);
/* Counter first, then the wall clock. */
void time_bench_stop(struct time_bench_record *rec, uint64_t invoked_cnt);

/*
 * Derive the per-call figures. False (and a message on stderr) when the
 * invocation count is below the kernel's minimum of 1000. Counts of 2^32
 * and more, which the kernel's 32-bit division refuses, are divided in 64
 * bits.
 */
bool time_bench_calc_stats(struct time_bench_record *rec);

/*
 * Counter ticks per call with the fraction the kernel's line cuts off
 * (tsc_interval / invoke count), for JSON and summaries.
 */
double time_bench_cycles_exact(const struct time_bench_record *rec);

/*
 * Print the kernel's result line:
 * "<prefix>Type:%s Per elem: ... (invoke count:%llu tsc_interval:%llu)\n".
 */
void time_bench_print(FILE *out, const char *prefix, const char *txt,
		      const struct time_bench_record *rec);

/*
 * Concurrent runs, as the kernel's time_bench_run_concurrent(): one thread
 * per entry of @tasks, each pinned to its CPU (the n-th usable one), all
 * released together; each calls @func, which times itself with
 * time_bench_start()/time_bench_stop() on the record it is given.
 */
struct time_bench_cpu {
	struct time_bench_record rec;
	void *data;		/* the caller's, per thread */
	int cpu_index;		/* n-th usable CPU to pin to */
	int cpu;		/* the CPU pinned to (or -errno) */
	int (*func)(struct time_bench_record *rec, void *data);
	int ret;		/* func's return */
	void *shared;		/* runner internals */
};

/* Run @n tasks concurrently; 0, or -errno if a thread could not start. */
int time_bench_run_concurrent(struct time_bench_cpu *tasks, int n,
			      uint32_t loops, int step);

/*
 * Print one kernel-format line per task ("Type:%s CPU(%d) ...") and the
 * "Sum Type:%s Average: %llu cycles(tsc) CPUs:%d step:%d" line.
 */
void time_bench_print_stats_cpus(FILE *out, const char *prefix,
				 const char *desc, struct time_bench_cpu *tasks,
				 int n);

#endif /* PAGEPOOL_TOOLS_TIME_BENCH_H */
