/* SPDX-License-Identifier: MIT */
/*
 * Copyright (c) 2026 The pagepool authors
 *
 * peer_glibc, peer_mimalloc, peer_jemalloc: general-purpose allocators on
 * 4 KiB buffers, one family per program. This file is built three times,
 * with PEER_FAMILY_GLIBC, PEER_FAMILY_MIMALLOC or PEER_FAMILY_JEMALLOC,
 * because Debian's libmimalloc and libjemalloc replace the process's
 * malloc when linked: a glibc row next to them would measure them. The
 * glibc rows call glibc's own entry points (__libc_malloc, __libc_memalign,
 * __libc_free) for the same reason, so they stay glibc even under an
 * LD_PRELOADed allocator.
 *
 * Rows, each in same (one thread) and cross (A allocates, B frees) mode:
 *   glibc_malloc       __libc_malloc(4096) / __libc_free
 *   glibc_aligned      __libc_memalign(4096, 4096) / __libc_free
 *                      (what aligned_alloc(4096, 4096) does)
 *   mimalloc_malloc    mi_malloc(4096) / mi_free
 *   mimalloc_aligned   mi_malloc_aligned(4096, 4096) / mi_free
 *   jemalloc_mallocx   mallocx(4096, 0) / dallocx
 *   jemalloc_aligned   mallocx(4096, MALLOCX_ALIGN(4096)) / dallocx
 */
#define _GNU_SOURCE
#include <stdlib.h>

#ifndef PEER_SANITIZED
#define PEER_SANITIZED 0
#endif

#include "peers.h"

#if defined(PEER_FAMILY_MIMALLOC)
#include <mimalloc.h>

#define FAMILY "mimalloc"
#define OP1 "malloc"
#define OP2 "aligned"

static inline void *
alloc1(void)
{
	return mi_malloc(PEER_BUF_SIZE);
}

static inline void *
alloc2(void)
{
	return mi_malloc_aligned(PEER_BUF_SIZE, PEER_BUF_SIZE);
}

static inline void
free1(void *p)
{
	mi_free(p);
}

#define free2 free1

#elif defined(PEER_FAMILY_JEMALLOC)
#include <jemalloc/jemalloc.h>

#define FAMILY "jemalloc"
#define OP1 "mallocx"
#define OP2 "aligned"

static inline void *
alloc1(void)
{
	return mallocx(PEER_BUF_SIZE, 0);
}

static inline void *
alloc2(void)
{
	return mallocx(PEER_BUF_SIZE, MALLOCX_ALIGN(PEER_BUF_SIZE));
}

static inline void
free1(void *p)
{
	dallocx(p, 0);
}

static inline void
free2(void *p)
{
	dallocx(p, MALLOCX_ALIGN(PEER_BUF_SIZE));
}

#else /* glibc */

#if PEER_SANITIZED
/*
 * A sanitizer owns malloc and intercepts __libc_memalign too (but not
 * __libc_free): the pair would mismatch. The numbers mean nothing under a
 * sanitizer anyway; the public names keep the program correct.
 */
#define __libc_malloc malloc
#define __libc_memalign memalign
#define __libc_free free
#include <malloc.h>
#else
/* glibc's own entry points, exported for malloc interposers. */
extern void *__libc_malloc(size_t size);
extern void *__libc_memalign(size_t alignment, size_t size);
extern void __libc_free(void *ptr);
#endif

#define FAMILY "glibc"
#define OP1 "malloc"
#define OP2 "aligned"

static inline void *
alloc1(void)
{
	return __libc_malloc(PEER_BUF_SIZE);
}

static inline void *
alloc2(void)
{
	return __libc_memalign(PEER_BUF_SIZE, PEER_BUF_SIZE);
}

static inline void
free1(void *p)
{
	__libc_free(p);
}

#define free2 free1

#endif

static void *
get1(void *ctx)
{
	void *p = alloc1();

	(void)ctx;
	if (p != NULL)
		peer_touch(p);
	return p;
}

static void *
get2(void *ctx)
{
	void *p = alloc2();

	(void)ctx;
	if (p != NULL)
		peer_touch(p);
	return p;
}

static void
put1(void *ctx, void *p)
{
	(void)ctx;
	free1(p);
}

static void
put2(void *ctx, void *p)
{
	(void)ctx;
	free2(p);
}

static void
row_same(const char *type, int op)
{
	struct time_bench_record rec = { .step = 0 };
	uint64_t done;

	if (op == 1)
		peer_same_loop(NULL, PEER_WARMUP, get1, put1);
	else
		peer_same_loop(NULL, PEER_WARMUP, get2, put2);
	time_bench_start(&rec);
	if (op == 1)
		done = peer_same_loop(NULL, peer_opts.n, get1, put1);
	else
		done = peer_same_loop(NULL, peer_opts.n, get2, put2);
	time_bench_stop(&rec, done);
	if (done < peer_opts.n)
		peer_die("%s: allocation failed", type);
	peer_report(type, &rec);
}

static void *
cross_b1(void *arg)
{
	struct peer_cross *x = arg;

	peer_cross_b_enter(x, true);
	peer_cross_consumer(x, put1);
	return NULL;
}

static void *
cross_b2(void *arg)
{
	struct peer_cross *x = arg;

	peer_cross_b_enter(x, true);
	peer_cross_consumer(x, put2);
	return NULL;
}

static uint64_t
cross_a1(struct peer_cross *x)
{
	return peer_cross_producer(x, get1);
}

static uint64_t
cross_a2(struct peer_cross *x)
{
	return peer_cross_producer(x, get2);
}

int
main(int argc, char **argv)
{
	unsigned int round;

	peer_init(argc, argv, "peer_" FAMILY,
		  FAMILY " " OP1 " and " OP2 " (4096-aligned) 4 KiB buffers",
		  NULL);
	for (round = 0; round < peer_opts.rounds; round++) {
		row_same(FAMILY "_" OP1 "_same", 1);
		row_same(FAMILY "_" OP2 "_same", 2);
		peer_cross_run(FAMILY "_" OP1 "_cross", NULL, cross_b1,
			       cross_a1);
		peer_cross_run(FAMILY "_" OP2 "_cross", NULL, cross_b2,
			       cross_a2);
	}
	return 0;
}
