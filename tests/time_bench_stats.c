/* SPDX-License-Identifier: MIT */
/*
 * Copyright (c) 2026 The pagepool authors
 *
 * time_bench's figures and line, from made-up records: the kernel's
 * integer ticks and three-digit ns in the line, the fraction in
 * time_bench_cycles_exact(), counts of 2^32 and more (the baselines' loops
 * * 10) divided rather than refused, fewer than 1000 refused, and the unit
 * label: "cycles(tsc)" over the cycle counter only, never over wall-clock
 * nanoseconds (PP_TIME_BENCH_CLOCK=monotonic).
 */
#define _GNU_SOURCE
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "time_bench.h"

static int fails;

#define CHECK(cond, ...)						\
	do {								\
		if (!(cond)) {						\
			printf("FAIL: %s:%d: ", __FILE__, __LINE__);	\
			printf(__VA_ARGS__);				\
			printf("\n");					\
			fails++;					\
		}							\
	} while (0)

static struct time_bench_record
record(uint64_t cnt, uint64_t ticks, uint64_t ns)
{
	struct time_bench_record rec = { .step = 0 };

	rec.invoked_cnt = cnt;
	rec.tsc_start = 1000;
	rec.tsc_stop = 1000 + ticks;
	rec.ts_start = 5000;
	rec.ts_stop = 5000 + ns;
	return rec;
}

/* The line for @rec, in @buf. */
static void
line_of(const struct time_bench_record *rec, char *buf, size_t len)
{
	FILE *f = fmemopen(buf, len, "w");

	if (f == NULL) {
		perror("fmemopen");
		exit(1);
	}
	time_bench_print(f, "p: ", "t", rec);
	fclose(f);
}

int
main(void)
{
	struct time_bench_record rec;
	char buf[512];
	const char *label;

	/* 5.7 ticks per call: the kernel's line says 5, the exact 5.700. */
	rec = record(10000000, 57000000, 21900000);
	CHECK(time_bench_calc_stats(&rec), "10M calls refused");
	CHECK(rec.tsc_cycles == 5, "tsc_cycles %llu, want 5",
	      (unsigned long long)rec.tsc_cycles);
	CHECK(fabs(time_bench_cycles_exact(&rec) - 5.7) < 1e-9,
	      "exact %.6f, want 5.7", time_bench_cycles_exact(&rec));

	/* 5e9 calls (loops 500000000 * 10): figures, not a refusal. */
	rec = record(5000000000ull, 15000000000ull, 2500000000ull);
	CHECK(time_bench_calc_stats(&rec), "5e9 calls refused");
	CHECK(rec.tsc_cycles == 3, "tsc_cycles %llu, want 3",
	      (unsigned long long)rec.tsc_cycles);
	CHECK(rec.ns_per_call_quotient == 0 && rec.ns_per_call_decimal == 500,
	      "ns %llu.%03llu, want 0.500",
	      (unsigned long long)rec.ns_per_call_quotient,
	      (unsigned long long)rec.ns_per_call_decimal);

	rec = record(999, 999, 999);
	CHECK(!time_bench_calc_stats(&rec), "999 calls accepted");

	/* The kernel's line, with the counter's unit. */
	rec = record(1000, 3000, 1500);
	CHECK(time_bench_calc_stats(&rec), "1000 calls refused");
	line_of(&rec, buf, sizeof(buf));
	label = time_bench_cycles_label();
	if (getenv("PP_TIME_BENCH_CLOCK") != NULL &&
	    strcmp(getenv("PP_TIME_BENCH_CLOCK"), "monotonic") == 0) {
		CHECK(strstr(buf, "cycles(tsc)") == NULL,
		      "monotonic ns labelled cycles(tsc): %s", buf);
		CHECK(strcmp(label, "ns(monotonic)") == 0, "label %s", label);
	}
	CHECK(strstr(buf, "p: Type:t Per elem: 3 ") == buf,
	      "line starts: %s", buf);
	CHECK(strstr(buf, label) != NULL, "no label %s in %s", label, buf);
	CHECK(strstr(buf, " 1.500 ns (step:0) - (measurement period "
			  "time:0.000001500 sec time_interval:1500) - "
			  "(invoke count:1000 tsc_interval:3000)\n") != NULL,
	      "line: %s", buf);

	if (fails == 0)
		printf("ok\n");
	return fails ? 1 : 0;
}
