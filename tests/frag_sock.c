// SPDX-License-Identifier: MIT
/*
 * Copyright (c) 2026 The pagepool authors
 *
 * The seed 004 TX and RX paths of tools/lib/frag_sock.c, on both
 * allocators (page_frag_cache with prepare/probe/commit, and the pre-seed
 * struct page_frag refill):
 *  - payloads that do not fit in the room left in a block continue in a
 *    fresh block, byte for byte, and small ones coalesce into the last
 *    fragment;
 *  - frames read into the room left (a SOCK_SEQPACKET pair stands in for
 *    the TAP fd: one read, one frame) take a fresh block when prepare finds
 *    too little room, and start on a cache line, as tun's;
 *  - skbs and frames freed on another thread than the one that allocated
 *    them;
 *  - after the socket is released and every fragment freed, the page
 *    allocator has every page back: no fragment lost, no reference left.
 */
#include <pthread.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <pagepool/page.h>
#include <pagepool/ptr_ring.h>

#include "frag_sock.h"
#include "helpers.h"
#include "page_helpers.h"

static unsigned char
pattern(uint64_t seq, size_t i)
{
	return (unsigned char)(seq * 131 + i * 7 + (i >> 8));
}

static void
fill(unsigned char *buf, size_t len, uint64_t seq)
{
	for (size_t i = 0; i < len; i++)
		buf[i] = pattern(seq, i);
}

/* Walk @skb's frags and compare them with the pattern of @seq. */
static void
check_skb(const struct sk_buff *skb, size_t len, uint64_t seq)
{
	const struct skb_shared_info *sh = skb_shinfo(skb);
	size_t pos = 0;

	CHECK_EQ(skb->data_len, len);
	for (int i = 0; i < sh->nr_frags; i++) {
		const skb_frag_t *f = &sh->frags[i];
		const unsigned char *p =
			(const unsigned char *)page_address(f->netmem) +
			f->offset;

		for (unsigned int j = 0; j < f->len; j++)
			CHECK_EQ(p[j], pattern(seq, pos + j));
		pos += f->len;
	}
	CHECK_EQ(pos, len);
}

static void
check_frame(const struct frag_frame *fr, size_t len, uint64_t seq)
{
	const unsigned char *p = fr->va;

	CHECK_EQ(fr->len, len);
	CHECK(p == (const unsigned char *)page_address(fr->page) + fr->offset);
	for (size_t j = 0; j < len; j++)
		CHECK_EQ(p[j], pattern(seq, j));
}

/* A payload larger than what is left spans two blocks. */
static void
test_tx_boundary(enum frag_sock_path path)
{
	static unsigned char buf[40000];
	struct frag_sock sk;
	struct sk_buff *skb;
	struct iovec iov[2];
	ssize_t n;

	frag_sock_init(&sk, path);
	/* The non-temporal copy on the seed's path, the plain one after. */
	sk.nocache = path == FRAG_SOCK_CACHE;
	/* 1000 bytes, then 40000 in two iovecs: 7+ KiB fit, then refill. */
	for (uint64_t seq = 0; seq < 2; seq++) {
		size_t len = seq == 0 ? 1000 : sizeof(buf);

		fill(buf, len, seq);
		iov[0] = (struct iovec){ buf, len / 3 };
		iov[1] = (struct iovec){ buf + len / 3, len - len / 3 };
		skb = alloc_skb(128, GFP_KERNEL);
		CHECK(skb != NULL);
		n = frag_sock_sendmsg(&sk, skb, iov, 2);
		CHECK_EQ(n, len);
		check_skb(skb, len, seq);
		if (seq == 1)
			CHECK(skb_shinfo(skb)->nr_frags >= 2);
		kfree_skb(skb);
	}
	/* 1000 bytes, then 31768 more in the first block: one fresh block. */
	CHECK_EQ(sk.refills, 1);
	/* Small writes coalesce into one fragment of the same skb. */
	sk.nocache = false;
	skb = alloc_skb(128, GFP_KERNEL);
	CHECK(skb != NULL);
	fill(buf, 600, 9);
	for (int i = 0; i < 6; i++) {
		iov[0] = (struct iovec){ buf + i * 100, 100 };
		CHECK_EQ(frag_sock_sendmsg(&sk, skb, iov, 1), 100);
	}
	CHECK_EQ(skb_shinfo(skb)->nr_frags, 1);
	CHECK(sk.coalesced >= 5);
	check_skb(skb, 600, 9);
	kfree_skb(skb);
	frag_sock_release(&sk);
	/* The socket's own record agrees: no block still referenced. */
	CHECK_EQ(frag_sock_blocks_held(&sk), 0);
	CHECK(sk.nr_blocks >= 1);
	frag_sock_destroy(&sk);
}

