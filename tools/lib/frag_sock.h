/* SPDX-License-Identifier: MIT */
/*
 * Copyright (c) 2026 The pagepool authors
 *
 * A socket-like sender and a tun-like receiver on page fragments, shaped
 * after seed 004 (Yunsheng Lin, "replace page_frag with page_frag_cache"):
 * the TX side of a socket copies the caller's payload into fragments of
 * its page_frag_cache with prepare / probe / commit and attaches them to a
 * TX skb, as tcp_sendmsg() does after that series; the RX side reads a
 * whole frame straight into the room left in a fragment (prepare for the
 * largest frame, read(), commit the bytes read), as tun builds its skbs.
 *
 * The pre-seed path runs beside it for comparison: a plain struct page_frag
 * refilled the way the kernel's skb_page_frag_refill() does (net/core/
 * sock.c), one page reference taken per fragment.
 *
 * This is tool code, not library API: pagepool has no struct sock, and the
 * seed's part that moves sockets over was never merged, so its shape is not
 * settled enough to freeze in the ABI. tap_net_test and the tests use it.
 */
#ifndef PAGEPOOL_TOOLS_FRAG_SOCK_H
#define PAGEPOOL_TOOLS_FRAG_SOCK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/uio.h>

#include <pagepool/page_frag_cache.h>
#include <pagepool/skbuff.h>

/* Which allocator a frag_sock takes its fragments from. */
enum frag_sock_path {
	FRAG_SOCK_CACHE,	/* page_frag_cache, prepare/probe/commit */
	FRAG_SOCK_PAGE_FRAG,	/* struct page_frag + page refill (pre-seed) */
};

/*
 * The smallest room worth copying into before a fresh block is taken
 * (tcp_sendmsg asks for 32 bytes).
 */
#define FRAG_SOCK_MIN_ROOM	32U

/**
 * struct frag_sock - the per-socket fragment state (the kernel keeps it in
 * the task or the socket: sk_page_frag()). One owner thread at a time.
 */
struct frag_sock {
	enum frag_sock_path path;
	/*
	 * Copy with non-temporal stores (page_frag_copy_to_va_nocache), as
	 * the kernel's skb_copy_to_va_nocache() does only when the route's
	 * device has NETIF_F_NOCACHE_COPY on; it is off unless enabled
	 * (ethtool tx-nocache-copy). Worth it when a device, not a CPU,
	 * reads the data next; a TAP device's reader is a CPU copy.
	 */
	bool nocache;
	/* The cache is bound to its owner thread (frag_sock_bind()). */
	bool bound;
	struct page_frag_cache nc;	/* FRAG_SOCK_CACHE */
	struct page_frag pf;		/* FRAG_SOCK_PAGE_FRAG */
	/*
	 * Blocks opened because room ran out: fragments that came from
	 * another block than the one before them (the first block and a
	 * rewound one are not counted), on both paths alike.
	 */
	uint64_t refills;
	uint64_t coalesced;		/* copies appended to the last frag */
	/*
	 * Every block a fragment was cut from, for frag_sock_blocks_held():
	 * an open-addressing set of @blocks_cap slots (a power of two,
	 * grown at half full), @last the block of the latest fragment.
	 * @untracked: fragments from blocks not recorded (no memory).
	 */
	struct page **blocks;
	unsigned int nr_blocks, blocks_cap;
	struct page *last;
	uint64_t untracked;
};

/** struct frag_frame - a received frame: page, offset, length, address. */
struct frag_frame {
	struct page *page;
	void *va;
	uint32_t offset;
	uint32_t len;
};

void frag_sock_init(struct frag_sock *sk, enum frag_sock_path path);

/*
 * The calling thread owns @sk from now on, until frag_sock_release() on
 * it: the cache path binds its cache here (page_frag_cache_bind()), so
 * fragments this thread frees (a sent skb's payload, a frame read and
 * consumed here) go back to the cache without an atomic. Frees on other
 * threads are unchanged. Nothing to do on the pre-seed path. Return 0 or
 * -errno from the bind.
 */
int frag_sock_bind(struct frag_sock *sk);

/*
 * Give back the cached block (the socket is closing), and end
 * frag_sock_bind() (call it on the bound thread). Fragments still out
 * stay valid until freed; the block goes when the last is. The record of
 * blocks used stays for frag_sock_blocks_held() until frag_sock_destroy().
 */
void frag_sock_release(struct frag_sock *sk);

/* Free the record of blocks used (after frag_sock_blocks_held()). */
void frag_sock_destroy(struct frag_sock *sk);

/*
 * The pre-seed refill, as skb_page_frag_refill(): make @sz bytes available
 * in @pf, reusing its page in place when nobody else holds it, else taking
 * a fresh 32 KiB block (a page if that fails). Return false without memory.
 */
bool frag_sock_page_frag_refill(unsigned int sz, struct page_frag *pf);

/*
 * sendmsg: copy the bytes of @iov into fragments of @sk appended to @skb
 * (its frags, coalescing with the last one when the cache hands out the
 * room right after it). Return bytes copied, or -errno (-EMSGSIZE when
 * @skb runs out of frag slots; what was copied stays attached).
 */
ssize_t frag_sock_sendmsg(struct frag_sock *sk, struct sk_buff *skb,
			  const struct iovec *iov, int iovcnt);

/*
 * tun's receive: prepare room for @max_len bytes at the next cache line
 * (tun_build_skb() aligns its offset to SMP_CACHE_BYTES), read() one frame
 * from @fd into it and commit the bytes read as a fragment described by @fr
 * (free it with frag_frame_free()). Return the length, 0 when @fd had
 * nothing (EAGAIN, nothing committed), or -errno.
 */
ssize_t frag_sock_read_frame(struct frag_sock *sk, int fd,
			     unsigned int max_len, struct frag_frame *fr);

/*
 * Drop the frame's reference, from any thread, as the kernel frees an skb
 * whose head is a fragment (skb_free_frag()): page_frag_free() of its
 * address, whichever allocator cut it (only @fr->va is read).
 */
void frag_frame_free(struct frag_frame *fr);

/*
 * After frag_sock_release() and every fragment freed: how many of the
 * blocks @sk cut fragments from still hold a reference (0: no fragment
 * lost, every block back with the page allocator). -1 if memory ran out
 * to record them all, so the answer would be partial. Context: the owner, once nothing else frees its fragments.
 */
long frag_sock_blocks_held(const struct frag_sock *sk);

#endif /* PAGEPOOL_TOOLS_FRAG_SOCK_H */
