// SPDX-License-Identifier: MIT
/*
 * Copyright (c) 2026 The pagepool authors
 *
 * pp_tool_line_rtt_ns() (tools/lib/cpu.c), the cache-line round trip
 * between two CPUs that tap_net_test -F prints beside its figures:
 *  - refuses one CPU twice, a negative CPU and one past CPU_SETSIZE
 *    (EINVAL), and a CPU the machine does not have;
 *  - between two CPUs of the mask, gives a time above zero and below a
 *    millisecond;
 *  - leaves the caller's affinity mask as it found it, after a
 *    measurement and after a refusal.
 * Skips the measurement where the process may use only one CPU.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <unistd.h>

#include "cpu.h"
#include "helpers.h"

static void
check_mask_is(const cpu_set_t *want)
{
	cpu_set_t now;

	CHECK(pthread_getaffinity_np(pthread_self(), sizeof(now), &now) == 0);
	CHECK(CPU_EQUAL(&now, want));
}

int
main(void)
{
	cpu_set_t mask;
	long absent = sysconf(_SC_NPROCESSORS_CONF);
	int a, b;
	double ns;

	CHECK(pthread_getaffinity_np(pthread_self(), sizeof(mask), &mask) == 0);
	a = pp_tool_nth_cpu(0);
	CHECK(a >= 0);
	CHECK(pp_tool_line_rtt_ns(a, a) == -EINVAL);
	CHECK(pp_tool_line_rtt_ns(-1, a) == -EINVAL);
	CHECK(pp_tool_line_rtt_ns(a, CPU_SETSIZE) == -EINVAL);
	check_mask_is(&mask);
	/* CPUs are numbered below the count configured. */
	if (absent > 0 && absent < CPU_SETSIZE) {
		CHECK(pp_tool_line_rtt_ns(a, (int)absent) < 0);
		CHECK(pp_tool_line_rtt_ns((int)absent, a) < 0);
		check_mask_is(&mask);
	}
	if (pp_tool_ncpus() < 2) {
		printf("SKIP: one CPU in the affinity mask, nothing to measure\n");
		return T_EXIT_SKIP;
	}
	b = pp_tool_nth_cpu(1);
	CHECK(b >= 0 && b != a);
	ns = pp_tool_line_rtt_ns(a, b);
	printf("CPU %d and CPU %d: cache-line round trip %.0f ns\n", a, b, ns);
	CHECK(ns > 0 && ns < 1e6);
	check_mask_is(&mask);
	return T_EXIT_PASS;
}
