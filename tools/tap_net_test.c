// SPDX-License-Identifier: MIT
/*
 * Copyright (c) 2026 The pagepool authors
 *
 * tap_net_test: seed 004's vhost_net_test measurement for machines without
 * vhost-net. A guest loop sends ICMP echo requests (or ARP requests,
 * --proto arp) through a TAP device the tool creates in a network
 * namespace of its own, and the kernel answers them: a real round trip
 * through the kernel's stack. The requests are
 * built the way a socket's sendmsg builds them after the seed (headers in
 * the skb head, payload copied into page_frag_cache fragments with
 * prepare/probe/commit, written out with one writev over head and frags);
 * the replies are read straight into the room left in a fragment, as tun
 * builds its skbs, checked byte for byte and freed, on this thread or on a
 * freer thread (-F). The same loop runs with the pre-seed struct page_frag
 * refill and with malloc'd buffers, side by side in each run, building and
 * copying every frame alike: only where payload and reply land differs.
 *
 * The namespace is anonymous (unshare(CLONE_NEWNET)) and the TAP device is
 * not persistent, so both vanish with the process however it ends: normal
 * exit, error, SIGINT or SIGKILL. Nothing outside the namespace is touched.
 *
 * Output per path, after -r RUNS: task-clock (getrusage, all threads),
 * context switches, page faults, frames per second and elapsed time, each
 * mean ± spread as perf stat prints it for the seed.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <linux/if_tun.h>
#include <math.h>
#include <net/if.h>
#include <net/if_arp.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <linux/futex.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include <pagepool/atomic_pvt.h>
#include <pagepool/page.h>
#include <pagepool/ptr_ring.h>

#include "cli.h"
#include "cpu.h"
#include "frag_sock.h"
#include "run_order.h"

#define PROG		"tap_net_test"
#define TAP_NAME	"pagepool0"
#define HDR_LEN		42	/* Ethernet 14 + IPv4 20 + ICMP 8, or + ARP 28 */
#define ARP_LEN		42	/* an ARP reply: Ethernet 14 + ARP 28, unpadded */
#define MIN_FRAME	60	/* ETH_ZLEN */
#define MAX_FRAME	9000
#define MAX_INFLIGHT	256
#define REPLY_TIMEOUT_MS 2000
#define EXIT_ENV	3	/* no TAP device or no permission */

enum path { P_CACHE, P_PAGE_FRAG, P_MALLOC, NR_PATHS };
PP_STATIC_ASSERT(NR_PATHS == RUN_ORDER_PATHS, "one place per path in run_order_of()");
static const char *const path_name[NR_PATHS] = {
	"page_frag_cache", "page_frag", "malloc",
};

static const unsigned char guest_mac[6] = { 0x02, 0x70, 0x70, 0, 0, 2 };
static unsigned char tap_mac[6];
static uint32_t guest_ip, host_ip;	/* network order */

static unsigned char pat[MAX_FRAME + 256];

enum proto { PROTO_ICMP, PROTO_ARP };

struct opts {
	unsigned int runs, inflight, min_size, max_size;
	unsigned long frames;
	enum proto proto;
	bool freer, nocache, nobind, paths[NR_PATHS];
	/* -F on two CPUs or more: the receiving thread's and the freer's;
	 * -1 when the threads are left unpinned. */
	int recv_cpu, freer_cpu;
};

struct loop {
	const struct opts *o;
	enum path path;
	int fd;
	unsigned int max_len;
	struct frag_sock sk;
	struct ptr_ring ring;
	pthread_t freer;
	int freer_stop;
	int freer_sleeping;	/* futex word: the freer waits on 1 */
	uint64_t out, received, freed_here, freed_there, other;
	uint64_t split;		/* payloads in more than one fragment */
	double freer_ms;	/* the freer's CPU time, at its exit */
};

static uint16_t
csum_fold(uint32_t sum)
{
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)~sum;
}

/*
 * Add the Internet checksum of @len bytes at @p (16-bit words in network
 * order from @p, an odd last byte padded with zero) to @sum, as a guest's
 * stack would: 32 bits at a time into a 64-bit sum, folded once (RFC 1071:
 * the sum comes out the same in either byte order, so host-order words
 * are summed and the folded result swapped). Byte by byte, it cost 84
 * instructions a request more (60-1514 bytes, callgrind), the same on
 * every path, which only diluted what the paths differ in.
 */
static uint32_t
csum_add(uint32_t sum, const unsigned char *p, size_t len)
{
	unsigned char tail[4] = { 0 };
	uint64_t acc = 0;
	uint32_t w;
	size_t i;

	for (i = 0; i + 4 <= len; i += 4) {
		memcpy(&w, p + i, 4);
		acc += w;
	}
	memcpy(tail, p + i, len - i);
	memcpy(&w, tail, 4);
	acc += w;
	acc = (acc & 0xffffffff) + (acc >> 32);
	acc = (acc & 0xffffffff) + (acc >> 32);
	acc = (acc & 0xffff) + (acc >> 16);
	acc = (acc & 0xffff) + (acc >> 16);
	return sum + ntohs((uint16_t)acc);
}

static const unsigned char *
payload_of(uint64_t seq)
{
	return pat + seq % 251;
}

