/* SPDX-License-Identifier: MIT */
/*
 * Copyright (c) 2026 The pagepool authors
 *
 * io_uring provided buffers over a page_pool (see uring_pp.h).
 *
 * liburing 2.3 (Debian 12) has no io_uring_setup_buf_ring(): the buffer
 * ring is mapped here and registered with io_uring_register_buf_ring(),
 * which is what the newer helper does.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <pagepool/page.h>

#include "uring_pp.h"

#define UPP_RECV_TAG	1ULL
#define UPP_CANCEL_TAG	2ULL

/* Post every consumed id that the pool can give a page for. */
static void
repost(struct upp *u)
{
	unsigned int mask = io_uring_buf_ring_mask(u->entries);
	unsigned int added = 0;

	while (u->nr_todo > 0) {
		unsigned short bid = u->todo[u->nr_todo - 1];
		struct page *page = page_pool_dev_alloc_pages(u->pool);

		if (page == NULL) {
			/* Every page is with the application: the id waits
			 * for one to come back. */
			u->stats.starved++;
			break;
		}
		u->nr_todo--;
		u->posted[bid] = page;
		io_uring_buf_ring_add(u->br,
				      (char *)page_address(page) + u->headroom,
				      u->buf_len, bid, (int)mask, (int)added);
		added++;
	}
	if (added > 0) {
		/* The release store of the new tail publishes the entries
		 * to the kernel (liburing's io_uring_smp_store_release). */
		io_uring_buf_ring_advance(u->br, (int)added);
		u->nr_posted += added;
	}
}

