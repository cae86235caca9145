/* SPDX-License-Identifier: MIT */
/*
 * Copyright (c) 2026 The pagepool authors
 *
 * io_uring provided buffers over a page_pool: a provided-buffer ring whose
 * buffers are pool pages, and multishot recv on a socket that hands the
 * application (page, offset, length).
 *
 * Ownership. A page posted in the buffer ring belongs to the kernel until
 * a completion names its buffer id; it then belongs to the application,
 * which gives it back with page_pool_put_full_page(pool, page, false) from
 * any thread: the page goes back into the pool (its ptr_ring), not into
 * the buffer ring. The owner thread, the only one that calls upp_recv(),
 * re-posts every consumed buffer id with a fresh page from the pool, so
 * the pool is the single place free buffers live, and a slow consumer
 * shows as an empty pool (ids wait, unposted, until pages come back) instead
 * of a growing allocation. Internal to the tools and tests, not installed.
 */
#ifndef PAGEPOOL_TOOLS_URING_PP_H
#define PAGEPOOL_TOOLS_URING_PP_H

#include <liburing.h>
#include <stdbool.h>

#include <pagepool/page_pool.h>

/* One received datagram: the data is at page_address(page) + offset. */
struct upp_pkt {
	struct page *page;
	unsigned int offset;
	unsigned int len;
};

struct upp_stats {
	unsigned long long packets;
	unsigned long long bytes;
	unsigned long long arms;	/* multishot recv (re)armed */
	unsigned long long enobufs;	/* kernel found the buffer ring empty */
	unsigned long long starved;	/* re-post rounds that found the pool
					 * dry (ids left waiting) */
};

struct upp {
	struct io_uring ring;
	struct io_uring_buf_ring *br;
	size_t br_bytes;
	unsigned int entries;		/* power of two */
	unsigned short bgid;
	struct page_pool *pool;
	unsigned int headroom;		/* the pool's offset */
	unsigned int buf_len;		/* block size - headroom */
	struct page **posted;		/* [entries]: page behind each id */
	unsigned short *todo;		/* ids consumed, not re-posted */
	unsigned int nr_todo;
	unsigned int nr_posted;
	int fd;				/* socket receiving, or -1 */
	bool armed;
	bool ring_ok;
	struct upp_stats stats;
};

/*
 * upp_init() - set up an io_uring with a provided-buffer ring of @entries
 * (a power of two, at most 32768) buffers, group @bgid, all pages of
 * @pool (whose offset is the headroom), posted at once.
 * Return: 0 or -errno (-ENOSYS/-EPERM: io_uring unavailable; -EINVAL:
 * the kernel lacks provided-buffer rings; -ENOMEM: the pool ran dry).
 */
int upp_init(struct upp *u, struct page_pool *pool, unsigned int entries,
	     unsigned short bgid);

/* Arm a multishot recv on @fd. Return: 0 or -errno. */
int upp_arm(struct upp *u, int fd);

/*
 * upp_recv() - up to @max datagrams into @pkts; the caller owns each page
 * and gives it back to the pool from any thread. Re-posts consumed ids
 * first, re-arms a multishot recv the kernel ended. @wait_one: block until
 * at least one completion arrives (at most 100 ms), or, when no buffer is
 * posted because the pool is dry, sleep 20 us and return 0.
 * Return: the number of datagrams, or -errno (a recv error).
 */
int upp_recv(struct upp *u, struct upp_pkt *pkts, int max, bool wait_one);

/*
 * upp_fini() - cancel the recv, tear the ring down and give every posted
 * page back to the pool. Pages the application holds stay its own.
 */
void upp_fini(struct upp *u);

#endif /* PAGEPOOL_TOOLS_URING_PP_H */
