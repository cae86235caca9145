/* SPDX-License-Identifier: MIT */
/*
 * Copyright (c) 2026 The pagepool authors
 *
 * CPU discovery and pinning for tools, benchmarks and stress tests. The
 * affinity mask, not the online count, decides: under taskset or a cgroup
 * the process may own fewer CPUs than the machine has.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <pagepool/atomic_pvt.h>

#include "cpu.h"

static int
nth_allowed_cpu(int idx, int *count)
{
	cpu_set_t set;
	int cpu, seen = 0, n;

	if (sched_getaffinity(0, sizeof(set), &set) != 0)
		return -errno;
	n = CPU_COUNT(&set);
	if (count != NULL)
		*count = n;
	if (n == 0)
		return -ENODEV;
	idx %= n;
	for (cpu = 0; cpu < CPU_SETSIZE; cpu++) {
		if (CPU_ISSET(cpu, &set) && seen++ == idx)
			return cpu;
	}
	return -ENODEV;
}

int
pp_tool_ncpus(void)
{
	int n = 1;

	if (nth_allowed_cpu(0, &n) < 0)
		return 1;
	return n > 0 ? n : 1;
}

int
pp_tool_nth_cpu(int idx)
{
	return nth_allowed_cpu(idx, NULL);
}

int
pp_tool_pin_nth_cpu(int idx)
{
	cpu_set_t set;
	int cpu = nth_allowed_cpu(idx, NULL);
	int err;

	if (cpu < 0)
		return cpu;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	err = pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
	return err ? -err : cpu;
}

int
pp_tool_pin_cpu(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return sched_setaffinity(0, sizeof(set), &set) != 0 ? -errno : 0;
}

int
pp_tool_thread_create_on(pthread_t *thread, int cpu, void *(*fn)(void *),
			 void *arg)
{
	pthread_attr_t attr;
	cpu_set_t set;
	int err;

	if (cpu < 0)
		return -pthread_create(thread, NULL, fn, arg);
	if (cpu >= CPU_SETSIZE)
		return -EINVAL;
	err = pthread_attr_init(&attr);
	if (err != 0)
		return -err;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	err = pthread_attr_setaffinity_np(&attr, sizeof(set), &set);
	if (err == 0)
		err = pthread_create(thread, &attr, fn, arg);
	pthread_attr_destroy(&attr);
	return -err;
}

enum { LINE_RTT_ROUNDS = 9, LINE_RTT_TRIPS = 20000 };

struct line_rtt {
	/* The line that travels: odd when @b's thread is to answer, even
	 * when @a's; the count of half trips so far. */
	_Alignas(64) long turn;
};

/* The thread on CPU @b: answers each odd value with the next even one. */
static void *
line_rtt_partner(void *arg)
{
	struct line_rtt *lr = arg;

	for (long want = 1; want < 2L * LINE_RTT_ROUNDS * LINE_RTT_TRIPS;
	     want += 2) {
		/* Acquire: pairs with the release store in
		 * pp_tool_line_rtt_ns() that handed the line over. */
		while (__atomic_load_n(&lr->turn, __ATOMIC_ACQUIRE) != want)
			pp_cpu_relax();
		/* Release: pairs with the acquire load in
		 * pp_tool_line_rtt_ns() that waits for the answer. */
		__atomic_store_n(&lr->turn, want + 1, __ATOMIC_RELEASE);
	}
	return NULL;
}

double
pp_tool_line_rtt_ns(int a, int b)
{
	double ns[LINE_RTT_ROUNDS];
	struct line_rtt lr = { .turn = 0 };
	cpu_set_t saved;
	pthread_t partner;
	long turn = 0;
	int err;

	/* One CPU would take turns by time slices, not by cache lines. */
	if (a < 0 || b < 0 || a >= CPU_SETSIZE || b >= CPU_SETSIZE || a == b)
		return -EINVAL;
	err = pthread_getaffinity_np(pthread_self(), sizeof(saved), &saved);
	if (err != 0)
		return -err;
	err = pp_tool_pin_cpu(a);
	if (err != 0)
		return err;
	err = pp_tool_thread_create_on(&partner, b, line_rtt_partner, &lr);
	if (err != 0) {
		(void)pthread_setaffinity_np(pthread_self(), sizeof(saved),
					     &saved);
		return err;
	}
	for (int r = 0; r < LINE_RTT_ROUNDS; r++) {
		uint64_t t0 = pp_tool_now_ns();

		for (int i = 0; i < LINE_RTT_TRIPS; i++) {
			/* Release: pairs with the partner's acquire load. */
			__atomic_store_n(&lr.turn, ++turn, __ATOMIC_RELEASE);
			++turn;
			/* Acquire: pairs with the partner's release store. */
			while (__atomic_load_n(&lr.turn, __ATOMIC_ACQUIRE) !=
			       turn)
				pp_cpu_relax();
		}
		ns[r] = (double)(pp_tool_now_ns() - t0) / LINE_RTT_TRIPS;
	}
	pthread_join(partner, NULL);
	(void)pthread_setaffinity_np(pthread_self(), sizeof(saved), &saved);
	pp_tool_sort_doubles(ns, LINE_RTT_ROUNDS);
	return ns[LINE_RTT_ROUNDS / 2];
}

static void
print_file_line(FILE *out, const char *label, const char *path)
{
	char buf[256];
	FILE *f = fopen(path, "r");

	if (f == NULL)
		return;
	if (fgets(buf, sizeof(buf), f) != NULL) {
		buf[strcspn(buf, "\n")] = '\0';
		fprintf(out, "#   %-26s %s\n", label, buf);
	}
	fclose(f);
}

void
pp_tool_print_machine(FILE *out)
{
	static const char vuln_dir[] = "/sys/devices/system/cpu/vulnerabilities";
	char line[512], model[256] = "unknown";
	FILE *f = fopen("/proc/cpuinfo", "r");
	struct dirent **names;
	int i, n;

	if (f != NULL) {
		while (fgets(line, sizeof(line), f) != NULL) {
			char *colon = strchr(line, ':');

			if (strncmp(line, "model name", 10) == 0 &&
			    colon != NULL) {
				snprintf(model, sizeof(model), "%s",
					 colon + 2);
				model[strcspn(model, "\n")] = '\0';
				break;
			}
		}
		fclose(f);
	}
	fprintf(out, "# CPU: %s (%ld online, %d usable)\n", model,
		sysconf(_SC_NPROCESSORS_ONLN), pp_tool_ncpus());
	fprintf(out, "# Compiler: %s\n", __VERSION__);
	/* Sorted, so two runs' headers can be diffed. */
	n = scandir(vuln_dir, &names, NULL, alphasort);
	if (n < 0)
		return;
	fprintf(out, "# CPU mitigations (%s):\n", vuln_dir);
	for (i = 0; i < n; i++) {
		char path[512];

		if (names[i]->d_name[0] != '.') {
			snprintf(path, sizeof(path), "%s/%s", vuln_dir,
				 names[i]->d_name);
			print_file_line(out, names[i]->d_name, path);
		}
		free(names[i]);
	}
	free(names);
}

double
pp_tool_now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

uint64_t
pp_tool_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static int
cmp_double(const void *x, const void *y)
{
	double a = *(const double *)x, b = *(const double *)y;

	return (a > b) - (a < b);
}

void
pp_tool_sort_doubles(double *v, size_t n)
{
	qsort(v, n, sizeof(*v), cmp_double);
}
