/* SPDX-License-Identifier: MIT */
/*
 * Copyright (c) 2026 The pagepool authors
 *
 * Example: UDP receive with io_uring provided buffers that are page_pool
 * pages, and a worker thread that hands the pages back.
 *
 * io_uring's provided-buffer ring lets the kernel pick a buffer for each
 * datagram a multishot recv delivers; the completion names the buffer id.
 * Here every posted buffer is a page of a page_pool, so free buffers live
 * in one place, the pool:
 *
 *   main (pool owner)                 worker
 *   -----------------                 ------
 *   post pool pages in the ring
 *   completion: buffer id -> page --> ptr_ring --> read the datagram
 *   post a fresh pool page for id                  page_pool_put_full_page()
 *        ^                                          |  (into the pool's ring)
 *        +------------- page_pool refill <----------+
 *
 * A slow worker shows up as a dry pool (ids wait unposted until pages
 * come back), never as memory growing. The sender is a third thread
 * writing numbered datagrams to a loopback socket.
 *
 * liburing 2.3 (Debian 12) has no io_uring_setup_buf_ring(), so the ring
 * is mapped and registered by hand, which is all that helper does.
 *
 *   cc uring_udp_recv.c $(pkg-config --cflags --libs pagepool liburing) -pthread
 */
#include <arpa/inet.h>
#include <errno.h>
#include <liburing.h>
#include <netinet/in.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

#include <pagepool/page_pool.h>
#include <pagepool/ptr_ring.h>

#define DATAGRAMS	20000
#define DGRAM_LEN	64
#define NR_BUFS		64		/* buffer ring entries, a power of two */
#define BGID		7		/* our buffer group id */
#define HEADROOM	64		/* ours, in front of each datagram */
#define IN_FLIGHT	128		/* sender's lead, well within rcvbuf */
#define RECV_TAG	1		/* user_data of the multishot recv */
#define CANCEL_TAG	2

static struct page_pool *pool;
static struct ptr_ring to_worker;	/* main -> worker, one each side */
static struct page *posted_page[NR_BUFS];	/* behind each posted id */
static unsigned short waiting[NR_BUFS];	/* ids with no page posted */
static unsigned int nr_waiting, nr_posted, received;
static int armed;			/* the multishot recv is live */
static int rx_done;			/* main has stopped receiving */
static int send_done;			/* the sender has sent everything */
static struct sockaddr_in rx_addr;
static int pool_freed;
static unsigned long corrupt;		/* worker's count, read after join */

static void
on_pool_freed(void *p)
{
	(void)p;
	pool_freed = 1;
}

static void *
sender(void *arg)
{
	char buf[DGRAM_LEN];
	unsigned int seq;
	int fd = socket(AF_INET, SOCK_DGRAM, 0);

	(void)arg;
	if (fd < 0) {
		perror("sender: socket");
		return NULL;
	}
	for (seq = 0; seq < DATAGRAMS; seq++) {
		memset(buf, (int)(seq & 0xff), sizeof(buf));
		memcpy(buf, &seq, sizeof(seq));
		if (sendto(fd, buf, sizeof(buf), 0, (struct sockaddr *)&rx_addr,
			   sizeof(rx_addr)) < 0)
			perror("sender: sendto");
		/* Loopback UDP drops what the socket cannot queue: keep at
		 * most IN_FLIGHT datagrams ahead of the receiver. Relaxed:
		 * a count for pacing, no data is published through it. */
		while (seq + 1 - __atomic_load_n(&received, __ATOMIC_RELAXED) >
		       IN_FLIGHT)
			sched_yield();
	}
	close(fd);
	/* R1: pairs with the acquire load A1 in main(). */
	__atomic_store_n(&send_done, 1, __ATOMIC_RELEASE);
	return NULL;
}

static void *
worker(void *arg)
{
	unsigned long good = 0, bad = 0;
	struct page *page;

	(void)arg;
	for (;;) {
		page = __ptr_ring_consume(&to_worker);
		if (page == NULL) {
			/* A2: pairs with the release store R2 in main(). */
			if (__atomic_load_n(&rx_done, __ATOMIC_ACQUIRE) &&
			    __ptr_ring_empty(&to_worker))
				break;
			sched_yield();
			continue;
		}
		/* main wrote the length into the headroom; the datagram
		 * follows it. */
		const unsigned char *head = page_address(page);
		const unsigned char *d = head + HEADROOM;
		unsigned int len, seq;

		memcpy(&len, head, sizeof(len));
		memcpy(&seq, d, sizeof(seq));
		if (len == DGRAM_LEN && d[DGRAM_LEN - 1] == (seq & 0xff))
			good++;
		else
			bad++;
		/* Not the owner: the page goes into the pool's ring, where
		 * main's next refill finds it. */
		page_pool_put_full_page(pool, page, false);
	}
	printf("worker: %lu datagrams checked, %lu corrupt\n", good, bad);
	corrupt = bad;
	return NULL;
}

