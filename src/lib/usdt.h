/* SPDX-License-Identifier: MIT */
/*
 * Copyright (c) 2026 The pagepool authors
 *
 * USDT probes (provider "pagepool") at the slow paths, for bpftrace,
 * perf and SystemTap on a running process: refill of the alloc cache from
 * the ring, allocation from the page allocator, a page released from its
 * pool, a full ring, a deferred and a stalled destroy, a DMA fault. Each
 * is a single nop and a note in .note.stapsdt while nothing is attached
 * (the arguments are values the code has at hand), and none sits on an
 * alloc or recycle fast path. pagepool-usdt(7) lists them and their
 * arguments. Built when <sys/sdt.h> is found (Debian: systemtap-sdt-dev,
 * option -Dusdt); otherwise the sites compile to nothing.
 */
#ifndef PAGEPOOL_USDT_H
#define PAGEPOOL_USDT_H

#ifdef PP_HAVE_SDT
#define SDT_USE_VARIADIC 1
#include <sys/sdt.h>
#define PP_TRACE(name, ...) STAP_PROBEV(pagepool, name, __VA_ARGS__)
#else
#define PP_TRACE(name, ...) do { } while (0)
#endif

#endif /* PAGEPOOL_USDT_H */
