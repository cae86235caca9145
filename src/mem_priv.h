/* SPDX-License-Identifier: MIT */
/*
 * Copyright (c) 2026 The pagepool authors
 *
 * Private: the one place pagepool takes memory for its own bookkeeping
 * (ring queues, pool structs). Every such allocation goes through here so
 * the fault injector (pagepool/fault.h) reaches all of them.
 */
#ifndef PAGEPOOL_MEM_PRIV_H
#define PAGEPOOL_MEM_PRIV_H

#include <stddef.h>

#include <pagepool/kcompat.h>

/*
 * _pp_zalloc_aligned() - zeroed memory aligned to @align (a power of two,
 * at least sizeof(void *)). NULL with errno ENOMEM on failure, injected or
 * real. Free with _pp_free().
 */
void *_pp_zalloc_aligned(size_t size, size_t align);
void _pp_free(void *ptr);

/* True if the injector says this allocation must fail (counts it). */
int _pp_fault_should_fail(void);

#endif /* PAGEPOOL_MEM_PRIV_H */
