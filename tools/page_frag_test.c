/* SPDX-License-Identifier: MIT */
/*
 * Copyright (c) 2026 The pagepool authors
 *
 * page_frag_test: the kernel's page_frag test module (Yunsheng Lin, 2024,
 * tools/testing/selftests/mm/page_frag/) as a program, with its parameters,
 * its progress watchdog and its result line, and the presets of its script
 * (test_page_frag.sh: smoke, nonaligned, aligned).
 *
 * A push thread on test_push_cpu allocates test_alloc_len-byte fragments
 * from one page_frag_cache and produces them into a 512-entry ptr_ring; a
 * pop thread on test_pop_cpu consumes and frees them, nr_test times. The
 * main thread times both, and every watchdog period prints the progress
 * line; if neither count moved, the test fails with "no progress".
 *
 * For comparison the same test runs with a general-purpose allocator in
 * place of the fragment cache (--alloc, --compare): glibc malloc in this
 * program (through __libc_malloc and friends, so it stays glibc), mimalloc
 * and jemalloc in sibling programs built from this file, each in its own
 * process because Debian's builds replace malloc when linked (the approach
 * of bench/peers).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <spawn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <pagepool/page_frag_cache.h>
#include <pagepool/ptr_ring.h>

#include "cli.h"
#include "cpu.h"

#define PROG "page_frag_test"
#define NR_OBJS 512

extern char **environ;

enum alloc_kind { A_PAGEPOOL, A_GLIBC, A_MIMALLOC, A_JEMALLOC };

static const char *const alloc_names[] = {
	[A_PAGEPOOL] = "pagepool",
	[A_GLIBC] = "glibc",
	[A_MIMALLOC] = "mimalloc",
	[A_JEMALLOC] = "jemalloc",
};

#if defined(PFT_FAMILY_MIMALLOC)
#include <mimalloc.h>
#define FAMILY A_MIMALLOC
#elif defined(PFT_FAMILY_JEMALLOC)
#include <jemalloc/jemalloc.h>
#define FAMILY A_JEMALLOC
#else
#define FAMILY A_PAGEPOOL
#if defined(PFT_HAVE_GLIBC) && defined(PFT_SANITIZED)
/*
 * A sanitizer owns malloc and intercepts __libc_memalign but not
 * __libc_free, and TSan cannot see glibc's own reuse of memory: use the
 * public names (the numbers mean nothing under a sanitizer anyway).
 */
#define __libc_malloc malloc
#define __libc_memalign memalign
#define __libc_free free
#include <malloc.h>
#elif defined(PFT_HAVE_GLIBC)
void *__libc_malloc(size_t size);
void *__libc_memalign(size_t align, size_t size);
void __libc_free(void *p);
#endif
#endif

struct config {
	unsigned long nr_test;
	bool test_align;
	unsigned int test_alloc_len;
	int test_push_cpu, test_pop_cpu;
	unsigned int watchdog_s;
	bool verify;
	bool compare;
	enum alloc_kind alloc;
};

static struct config cfg;
static struct page_frag_cache test_nc;
static struct ptr_ring ring;
static unsigned long test_pushed, test_popped;
static unsigned long errors;
static int start;
static int ready;
static bool spin;	/* pause-spin (own CPUs) rather than yield */

static void
relax(void)
{
	if (spin)
		pp_cpu_relax();
	else
		sched_yield();
}

/* The allocation under test; constant-folded per loop instance. */
static PP_ALWAYS_INLINE void *
obj_alloc(enum alloc_kind k, bool align, unsigned int len)
{
	switch (k) {
	case A_PAGEPOOL:
		return align ? page_frag_alloc_align(&test_nc, len, GFP_KERNEL,
						     SMP_CACHE_BYTES)
			     : page_frag_alloc(&test_nc, len, GFP_KERNEL);
#if defined(PFT_FAMILY_MIMALLOC)
	case A_MIMALLOC:
		return align ? mi_malloc_aligned(len, SMP_CACHE_BYTES)
			     : mi_malloc(len);
#elif defined(PFT_FAMILY_JEMALLOC)
	case A_JEMALLOC:
		return mallocx(len, align ? MALLOCX_ALIGN(SMP_CACHE_BYTES) : 0);
#elif defined(PFT_HAVE_GLIBC)
	case A_GLIBC:
		return align ? __libc_memalign(SMP_CACHE_BYTES, len)
			     : __libc_malloc(len);
#endif
	default:
		return NULL;
	}
}