/* Ethernet + IPv4 + ICMP echo request headers for a @size-byte frame. */
static void
build_hdr(unsigned char *h, unsigned int size, uint64_t seq)
{
	unsigned int plen = size - HDR_LEN;
	uint16_t c;

	memcpy(h, tap_mac, 6);
	memcpy(h + 6, guest_mac, 6);
	h[12] = 0x08;
	h[13] = 0x00;
	h += 14;
	memset(h, 0, 28);
	h[0] = 0x45;
	h[2] = (unsigned char)((size - 14) >> 8);
	h[3] = (unsigned char)(size - 14);
	h[4] = (unsigned char)(seq >> 8);
	h[5] = (unsigned char)seq;
	h[6] = 0x40;		/* DF */
	h[8] = 64;
	h[9] = IPPROTO_ICMP;
	memcpy(h + 12, &guest_ip, 4);
	memcpy(h + 16, &host_ip, 4);
	c = csum_fold(csum_add(0, h, 20));
	h[10] = (unsigned char)(c >> 8);
	h[11] = (unsigned char)c;
	h += 20;
	h[0] = 8;		/* echo request */
	h[4] = 0x70;		/* identifier */
	h[5] = 0x70;
	h[6] = (unsigned char)(seq >> 8);
	h[7] = (unsigned char)seq;
	c = csum_fold(csum_add(csum_add(0, h, 8), payload_of(seq), plen));
	h[2] = (unsigned char)(c >> 8);
	h[3] = (unsigned char)c;
}

/*
 * Ethernet + ARP request headers for a @size-byte frame: who has the TAP's
 * address, tell the guest. The bytes past the 42 of the request are
 * padding, the payload copied like an echo request's; the kernel ignores
 * them and answers with a bare 42-byte reply.
 */
static void
build_arp(unsigned char *h)
{
	static const unsigned char arp_hdr[8] = {
		0x00, 0x01,	/* Ethernet */
		0x08, 0x00,	/* IPv4 */
		6, 4,
		0x00, 0x01,	/* request */
	};

	memset(h, 0xff, 6);	/* broadcast, as a resolver asks */
	memcpy(h + 6, guest_mac, 6);
	h[12] = 0x08;
	h[13] = 0x06;
	h += 14;
	memcpy(h, arp_hdr, 8);
	memcpy(h + 8, guest_mac, 6);
	memcpy(h + 14, &guest_ip, 4);
	memset(h + 18, 0, 6);
	memcpy(h + 24, &host_ip, 4);
}

/* The kernel's answer: the TAP's address is at the TAP's MAC, to us. */
static bool
arp_reply_ok(const unsigned char *p, size_t len)
{
	static const unsigned char arp_hdr[8] = {
		0x00, 0x01, 0x08, 0x00, 6, 4, 0x00, 0x02,
	};

	return len >= ARP_LEN && memcmp(p, guest_mac, 6) == 0 &&
	       memcmp(p + 6, tap_mac, 6) == 0 && memcmp(p + 14, arp_hdr, 8) == 0 &&
	       memcmp(p + 22, tap_mac, 6) == 0 &&
	       memcmp(p + 28, &host_ip, 4) == 0 &&
	       memcmp(p + 32, guest_mac, 6) == 0 &&
	       memcmp(p + 38, &guest_ip, 4) == 0;
}

static unsigned int
frame_size(const struct opts *o, uint64_t seq)
{
	return o->min_size + (unsigned int)(seq % (o->max_size - o->min_size + 1));
}

/* Send request @seq down the path under test. */
static int
send_one(struct loop *l, uint64_t seq)
{
	unsigned int size = frame_size(l->o, seq);
	struct iovec iov[1 + MAX_SKB_FRAGS], pl;
	struct sk_buff *skb;
	unsigned char *buf = NULL;
	ssize_t n;
	int cnt = 1;

	/*
	 * Every path builds the frame alike: headers in an skb's head,
	 * the payload copied from the caller's buffer into separate memory,
	 * one writev over both. Only where the payload goes differs:
	 * fragments of the socket's allocator, or a malloc'd buffer.
	 */
	skb = alloc_skb(128, GFP_KERNEL);
	if (skb == NULL)
		return -ENOMEM;
	if (l->o->proto == PROTO_ARP)
		build_arp(skb_put(skb, HDR_LEN));
	else
		build_hdr(skb_put(skb, HDR_LEN), size, seq);
	pl = (struct iovec){ (void *)payload_of(seq), size - HDR_LEN };
	iov[0] = (struct iovec){ skb->data, skb_headlen(skb) };
	if (l->path == P_MALLOC) {
		buf = malloc(pl.iov_len);
		if (buf == NULL) {
			kfree_skb(skb);
			return -ENOMEM;
		}
		memcpy(buf, pl.iov_base, pl.iov_len);
		iov[cnt++] = (struct iovec){ buf, pl.iov_len };
	} else {
		n = frag_sock_sendmsg(&l->sk, skb, &pl, 1);
		if (n != (ssize_t)pl.iov_len) {
			kfree_skb(skb);
			return n < 0 ? (int)n : -EMSGSIZE;
		}
		l->split += skb_shinfo(skb)->nr_frags > 1;
		for (int i = 0; i < skb_shinfo(skb)->nr_frags; i++) {
			const skb_frag_t *f = &skb_shinfo(skb)->frags[i];

			iov[cnt++] = (struct iovec){
				(unsigned char *)page_address(f->netmem) +
					f->offset,
				f->len };
		}
	}
	/* The device copies the frame in (tun_get_user): head, then frags. */
	n = writev(l->fd, iov, cnt);
	kfree_skb(skb);
	free(buf);
	return n == (ssize_t)size ? 0 : n < 0 ? -errno : -EIO;
}

