/* SPDX-License-Identifier: MIT */
/*
 * Copyright (c) 2026 The pagepool authors
 *
 * Indirect header (installed because inline fast paths need it; not API).
 *
 * The thin atomic layer every pagepool structure goes through. It maps the
 * kernel's READ_ONCE/WRITE_ONCE/smp_* vocabulary onto the compiler's __atomic
 * builtins, which work on plain (non-_Atomic) fields, so the public structs
 * keep the kernel's field types (int producer; void **queue) and stay usable
 * from C++. ThreadSanitizer understands these builtins, which is what lets the
 * stress tests prove the ring race-free rather than merely quiet.
 *
 * An arch back end may replace a macro here where a measurement says so; the
 * callers name the ordering they need, never the instruction.
 */
#ifndef PAGEPOOL_ATOMIC_PVT_H
#define PAGEPOOL_ATOMIC_PVT_H

/* Single-copy-atomic access with no ordering: READ_ONCE / WRITE_ONCE. */
#define pp_load_relaxed(p)	__atomic_load_n((p), __ATOMIC_RELAXED)
#define pp_store_relaxed(p, v)	__atomic_store_n((p), (v), __ATOMIC_RELAXED)

/* Publication and observation of an object through a pointer or index. */
#define pp_load_acquire(p)	__atomic_load_n((p), __ATOMIC_ACQUIRE)
#define pp_store_release(p, v)	__atomic_store_n((p), (v), __ATOMIC_RELEASE)

#define pp_xchg_acquire(p, v)	__atomic_exchange_n((p), (v), __ATOMIC_ACQUIRE)
#define pp_fetch_add_relaxed(p, v) \
	__atomic_fetch_add((p), (v), __ATOMIC_RELAXED)
/* Reference drops: each release publishes the dropper's writes, the
 * acquire half lets the last dropper see all of them (page refcounts). */
#define pp_fetch_sub_acq_rel(p, v) \
	__atomic_fetch_sub((p), (v), __ATOMIC_ACQ_REL)

/* Compare-and-swap with no ordering, for statistics only (high-water
 * marks); *oldp receives the current value on failure. */
#define pp_cmpxchg_relaxed(p, oldp, v) \
	__atomic_compare_exchange_n((p), (oldp), (v), 0, __ATOMIC_RELAXED, \
				    __ATOMIC_RELAXED)

/* Compiler-only barrier, for spin loops that re-read a plain field. */
#define pp_barrier()		__asm__ __volatile__("" ::: "memory")

static inline void
pp_cpu_relax(void)
{
#if defined(PP_MODEL_CHECK)
	/* Model checkers (tests/genmc) interpret the code and know no pause
	 * instruction; to them a relax is only a compiler barrier. */
	pp_barrier();
#elif defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#elif defined(__aarch64__)
	__asm__ __volatile__("yield" ::: "memory");
#else
	pp_barrier();
#endif
}

#endif /* PAGEPOOL_ATOMIC_PVT_H */
