/* SPDX-License-Identifier: MIT */
/*
 * Copyright (c) 2026 The pagepool authors
 *
 * time_bench records: readings, derived statistics and the kernel's output
 * line. See time_bench.h for the clock choice.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cpu.h"
#include "time_bench.h"

#define NSEC_PER_SEC 1000000000ull

/*
 * PP_TIME_BENCH_CLOCK=monotonic makes every reading CLOCK_MONOTONIC ns: for
 * runs under valgrind (3.19 does not know rdtscp) and for comparing with a
 * machine without a usable cycle counter. Read once.
 */
static int
use_monotonic(void)
{
	static int mono = -1;

	if (mono < 0) {
		const char *env = getenv("PP_TIME_BENCH_CLOCK");

		mono = env != NULL && strcmp(env, "monotonic") == 0;
	}
	return mono;
}

const char *
time_bench_clock_name(void)
{
	if (use_monotonic())
		return "clock_monotonic_ns (PP_TIME_BENCH_CLOCK)";
#if defined(__x86_64__) || defined(__i386__)
	return "tsc";
#elif defined(__aarch64__)
	return "cntvct_el0";
#else
	return "clock_monotonic_ns";
#endif
}

/*
 * The unit printed after the per-call count. "cycles(tsc)" is the kernel's
 * and what its scripts grep for, so it labels a cycle counter only (the
 * arm64 virtual counter too, as the kernel's arm64 runs print it); wall
 * clock nanoseconds get their own name, so no script mistakes them for
 * TSC ticks.
 */
const char *
time_bench_cycles_label(void)
{
#if defined(__x86_64__) || defined(__i386__) || defined(__aarch64__)
	if (!use_monotonic())
		return "cycles(tsc)";
#endif
	return "ns(monotonic)";
}

uint64_t
time_bench_wallclock_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * NSEC_PER_SEC + (uint64_t)ts.tv_nsec;
}

void
time_bench_start(struct time_bench_record *rec)
{
	rec->flags |= TIME_BENCH_TSC | TIME_BENCH_WALLCLOCK;
	rec->ts_start = time_bench_wallclock_ns();
	rec->tsc_start = use_monotonic() ? time_bench_wallclock_ns()
					 : time_bench_cycles_start();
}

void
time_bench_stop(struct time_bench_record *rec, uint64_t invoked_cnt)
{
	rec->tsc_stop = use_monotonic() ? time_bench_wallclock_ns()
					: time_bench_cycles_stop();
	rec->ts_stop = time_bench_wallclock_ns();
	rec->invoked_cnt = invoked_cnt;
}

bool
time_bench_calc_stats(struct time_bench_record *rec)
{
	uint64_t cnt = rec->invoked_cnt, rem;

	/* The three-digit decimal needs cnt >= 1000, as in the kernel. Its
	 * other bound, cnt < 2^32, comes from its 32-bit division helper;
	 * 64-bit division gives the same figures below it and right ones
	 * above (the baselines run loops * 10, which wraps in the kernel's
	 * u32 from loops 429496730 on). */
	if (cnt < 1000) {
		fprintf(stderr,
			"time_bench: invoke count %llu below 1000: "
			"no per-element figures\n",
			(unsigned long long)cnt);
		return false;
	}
	rec->tsc_interval = rec->tsc_stop - rec->tsc_start;
	rec->time_interval = rec->ts_stop - rec->ts_start;
	rec->tsc_cycles = rec->tsc_interval / cnt;
	rec->ns_per_call_quotient = rec->time_interval / cnt;
	rem = rec->time_interval % cnt;
	/* The kernel's (self-described approximate) three-digit decimal. */
	rec->ns_per_call_decimal = rem / (cnt / 1000);
	if (rec->ns_per_call_decimal > 999)
		rec->ns_per_call_decimal = 999;
	rec->time_sec = rec->time_interval / NSEC_PER_SEC;
	rec->time_sec_remainder =
		(uint32_t)(rec->time_interval % NSEC_PER_SEC);
	return true;
}

