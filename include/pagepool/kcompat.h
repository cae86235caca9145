/* SPDX-License-Identifier: MIT */
/*
 * Copyright (c) 2026 The pagepool authors
 *
 * The kernel vocabulary pagepool's API keeps for source compatibility: gfp_t
 * and its flags, the cache line size, and branch hints. A driver's RX refill
 * code that says ptr_ring_init(&r, 512, GFP_KERNEL) compiles unchanged.
 *
 * gfp flags carry no allocator semantics in userspace beyond what is
 * documented per function (__GFP_NOWARN silences pagepool's diagnostics where
 * a function would otherwise print one; __GFP_ZERO is honoured where memory is
 * returned). Unknown bits are ignored, as the kernel ignores modifiers that do
 * not apply to an allocation.
 */
#ifndef PAGEPOOL_KCOMPAT_H
#define PAGEPOOL_KCOMPAT_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef unsigned int gfp_t;

#ifndef __GFP_NOWARN
#define __GFP_NOWARN	0x2000u
#endif
#ifndef __GFP_ZERO
#define __GFP_ZERO	0x100u
#endif
#ifndef GFP_ATOMIC
#define GFP_ATOMIC	0x20u
#endif
#ifndef GFP_KERNEL
#define GFP_KERNEL	0xcc0u
#endif

/*
 * Cache line size assumed by the struct layouts. 64 bytes on every target we
 * build for; a platform with 128-byte lines (Apple M-series, POWER) may define
 * PP_CACHELINE_SIZE before including any pagepool header, at the cost of a
 * different ABI.
 */
#ifndef PP_CACHELINE_SIZE
#define PP_CACHELINE_SIZE 64
#endif
#ifndef SMP_CACHE_BYTES
#define SMP_CACHE_BYTES PP_CACHELINE_SIZE
#endif

#define PP_CACHELINE_ALIGNED __attribute__((aligned(PP_CACHELINE_SIZE)))

#define PP_LIKELY(x)	__builtin_expect(!!(x), 1)
#define PP_UNLIKELY(x)	__builtin_expect(!!(x), 0)

#define PP_ALWAYS_INLINE inline __attribute__((always_inline))

/* Exported-symbol marker: everything else in the library stays hidden. */
#if defined(PAGEPOOL_BUILDING_LIB) && defined(__GNUC__)
#define PP_API __attribute__((visibility("default")))
#else
#define PP_API
#endif

/*
 * Compile-time checks of public layouts. C++ has no _Static_assert; both
 * languages spell the C23/C++11 form differently, so the headers use this.
 */
#ifdef __cplusplus
#define PP_STATIC_ASSERT(cond, msg) static_assert(cond, msg)
#else
#define PP_STATIC_ASSERT(cond, msg) _Static_assert(cond, msg)
#endif

#ifdef __cplusplus
}
#endif

#endif /* PAGEPOOL_KCOMPAT_H */