static PP_ALWAYS_INLINE void
obj_free(enum alloc_kind k, void *va)
{
	switch (k) {
	case A_PAGEPOOL:
		page_frag_free(va);
		break;
#if defined(PFT_FAMILY_MIMALLOC)
	case A_MIMALLOC:
		mi_free(va);
		break;
#elif defined(PFT_FAMILY_JEMALLOC)
	case A_JEMALLOC:
		dallocx(va, 0);
		break;
#elif defined(PFT_HAVE_GLIBC)
	case A_GLIBC:
		__libc_free(va);
		break;
#endif
	default:
		break;
	}
}

static void
wait_start(void)
{
	pp_fetch_add_relaxed(&ready, 1);
	/* A1: pairs with release R1 in run_test(). */
	while (pp_load_acquire(&start) == 0)
		relax();
}

static PP_ALWAYS_INLINE void
push_loop(enum alloc_kind k, bool align)
{
	unsigned int len = cfg.test_alloc_len;
	unsigned long pushed = 0, errs = 0;

	while (pushed < cfg.nr_test) {
		unsigned char *va = obj_alloc(k, align, len);

		if (PP_UNLIKELY(va == NULL)) {
			relax();
			continue;
		}
		if (align && ((uintptr_t)va & (SMP_CACHE_BYTES - 1)) != 0)
			errs++;
		if (cfg.verify) {
			va[len - 1] = (unsigned char)(pushed >> 8);
			va[0] = (unsigned char)pushed;
		}
		/* R2 in __ptr_ring_produce() publishes the fragment. */
		if (__ptr_ring_produce(&ring, va) != 0) {
			obj_free(k, va);
			relax();
			continue;
		}
		pushed++;
		if ((pushed & 1023) == 0)
			pp_store_relaxed(&test_pushed, pushed);
	}
	pp_store_relaxed(&test_pushed, pushed);
	pp_fetch_add_relaxed(&errors, errs);
}

static PP_ALWAYS_INLINE void
pop_loop(enum alloc_kind k)
{
	unsigned int len = cfg.test_alloc_len;
	unsigned long popped = 0, errs = 0;

	while (popped < cfg.nr_test) {
		unsigned char *va = __ptr_ring_consume(&ring);

		if (va == NULL) {
			relax();
			continue;
		}
		if (cfg.verify && (va[0] != (unsigned char)popped ||
				   (len > 1 && va[len - 1] !=
						       (unsigned char)(popped >> 8))))
			errs++;
		obj_free(k, va);
		popped++;
		if ((popped & 1023) == 0)
			pp_store_relaxed(&test_popped, popped);
	}
	pp_store_relaxed(&test_popped, popped);
	pp_fetch_add_relaxed(&errors, errs);
}

static int
pin_cpu(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
}

static void *
push_thread(void *arg)
{
	(void)arg;
	pin_cpu(cfg.test_push_cpu);
	wait_start();
	switch (cfg.alloc) {
	case A_PAGEPOOL:
		if (cfg.test_align)
			push_loop(A_PAGEPOOL, true);
		else
			push_loop(A_PAGEPOOL, false);
		break;
	default:
		if (cfg.test_align)
			push_loop(FAMILY == A_PAGEPOOL ? A_GLIBC : FAMILY, true);
		else
			push_loop(FAMILY == A_PAGEPOOL ? A_GLIBC : FAMILY,
				  false);
		break;
	}
	return NULL;
}

static void *
pop_thread(void *arg)
{
	(void)arg;
	pin_cpu(cfg.test_pop_cpu);
	wait_start();
	if (cfg.alloc == A_PAGEPOOL)
		pop_loop(A_PAGEPOOL);
	else
		pop_loop(FAMILY == A_PAGEPOOL ? A_GLIBC : FAMILY);
	pp_thread_cache_drain();
	return NULL;
}