/*
 * Is @p (@len bytes) the reply to one of ours, the @nth of the window that
 * starts at @base? Return its sequence (low 16 bits) with the whole one in
 * *@seqp, -1 for a frame that is not ours, -2 for a bad reply.
 */
static long
check_reply(const struct opts *o, const unsigned char *p, size_t len,
	    uint64_t base, uint64_t nth, uint64_t *seqp)
{
	uint16_t s16;
	uint64_t seq;

	if (o->proto == PROTO_ARP) {
		/*
		 * An ARP reply carries nothing of its request to match it
		 * by: the @nth reply of the window answers its @nth request.
		 */
		if (len < 14 || p[12] != 0x08 || p[13] != 0x06)
			return -1;
		if (!arp_reply_ok(p, len))
			return -2;
		*seqp = base + nth;
		return (long)(nth & 0xffff);
	}
	if (len < HDR_LEN || p[12] != 0x08 || p[13] != 0x00 ||
	    p[14 + 9] != IPPROTO_ICMP || memcmp(p, guest_mac, 6) != 0)
		return -1;
	if (p[34] != 0 || p[38] != 0x70 || p[39] != 0x70)
		return -1;
	s16 = (uint16_t)(p[40] << 8 | p[41]);
	/* Replies are for the window starting at @base. */
	seq = base + (uint16_t)(s16 - (uint16_t)base);
	if (len != frame_size(o, seq) ||
	    memcmp(p + HDR_LEN, payload_of(seq), len - HDR_LEN) != 0)
		return -2;
	*seqp = seq;
	return s16;
}

/*
 * Free a reply by its address, on either thread: a malloc'd buffer, or a
 * fragment, as the kernel frees an skb whose head is one (skb_free_frag(),
 * page_frag_free()), whichever allocator cut it. The address is all the
 * freer gets: the ring carries it, nothing to allocate per reply.
 */
static void
rx_free(const struct loop *l, void *buf)
{
	if (l->path == P_MALLOC) {
		free(buf);
	} else {
		struct frag_frame fr = { .va = buf };

		frag_frame_free(&fr);
	}
}

static void
freer_wake(struct loop *l)
{
	__atomic_store_n(&l->freer_sleeping, 0, __ATOMIC_RELAXED);
	syscall(SYS_futex, &l->freer_sleeping, FUTEX_WAKE_PRIVATE, 1, NULL,
		NULL, 0);
}

/*
 * The receiver handed @l's freer replies: wake it if it sleeps. F1: the
 * fence pairs with F2 in freer_main() (store-buffering: the producer
 * stores the ring slot then loads the flag, the freer stores the flag then
 * loads the slot): one of the two sees the other's store, so the freer
 * never sleeps on a reply nobody will wake it for.
 */
static void
freer_kick(struct loop *l)
{
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	if (__atomic_load_n(&l->freer_sleeping, __ATOMIC_RELAXED))
		freer_wake(l);
}

/* The calling thread's CPU time so far, in ms. */
static double
thread_cpu_ms(void)
{
	struct timespec ts;

	if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) != 0)
		return 0;
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/*
 * The freer: frees the replies the receiving thread queued until the ring
 * is empty, then sleeps on a futex until the next window's replies are
 * queued (the receiver wakes it once a window, as the kernel's deferred
 * skb frees wake the remote CPU once a batch). It does not poll the empty
 * ring: no wake can come before the window ends, and the polling was
 * task-clock that measured nothing, about a third of an -F run's, and
 * differed between the paths with the receiver's timing. (It spun on
 * sched_yield() once, which on a loaded machine made the -F figures
 * mostly scheduler noise.)
 */
static void *
freer_main(void *arg)
{
	struct loop *l = arg;
	void *buf;

	for (;;) {
		buf = ptr_ring_consume(&l->ring);
		if (buf != NULL) {
			rx_free(l, buf);
			l->freed_there++;
			continue;
		}
		/* Acquire: pairs with the release store in run_loop(). */
		if (__atomic_load_n(&l->freer_stop, __ATOMIC_ACQUIRE) &&
		    ptr_ring_empty(&l->ring))
			break;
		__atomic_store_n(&l->freer_sleeping, 1, __ATOMIC_RELAXED);
		/* F2: pairs with F1 in freer_kick() and in run_loop(). */
		__atomic_thread_fence(__ATOMIC_SEQ_CST);
		if (ptr_ring_empty(&l->ring) &&
		    !__atomic_load_n(&l->freer_stop, __ATOMIC_RELAXED))
			syscall(SYS_futex, &l->freer_sleeping, FUTEX_WAIT_PRIVATE,
				1, NULL, NULL, 0);
		__atomic_store_n(&l->freer_sleeping, 0, __ATOMIC_RELAXED);
	}
	pp_thread_cache_drain();
	l->freer_ms = thread_cpu_ms();
	return NULL;
}

