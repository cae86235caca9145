/* SPDX-License-Identifier: MIT */
/*
 * Copyright (c) 2026 The pagepool authors
 *
 * The out-of-line half of the peer benchmark harness (see peers.h): option
 * parsing, pinning, thread start and stop, and the result lines. Nothing
 * here runs inside a timed loop.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "peers.h"

struct peer_opts peer_opts = {
	.n = 10000000,
	.rounds = 1,
	.touch_line = 0xfc0,
};
const char *peer_prog = "peers";

void
peer_die(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", peer_prog);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

/* The @idx-th CPU of the affinity mask, modulo their number; 0 if none. */
static int
nth_cpu(int idx)
{
	cpu_set_t set;
	int cpu, seen = 0, n;

	if (sched_getaffinity(0, sizeof(set), &set) != 0)
		return 0;
	n = CPU_COUNT(&set);
	if (n == 0)
		return 0;
	idx %= n;
	for (cpu = 0; cpu < CPU_SETSIZE; cpu++) {
		if (CPU_ISSET(cpu, &set) && seen++ == idx)
			return cpu;
	}
	return 0;
}

static void
pin_to(int cpu)
{
	cpu_set_t set;
	int err;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	err = pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
	if (err != 0)
		peer_die("cannot pin to CPU %d: %s", cpu, strerror(err));
}

static void
usage(FILE *out, const char *what, const char *extra_help)
{
	fprintf(out,
		"Usage: %s [-N COUNT] [-R ROUNDS] [-T TOUCH]\n"
		"%s\n"
		"\n"
		"  -N COUNT   round trips (same), items (spsc), 4000..%llu;\n"
		"             cross-thread rows run COUNT/4, at most 2 s\n"
		"             (default 10000000)\n"
		"  -R ROUNDS  run every row ROUNDS times, one round after\n"
		"             another, in this one process (default 1); a\n"
		"             row's lines are then its samples\n"
		"  -T TOUCH   where each buffer is written: spread (default;\n"
		"             the line (address / 4096) %% 64 of the buffer)\n"
		"             or first (offset 0: 4 KiB-aligned buffers then\n"
		"             share cache sets)\n"
		"  -h         this text\n"
		"%s"
		"\n"
		"Each row prints the kernel's time_bench line, Type:<peer>_<op>_<mode>;\n"
		"thread A runs on the first usable CPU, thread B on the second.\n"
		"Exit status: 0 ok, 1 a row failed, 2 bad usage.\n",
		peer_prog, what, (unsigned long long)UINT32_MAX,
		extra_help != NULL ? extra_help : "");
}

void
peer_init(int argc, char **argv, const char *prog, const char *what,
	  const char *extra_help)
{
	int c;

	peer_prog = prog;
	while ((c = getopt(argc, argv, "N:R:T:h")) != -1) {
		switch (c) {
		case 'N':
			/* time_bench needs every count in [1000, 2^32), and
			 * the cross rows run N/4. */
			peer_opts.n = pp_tool_parse_num(prog, "-N", optarg, 4000,
							UINT32_MAX);
			break;
		case 'R':
			peer_opts.rounds = (unsigned int)pp_tool_parse_num(
				prog, "-R", optarg, 1, 1000);
			break;
		case 'T':
			if (strcmp(optarg, "spread") == 0) {
				peer_opts.touch_line = 0xfc0;
			} else if (strcmp(optarg, "first") == 0) {
				peer_opts.touch_line = 0;
			} else {
				fprintf(stderr, "%s: -T: '%s' is not spread "
					"or first\n", prog, optarg);
				exit(2);
			}
			break;
		case 'h':
			usage(stdout, what, extra_help);
			exit(0);
		default:
			usage(stderr, what, extra_help);
			exit(2);
		}
	}
	if (optind < argc) {
		fprintf(stderr, "%s: unexpected argument '%s'\n", prog,
			argv[optind]);
		exit(2);
	}
	peer_opts.n_cross = peer_opts.n / 4;
	peer_opts.cpu_a = nth_cpu(0);
	peer_opts.cpu_b = nth_cpu(1);
	pin_to(peer_opts.cpu_a);
	printf("# %s: %s; N %llu (cross %llu after %d untimed), %u "
	       "round(s), %d-byte buffers, touch %s, A on CPU %d, B on CPU "
	       "%d, clock %s\n",
	       prog, what, (unsigned long long)peer_opts.n,
	       (unsigned long long)peer_opts.n_cross, PEER_CROSS_WARMUP,
	       peer_opts.rounds,
	       PEER_BUF_SIZE, peer_opts.touch_line != 0 ? "spread" : "first",
	       peer_opts.cpu_a, peer_opts.cpu_b, time_bench_clock_name());
	fflush(stdout);
}

void
peer_report(const char *type, struct time_bench_record *rec)
{
	if (!time_bench_calc_stats(rec))
		peer_die("%s: no figures", type);
	time_bench_print(stdout, NULL, type, rec);
	fflush(stdout);
}

/*
 * ---- cross ---------------------------------------------------------------
 */

void
peer_cross_init(struct peer_cross *x, void *ctx, uint64_t n)
{
	memset(x, 0, sizeof(*x));
	if (ptr_ring_init(&x->ring, PEER_RING_SIZE, GFP_KERNEL) != 0)
		peer_die("ptr_ring_init failed");
	x->ctx = ctx;
	x->n = n;
	x->n_warm = PEER_CROSS_WARMUP;
	x->deadline = UINT64_MAX;
	x->b_cpu = -1;
}