/* Run the test once with cfg.alloc; 0, or 1 on failure. */
static int
run_test(void)
{
	unsigned long last_push = 0, last_pop = 0, push, pop;
	pthread_t pusher, popper;
	uint64_t t0, t1, round_end;
	int err;

	test_pushed = test_popped = errors = 0;
	start = ready = 0;
	err = ptr_ring_init(&ring, NR_OBJS, GFP_KERNEL);
	if (err != 0) {
		fprintf(stderr, PROG ": ptr_ring_init: %s\n", strerror(-err));
		return 1;
	}
	page_frag_cache_init(&test_nc);
	if (pthread_create(&pusher, NULL, push_thread, NULL) != 0 ||
	    pthread_create(&popper, NULL, pop_thread, NULL) != 0) {
		fprintf(stderr, PROG ": pthread_create failed\n");
		return 1;
	}
	while (pp_load_relaxed(&ready) != 2)
		sched_yield();
	t0 = pp_tool_now_ns();
	/* R1: pairs with acquire A1 in wait_start(). */
	pp_store_release(&start, 1);
	/* The module's wait_for_completion_timeout() rounds. */
	for (;;) {
		round_end = pp_tool_now_ns() + (uint64_t)cfg.watchdog_s * 1000000000u;
		while (pp_tool_now_ns() < round_end &&
		       (pp_load_relaxed(&test_pushed) < cfg.nr_test ||
			pp_load_relaxed(&test_popped) < cfg.nr_test)) {
			struct timespec ts = { 0, 200000 };

			nanosleep(&ts, NULL);
		}
		push = pp_load_relaxed(&test_pushed);
		pop = pp_load_relaxed(&test_popped);
		if (push >= cfg.nr_test && pop >= cfg.nr_test)
			break;
		printf("page_frag_test progress: pushed = %lu, popped = %lu\n",
		       push, pop);
		fflush(stdout);
		if (push == last_push && pop == last_pop) {
			printf("page_frag_test failed: no progress\n");
			fflush(stdout);
			_exit(1);	/* the threads are stuck: force exit */
		}
		last_push = push;
		last_pop = pop;
	}
	t1 = pp_tool_now_ns();
	pthread_join(pusher, NULL);
	pthread_join(popper, NULL);

	printf("%lu of iterations for %s testing took: %lluus\n", cfg.nr_test,
	       cfg.test_align ? "aligned" : "non-aligned",
	       (unsigned long long)((t1 - t0) / 1000));
	printf("# %s: %.2f ns per iteration, %.2f M/s\n",
	       alloc_names[cfg.alloc], (double)(t1 - t0) / (double)cfg.nr_test,
	       (double)cfg.nr_test * 1e3 / (double)(t1 - t0));
	ptr_ring_cleanup(&ring, NULL);
	page_frag_cache_drain(&test_nc);
	pp_thread_cache_drain();
	if (errors != 0) {
		printf("page_frag_test failed: %lu %s\n", errors,
		       cfg.verify ? "misaligned or corrupt fragments"
				  : "misaligned fragments");
		return 1;
	}
	return 0;
}

/* Run a sibling program (page_frag_test_<family>) with our arguments. */
static int
run_sibling(const char *family, int argc, char **argv)
{
	char exe[PATH_MAX], path[PATH_MAX + 64], alloc_arg[64];
	char **args;
	ssize_t n;
	char *slash;
	pid_t pid;
	int i, j, status;

	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n <= 0)
		return 0;
	exe[n] = '\0';
	slash = strrchr(exe, '/');
	if (slash == NULL)
		return 0;
	*slash = '\0';
	snprintf(path, sizeof(path), "%s/" PROG "_%s", exe, family);
	if (access(path, X_OK) != 0) {
		printf("# %s: not built, skipped\n", family);
		return 0;
	}
	args = calloc((size_t)argc + 2, sizeof(*args));
	if (args == NULL)
		return 1;
	snprintf(alloc_arg, sizeof(alloc_arg), "--alloc=%s", family);
	args[0] = path;
	for (i = 1, j = 1; i < argc; i++)
		if (strcmp(argv[i], "--compare") != 0)
			args[j++] = argv[i];
	args[j] = alloc_arg;
	fflush(stdout);
	if (posix_spawn(&pid, path, NULL, NULL, args, environ) != 0) {
		free(args);
		return 1;
	}
	free(args);
	if (waitpid(pid, &status, 0) < 0 || !WIFEXITED(status))
		return 1;
	return WEXITSTATUS(status);
}

