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
