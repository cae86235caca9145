/* SPDX-License-Identifier: MIT */
/*
 * Copyright (c) 2026 The pagepool authors
 *
 * The harness shared by the side-by-side peer benchmarks (bench/peers/):
 * one program per allocator family, so an allocator that replaces malloc
 * when linked (mimalloc, jemalloc) never contaminates another's rows.
 *
 * Every row prints the kernel's time_bench line, "Type:<peer>_<op>_<mode>
 * Per elem: N cycles(tsc) N.N ns ...", where one element is one buffer
 * round trip (allocate, write one word, free) or one ring item, and <mode>
 * is one of:
 *   same   one thread, pinned, allocates, touches and frees N buffers
 *   cross  thread A (first usable CPU) allocates and touches, passes each
 *          buffer over an SPSC ptr_ring of 1024 to thread B (second CPU),
 *          which frees it: the cost of a remote free plus the refill it
 *          forces on A, per buffer, as throughput (N/4 buffers, at most
 *          2 s)
 *   spsc   ring peers: A produces 1..N, B consumes and checks the order
 *
 * Each get function writes one word of the buffer it returns, so no
 * allocator gets away with handing out memory it never faults in or
 * touches. Which byte: see peer_touch().
 *
 * The loops are always_inline templates taking the allocator's functions
 * as constant arguments, so each row compiles to the direct calls (or
 * inline code) a user of that allocator would get, with no indirect call
 * in the timed loop.
 */
#ifndef PAGEPOOL_BENCH_PEERS_H
#define PAGEPOOL_BENCH_PEERS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <pagepool/ptr_ring.h>

#include "cpu.h"
#include "time_bench.h"

/*
 * Untimed round trips before a same-thread row, in every program: first
 * faults, pool set-up and lazy initialisation stay out of the figure (DPDK
 * populates its pool at create time; the others do it on first use).
 */
#define PEER_WARMUP 10000

/* Buffer size of every allocator row. */
#define PEER_BUF_SIZE 4096
/* Items in flight between A and B (the transport ring). */
#define PEER_RING_SIZE 1024

struct peer_opts {
	uint64_t n;		/* same and spsc rows */
	uint64_t n_cross;	/* cross rows: n / 4 */
	int cpu_a, cpu_b;	/* the CPUs A and B are pinned to */
	unsigned int rounds;	/* -R: every row this many times, in turn */
	/* -T: 0xfc0 (spread, the default) or 0 (first): see peer_touch() */
	unsigned int touch_line;
};

extern struct peer_opts peer_opts;
extern const char *peer_prog;

/*
 * Parse -N COUNT, -R ROUNDS, -T TOUCH and -h; fill peer_opts and print the program's header
 * ("# <prog>: N ..., A on CPU x, B on CPU y"). @extra_help is appended to
 * the usage text. Exits 2 on bad usage.
 */
void peer_init(int argc, char **argv, const char *prog,
	       const char *what, const char *extra_help);

/* Print the time_bench line of @rec as "Type:@type", or complain. */
void peer_report(const char *type, struct time_bench_record *rec);

/* Report a fatal error of the benchmark itself and exit 1. */
void peer_die(const char *fmt, ...) __attribute__((format(printf, 1, 2),
						   noreturn));

/* Keep the compiler from eliding an allocate/free pair: @p escapes. */
static inline void
peer_escape(void *p)
{
	__asm__ __volatile__("" : : "r"(p) : "memory");
}

/*
 * The one write every row does to every buffer, in the allocator's
 * get function (a page row's handle is its struct page, its memory is
 * page_address()).
 *
 * Where in the buffer: by default (-T spread) at the start of cache line
 * (address / 4096) % 64 of the buffer, the same arithmetic for every
 * allocator. Writing byte 0 (-T first) puts every 4 KiB-aligned buffer's
 * touched line in the same set of L1 and in 1/64 of L2's sets, so a row
 * with more buffers in flight than those sets hold (a cross row keeps
 * over a thousand: the 1024-slot hand-off ring plus the pool's) measures
 * A's write misses to L3, not the allocator; page-granular allocators
 * (page_pool, the page allocator, aligned mallocs) always hit this, DPDK's
 * mempool never, as it pads its objects (4160 bytes apart here) to spread
 * them over lines. PEER_BUF_SIZE (4096) holds the line in either case.
 * The write is one aligned 8-byte word, not a byte: a char store may
 * alias the mask, which a loop would then reload after every touch (a
 * tenth of a nanosecond in DPDK's bulk row); this one cannot, so the
 * touch costs a shift, an and and an add.
 */