static void
usage(FILE *out)
{
	fprintf(out,
		"Usage: " PROG " [options] [param=value ...]\n"
		"The kernel's page_frag test module as a program.\n"
		"\n"
		"Module parameters (as for insmod):\n"
		"  nr_test=N          iterations, 1..%lu (default 2000000)\n"
		"  test_align=0|1     page_frag_alloc_align(SMP_CACHE_BYTES)\n"
		"  test_alloc_len=N   allocation length, 1..%lu (default 2048)\n"
		"  test_push_cpu=N    CPU of the push thread (default: first usable)\n"
		"  test_pop_cpu=N     CPU of the pop thread (default: first usable)\n"
		"\n"
		"Options:\n"
		"  --preset P         the script's modes: smoke (first two CPUs),\n"
		"                     nonaligned (+ test_alloc_len=75 nr_test=NR_TEST),\n"
		"                     aligned (nonaligned + test_align=1); NR_TEST is\n"
		"                     100000000 with two CPUs or more, else 1000000.\n"
		"                     Parameters given explicitly win.\n"
		"  --alloc A          pagepool (default), glibc, mimalloc, jemalloc\n"
		"                     (mimalloc and jemalloc in their own programs)\n"
		"  --compare          run pagepool, then every malloc family\n"
		"  --verify           write and check bytes in every fragment\n"
		"  --watchdog SEC     progress period, 1..3600 (default 10)\n"
		"  -h, --help         this text\n"
		"\n"
		"Exit status: 0 ok, 1 test failed, 2 bad usage.\n",
		(unsigned long)INT_MAX, PAGE_SIZE);
}

#define NUM(opt, arg, min, max) pp_tool_parse_num(PROG, opt, arg, min, max)

/* Is @cpu one this process may run on (the module's cpu_active())? */
static int
check_cpu(const char *name, unsigned long long cpu)
{
	cpu_set_t set;

	if (sched_getaffinity(0, sizeof(set), &set) != 0 ||
	    cpu >= CPU_SETSIZE || !CPU_ISSET((int)cpu, &set)) {
		fprintf(stderr, PROG ": %s=%llu: CPU not usable by this "
				"process\n",
			name, cpu);
		exit(2);
	}
	return (int)cpu;
}

/* The n-th CPU of the affinity mask. */
static int
nth_cpu(int n)
{
	cpu_set_t set;
	int cpu, seen = 0;

	if (sched_getaffinity(0, sizeof(set), &set) != 0)
		return 0;
	for (cpu = 0; cpu < CPU_SETSIZE; cpu++)
		if (CPU_ISSET(cpu, &set) && seen++ == n)
			return cpu;
	return nth_cpu(0);
}