/* How far apart -F's two CPUs are, @when the runs: one line. */
static void
print_line_rtt(const struct opts *o, const char *when)
{
	double ns = pp_tool_line_rtt_ns(o->recv_cpu, o->freer_cpu);

	if (ns < 0)
		printf(PROG ": CPU %d (receiving) and CPU %d (freer): cache-line round trip not measured (%s)\n",
		       o->recv_cpu, o->freer_cpu, strerror((int)-ns));
	else
		printf(PROG ": CPU %d (receiving) and CPU %d (freer): cache-line round trip %.0f ns %s the runs\n",
		       o->recv_cpu, o->freer_cpu, ns, when);
	fflush(stdout);
}

/* Read one frame; 1 if it was the reply to @base's window, 0 other, <0. */
static int
recv_one(struct loop *l, uint64_t base, uint64_t nth, unsigned char *got)
{
	struct pollfd pfd = { .fd = l->fd, .events = POLLIN };
	struct frag_frame fr;
	unsigned char *p;
	uint64_t seq = 0;
	ssize_t n;
	long r;

	for (;;) {
		if (l->path == P_MALLOC) {
			p = malloc(l->max_len);
			if (p == NULL)
				return -ENOMEM;
			n = read(l->fd, p, l->max_len);
			if (n <= 0) {
				n = n == 0 ? 0 : errno == EAGAIN ? 0 : -errno;
				free(p);
			}
		} else {
			n = frag_sock_read_frame(&l->sk, l->fd, l->max_len,
						 &fr);
			p = fr.va;
		}
		if (n > 0) {
			l->received++;
			break;
		}
		if (n < 0)
			return (int)n;
		if (poll(&pfd, 1, REPLY_TIMEOUT_MS) == 0)
			return -ETIMEDOUT;
	}
	r = check_reply(l->o, p, (size_t)n, base, nth, &seq);
	if (r >= 0) {
		if (got[seq % MAX_INFLIGHT]) {
			r = -2;		/* a duplicate */
		} else {
			got[seq % MAX_INFLIGHT] = 1;
		}
	}
	if (r == -1)
		l->other++;
	if (l->o->freer) {
		/* Queued; run_loop() wakes the freer when the window is in
		 * (and here, should the ring fill before). */
		while (ptr_ring_produce(&l->ring, p) != 0) {
			freer_kick(l);
			sched_yield();
		}
	} else {
		rx_free(l, p);
		l->freed_here++;
	}
	if (r == -2) {
		fprintf(stderr, PROG ": %s: bad or duplicate reply of %zd bytes\n",
			path_name[l->path], n);
		return -EBADMSG;
	}
	return r >= 0;
}

struct result {
	double elapsed, task_ms, user_ms, sys_ms, csw, faults;
	double freer_ms;	/* -F: the freer thread's share of task_ms */
	uint64_t in_use, other, split;
	long held;		/* blocks still referenced; -1 not tracked */
	unsigned int blocks;	/* distinct blocks fragments came from */
	uint64_t refills;	/* blocks taken because room ran out */
};

static double
tv_ms(const struct timeval *tv)
{
	return (double)tv->tv_sec * 1e3 + (double)tv->tv_usec / 1e3;
}

/* One run of the guest loop on @path: -n frames, -q in flight. */
static int
run_loop(const struct opts *o, enum path path, int fd, unsigned int max_len,
	 struct result *res)
{
	unsigned char got[MAX_INFLIGHT];
	struct rusage ru0, ru1;
	struct timespec t0, t1;
	struct loop l = { .o = o, .path = path, .fd = fd,
			  .max_len = max_len };
	uint64_t seq = 0;
	int err = 0;