static inline void
peer_touch(void *buf)
{
	uintptr_t a = (uintptr_t)buf;

	*(volatile uint64_t *)(a + ((a >> 6) & peer_opts.touch_line)) = 1;
}

/*
 * ---- same: one thread ---------------------------------------------------
 */

/*
 * Allocate, touch and free @n buffers; returns how many round trips
 * completed (fewer when an allocation failed).
 */
static inline __attribute__((always_inline)) uint64_t
peer_same_loop(void *ctx, uint64_t n, void *(*get)(void *ctx),
	       void (*put)(void *ctx, void *buf))
{
	uint64_t i;

	for (i = 0; i < n; i++) {
		void *buf = get(ctx);

		if (__builtin_expect(buf == NULL, 0))
			break;
		peer_escape(buf);
		put(ctx, buf);
	}
	return i;
}

/*
 * ---- cross: A allocates, B frees ------------------------------------------
 */

/*
 * A cross row stops after n_cross buffers or this long, whichever comes
 * first: a remote free costs from 10 ns to several microseconds (glibc),
 * and the slowest rows would otherwise dominate the suite's run time. The
 * time_bench line's invoke count says how many really ran.
 */
#define PEER_CROSS_MAX_NS 2000000000ull

/*
 * Untimed buffers through a cross row's two threads before its clock
 * starts, as PEER_WARMUP for a same-thread row: the pages an allocator
 * faults in on first use (page_pool, the mallocs; DPDK populates its
 * pool at create time) and the buffers its steady state keeps in flight
 * (over a thousand: the hand-off ring's 1024 and the allocator's caches)
 * stay out of the figure. A starts the clock once B freed them all.
 */
#define PEER_CROSS_WARMUP 16384

struct peer_cross {
	struct ptr_ring ring;	/* A -> B, __ptr_ring_produce/consume */
	void *ctx;		/* the allocator's state */
	uint64_t n;		/* timed buffers */
	uint64_t n_warm;	/* untimed ones before (PEER_CROSS_WARMUP) */
	uint64_t deadline;	/* wall clock, ns; A checks every 1024 */
	struct time_bench_record *rec;	/* started after the warm-up */
	bool timed_out;
	int ready;		/* B pinned and waiting */
	int start;		/* A's go */
	int warm;		/* B freed the warm-up buffers */
	int b_cpu;
	uint64_t freed;		/* by B, timed ones */
};

/* Set up @x for @n buffers of allocator state @ctx. */
void peer_cross_init(struct peer_cross *x, void *ctx, uint64_t n);
void peer_cross_fini(struct peer_cross *x);

/*
 * B's side before its loop: pin to cpu_b (unless @pin is false: a DPDK
 * lcore is pinned by EAL), say ready, wait for the start.
 */
void peer_cross_b_enter(struct peer_cross *x, bool pin);

/*
 * A's side: wait until B is ready and release B. The caller then runs its
 * producer loop (which starts @rec after the warm-up) and, once B is
 * done, time_bench_stop().
 */
void peer_cross_a_begin(struct peer_cross *x, struct time_bench_record *rec);

/* A, after the warm-up: wait until B freed it all, start the clock. */
void peer_cross_a_warm(struct peer_cross *x);

/*
 * Run a cross row with B as a pthread on cpu_b running @b_main(x), A being
 * the calling thread (pinned to cpu_a) running @a_main(x); report @type.
 */
void peer_cross_run(const char *type, void *ctx, void *(*b_main)(void *),
		    uint64_t (*a_main)(struct peer_cross *x));