static void
parse_args(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "preset", required_argument, NULL, 'P' },
		{ "alloc", required_argument, NULL, 'A' },
		{ "compare", no_argument, NULL, 'C' },
		{ "verify", no_argument, NULL, 'V' },
		{ "watchdog", required_argument, NULL, 'W' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	bool set_nr = false, set_len = false, set_align = false;
	bool set_push = false, set_pop = false;
	const char *preset = NULL;
	int c, i;

	while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		switch (c) {
		case 'P':
			preset = optarg;
			if (strcmp(preset, "smoke") != 0 &&
			    strcmp(preset, "nonaligned") != 0 &&
			    strcmp(preset, "aligned") != 0) {
				fprintf(stderr, PROG ": --preset: '%s' is not "
						"smoke, nonaligned or aligned\n",
					optarg);
				exit(2);
			}
			break;
		case 'A':
			for (i = 0; i < 4; i++)
				if (strcmp(optarg, alloc_names[i]) == 0)
					break;
			if (i == 4) {
				fprintf(stderr, PROG ": --alloc: unknown "
						"allocator '%s'\n",
					optarg);
				exit(2);
			}
			cfg.alloc = (enum alloc_kind)i;
			break;
		case 'C':
			cfg.compare = true;
			break;
		case 'V':
			cfg.verify = true;
			break;
		case 'W':
			cfg.watchdog_s = (unsigned int)NUM("--watchdog", optarg,
							   1, 3600);
			break;
		case 'h':
			usage(stdout);
			exit(0);
		default:
			usage(stderr);
			exit(2);
		}
	}
	for (i = optind; i < argc; i++) {
		char *eq = strchr(argv[i], '=');
		const char *v;

		if (eq == NULL) {
			fprintf(stderr, PROG ": unexpected argument '%s'\n",
				argv[i]);
			exit(2);
		}
		*eq = '\0';
		v = eq + 1;
		if (strcmp(argv[i], "nr_test") == 0) {
			cfg.nr_test = (unsigned long)NUM("nr_test", v, 1,
							 INT_MAX);
			set_nr = true;
		} else if (strcmp(argv[i], "test_align") == 0) {
			cfg.test_align = NUM("test_align", v, 0, 1) != 0;
			set_align = true;
		} else if (strcmp(argv[i], "test_alloc_len") == 0) {
			cfg.test_alloc_len = (unsigned int)NUM(
				"test_alloc_len", v, 1, PAGE_SIZE);
			set_len = true;
		} else if (strcmp(argv[i], "test_push_cpu") == 0) {
			cfg.test_push_cpu = check_cpu(
				"test_push_cpu",
				NUM("test_push_cpu", v, 0, CPU_SETSIZE - 1));
			set_push = true;
		} else if (strcmp(argv[i], "test_pop_cpu") == 0) {
			cfg.test_pop_cpu = check_cpu(
				"test_pop_cpu",
				NUM("test_pop_cpu", v, 0, CPU_SETSIZE - 1));
			set_pop = true;
		} else {
			fprintf(stderr, PROG ": unknown parameter '%s'\n",
				argv[i]);
			exit(2);
		}
		*eq = '=';
	}
	if (preset != NULL) {
		unsigned long nr = pp_tool_ncpus() >= 2 ? 100000000ul
							: 1000000ul;

		if (!set_push)
			cfg.test_push_cpu = nth_cpu(0);
		if (!set_pop)
			cfg.test_pop_cpu = nth_cpu(1);
		if (strcmp(preset, "smoke") != 0) {
			if (!set_len)
				cfg.test_alloc_len = 75;
			if (!set_nr)
				cfg.nr_test = nr;
			if (!set_align)
				cfg.test_align = strcmp(preset, "aligned") == 0;
		}
	}
	if (cfg.alloc != A_PAGEPOOL && cfg.alloc != FAMILY &&
	    !(FAMILY == A_PAGEPOOL && cfg.alloc == A_GLIBC)) {
		fprintf(stderr, PROG ": --alloc %s: use " PROG "_%s\n",
			alloc_names[cfg.alloc], alloc_names[cfg.alloc]);
		exit(2);
	}
#if !defined(PFT_FAMILY_MIMALLOC) && !defined(PFT_FAMILY_JEMALLOC) && \
	!defined(PFT_HAVE_GLIBC)
	if (cfg.alloc == A_GLIBC) {
		fprintf(stderr, PROG ": --alloc glibc: not available\n");
		exit(2);
	}
#endif
}

int
main(int argc, char **argv)
{
	int ret;

	cfg.nr_test = 2000000;
	cfg.test_alloc_len = 2048;
	cfg.watchdog_s = 10;
	cfg.alloc = FAMILY;
	cfg.test_push_cpu = cfg.test_pop_cpu = nth_cpu(0);
	parse_args(argc, argv);
	spin = cfg.test_push_cpu != cfg.test_pop_cpu;

	printf("# " PROG ": nr_test=%lu test_align=%d test_alloc_len=%u "
	       "test_push_cpu=%d test_pop_cpu=%d allocator=%s\n",
	       cfg.nr_test, cfg.test_align, cfg.test_alloc_len,
	       cfg.test_push_cpu, cfg.test_pop_cpu, alloc_names[cfg.alloc]);
	if (!cfg.compare || FAMILY != A_PAGEPOOL) {
		ret = run_test();
		return ret;
	}
	pp_tool_print_machine(stdout);
	cfg.alloc = A_PAGEPOOL;
	ret = run_test();
#ifdef PFT_HAVE_GLIBC
	printf("# " PROG ": allocator=glibc\n");
	cfg.alloc = A_GLIBC;
	ret |= run_test();
#endif
	ret |= run_sibling("mimalloc", argc, argv);
	ret |= run_sibling("jemalloc", argc, argv);
	return ret != 0;
}