	frag_sock_init(&l.sk, path == P_PAGE_FRAG ? FRAG_SOCK_PAGE_FRAG
						   : FRAG_SOCK_CACHE);
	l.sk.nocache = o->nocache && path == P_CACHE;
	/* This thread sends, receives and (without -F) frees: the owner.
	 * Binding cannot fail here, with no other cache bound. */
	if (!o->nobind)
		(void)frag_sock_bind(&l.sk);
	if (o->freer) {
		if (ptr_ring_init(&l.ring, 1024, GFP_KERNEL) != 0 ||
		    pp_tool_thread_create_on(&l.freer, o->freer_cpu,
					     freer_main, &l) != 0) {
			fprintf(stderr, PROG ": cannot start the freer thread\n");
			frag_sock_release(&l.sk);
			frag_sock_destroy(&l.sk);
			return -ENOMEM;
		}
	}
	getrusage(RUSAGE_SELF, &ru0);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (seq < o->frames && err == 0) {
		uint64_t base = seq, want = o->frames - seq, done = 0;

		if (want > o->inflight)
			want = o->inflight;
		memset(got, 0, sizeof(got));
		for (uint64_t i = 0; i < want && err == 0; i++)
			err = send_one(&l, base + i);
		l.out += want;
		while (err == 0 && done < want) {
			int r = recv_one(&l, base, done, got);

			if (r < 0)
				err = r;
			done += r > 0;
		}
		/* The window's replies are queued: one wake for them all. */
		if (o->freer)
			freer_kick(&l);
		seq += want;
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	if (o->freer) {
		/* Release: pairs with the acquire load in freer_main. */
		__atomic_store_n(&l.freer_stop, 1, __ATOMIC_RELEASE);
		/* F1, as in freer_kick(); then wake it whatever it does. */
		__atomic_thread_fence(__ATOMIC_SEQ_CST);
		freer_wake(&l);
		pthread_join(l.freer, NULL);
		ptr_ring_cleanup(&l.ring, NULL);
	}
	getrusage(RUSAGE_SELF, &ru1);
	frag_sock_release(&l.sk);
	/* Every frame read was freed, here or by the freer: none in use. */
	if (err == 0 && l.received != l.freed_here + l.freed_there) {
		fprintf(stderr, PROG ": %s: %" PRIu64 " of %" PRIu64
			" received buffers still in use\n", path_name[path],
			l.received - l.freed_here - l.freed_there, l.received);
		err = -EBADMSG;
	}
	/*
	 * And the allocator agrees: every block the socket cut fragments
	 * from is back with the page allocator, its count at zero. (The
	 * freer, if any, has been joined: nothing frees any more.)
	 */
	res->held = 0;
	res->blocks = 0;
	res->refills = 0;
	if (path != P_MALLOC) {
		res->held = frag_sock_blocks_held(&l.sk);
		res->blocks = l.sk.nr_blocks;
		res->refills = l.sk.refills;
		if (err == 0 && res->held != 0) {
			if (res->held < 0)
				fprintf(stderr, PROG ": %s: out of memory recording the blocks used\n",
					path_name[path]);
			else
				fprintf(stderr, PROG ": %s: %ld of %u fragment blocks still referenced\n",
					path_name[path], res->held, l.sk.nr_blocks);
			err = -EBADMSG;
		}
	}
	frag_sock_destroy(&l.sk);
	res->split = l.split;
	res->in_use = l.received - l.freed_here - l.freed_there;
	res->other = l.other;
	if (err != 0) {
		fprintf(stderr, PROG ": %s: frame %" PRIu64 ": %s\n",
			path_name[path], seq, strerror(-err));
		return err;
	}
	res->elapsed = (double)(t1.tv_sec - t0.tv_sec) +
		       (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
	res->user_ms = tv_ms(&ru1.ru_utime) - tv_ms(&ru0.ru_utime);
	res->sys_ms = tv_ms(&ru1.ru_stime) - tv_ms(&ru0.ru_stime);
	res->task_ms = res->user_ms + res->sys_ms;
	res->freer_ms = l.freer_ms;
	res->csw = (double)(ru1.ru_nvcsw + ru1.ru_nivcsw -
			    ru0.ru_nvcsw - ru0.ru_nivcsw);
	res->faults = (double)(ru1.ru_minflt + ru1.ru_majflt -
			       ru0.ru_minflt - ru0.ru_majflt);
	return 0;
}

static void
mean_sd(const double *v, unsigned int n, double *mean, double *sd)
{
	double s = 0, q = 0;

	for (unsigned int i = 0; i < n; i++)
		s += v[i];
	*mean = s / n;
	for (unsigned int i = 0; i < n; i++)
		q += (v[i] - *mean) * (v[i] - *mean);
	/* perf stat's spread: the standard error of the mean. */
	*sd = n > 1 ? sqrt(q / (n - 1) / n) : 0;
}

static double
pct(double sd, double mean)
{
	return mean != 0 ? 100.0 * sd / mean : 0;
}

/*
 * Each run's task-clock over @base's in the same run: the median, the
 * range and how many were at or below 1. Paired by run, so a run that
 * the machine slowed for every path cancels, and the median is not
 * moved by one preempted run as the means are.
 */
static void
report_paired(const struct opts *o, const struct result *r,
	      const struct result *base, enum path base_path)
{
	double q[o->runs];
	unsigned int n = o->runs, le = 0;

	for (unsigned int i = 0; i < n; i++) {
		q[i] = base[i].task_ms > 0 ? r[i].task_ms / base[i].task_ms : 0;
		le += q[i] <= 1.0;
	}
	pp_tool_sort_doubles(q, n);
	printf(" %14.3f      task-clock over %s's, run by run: median (%.3f-%.3f, %u of %u at or below 1)\n",
	       n % 2 ? q[n / 2] : (q[n / 2 - 1] + q[n / 2]) / 2,
	       path_name[base_path], q[0], q[n - 1], le, n);
}

/*
 * @base: the page_frag path's results, when it ran and @p is another;
 * @vs_malloc: the malloc path's, when it ran and @p is page_frag_cache
 * (the other target, paired run by run too).
 */
static void
report(const struct opts *o, enum path p, const struct result *r,
       const struct result *base, const struct result *vs_malloc)
{
	double el[o->runs], tc[o->runs], cs[o->runs], fps[o->runs];
	double us[o->runs], sy[o->runs], pf[o->runs], fr[o->runs];
	double m, s, mt, st, mc, sc, mf, sf, mu, su, ms, ss, mp, sp, mr, sr;

	for (unsigned int i = 0; i < o->runs; i++) {
		el[i] = r[i].elapsed;
		tc[i] = r[i].task_ms;
		us[i] = r[i].user_ms / 1e3;
		sy[i] = r[i].sys_ms / 1e3;
		cs[i] = r[i].csw;
		pf[i] = r[i].faults;
		fps[i] = 2.0 * (double)o->frames / r[i].elapsed;
		fr[i] = r[i].freer_ms;
	}
	mean_sd(el, o->runs, &m, &s);
	mean_sd(tc, o->runs, &mt, &st);
	mean_sd(us, o->runs, &mu, &su);
	mean_sd(sy, o->runs, &ms, &ss);
	mean_sd(cs, o->runs, &mc, &sc);
	mean_sd(pf, o->runs, &mp, &sp);
	mean_sd(fps, o->runs, &mf, &sf);
	mean_sd(fr, o->runs, &mr, &sr);
	printf("\n Performance counter stats for '%s' (%u runs):\n\n",
	       path_name[p], o->runs);
	printf(" %14.2f msec task-clock       # %6.3f CPUs utilized  ( +- %5.2f%% )\n",
	       mt, m > 0 ? mt / 1e3 / m : 0, pct(st, mt));
	/* Where -F's task-clock goes: the freer's part (its frees and
	 * wakes), the rest the receiving thread's and the kernel's. */
	if (o->freer)
		printf(" %14.2f msec freer thread     # %6.1f%% of task-clock ( +- %5.2f%% )\n",
		       mr, mt > 0 ? 100.0 * mr / mt : 0, pct(sr, mr));
	printf(" %14.0f      context-switches # %6.3f K/sec          ( +- %5.2f%% )\n",
	       mc, m > 0 ? mc / m / 1e3 : 0, pct(sc, mc));
	printf(" %14.0f      page-faults      # %6.3f K/sec          ( +- %5.2f%% )\n",
	       mp, m > 0 ? mp / m / 1e3 : 0, pct(sp, mp));
	printf(" %14.0f      frames/sec       # requests + replies   ( +- %5.2f%% )\n",
	       mf, pct(sf, mf));
	printf("\n %10.6f +- %.6f seconds time elapsed  ( +- %5.2f%% )\n",
	       m, s, pct(s, m));
	/* The split of task-clock, as perf stat prints it after one run. */
	printf(" %10.6f +- %.6f seconds user\n", mu, su);
	printf(" %10.6f +- %.6f seconds sys\n", ms, ss);
	if (base != NULL)
		report_paired(o, r, base, P_PAGE_FRAG);
	if (vs_malloc != NULL)
		report_paired(o, r, vs_malloc, P_MALLOC);
	printf(" %14" PRIu64 "      buffers in use after the last run, %" PRIu64
	       " other frames dropped\n", r[o->runs - 1].in_use,
	       r[o->runs - 1].other);
	if (p != P_MALLOC)
		printf(" %14ld      fragment blocks still referenced (of %u used), %" PRIu64
		       " payloads split across blocks\n", r[o->runs - 1].held,
		       r[o->runs - 1].blocks, r[o->runs - 1].split);
	if (p != P_MALLOC)
		printf(" %14" PRIu64 "      fresh blocks taken when room ran out, in the last run\n",
		       r[o->runs - 1].refills);
}

static int
env_error(const char *what, int err)
{
	fprintf(stderr, PROG ": %s: %s", what, strerror(err));
	if (err == EPERM || err == EACCES)
		fprintf(stderr, " (needs root, or CAP_SYS_ADMIN and CAP_NET_ADMIN)");
	else if (err == ENOENT || err == ENODEV)
		fprintf(stderr, " (no TUN/TAP support: modprobe tun)");
	fputc('\n', stderr);
	return EXIT_ENV;
}

static int
ifreq_ioctl(int s, unsigned long req, struct ifreq *ifr, const char *what)
{
	if (ioctl(s, req, ifr) != 0) {
		fprintf(stderr, PROG ": %s on " TAP_NAME ": %s\n", what,
			strerror(errno));
		return -1;
	}
	return 0;
}

static void
set_addr(struct sockaddr *sa, uint32_t ip)
{
	struct sockaddr_in sin = { .sin_family = AF_INET };

	sin.sin_addr.s_addr = ip;
	memcpy(sa, &sin, sizeof(sin));
}

/* The namespace, the device, its address and the guest's neighbour entry. */
static int
setup_tap(unsigned int mtu)
{
	struct ifreq ifr;
	struct arpreq arp;
	int fd, s;
	FILE *f;

	if (unshare(CLONE_NEWNET) != 0)
		return -env_error("unshare(CLONE_NEWNET)", errno);
	fd = open("/dev/net/tun", O_RDWR | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return -env_error("/dev/net/tun", errno);
	memset(&ifr, 0, sizeof(ifr));
	ifr.ifr_flags = IFF_TAP | IFF_NO_PI;
	snprintf(ifr.ifr_name, IFNAMSIZ, "%s", TAP_NAME);
	if (ioctl(fd, TUNSETIFF, &ifr) != 0) {
		close(fd);
		return -env_error("TUNSETIFF " TAP_NAME, errno);
	}
	/* IPv6 would add router solicitations to the replies; not needed. */
	f = fopen("/proc/sys/net/ipv6/conf/" TAP_NAME "/disable_ipv6", "w");
	if (f != NULL) {
		fputs("1\n", f);
		fclose(f);
	}
	s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (s < 0)
		goto fail;
	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, IFNAMSIZ, "%s", TAP_NAME);
	if (ifreq_ioctl(s, SIOCGIFHWADDR, &ifr, "SIOCGIFHWADDR"))
		goto fail_s;
	memcpy(tap_mac, ifr.ifr_hwaddr.sa_data, 6);
	ifr.ifr_mtu = (int)mtu;
	if (ifreq_ioctl(s, SIOCSIFMTU, &ifr, "SIOCSIFMTU"))
		goto fail_s;
	set_addr(&ifr.ifr_addr, host_ip);
	if (ifreq_ioctl(s, SIOCSIFADDR, &ifr, "SIOCSIFADDR"))
		goto fail_s;
	set_addr(&ifr.ifr_netmask, htonl(0xffffff00));
	if (ifreq_ioctl(s, SIOCSIFNETMASK, &ifr, "SIOCSIFNETMASK"))
		goto fail_s;
	if (ifreq_ioctl(s, SIOCGIFFLAGS, &ifr, "SIOCGIFFLAGS"))
		goto fail_s;
	ifr.ifr_flags |= IFF_UP;
	if (ifreq_ioctl(s, SIOCSIFFLAGS, &ifr, "SIOCSIFFLAGS"))
		goto fail_s;
	/* A permanent entry: the kernel answers without asking by ARP. */
	memset(&arp, 0, sizeof(arp));
	set_addr(&arp.arp_pa, guest_ip);
	arp.arp_ha.sa_family = ARPHRD_ETHER;
	memcpy(arp.arp_ha.sa_data, guest_mac, 6);
	arp.arp_flags = ATF_PERM | ATF_COM;
	snprintf(arp.arp_dev, sizeof(arp.arp_dev), "%s", TAP_NAME);
	if (ioctl(s, SIOCSARP, &arp) != 0) {
		fprintf(stderr, PROG ": SIOCSARP: %s\n", strerror(errno));
		goto fail_s;
	}
	close(s);
	return fd;
fail_s:
	close(s);
fail:
	close(fd);
	return -1;
}

static void
usage(FILE *out)
{
	fprintf(out,
"Usage: " PROG " [-r RUNS] [-n FRAMES] [-s MIN[:MAX]] [-q INFLIGHT] [-F]\n"
"                    [-p PATH[,PATH...]] [--proto icmp|arp] [--nocache]\n"
"                    [--no-bind] [-h]\n"
"ICMP echo (or ARP) round trips through a TAP device in a private network\n"
"namespace, frames built and received in page_frag_cache fragments (as \"First\n"
"try to replace page_frag with page_frag_cache\" proposes for sockets), in a\n"
"plain page_frag (the path before it) and in malloc'd buffers, side by side.\n"
"  -r RUNS      runs per path (default 10)\n"
"  -n FRAMES    requests per run (default 100000)\n"
"  -s MIN[:MAX] frame sizes in bytes, 60 to 9000, cycled MIN..MAX (default 60:1514)\n"
"  -q INFLIGHT  requests in flight before the replies are read (1-256, default 8)\n"
"  -F           free the replies on a second thread (with two CPUs or more:\n"
"               receiving on the first, freeing on the second, and their\n"
"               cache-line round trip printed before and after the runs)\n"
"  -p PATHS     page_frag_cache, page_frag, malloc (comma separated; default all)\n"
"  --proto P    icmp: echo requests, the replies checked byte for byte (default);\n"
"               arp: ARP requests for the TAP's address padded to the frame size,\n"
"               the kernel's 42-byte replies checked field by field\n"
"  --nocache    page_frag_cache path: copy the payload with non-temporal stores\n"
"               (the kernel's tx-nocache-copy; off by default, as in the kernel)\n"
"  --no-bind    page_frag_cache path: do not bind the socket's cache to its\n"
"               thread (page_frag_cache_bind(), pagepool's): every fragment\n"
"               free is an atomic drop, as in the kernel\n"
"  -h, --help   this help\n"
"Exit status: 0 every reply came back intact, 1 a reply was lost or bad,\n"
"2 usage error, 3 no /dev/net/tun or no permission.\n");
}

int
main(int argc, char **argv)
{
	static const struct option lopts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ "nocache", no_argument, NULL, 'N' },
		{ "no-bind", no_argument, NULL, 'B' },
		{ "proto", required_argument, NULL, 'P' },
		{ NULL, 0, NULL, 0 },
	};
	struct opts o = { .runs = 10, .inflight = 8, .min_size = MIN_FRAME,
			  .max_size = 1514, .frames = 100000,
			  .recv_cpu = -1, .freer_cpu = -1 };
	struct result *res[NR_PATHS] = { NULL };
	unsigned int mtu, max_len;
	bool any = false;
	int c, fd, rc = 0;
	char *colon, *tok, *save;