/* Give every waiting id a pool page; the new tail publishes them. */
static void
repost(struct io_uring_buf_ring *br)
{
	int added = 0;

	while (nr_waiting > 0) {
		unsigned short bid = waiting[nr_waiting - 1];
		struct page *page = page_pool_dev_alloc_pages(pool);

		if (page == NULL)
			break;		/* out of memory: retry next round */
		nr_waiting--;
		posted_page[bid] = page;
		io_uring_buf_ring_add(br, (char *)page_address(page) + HEADROOM,
				      PAGE_SIZE - HEADROOM, bid,
				      io_uring_buf_ring_mask(NR_BUFS), added++);
	}
	io_uring_buf_ring_advance(br, added);
	nr_posted += (unsigned int)added;
}

static int
arm_recv(struct io_uring *ring, int fd)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(ring);

	io_uring_prep_recv_multishot(sqe, fd, NULL, 0, 0);
	sqe->flags |= IOSQE_BUFFER_SELECT;	/* the kernel picks the buffer */
	sqe->buf_group = BGID;
	io_uring_sqe_set_data64(sqe, RECV_TAG);
	return io_uring_submit(ring);
}

/* One completion of the recv: its page goes to the worker. */
static int
complete(const struct io_uring_cqe *cqe)
{
	if (cqe->user_data != RECV_TAG)
		return 0;		/* the cancel's own completion */
	if (!(cqe->flags & IORING_CQE_F_MORE))
		armed = 0;		/* ended: ring ran dry, or cancelled */
	if (cqe->res > 0 && (cqe->flags & IORING_CQE_F_BUFFER)) {
		unsigned short bid = cqe->flags >> IORING_CQE_BUFFER_SHIFT;
		struct page *page = posted_page[bid];
		unsigned int len = (unsigned int)cqe->res;

		posted_page[bid] = NULL;
		nr_posted--;
		waiting[nr_waiting++] = bid;
		/* Relaxed: read by the sender only to pace itself. */
		__atomic_store_n(&received, received + 1, __ATOMIC_RELAXED);
		memcpy(page_address(page), &len, sizeof(len));
		/* The page is the worker's until it puts it back. */
		while (__ptr_ring_produce(&to_worker, page) == -ENOSPC)
			sched_yield();
	} else if (cqe->res < 0 && cqe->res != -ENOBUFS &&
		   cqe->res != -ECANCELED) {
		fprintf(stderr, "recv: %s\n", strerror(-cqe->res));
		return -1;
	}
	return 0;
}

