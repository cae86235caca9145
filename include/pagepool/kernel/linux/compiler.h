/* SPDX-License-Identifier: MIT */
/*
 * Copyright (c) 2026 The pagepool authors
 *
 * <linux/compiler.h>: branch hints, READ_ONCE()/WRITE_ONCE() and the
 * attribute shorthands kernel code uses. Each is defined only if the C
 * library has not defined it already (glibc defines __always_inline).
 */
#ifndef PAGEPOOL_KERNEL_LINUX_COMPILER_H
#define PAGEPOOL_KERNEL_LINUX_COMPILER_H

#ifndef likely
#define likely(x)	__builtin_expect(!!(x), 1)
#endif
#ifndef unlikely
#define unlikely(x)	__builtin_expect(!!(x), 0)
#endif

/*
 * One untorn access the compiler may not merge, repeat or invent, as the
 * kernel's. Relaxed atomics give that for the scalars these are used on,
 * and tell the thread sanitizer that the race is intended.
 */
#define READ_ONCE(x)	__atomic_load_n(&(x), __ATOMIC_RELAXED)
#define WRITE_ONCE(x, val)                                                   \
	do {                                                                 \
		__atomic_store_n(&(x), (val), __ATOMIC_RELAXED);             \
	} while (0)

#ifndef barrier
#define barrier()	__asm__ __volatile__("" : : : "memory")
#endif
#ifndef __always_inline
#define __always_inline	inline __attribute__((__always_inline__))
#endif
#ifndef noinline
#define noinline	__attribute__((__noinline__))
#endif
#ifndef __maybe_unused
#define __maybe_unused	__attribute__((__unused__))
#endif
#ifndef __must_check
#define __must_check	__attribute__((__warn_unused_result__))
#endif
#ifndef __packed
#define __packed	__attribute__((__packed__))
#endif
#ifndef __aligned
#define __aligned(x)	__attribute__((__aligned__(x)))
#endif
#ifndef ____cacheline_aligned
#define ____cacheline_aligned	__aligned(SMP_CACHE_BYTES)
#endif
#ifndef ____cacheline_aligned_in_smp
#define ____cacheline_aligned_in_smp	____cacheline_aligned
#endif

#endif /* PAGEPOOL_KERNEL_LINUX_COMPILER_H */