/* A: allocate (get touches) and pass @n buffers; returns how many. */
static inline __attribute__((always_inline)) uint64_t
peer_cross_pass(struct peer_cross *x, uint64_t n, void *(*get)(void *ctx))
{
	struct ptr_ring *r = &x->ring;
	void *ctx = x->ctx;
	uint64_t i;

	for (i = 0; i < n; i++) {
		void *buf;

		if (__builtin_expect((i & 1023) == 1023, 0) &&
		    time_bench_wallclock_ns() > x->deadline) {
			x->timed_out = true;
			break;
		}
		buf = get(ctx);
		if (__builtin_expect(buf == NULL, 0))
			break;
		while (__ptr_ring_produce(r, buf) != 0)
			pp_cpu_relax();
	}
	return i;
}

/* A: the warm-up, then the timed buffers; returns the timed ones passed
 * (0 if the warm-up's allocations failed). */
static inline __attribute__((always_inline)) uint64_t
peer_cross_producer(struct peer_cross *x, void *(*get)(void *ctx))
{
	if (peer_cross_pass(x, x->n_warm, get) < x->n_warm)
		return 0;
	peer_cross_a_warm(x);
	return peer_cross_pass(x, x->n, get);
}

/*
 * B, on an empty ring: has A stopped early (out of time, or an allocation
 * failed)? If so, everything A passed is in the ring by now, but the empty
 * ring B just saw may predate A's last produces: B must look once more
 * before it leaves (a loaded machine can deschedule B between the two
 * loads for long enough that A fills hundreds of slots).
 */
static inline __attribute__((always_inline)) bool
peer_cross_stopped(struct peer_cross *x)
{
	/* A5: pairs with release R5 in peer_cross_a_end(): A's produces
	 * happen before it, so the consume after this sees them all. */
	return pp_load_acquire(&x->start) == 2;
}

/*
 * B: the next buffer off the ring, waiting for one; NULL once A stopped
 * early and the ring is drained.
 */
static inline __attribute__((always_inline)) void *
peer_cross_take(struct peer_cross *x)
{
	void *buf;

	while ((buf = __ptr_ring_consume(&x->ring)) == NULL) {
		if (peer_cross_stopped(x) &&
		    (buf = __ptr_ring_consume(&x->ring)) == NULL)
			return NULL;
		if (buf != NULL)
			break;
		pp_cpu_relax();
	}
	return buf;
}

/*
 * B: take buffers off the ring and free them, until @n were freed or A
 * stopped early; returns how many.
 */
static inline __attribute__((always_inline)) uint64_t
peer_cross_drain(struct peer_cross *x, uint64_t n,
		 void (*put)(void *ctx, void *buf))
{
	void *ctx = x->ctx, *buf;
	uint64_t got;

	for (got = 0; got < n; got++) {
		buf = peer_cross_take(x);
		if (buf == NULL)
			break;
		put(ctx, buf);
	}
	return got;
}

/* B: the warm-up (then tell A), then the timed buffers. */
static inline __attribute__((always_inline)) void
peer_cross_consumer(struct peer_cross *x, void (*put)(void *ctx, void *buf))
{
	uint64_t got = 0;

	if (peer_cross_drain(x, x->n_warm, put) == x->n_warm) {
		/* R6: pairs with acquire A6 in peer_cross_a_warm(). */
		pp_store_release(&x->warm, 1);
		got = peer_cross_drain(x, x->n, put);
	}
	pp_store_release(&x->freed, got);
}

/* Buffers B frees at once in the batched rows. */
#define PEER_CROSS_BATCH 32

/*
 * B, batching: takes buffers off the ring one at a time as
 * peer_cross_drain() does and frees them PEER_CROSS_BATCH at a time with
 * @put_bulk (what is left at the end, fewer); returns how many it took.
 * Every peer's batched row runs this one loop.
 */
static inline __attribute__((always_inline)) uint64_t
peer_cross_drain_batched(struct peer_cross *x, uint64_t n,
			 void (*put_bulk)(void *ctx, void **bufs,
					  unsigned int count))
{
	void *ctx = x->ctx, *batch[PEER_CROSS_BATCH], *buf;
	unsigned int nb = 0;
	uint64_t got;

	for (got = 0; got < n; got++) {
		buf = peer_cross_take(x);
		if (buf == NULL)
			break;
		batch[nb++] = buf;
		if (nb == PEER_CROSS_BATCH) {
			put_bulk(ctx, batch, nb);
			nb = 0;
		}
	}
	if (nb > 0)
		put_bulk(ctx, batch, nb);
	return got;
}