int
upp_init(struct upp *u, struct page_pool *pool, unsigned int entries,
	 unsigned short bgid)
{
	struct io_uring_buf_reg reg;
	unsigned int i;
	int err;

	if (u == NULL || pool == NULL || entries == 0 || entries > 32768 ||
	    (entries & (entries - 1)) != 0)
		return -EINVAL;
	memset(u, 0, sizeof(*u));
	u->fd = -1;
	u->pool = pool;
	u->entries = entries;
	u->bgid = bgid;
	u->headroom = pool->p.offset;
	u->buf_len = (unsigned int)(PAGE_SIZE << pool->p.order) - u->headroom;
	u->posted = calloc(entries, sizeof(*u->posted));
	u->todo = calloc(entries, sizeof(*u->todo));
	if (u->posted == NULL || u->todo == NULL) {
		err = -ENOMEM;
		goto fail_mem;
	}
	err = io_uring_queue_init(entries < 256 ? 256 : entries, &u->ring, 0);
	if (err < 0)
		goto fail_mem;
	u->ring_ok = true;

	u->br_bytes = (entries * sizeof(struct io_uring_buf) + PAGE_SIZE - 1) &
		      PAGE_MASK;
	u->br = mmap(NULL, u->br_bytes, PROT_READ | PROT_WRITE,
		     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (u->br == MAP_FAILED) {
		u->br = NULL;
		err = -errno;
		goto fail_ring;
	}
	io_uring_buf_ring_init(u->br);
	memset(&reg, 0, sizeof(reg));
	reg.ring_addr = (unsigned long)u->br;
	reg.ring_entries = entries;
	reg.bgid = bgid;
	err = io_uring_register_buf_ring(&u->ring, &reg, 0);
	if (err < 0)
		goto fail_br;

	for (i = 0; i < entries; i++)
		u->todo[u->nr_todo++] = (unsigned short)(entries - 1 - i);
	repost(u);
	if (u->nr_todo > 0) {
		upp_fini(u);
		return -ENOMEM;
	}
	return 0;

fail_br:
	munmap(u->br, u->br_bytes);
	u->br = NULL;
fail_ring:
	io_uring_queue_exit(&u->ring);
	u->ring_ok = false;
fail_mem:
	free(u->posted);
	free(u->todo);
	u->posted = NULL;
	u->todo = NULL;
	return err;
}

int
upp_arm(struct upp *u, int fd)
{
	struct io_uring_sqe *sqe;
	int err;

	if (u == NULL || fd < 0)
		return -EINVAL;
	u->fd = fd;
	sqe = io_uring_get_sqe(&u->ring);
	if (sqe == NULL)
		return -EBUSY;
	io_uring_prep_recv_multishot(sqe, fd, NULL, 0, 0);
	sqe->flags |= IOSQE_BUFFER_SELECT;
	sqe->buf_group = u->bgid;
	io_uring_sqe_set_data64(sqe, UPP_RECV_TAG);
	err = io_uring_submit(&u->ring);
	if (err < 0)
		return err;
	u->armed = true;
	u->stats.arms++;
	return 0;
}

/* One recv completion; fills *@pkt and returns 1 if it carries data. */
static int
complete_one(struct upp *u, const struct io_uring_cqe *cqe,
	     struct upp_pkt *pkt, int *err)
{
	int got = 0;

	if (!(cqe->flags & IORING_CQE_F_MORE))
		u->armed = false;
	if (cqe->res < 0) {
		if (cqe->res == -ENOBUFS)
			u->stats.enobufs++;
		else
			*err = cqe->res;
		return 0;
	}
	if (cqe->flags & IORING_CQE_F_BUFFER) {
		unsigned short bid = cqe->flags >> IORING_CQE_BUFFER_SHIFT;

		pkt->page = u->posted[bid];
		pkt->offset = u->headroom;
		pkt->len = (unsigned int)cqe->res;
		u->posted[bid] = NULL;
		u->nr_posted--;
		u->todo[u->nr_todo++] = bid;
		u->stats.packets++;
		u->stats.bytes += (unsigned int)cqe->res;
		got = 1;
	}
	return got;
}

int
upp_recv(struct upp *u, struct upp_pkt *pkts, int max, bool wait_one)
{
	struct io_uring_cqe *cqe;
	int n = 0, err = 0;

	if (u == NULL || pkts == NULL || max <= 0)
		return -EINVAL;
	repost(u);
	/* Re-arm only with buffers posted: an empty ring would end the
	 * recv at once with ENOBUFS again. */
	if (!u->armed && u->fd >= 0 && u->nr_posted > 0) {
		err = upp_arm(u, u->fd);
		if (err < 0)
			return err;
	}
	if (wait_one && !u->armed && u->nr_posted == 0 &&
	    io_uring_cq_ready(&u->ring) == 0) {
		/* The pool is dry and the kernel has no buffer: nothing can
		 * complete until the application returns a page, so wait a
		 * little for one instead of spinning on the pool. */
		usleep(20);
		return 0;
	}
	if (wait_one && u->armed && io_uring_cq_ready(&u->ring) == 0) {
		struct __kernel_timespec ts = { .tv_sec = 0,
						.tv_nsec = 100 * 1000000 };

		/* Bounded, so callers can check their clock and stop. */
		(void)io_uring_wait_cqe_timeout(&u->ring, &cqe, &ts);
	}
	while (n < max && io_uring_peek_cqe(&u->ring, &cqe) == 0) {
		if (cqe->user_data == UPP_RECV_TAG)
			n += complete_one(u, cqe, &pkts[n], &err);
		io_uring_cqe_seen(&u->ring, cqe);
		if (err != 0)
			break;
	}
	if (n == 0 && err != 0)
		return err;
	return n;
}

void
upp_fini(struct upp *u)
{
	struct io_uring_cqe *cqe;
	struct io_uring_sqe *sqe;
	struct upp_pkt pkt;
	unsigned int i;
	int err = 0;

	if (u == NULL || !u->ring_ok)
		return;
	/*
	 * Cancel the recv and wait for its last completion before the pages
	 * go back: until then the kernel may still write into a posted
	 * buffer. Ring teardown alone cancels asynchronously.
	 */
	if (u->armed) {
		sqe = io_uring_get_sqe(&u->ring);
		if (sqe != NULL) {
			io_uring_prep_cancel64(sqe, UPP_RECV_TAG, 0);
			io_uring_sqe_set_data64(sqe, UPP_CANCEL_TAG);
			io_uring_submit(&u->ring);
		}
		while (u->armed && io_uring_wait_cqe(&u->ring, &cqe) == 0) {
			if (cqe->user_data == UPP_RECV_TAG &&
			    complete_one(u, cqe, &pkt, &err))
				page_pool_put_full_page(u->pool, pkt.page,
							false);
			io_uring_cqe_seen(&u->ring, cqe);
		}
	}
	if (u->br != NULL)
		io_uring_unregister_buf_ring(&u->ring, u->bgid);
	io_uring_queue_exit(&u->ring);
	u->ring_ok = false;
	if (u->br != NULL)
		munmap(u->br, u->br_bytes);
	u->br = NULL;
	for (i = 0; i < u->entries; i++) {
		if (u->posted[i] != NULL)
			page_pool_put_full_page(u->pool, u->posted[i], false);
		u->posted[i] = NULL;
	}
	u->nr_posted = 0;
	free(u->posted);
	free(u->todo);
	u->posted = NULL;
	u->todo = NULL;
}
