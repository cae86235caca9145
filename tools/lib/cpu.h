/* SPDX-License-Identifier: MIT */
/*
 * Copyright (c) 2026 The pagepool authors
 *
 * CPU helpers shared by the tools, benchmarks and stress tests: which CPUs
 * this process may run on, pinning a thread to one of them, and a
 * description of the machine for benchmark headers.
 */
#ifndef PAGEPOOL_TOOLS_CPU_H
#define PAGEPOOL_TOOLS_CPU_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Number of CPUs in the process's affinity mask (at least 1). */
int pp_tool_ncpus(void);

/*
 * The @idx-th CPU of the calling thread's affinity mask (modulo their
 * number), for pinning other threads round-robin. Returns the CPU
 * number, or -errno.
 */
int pp_tool_nth_cpu(int idx);
/*
 * Pin the calling thread to the @idx-th CPU of the process's affinity mask
 * (modulo their number). Returns the CPU number, or -errno.
 */
int pp_tool_pin_nth_cpu(int idx);

/*
 * Pin the calling thread to CPU @cpu (a CPU number, not an index into the
 * affinity mask). Returns 0, or -errno.
 */
int pp_tool_pin_cpu(int cpu);

/*
 * Start a thread running @fn(@arg) that is pinned to CPU @cpu from its
 * first instruction (pthread_create() with an affinity attribute), or
 * unpinned for a negative @cpu. Returns 0, or -errno.
 */
int pp_tool_thread_create_on(pthread_t *thread, int cpu,
			     void *(*fn)(void *), void *arg);

/*
 * How far apart CPUs @a and @b are: the median time, in nanoseconds, for
 * one cache line to go from @a to @b and back, two threads pinned there
 * writing it in turn (9 rounds of 20000 round trips; tens of ms). On a
 * virtual machine the host may move its vCPUs, and a workload whose
 * threads share lines moves with it: a figure to print beside such
 * results. The calling thread's affinity is restored. Returns the time,
 * or -errno (a CPU it may not run on, a thread it cannot start).
 */
double pp_tool_line_rtt_ns(int a, int b);

/* Seconds on CLOCK_MONOTONIC: for rates over a run, not for timing code. */
double pp_tool_now_s(void);

/* Nanoseconds on CLOCK_MONOTONIC. */
uint64_t pp_tool_now_ns(void);

/* Sort @n measurements in ascending order, for their median and range. */
void pp_tool_sort_doubles(double *v, size_t n);

/* Print "CPU: <model> (<n> online)" and the kernel's mitigation lines. */
void pp_tool_print_machine(FILE *out);

#endif /* PAGEPOOL_TOOLS_CPU_H */