/* B, batching: as peer_cross_consumer(). */
static inline __attribute__((always_inline)) void
peer_cross_consumer_batched(struct peer_cross *x,
			    void (*put_bulk)(void *ctx, void **bufs,
					     unsigned int count))
{
	uint64_t got = 0;

	if (peer_cross_drain_batched(x, x->n_warm, put_bulk) == x->n_warm) {
		/* R6: pairs with acquire A6 in peer_cross_a_warm(). */
		pp_store_release(&x->warm, 1);
		got = peer_cross_drain_batched(x, x->n, put_bulk);
	}
	pp_store_release(&x->freed, got);
}

/*
 * A, after its loop passed @done buffers: if that is fewer than n (out of
 * time, or an allocation failed), let B stop once the ring is drained.
 */
void peer_cross_a_end(struct peer_cross *x, uint64_t done);

/*
 * After B finished and the clock stopped: fail on an allocation failure or
 * a lost buffer, else print the row.
 */
void peer_cross_report(const char *type, struct peer_cross *x, uint64_t done,
		       struct time_bench_record *rec);

/*
 * ---- spsc: ring peers ----------------------------------------------------
 */

struct peer_spsc {
	void *ring;
	uint64_t n;
	int ready;
	int start;
	int b_cpu;
	uint64_t errors;	/* values out of order, seen by B */
};

void peer_spsc_init(struct peer_spsc *s, void *ring, uint64_t n);

/* The thread roles, as for cross rows. */
void peer_spsc_b_enter(struct peer_spsc *s, bool pin);
void peer_spsc_a_begin(struct peer_spsc *s, struct time_bench_record *rec);

/*
 * Run an spsc row: B a pthread on cpu_b running @b_main(s), A the caller
 * running @a_main(s); check the order and report @type.
 */
void peer_spsc_run(const char *type, void *ring, void *(*b_main)(void *),
		   void (*a_main)(struct peer_spsc *s));

/* Report @type for a finished spsc row, failing on order errors. */
void peer_spsc_done(const char *type, struct peer_spsc *s,
		    struct time_bench_record *rec);

/* A: produce 1..n, spinning while the ring is full. */
static inline __attribute__((always_inline)) void
peer_spsc_producer(struct peer_spsc *s, bool (*enq)(void *ring, void *v))
{
	void *ring = s->ring;
	uint64_t i;

	for (i = 1; i <= s->n; i++) {
		while (!enq(ring, (void *)(uintptr_t)i))
			pp_cpu_relax();
	}
}

/* B: consume n values, spinning while empty, counting order errors. */
static inline __attribute__((always_inline)) void
peer_spsc_consumer(struct peer_spsc *s, void *(*deq)(void *ring))
{
	void *ring = s->ring;
	uint64_t i, errors = 0;

	for (i = 1; i <= s->n; i++) {
		void *v;

		while ((v = deq(ring)) == NULL)
			pp_cpu_relax();
		errors += (uintptr_t)v != i;
	}
	pp_store_release(&s->errors, errors);
}

/* B, burst form: @deq fills up to @max values and returns how many. */
static inline __attribute__((always_inline)) void
peer_spsc_consumer_burst(struct peer_spsc *s,
			 unsigned int (*deq)(void *ring, void **v,
					     unsigned int max))
{
	void *ring = s->ring;
	void *v[32];
	uint64_t next = 1, errors = 0;

	while (next <= s->n) {
		unsigned int k, got = deq(ring, v, 32);

		if (got == 0) {
			pp_cpu_relax();
			continue;
		}
		for (k = 0; k < got; k++)
			errors += (uintptr_t)v[k] != next + k;
		next += got;
	}
	pp_store_release(&s->errors, errors);
}

#endif /* PAGEPOOL_BENCH_PEERS_H */
