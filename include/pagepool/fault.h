/* SPDX-License-Identifier: MIT */
/*
 * Copyright (c) 2026 The pagepool authors
 *
 * Allocation fault injection: make pagepool's own allocations fail on
 * purpose, so a caller (or our tests) can check that every failure path
 * reports a clean error and frees what it took. Allocation failure is a
 * normal event; this is how it is exercised.
 *
 * The injector is per thread, so a test that arms it cannot disturb other
 * threads, and it costs one thread-local load on allocation slow paths only
 * (never on a ring or pool fast path).
 */
#ifndef PAGEPOOL_FAULT_H
#define PAGEPOOL_FAULT_H

#include <pagepool/kcompat.h>

#ifdef __cplusplus
extern "C" {
#endif

/**
 * pp_fault_inject_alloc() - arm the calling thread's allocation injector.
 * @after: let this many allocations succeed first; negative disarms.
 * @count: then fail this many (negative: every one until disarmed).
 *
 * Context: any thread; affects only allocations made by pagepool on the
 * calling thread.
 */
PP_API void pp_fault_inject_alloc(long after, long count);

/**
 * pp_fault_injected() - allocations failed on purpose on this thread since
 * the injector was last armed.
 */
PP_API unsigned long pp_fault_injected(void);

#ifdef __cplusplus
}
#endif

#endif /* PAGEPOOL_FAULT_H */