void
peer_cross_fini(struct peer_cross *x)
{
	ptr_ring_cleanup(&x->ring, NULL);
}

void
peer_cross_b_enter(struct peer_cross *x, bool pin)
{
	if (pin)
		pin_to(peer_opts.cpu_b);
	x->b_cpu = sched_getcpu();
	/* R1: pairs with acquire A1 in peer_cross_a_begin(). */
	pp_store_release(&x->ready, 1);
	/* A2: pairs with release R2 in peer_cross_a_begin(). */
	while (pp_load_acquire(&x->start) == 0)
		pp_cpu_relax();
}

void
peer_cross_a_begin(struct peer_cross *x, struct time_bench_record *rec)
{
	/* A1: pairs with release R1 in peer_cross_b_enter(). */
	while (pp_load_acquire(&x->ready) == 0)
		sched_yield();
	x->rec = rec;
	/* R2: pairs with acquire A2: the ring and context are set up. */
	pp_store_release(&x->start, 1);
}

void
peer_cross_a_warm(struct peer_cross *x)
{
	/* A6: pairs with release R6 in peer_cross_consumer() (or B's own
	 * loop): every warm-up buffer is back. */
	while (pp_load_acquire(&x->warm) == 0)
		pp_cpu_relax();
	time_bench_start(x->rec);
	x->deadline = x->rec->ts_start + PEER_CROSS_MAX_NS;
}

void
peer_cross_a_end(struct peer_cross *x, uint64_t done)
{
	/* R5: pairs with acquire A5 in peer_cross_stopped(). */
	if (done < x->n)
		pp_store_release(&x->start, 2);
}

void
peer_cross_report(const char *type, struct peer_cross *x, uint64_t done,
		  struct time_bench_record *rec)
{
	uint64_t freed = pp_load_acquire(&x->freed);

	if (done < x->n && !x->timed_out)
		peer_die("%s: allocation failed after %llu buffers", type,
			 (unsigned long long)done);
	if (freed != done)
		peer_die("%s: %llu allocated, %llu freed", type,
			 (unsigned long long)done, (unsigned long long)freed);
	if (x->timed_out)
		printf("# %s: stopped at the time limit after %llu of %llu\n",
		       type, (unsigned long long)done,
		       (unsigned long long)x->n);
	peer_report(type, rec);
}

void
peer_cross_run(const char *type, void *ctx, void *(*b_main)(void *),
	       uint64_t (*a_main)(struct peer_cross *x))
{
	struct time_bench_record rec = { .step = 0 };
	struct peer_cross x;
	pthread_t b;
	uint64_t done;
	int err;

	peer_cross_init(&x, ctx, peer_opts.n_cross);
	err = pthread_create(&b, NULL, b_main, &x);
	if (err != 0)
		peer_die("pthread_create: %s", strerror(err));
	peer_cross_a_begin(&x, &rec);
	done = a_main(&x);
	peer_cross_a_end(&x, done);
	pthread_join(b, NULL);
	time_bench_stop(&rec, done);
	peer_cross_report(type, &x, done, &rec);
	peer_cross_fini(&x);
}

/*
 * ---- spsc ----------------------------------------------------------------
 */

void
peer_spsc_init(struct peer_spsc *s, void *ring, uint64_t n)
{
	memset(s, 0, sizeof(*s));
	s->ring = ring;
	s->n = n;
	s->errors = UINT64_MAX;
	s->b_cpu = -1;
}

void
peer_spsc_b_enter(struct peer_spsc *s, bool pin)
{
	if (pin)
		pin_to(peer_opts.cpu_b);
	s->b_cpu = sched_getcpu();
	/* R3: pairs with acquire A3 in peer_spsc_a_begin(). */
	pp_store_release(&s->ready, 1);
	/* A4: pairs with release R4 in peer_spsc_a_begin(). */
	while (pp_load_acquire(&s->start) == 0)
		pp_cpu_relax();
}

void
peer_spsc_a_begin(struct peer_spsc *s, struct time_bench_record *rec)
{
	/* A3: pairs with release R3 in peer_spsc_b_enter(). */
	while (pp_load_acquire(&s->ready) == 0)
		sched_yield();
	time_bench_start(rec);
	/* R4: pairs with acquire A4. */
	pp_store_release(&s->start, 1);
}

void
peer_spsc_done(const char *type, struct peer_spsc *s,
	       struct time_bench_record *rec)
{
	uint64_t errors = pp_load_acquire(&s->errors);

	if (errors != 0)
		peer_die("%s: %llu values out of order", type,
			 (unsigned long long)errors);
	peer_report(type, rec);
}

void
peer_spsc_run(const char *type, void *ring, void *(*b_main)(void *),
	      void (*a_main)(struct peer_spsc *s))
{
	struct time_bench_record rec = { .step = 0 };
	struct peer_spsc s;
	pthread_t b;
	int err;

	peer_spsc_init(&s, ring, peer_opts.n);
	err = pthread_create(&b, NULL, b_main, &s);
	if (err != 0)
		peer_die("pthread_create: %s", strerror(err));
	peer_spsc_a_begin(&s, &rec);
	a_main(&s);
	pthread_join(b, NULL);
	time_bench_stop(&rec, s.n);
	peer_spsc_done(type, &s, &rec);
}
