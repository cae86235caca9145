/* SPDX-License-Identifier: MIT */
/*
 * Copyright (c) 2026 The pagepool authors
 *
 * time_bench records: readings, derived statistics and the kernel's output
 * line. See time_bench.h for the clock choice.
 */
#include <time.h>

#include "time_bench.h"

#define NSEC_PER_SEC 1000000000ull

const char *
time_bench_clock_name(void)
{
#if defined(__x86_64__) || defined(__i386__)
	return "tsc";
#elif defined(__aarch64__)
	return "cntvct_el0";
#else
	return "clock_monotonic_ns";
#endif
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
	rec->tsc_start = time_bench_cycles_start();
}

void
time_bench_stop(struct time_bench_record *rec, uint64_t invoked_cnt)
{
	rec->tsc_stop = time_bench_cycles_stop();
	rec->ts_stop = time_bench_wallclock_ns();
	rec->invoked_cnt = invoked_cnt;
}

bool
time_bench_calc_stats(struct time_bench_record *rec)
{
	uint64_t cnt = rec->invoked_cnt, rem;

	/* The kernel's bounds: its 32-bit division needs cnt < 2^32, and
	 * the three-digit decimal needs cnt >= 1000. Kept so our numbers
	 * mean what the kernel's mean. */
	if (cnt < 1000 || cnt >= (1ull << 32)) {
		fprintf(stderr,
			"time_bench: invoke count %llu outside [1000, 2^32): "
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

void
time_bench_print(FILE *out, const char *prefix, const char *txt,
		 const struct time_bench_record *rec)
{
	fprintf(out,
		"%sType:%s Per elem: %llu cycles(tsc) %llu.%03llu ns (step:%d)"
		" - (measurement period time:%llu.%09u sec time_interval:%llu)"
		" - (invoke count:%llu tsc_interval:%llu)\n",
		prefix ? prefix : "", txt,
		(unsigned long long)rec->tsc_cycles,
		(unsigned long long)rec->ns_per_call_quotient,
		(unsigned long long)rec->ns_per_call_decimal, rec->step,
		(unsigned long long)rec->time_sec, rec->time_sec_remainder,
		(unsigned long long)rec->time_interval,
		(unsigned long long)rec->invoked_cnt,
		(unsigned long long)rec->tsc_interval);
}
