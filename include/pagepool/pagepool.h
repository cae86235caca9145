/* SPDX-License-Identifier: MIT */
/*
 * Copyright (c) 2026 The pagepool authors
 *
 * Umbrella header: everything public in pagepool.
 *
 * pagepool brings the Linux kernel's network memory machinery to userspace
 * with the kernel's names and semantics: ptr_ring, the page allocator,
 * DMA devices, page_pool and page_frag_cache.
 * Link with `pkg-config --cflags --libs pagepool`.
 */
#ifndef PAGEPOOL_PAGEPOOL_H
#define PAGEPOOL_PAGEPOOL_H

#include <pagepool/version.h>
#include <pagepool/kcompat.h>
#include <pagepool/fault.h>
#include <pagepool/opts.h>
#include <pagepool/dma.h>
#include <pagepool/ptr_ring.h>
#include <pagepool/page.h>
#include <pagepool/netmem.h>
#include <pagepool/page_pool.h>
#include <pagepool/page_frag_cache.h>

#endif /* PAGEPOOL_PAGEPOOL_H */
