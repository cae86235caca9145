/* SPDX-License-Identifier: MIT */
/*
 * Copyright (c) 2026 The pagepool authors
 *
 * pagepool's rows shared by peer_pagepool and peer_dpdk (pp_rows.c). Each
 * runs one row and prints its time_bench line under the row's type name.
 */
#ifndef PAGEPOOL_BENCH_PP_ROWS_H
#define PAGEPOOL_BENCH_PP_ROWS_H

#include <pagepool/page_pool.h>

/* Buffers per batch of the bulk and burst rows (DPDK's rows use 32). */
#define PP_BULK 32

/* A pool of 1024 order-0 pages, owned through @napi (NULL: no owner). */
struct page_pool *pp_rows_pool_create(struct napi_struct *napi);
/* The pool's counters as "# @type: ..." lines: the path a row took. */
void pp_rows_pool_stats(const char *type, const struct page_pool *pool);
void pp_rows_pool_destroy(struct page_pool *pool);

/* pagepool_pp_bulk32_same: page_pool_alloc_pages_bulk() of 32 and
 * page_pool_put_page_bulk() of 32 in the owner, per buffer: the checked
 * return (the kernel's page_pool tests of every page). */
void pp_row_bulk32_same(void);
/* pagepool_pp_bulk32_trusted_same: the same with
 * page_pool_recycle_direct_bulk(), the return that trusts its caller
 * (DPDK's rte_mempool_put_bulk() shape). */
void pp_row_bulk32_trusted_same(void);
/* pagepool_pp_ring_cross: A owns and allocates, B returns each page with
 * page_pool_put_full_page(). */
void pp_row_ring_cross(void);
/* pagepool_pp_ring_bulk32_cross: the same, B returning 32 at a time. */
void pp_row_ring_bulk32_cross(void);
/* pagepool_ptr_ring_spsc: single produce, single consume. */
void pp_row_ptr_ring_spsc(void);
/* pagepool_ptr_ring_batch32_spsc: single produce, consume batches of 32. */
void pp_row_ptr_ring_batch32_spsc(void);
/* pagepool_ptr_ring_burst32_spsc: produce and consume batches of 32. */
void pp_row_ptr_ring_burst32_spsc(void);

#endif /* PAGEPOOL_BENCH_PP_ROWS_H */