int
main(void)
{
	struct napi_struct napi;
	struct page_pool_params pp = {
		.order = 0,
		.pool_size = 256,
		.nid = NUMA_NO_NODE,
		.napi = &napi,
	};
	size_t br_bytes = NR_BUFS * sizeof(struct io_uring_buf);
	socklen_t alen = sizeof(rx_addr);
	struct io_uring_buf_ring *br;
	struct io_uring_buf_reg reg;
	struct io_uring_cqe *cqe;
	struct io_uring_sqe *sqe;
	struct io_uring ring;
	pthread_t tx, wk;
	int fd, err, idle = 0;

	napi_init_current(&napi);	/* this thread owns the pool */
	pool = page_pool_create(&pp);
	if (pool == NULL) {
		perror("page_pool_create");
		return 1;
	}
	/* A second reference, dropped when the pool is really freed. */
	page_pool_use_xdp_mem(pool, on_pool_freed, NULL);
	err = io_uring_queue_init(256, &ring, 0);
	if (err < 0) {
		/* Containers often forbid io_uring: say so, not a failure
		 * of this example. */
		fprintf(stderr, "io_uring unavailable here: %s\n", strerror(-err));
		page_pool_destroy(pool);
		page_pool_destroy(pool);
		return 0;
	}
	br = mmap(NULL, br_bytes, PROT_READ | PROT_WRITE,
		  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (br == MAP_FAILED) {
		perror("mmap");
		return 1;
	}
	io_uring_buf_ring_init(br);
	memset(&reg, 0, sizeof(reg));
	reg.ring_addr = (unsigned long)br;
	reg.ring_entries = NR_BUFS;
	reg.bgid = BGID;
	err = io_uring_register_buf_ring(&ring, &reg, 0);
	if (err < 0) {
		fprintf(stderr, "no provided-buffer rings in this kernel: %s\n",
			strerror(-err));
		io_uring_queue_exit(&ring);
		munmap(br, br_bytes);
		page_pool_destroy(pool);
		page_pool_destroy(pool);
		return 0;
	}
	/* Every buffer id starts out waiting for a page. */
	for (nr_waiting = 0; nr_waiting < NR_BUFS; nr_waiting++)
		waiting[nr_waiting] = (unsigned short)nr_waiting;
	repost(br);

	fd = socket(AF_INET, SOCK_DGRAM, 0);
	rx_addr.sin_family = AF_INET;
	rx_addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (fd < 0 || bind(fd, (struct sockaddr *)&rx_addr, sizeof(rx_addr)) ||
	    getsockname(fd, (struct sockaddr *)&rx_addr, &alen)) {
		perror("socket");
		return 1;
	}
	if (ptr_ring_init(&to_worker, NR_BUFS, GFP_KERNEL) != 0)
		return 1;
	pthread_create(&wk, NULL, worker, NULL);
	pthread_create(&tx, NULL, sender, NULL);

	/* Stop when everything arrived, or the sender is done and nothing
	 * came for 100 ms (a datagram was lost after all). */
	while (received < DATAGRAMS && idle < 100) {
		struct __kernel_timespec ts = { .tv_nsec = 1000000 };

		repost(br);
		/* A multishot recv ends when the ring runs dry: re-arm it
		 * once there are buffers again. */
		if (!armed && nr_posted > 0 && arm_recv(&ring, fd) >= 0)
			armed = 1;
		if (io_uring_wait_cqe_timeout(&ring, &cqe, &ts) != 0) {
			/* A1: pairs with the release store R1 in sender(). */
			if (__atomic_load_n(&send_done, __ATOMIC_ACQUIRE))
				idle++;
			continue;
		}
		idle = 0;
		err = complete(cqe);
		io_uring_cqe_seen(&ring, cqe);
		if (err)
			return 1;
	}
	pthread_join(tx, NULL);

	/* Cancel the recv and wait for its last completion: until then the
	 * kernel may still write into a posted buffer. */
	if (armed) {
		sqe = io_uring_get_sqe(&ring);
		io_uring_prep_cancel64(sqe, RECV_TAG, 0);
		io_uring_sqe_set_data64(sqe, CANCEL_TAG);
		io_uring_submit(&ring);
		while (armed && io_uring_wait_cqe(&ring, &cqe) == 0) {
			complete(cqe);
			io_uring_cqe_seen(&ring, cqe);
		}
	}
	/* R2: pairs with the acquire load A2 in worker(). */
	__atomic_store_n(&rx_done, 1, __ATOMIC_RELEASE);
	pthread_join(wk, NULL);

	io_uring_unregister_buf_ring(&ring, BGID);
	io_uring_queue_exit(&ring);
	close(fd);
	munmap(br, br_bytes);
	/* The pages still posted come back from the owner: direct. */
	for (unsigned int bid = 0; bid < NR_BUFS; bid++)
		if (posted_page[bid] != NULL)
			page_pool_put_full_page(pool, posted_page[bid], true);
	ptr_ring_cleanup(&to_worker, NULL);
	printf("main: %u of %d datagrams received\n", received, DATAGRAMS);
	/* With every page back, the last reference's destroy frees the
	 * pool at once, and the callback says so. */
	page_pool_disable_direct_recycling(pool);
	page_pool_destroy(pool);	/* the memory model's reference */
	page_pool_destroy(pool);	/* the creator's */
	if (!pool_freed || received != DATAGRAMS || corrupt != 0) {
		fprintf(stderr, "pool %s, %u datagrams received, %lu corrupt\n",
			pool_freed ? "freed" : "not freed: pages lost", received,
			corrupt);
		return 1;
	}
	return 0;
}
