/* SPDX-License-Identifier: MIT */
/*
 * Copyright (c) 2026 The pagepool authors
 *
 * io_uring provided buffers over a page_pool, end to end on loopback: the
 * pool lives on a user region, its pages are the buffers of a provided-
 * buffer ring, a multishot recv on a UDP socket hands (page, offset, len)
 * to the owner, which passes every page to another thread; that thread
 * checks the datagram and gives the page back to the pool, and the owner
 * re-posts. Every datagram arrives once with its bytes intact, buffer ids
 * are re-posted from returned pages only (the region holds four times the
 * ring), and at the end nothing is in flight: the pool and then the source
 * are destroyed cleanly.
 *
 * Skips (77) with the reason when io_uring or provided-buffer rings are
 * unavailable.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

#include <pagepool/page_pool.h>
#include <pagepool/ptr_ring.h>

#include "helpers.h"
#include "uring_pp.h"

#define DGRAM		200

/* The phase: ring entries, the pool's region, datagrams in flight. */
static unsigned int ENTRIES;
static unsigned long REGION;
static long WINDOW;

static long total;
static struct page_pool *pool;
static struct ptr_ring handoff;		/* owner -> returner */
static unsigned char *seen;
static long returned;			/* atomic */
static int port;

static void
fill(unsigned char *b, uint32_t seq)
{
	int i;

	memcpy(b, &seq, sizeof(seq));
	for (i = sizeof(seq); i < DGRAM; i++)
		b[i] = (unsigned char)(seq * 31 + i);
}

static int
intact(const unsigned char *b, unsigned int len, uint32_t *seq)
{
	int i;

	if (len != DGRAM)
		return 0;
	memcpy(seq, b, sizeof(*seq));
	for (i = sizeof(*seq); i < DGRAM; i++)
		if (b[i] != (unsigned char)(*seq * 31 + i))
			return 0;
	return 1;
}

static void *
sender(void *arg)
{
	struct sockaddr_in dst = { .sin_family = AF_INET };
	unsigned char buf[DGRAM];
	long seq;
	int fd;

	(void)arg;
	dst.sin_port = htons((uint16_t)port);
	dst.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	fd = socket(AF_INET, SOCK_DGRAM, 0);
	CHECK(fd >= 0);
	for (seq = 0; seq < total; seq++) {
		/* A window, so loopback never overflows the receive
		 * buffer: UDP would drop, and the test counts every one. */
		/* A6: pairs with release R6 in returner(). */
		while (seq - __atomic_load_n(&returned, __ATOMIC_ACQUIRE) >=
		       WINDOW)
			usleep(50);
		fill(buf, (uint32_t)seq);
		CHECK(sendto(fd, buf, sizeof(buf), 0,
			     (struct sockaddr *)&dst, sizeof(dst)) == DGRAM);
	}
	close(fd);
	return NULL;
}

static void *
returner(void *arg)
{
	struct upp_pkt *pkt;
	uint32_t seq;
	long n;

	(void)arg;
	for (n = 0; n < total; n++) {
		while ((pkt = ptr_ring_consume(&handoff)) == NULL)
			usleep(10);
		CHECK(intact((unsigned char *)page_address(pkt->page) +
				     pkt->offset, pkt->len, &seq));
		CHECK(seq < total);
		CHECK(seen[seq] == 0);
		seen[seq] = 1;
		/* Back to the pool from a thread that is not its owner:
		 * into the pool's ring, where the owner's refill finds it. */
		page_pool_put_full_page(pool, pkt->page, false);
		free(pkt);
		/* R6: pairs with acquire A6 in sender() and main(). */
		__atomic_store_n(&returned, n + 1, __ATOMIC_RELEASE);
	}
	return NULL;
}