	for (int p = 0; p < NR_PATHS; p++)
		o.paths[p] = true;
	while ((c = getopt_long(argc, argv, "r:n:s:q:Fp:h", lopts, NULL)) != -1) {
		switch (c) {
		case 'r':
			o.runs = (unsigned int)pp_tool_parse_num(PROG, "-r",
					optarg, 1, 1000);
			break;
		case 'n':
			o.frames = (unsigned long)pp_tool_parse_num(PROG, "-n",
					optarg, 1, 1000000000);
			break;
		case 's':
			colon = strchr(optarg, ':');
			if (colon != NULL)
				*colon = '\0';
			o.min_size = (unsigned int)pp_tool_parse_num(PROG,
					"-s", optarg, MIN_FRAME, MAX_FRAME);
			o.max_size = colon == NULL ? o.min_size :
				(unsigned int)pp_tool_parse_num(PROG, "-s",
					colon + 1, o.min_size, MAX_FRAME);
			break;
		case 'q':
			o.inflight = (unsigned int)pp_tool_parse_num(PROG, "-q",
					optarg, 1, MAX_INFLIGHT);
			break;
		case 'F':
			o.freer = true;
			break;
		case 'N':
			o.nocache = true;
			break;
		case 'B':
			o.nobind = true;
			break;
		case 'P':
			if (strcmp(optarg, "icmp") == 0) {
				o.proto = PROTO_ICMP;
			} else if (strcmp(optarg, "arp") == 0) {
				o.proto = PROTO_ARP;
			} else {
				fprintf(stderr, PROG ": --proto: unknown protocol '%s' (icmp, arp)\n",
					optarg);
				return 2;
			}
			break;
		case 'p':
			for (int p = 0; p < NR_PATHS; p++)
				o.paths[p] = false;
			for (tok = strtok_r(optarg, ",", &save); tok != NULL;
			     tok = strtok_r(NULL, ",", &save)) {
				int p;

				for (p = 0; p < NR_PATHS; p++)
					if (strcmp(tok, path_name[p]) == 0)
						break;
				if (p == NR_PATHS) {
					fprintf(stderr, PROG ": -p: unknown path '%s' (page_frag_cache, page_frag, malloc)\n",
						tok);
					return 2;
				}
				o.paths[p] = true;
			}
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind != argc) {
		fprintf(stderr, PROG ": unexpected argument '%s'\n", argv[optind]);
		usage(stderr);
		return 2;
	}
	for (int i = 0; i < (int)sizeof(pat); i++)
		pat[i] = (unsigned char)(i * 7 + (i >> 8));
	guest_ip = htonl(0x0a4d0002);	/* 10.77.0.2 */
	host_ip = htonl(0x0a4d0001);	/* 10.77.0.1 */
	mtu = o.max_size - 14 > 1500 ? o.max_size - 14 : 1500;
	max_len = mtu + 14;
	fd = setup_tap(mtu);
	if (fd < 0)
		return fd == -EXIT_ENV ? EXIT_ENV : 1;
	for (int p = 0; p < NR_PATHS; p++) {
		if (!o.paths[p])
			continue;
		res[p] = calloc(o.runs, sizeof(*res[p]));
		if (res[p] == NULL) {
			fprintf(stderr, PROG ": out of memory\n");
			return 1;
		}
	}
	printf(PROG ": %u runs x %lu %s requests of %u-%u bytes, %u in flight, replies freed %s%s%s\n",
	       o.runs, o.frames, o.proto == PROTO_ARP ? "ARP" : "echo", o.min_size, o.max_size, o.inflight,
	       o.freer ? "on a second thread" : "on the receiving thread",
	       o.nocache ? ", non-temporal payload copy" : "",
	       o.nobind ? ", cache not bound (atomic frees)" : "");
	if (o.freer && pp_tool_ncpus() >= 2) {
		/*
		 * The two threads share the blocks' count lines, so -F's
		 * figures depend on how far apart their CPUs are: pin them,
		 * and say how far, before and after the runs (a VM's host
		 * may move its vCPUs meanwhile; docs/benchmarks.md).
		 */
		o.recv_cpu = pp_tool_nth_cpu(0);
		o.freer_cpu = pp_tool_nth_cpu(1);
		if (o.recv_cpu < 0 || o.freer_cpu < 0 ||
		    pp_tool_pin_cpu(o.recv_cpu) != 0) {
			fprintf(stderr, PROG ": cannot pin the receiving thread; the threads run unpinned\n");
			o.recv_cpu = o.freer_cpu = -1;
		} else {
			print_line_rtt(&o, "before");
		}
	}
	/*
	 * Paths interleave within each run, so drift hits them alike, in
	 * run_order_of()'s orders, so that each path follows each other
	 * path equally often (the one after malloc finds the allocator and
	 * the CPU's caches as malloc's run left them). The rotation used
	 * before put page_frag_cache after malloc in two runs of three and
	 * page_frag in one: in -F, 1.011 against 1.004 balanced
	 * (docs/benchmarks.md).
	 */
	for (unsigned int r = 0; r < o.runs && rc == 0; r++)
		for (unsigned int k = 0; k < NR_PATHS && rc == 0; k++) {
			int p = (int)run_order_of(r, k);

			if (o.paths[p] &&
			    run_loop(&o, (enum path)p, fd, max_len,
				     &res[p][r]) != 0)
				rc = 1;
		}
	close(fd);
	if (rc != 0)
		return rc;
	if (o.recv_cpu >= 0)
		print_line_rtt(&o, "after");
	for (int p = 0; p < NR_PATHS; p++) {
		if (!o.paths[p])
			continue;
		report(&o, (enum path)p, res[p],
		       p != P_PAGE_FRAG ? res[P_PAGE_FRAG] : NULL,
		       p == P_CACHE ? res[P_MALLOC] : NULL);
		any = true;
	}
	for (int p = 0; p < NR_PATHS; p++)
		free(res[p]);
	pp_thread_cache_drain();
	return any ? 0 : 2;
}