double
time_bench_cycles_exact(const struct time_bench_record *rec)
{
	if (rec->invoked_cnt == 0)
		return 0.0;
	return (double)(rec->tsc_stop - rec->tsc_start) /
	       (double)rec->invoked_cnt;
}

/* Everything after the "Type:%s" part of the kernel's lines. */
static void
print_measurement(FILE *out, const struct time_bench_record *rec)
{
	fprintf(out,
		" %llu %s %llu.%03llu ns (step:%d)"
		" - (measurement period time:%llu.%09u sec time_interval:%llu)"
		" - (invoke count:%llu tsc_interval:%llu)\n",
		(unsigned long long)rec->tsc_cycles, time_bench_cycles_label(),
		(unsigned long long)rec->ns_per_call_quotient,
		(unsigned long long)rec->ns_per_call_decimal, rec->step,
		(unsigned long long)rec->time_sec, rec->time_sec_remainder,
		(unsigned long long)rec->time_interval,
		(unsigned long long)rec->invoked_cnt,
		(unsigned long long)rec->tsc_interval);
}

void
time_bench_print(FILE *out, const char *prefix, const char *txt,
		 const struct time_bench_record *rec)
{
	fprintf(out, "%sType:%s Per elem:", prefix ? prefix : "", txt);
	print_measurement(out, rec);
}

struct concurrent_sync {
	int ready;	/* threads pinned and waiting */
	int go;		/* released */
};

static void *
concurrent_main(void *arg)
{
	struct time_bench_cpu *t = arg;
	struct concurrent_sync *sync = t->shared;

	t->cpu = pp_tool_pin_nth_cpu(t->cpu_index);
	t->rec.cpu = t->cpu;
	/* R1/A1 pairs: ready counts in, go releases everyone at once. */
	__atomic_fetch_add(&sync->ready, 1, __ATOMIC_RELEASE);
	while (!__atomic_load_n(&sync->go, __ATOMIC_ACQUIRE))
		sched_yield();
	t->ret = t->func(&t->rec, t->data);
	return NULL;
}

int
time_bench_run_concurrent(struct time_bench_cpu *tasks, int n, uint32_t loops,
			  int step)
{
	struct concurrent_sync sync = { 0, 0 };
	pthread_t th[256];
	int i, err = 0;

	if (n <= 0 || n > 256)
		return -EINVAL;
	for (i = 0; i < n; i++) {
		tasks[i].rec.loops = loops;
		tasks[i].rec.step = step;
		tasks[i].rec.flags |= TIME_BENCH_LOOP;
		tasks[i].shared = &sync;
		err = pthread_create(&th[i], NULL, concurrent_main, &tasks[i]);
		if (err != 0)
			break;
	}
	n = i;
	while (__atomic_load_n(&sync.ready, __ATOMIC_ACQUIRE) < n)
		sched_yield();
	__atomic_store_n(&sync.go, 1, __ATOMIC_RELEASE);
	for (i = 0; i < n; i++)
		pthread_join(th[i], NULL);
	return err ? -err : 0;
}

void
time_bench_print_stats_cpus(FILE *out, const char *prefix, const char *desc,
			    struct time_bench_cpu *tasks, int n)
{
	uint64_t sum = 0;
	int i, counted = 0, step = n > 0 ? tasks[0].rec.step : 0;

	for (i = 0; i < n; i++) {
		struct time_bench_record *rec = &tasks[i].rec;

		if (!time_bench_calc_stats(rec))
			continue;
		fprintf(out, "%sType:%s CPU(%d)", prefix ? prefix : "", desc,
			rec->cpu);
		print_measurement(out, rec);
		sum += rec->tsc_cycles;
		counted++;
	}
	fprintf(out, "%sSum Type:%s Average: %llu %s CPUs:%d step:%d\n",
		prefix ? prefix : "", desc,
		(unsigned long long)(counted ? sum / (uint64_t)counted : 0),
		time_bench_cycles_label(), counted, step);
}