/* Frames read into the room left; the fourth 9000-byte one needs a block. */
static void
test_rx_boundary(enum frag_sock_path path)
{
	static unsigned char buf[9000];
	struct frag_frame fr[8];
	struct frag_sock sk;
	struct page *first = NULL;
	int sv[2], fresh = 0;

	CHECK_EQ(socketpair(AF_UNIX, SOCK_SEQPACKET, 0, sv), 0);
	frag_sock_init(&sk, path);
	for (int i = 0; i < 8; i++) {
		fill(buf, sizeof(buf), (uint64_t)i);
		CHECK_EQ(write(sv[0], buf, sizeof(buf)), sizeof(buf));
		CHECK_EQ(frag_sock_read_frame(&sk, sv[1], 9018, &fr[i]),
			 sizeof(buf));
		check_frame(&fr[i], sizeof(buf), (uint64_t)i);
		if (first == NULL)
			first = fr[i].page;
		if (fr[i].page != first)
			fresh = 1;
	}
	CHECK(fresh);	/* 8 x 9000 bytes cannot all be in one 32 KiB block */
	/* Three frames to a block, on a cache line each: two fresh ones. */
	CHECK_EQ(sk.refills, 2);
	/* Released with frames out: their blocks are still referenced. */
	frag_sock_release(&sk);
	CHECK(frag_sock_blocks_held(&sk) >= 2);
	for (int i = 0; i < 8; i++)
		frag_frame_free(&fr[i]);
	/* The socket's own record agrees: no block still referenced. */
	CHECK_EQ(frag_sock_blocks_held(&sk), 0);
	CHECK(sk.nr_blocks >= 1);
	frag_sock_destroy(&sk);
	close(sv[0]);
	close(sv[1]);
}

/*
 * Every frame read starts on a cache line, as tun_build_skb() starts its
 * frames: after frames of odd lengths, and after a payload the TX path
 * copied right behind the last frame, ending anywhere. The frames stay
 * out meanwhile, so neither path can start over at offset 0.
 */
static void
test_rx_aligned(enum frag_sock_path path)
{
	static const size_t lens[] = { 1001, 77, 60, 1514, 333 };
	static unsigned char buf[1514];
	struct frag_frame fr[5];
	struct frag_sock sk;
	struct sk_buff *skb[5];
	struct iovec iov;
	int sv[2];

	CHECK_EQ(socketpair(AF_UNIX, SOCK_SEQPACKET, 0, sv), 0);
	frag_sock_init(&sk, path);
	for (unsigned int i = 0; i < 5; i++) {
		/* An odd payload first: the TX copy ends off a line. */
		fill(buf, 13 + i, 100 + i);
		iov = (struct iovec){ buf, 13 + i };
		skb[i] = alloc_skb(128, GFP_KERNEL);
		CHECK(skb[i] != NULL);
		CHECK_EQ(frag_sock_sendmsg(&sk, skb[i], &iov, 1), 13 + i);
		fill(buf, lens[i], i);
		CHECK_EQ(write(sv[0], buf, lens[i]), lens[i]);
		CHECK_EQ(frag_sock_read_frame(&sk, sv[1], 1514, &fr[i]),
			 lens[i]);
		CHECK_EQ((uintptr_t)fr[i].va % SMP_CACHE_BYTES, 0);
		check_frame(&fr[i], lens[i], i);
		check_skb(skb[i], 13 + i, 100 + i);
	}
	for (unsigned int i = 0; i < 5; i++) {
		check_frame(&fr[i], lens[i], i);
		frag_frame_free(&fr[i]);
		kfree_skb(skb[i]);
	}
	frag_sock_release(&sk);
	CHECK_EQ(frag_sock_blocks_held(&sk), 0);
	frag_sock_destroy(&sk);
	close(sv[0]);
	close(sv[1]);
}