static int
run(unsigned int entries, unsigned long region_bytes, long window)
{
	struct sockaddr_in addr = { .sin_family = AF_INET };
	socklen_t alen = sizeof(addr);
	struct page_pool_params pp;
	struct pp_mem_source *src;
	struct upp_pkt pkts[64];
	struct napi_struct napi;
	pthread_t tx, rx;
	struct upp u;
	long got = 0;
	void *region;
	int fd, err, i, n;

	ENTRIES = entries;
	REGION = region_bytes;
	WINDOW = window;
	returned = 0;
	seen = calloc((size_t)total, 1);
	CHECK(seen != NULL);
	CHECK_EQ(ptr_ring_init(&handoff, 1024, 0), 0);

	region = mmap(NULL, REGION, PROT_READ | PROT_WRITE,
		      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	CHECK(region != MAP_FAILED);
	{
		PP_OPTS(pp_mem_source_opts, o, .kind = PP_MEM_USER,
			.addr = region, .len = REGION, .nid = NUMA_NO_NODE);

		src = pp_mem_source_create(&o);
		CHECK(src != NULL);
	}
	napi_init_current(&napi);
	memset(&pp, 0, sizeof(pp));
	pp.nid = NUMA_NO_NODE;
	pp.pool_size = 1024;
	pp.offset = 64;		/* headroom: data starts past it */
	pp.napi = &napi;
	pp.flags = PP_FLAG_MEM_SOURCE;
	pp.mem_source = pp_mem_source_id(src);
	pool = page_pool_create(&pp);
	CHECK(pool != NULL);

	err = upp_init(&u, pool, ENTRIES, 7);
	if (err == -ENOSYS || err == -EPERM || err == -EINVAL) {
		printf("SKIP: %s (%s)\n",
		       err == -EINVAL ? "the kernel has no io_uring provided-buffer rings"
				      : "io_uring is unavailable",
		       strerror(-err));
		page_pool_destroy(pool);
		return T_EXIT_SKIP;
	}
	CHECK_EQ(err, 0);
	/* Every id posted; a bulk refill may take more into the cache. */
	CHECK(page_pool_inflight(pool) >= (int)ENTRIES);

	fd = socket(AF_INET, SOCK_DGRAM, 0);
	CHECK(fd >= 0);
	addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	CHECK_EQ(bind(fd, (struct sockaddr *)&addr, sizeof(addr)), 0);
	CHECK_EQ(getsockname(fd, (struct sockaddr *)&addr, &alen), 0);
	port = ntohs(addr.sin_port);
	CHECK_EQ(upp_arm(&u, fd), 0);

	CHECK_EQ(pthread_create(&rx, NULL, returner, NULL), 0);
	CHECK_EQ(pthread_create(&tx, NULL, sender, NULL), 0);
	while (got < total) {
		n = upp_recv(&u, pkts, 64, true);
		if (n == -EINVAL && got == 0) {
			printf("SKIP: the kernel has no multishot recv\n");
			exit(T_EXIT_SKIP);
		}
		CHECK(n >= 0);
		for (i = 0; i < n; i++) {
			struct upp_pkt *p = malloc(sizeof(*p));
			char *base = (char *)region;

			CHECK(p != NULL);
			/* The buffer is a page of the pool's region, at the
			 * pool's headroom. */
			CHECK((char *)page_address(pkts[i].page) >= base &&
			      (char *)page_address(pkts[i].page) <
				      base + REGION);
			CHECK_EQ(pkts[i].offset, 64);
			*p = pkts[i];
			while (ptr_ring_produce(&handoff, p) != 0)
				usleep(10);
		}
		got += n;
	}
	pthread_join(tx, NULL);
	pthread_join(rx, NULL);
	for (i = 0; i < total; i++)
		CHECK(seen[i]);
	printf("received %ld datagrams, %llu arms, %llu enobufs, %llu starved\n",
	       got, u.stats.arms, u.stats.enobufs, u.stats.starved);
	/* Nothing arrived that the sender did not send. */
	CHECK_EQ(u.stats.packets, total);
	{
		struct page_pool_stats st;

		memset(&st, 0, sizeof(st));
		CHECK(page_pool_get_stats(pool, &st));
		/* Every page came back through the pool's ring, none was
		 * released, and the re-posts were served by recycling:
		 * the source was asked for pages a handful of times. */
		CHECK_EQ(st.recycle_stats.ring, total);
		CHECK_EQ(st.recycle_stats.ring_full, 0);
		CHECK_EQ(st.recycle_stats.released_refcnt, 0);
		CHECK(pool->pages_state_hold_cnt <= REGION / PAGE_SIZE);
		printf("pool: %llu from the ring, %llu slow refills, %u pages "
		       "ever taken from the region\n",
		       (unsigned long long)st.recycle_stats.ring,
		       (unsigned long long)st.alloc_stats.slow,
		       pool->pages_state_hold_cnt);
	}

	upp_fini(&u);
	close(fd);
	/* All pages are back: destroy frees the pool at once, and with it
	 * the last hold on the source. */
	page_pool_disable_direct_recycling(pool);
	page_pool_destroy(pool);
	CHECK_EQ(pp_mem_source_destroy(src), 0);
	munmap(region, REGION);
	ptr_ring_cleanup(&handoff, NULL);
	free(seen);
	return T_EXIT_PASS;
}

int
main(void)
{
	int rc;

	total = t_scale(200000);
	/* Plenty: the region holds four rings' worth of pages, the window
	 * half a ring, so buffers never run out. */
	rc = run(256, 4UL << 20, 128);
	if (rc != T_EXIT_PASS)
		return rc;
	/* Scarce: 16 buffers, a region of 32 pages, 64 datagrams in
	 * flight. The kernel finds the buffer ring empty (ENOBUFS ends the
	 * multishot recv, which must be re-armed once ids are re-posted)
	 * and the pool runs dry while the other thread holds its pages
	 * (ids wait for returns); datagrams wait in the socket meanwhile,
	 * and still every one arrives once. */
	return run(16, 32 * PAGE_SIZE, 64);
}