/* ---- Cross-thread frees ------------------------------------------------ */

#define RING	64

struct item {
	struct sk_buff *skb;
	struct frag_frame fr;
	size_t len;
	uint64_t seq;
};

static struct ptr_ring ring;
static uint64_t freed;

static void *
freer(void *arg)
{
	uint64_t want = *(uint64_t *)arg;

	while (freed < want) {
		struct item *it = ptr_ring_consume(&ring);

		if (it == NULL) {
			sched_yield();
			continue;
		}
		if (it->skb != NULL) {
			check_skb(it->skb, it->len, it->seq);
			kfree_skb(it->skb);
		} else {
			check_frame(&it->fr, it->len, it->seq);
			frag_frame_free(&it->fr);
		}
		free(it);
		freed++;
	}
	pp_thread_cache_drain();
	return NULL;
}

static void
test_cross_thread(enum frag_sock_path path)
{
	static unsigned char buf[9000];
	uint64_t n = (uint64_t)t_scale(20000), seq;
	struct frag_sock sk;
	pthread_t t;
	int sv[2];

	CHECK_EQ(socketpair(AF_UNIX, SOCK_SEQPACKET, 0, sv), 0);
	CHECK_EQ(ptr_ring_init(&ring, RING, GFP_KERNEL), 0);
	freed = 0;
	frag_sock_init(&sk, path);
	CHECK_EQ(pthread_create(&t, NULL, freer, &n), 0);
	for (seq = 0; seq < n; seq++) {
		struct item *it = calloc(1, sizeof(*it));
		struct iovec iov;

		CHECK(it != NULL);
		it->seq = seq;
		it->len = 60 + (seq * 977) % (sizeof(buf) - 60);
		fill(buf, it->len, seq);
		if (seq & 1) {
			iov = (struct iovec){ buf, it->len };
			it->skb = alloc_skb(128, GFP_KERNEL);
			CHECK(it->skb != NULL);
			CHECK_EQ(frag_sock_sendmsg(&sk, it->skb, &iov, 1),
				 it->len);
		} else {
			CHECK_EQ(write(sv[0], buf, it->len), it->len);
			CHECK_EQ(frag_sock_read_frame(&sk, sv[1], 9018,
						      &it->fr), it->len);
		}
		while (ptr_ring_produce(&ring, it) != 0)
			sched_yield();
	}
	CHECK_EQ(pthread_join(t, NULL), 0);
	CHECK_EQ(freed, n);
	frag_sock_release(&sk);
	/* The socket's own record agrees: no block still referenced. */
	CHECK_EQ(frag_sock_blocks_held(&sk), 0);
	CHECK(sk.nr_blocks >= 1);
	frag_sock_destroy(&sk);
	ptr_ring_cleanup(&ring, NULL);
	close(sv[0]);
	close(sv[1]);
}

int
main(void)
{
	static const enum frag_sock_path paths[] = {
		FRAG_SOCK_CACHE, FRAG_SOCK_PAGE_FRAG,
	};
	struct pp_mem_source *src = pp_mem_source_default();
	long base;

	pp_thread_cache_drain();
	base = t_in_use(src);
	for (unsigned int i = 0; i < 2; i++) {
		test_tx_boundary(paths[i]);
		test_rx_boundary(paths[i]);
		test_rx_aligned(paths[i]);
		test_cross_thread(paths[i]);
		/* Every fragment came back: every page is free again. */
		pp_thread_cache_drain();
		CHECK_EQ(t_in_use(src), base);
	}
	CHECK_EQ(page_frag_debug_errors(), 0);
	return T_EXIT_PASS;
}
