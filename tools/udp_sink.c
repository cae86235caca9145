/* SPDX-License-Identifier: MIT */
/*
 * Copyright (c) 2026 The pagepool authors
 *
 * udp_sink: receive UDP datagrams and count packets and bytes per second,
 * either through io_uring provided buffers that are page_pool pages
 * (tools/lib/uring_pp: multishot recv, pages back to the pool from any
 * thread) or, for comparison, with recvmmsg() into malloc'd buffers, each
 * datagram's buffer freed by whoever consumes it. With --return-thread the
 * buffers are consumed (one byte read, then returned or freed) on a second
 * thread, as an application that hands packets on would; it sleeps on a
 * semaphore while it has nothing to do, posted once a batch, so its CPU
 * time is the returning's, not a poll's.
 *
 * It also sends (--send ADDR:PORT): sendmmsg() batches of UDP datagrams of
 * a given size, count and rate, so a test or a benchmark needs nothing
 * else on loopback.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <netinet/in.h>
#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <pagepool/page_pool.h>
#include <pagepool/ptr_ring.h>

#include "cli.h"
#include "cpu.h"
#include "uring_pp.h"

#define BATCH	64
#define BUFSZ	4096	/* a page, as the pool's buffers */

enum mode { MODE_URING, MODE_RECVMMSG };

static volatile sig_atomic_t stop;
static struct page_pool *pool;
static struct ptr_ring handoff;
static sem_t handoff_sem;		/* posted when items wait, or to stop */
static bool ret_thread;
static int ret_stop;			/* atomic */
static unsigned long long consumed;	/* returner's byte sum, keeps reads */

static void
on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static void
usage(const char *prog)
{
	fprintf(stderr,
		"usage: %s [OPTS]                  receive\n"
		"       %s --send ADDR:PORT [OPTS] send\n\n"
		"receive:\n"
		"    --mode uring|recvmmsg  io_uring buffers from a page_pool (uring),\n"
		"                           or recvmmsg into malloc'd buffers\n"
		"    --bind ADDR            address to bind (127.0.0.1)\n"
		"    --port N               UDP port (9000)\n"
		"    --entries N            io_uring buffer ring size (1024)\n"
		"    --return-thread        consume and return buffers on another thread\n"
		"    --count N              stop after N datagrams (0: no limit)\n"
		"    --duration SEC         stop after SEC seconds (0: at SIGINT)\n"
		"    --quiet                no per-second lines\n"
		"send:\n"
		"    --send ADDR:PORT       send UDP datagrams there\n"
		"    --size BYTES           payload bytes (64)\n"
		"    --count N              datagrams (0: until --duration or SIGINT)\n"
		"    --rate PPS             at most PPS datagrams a second (0: no limit)\n"
		"    --duration SEC         stop after SEC seconds\n",
		prog, prog);
}

/* ---- Consuming ----------------------------------------------------------- */

struct item {
	void *buf;		/* malloc'd buffer, or NULL */
	struct page *page;	/* pool page, or NULL */
	unsigned int offset, len;
};

/* Read the datagram (one byte, so the data is touched) and give the
 * buffer back: to the pool, or to malloc. */
static unsigned long long
consume(const struct item *it, bool direct)
{
	unsigned char b = 0;

	if (it->page != NULL) {
		if (it->len > 0)
			b = *((unsigned char *)page_address(it->page) +
			      it->offset);
		page_pool_put_full_page(pool, it->page, direct);
	} else {
		if (it->len > 0)
			b = *(unsigned char *)it->buf;
		free(it->buf);
	}
	return b;
}

static void *
returner(void *arg)
{
	struct item *it;
	unsigned long long sum = 0;

	(void)arg;
	for (;;) {
		/* W8: pairs with post P8 in hand_off_batch_done() and
		 * hand_off() (items in the ring) or P7 in hand_off_done()
		 * (stop). A post may find the ring already drained: loop. */
		while (sem_wait(&handoff_sem) != 0 && errno == EINTR)
			;
		while ((it = ptr_ring_consume(&handoff)) != NULL) {
			sum += consume(it, false);
			free(it);
		}
		/* A7: pairs with release R7 in hand_off_done(); every item
		 * was produced before R7, so an empty ring now is final. */
		if (__atomic_load_n(&ret_stop, __ATOMIC_ACQUIRE) &&
		    ptr_ring_empty(&handoff))
			break;
	}
	consumed += sum;
	return NULL;
}

static void
hand_off(const struct item *src)
{
	struct item *it;

	if (!ret_thread) {
		consumed += consume(src, true);
		return;
	}
	it = malloc(sizeof(*it));
	if (it == NULL) {
		consumed += consume(src, true);
		return;
	}
	*it = *src;
	while (ptr_ring_produce(&handoff, it) != 0) {
		/* P8: the ring is full; wake the returner (pairs with W8 in
		 * returner()) in case it sleeps before this batch's post. */
		sem_post(&handoff_sem);
		usleep(10);
	}
}

/* After a batch handed off: one wake-up for the returner, not one a
 * datagram. */
static void
hand_off_batch_done(int n)
{
	/* P8: pairs with W8 in returner(). */
	if (ret_thread && n > 0)
		sem_post(&handoff_sem);
}

static void
hand_off_done(pthread_t th)
{
	if (!ret_thread)
		return;
	/* R7: pairs with acquire A7 in returner(). */
	__atomic_store_n(&ret_stop, 1, __ATOMIC_RELEASE);
	/* P7: pairs with W8 in returner(): it wakes and sees R7. */
	sem_post(&handoff_sem);
	pthread_join(th, NULL);
	sem_destroy(&handoff_sem);
}

/* ---- Receiving ----------------------------------------------------------- */

struct counts {
	unsigned long long pkts, bytes;
};

static void
report(const char *mode, const struct counts *c, struct counts *last,
       double *tlast, bool quiet)
{
	double t = pp_tool_now_s(), dt = t - *tlast;

	if (dt < 1.0)
		return;
	if (!quiet)
		printf("%-8s %10.0f pps %10.2f MB/s\n", mode,
		       (double)(c->pkts - last->pkts) / dt,
		       (double)(c->bytes - last->bytes) / dt / 1e6);
	fflush(stdout);
	*last = *c;
	*tlast = t;
}

static int
recv_uring(int fd, unsigned int entries, unsigned long long count,
	   unsigned int duration, bool quiet, struct counts *c)
{
	struct upp_pkt pkts[BATCH];
	struct counts last = { 0, 0 };
	struct napi_struct napi;
	struct page_pool_params pp;
	struct upp u;
	double t0 = pp_tool_now_s(), tlast = t0;
	int n, i, err;

	napi_init_current(&napi);
	memset(&pp, 0, sizeof(pp));
	pp.nid = NUMA_NO_NODE;
	pp.pool_size = 4096;
	pp.napi = &napi;
	pool = page_pool_create(&pp);
	if (pool == NULL) {
		perror("udp_sink: page_pool_create");
		return 1;
	}
	err = upp_init(&u, pool, entries, 1);
	if (err == 0)
		err = upp_arm(&u, fd);
	if (err != 0) {
		fprintf(stderr, "udp_sink: io_uring: %s%s\n", strerror(-err),
			err == -EINVAL ? " (no provided-buffer rings?)" : "");
		page_pool_destroy(pool);
		return err == -ENOSYS || err == -EPERM || err == -EINVAL ? 77 : 1;
	}
	while (!stop && (count == 0 || c->pkts < count) &&
	       (duration == 0 || pp_tool_now_s() - t0 < duration)) {
		n = upp_recv(&u, pkts, BATCH, true);
		if (n < 0) {
			fprintf(stderr, "udp_sink: recv: %s\n", strerror(-n));
			break;
		}
		for (i = 0; i < n; i++) {
			struct item it = { NULL, pkts[i].page, pkts[i].offset,
					   pkts[i].len };

			c->pkts++;
			c->bytes += pkts[i].len;
			hand_off(&it);
		}
		hand_off_batch_done(n);
		report("uring", c, &last, &tlast, quiet);
	}
	upp_fini(&u);
	if (!quiet || u.stats.enobufs || u.stats.starved)
		fprintf(stderr,
			"udp_sink: uring: %llu arms, %llu enobufs, %llu starved re-posts\n",
			u.stats.arms, u.stats.enobufs, u.stats.starved);
	return 0;
}

static int
recv_mmsg(int fd, unsigned long long count, unsigned int duration,
	  bool quiet, struct counts *c)
{
	struct mmsghdr msgs[BATCH];
	struct iovec iov[BATCH];
	struct counts last = { 0, 0 };
	double t0 = pp_tool_now_s(), tlast = t0;
	struct timespec to = { 0, 100 * 1000000 };
	int n, i;

	memset(msgs, 0, sizeof(msgs));
	for (i = 0; i < BATCH; i++) {
		iov[i].iov_base = NULL;
		iov[i].iov_len = BUFSZ;
		msgs[i].msg_hdr.msg_iov = &iov[i];
		msgs[i].msg_hdr.msg_iovlen = 1;
	}
	while (!stop && (count == 0 || c->pkts < count) &&
	       (duration == 0 || pp_tool_now_s() - t0 < duration)) {
		/* A fresh buffer for every slot the last batch handed on. */
		for (i = 0; i < BATCH; i++) {
			if (iov[i].iov_base == NULL)
				iov[i].iov_base = malloc(BUFSZ);
			if (iov[i].iov_base == NULL) {
				perror("udp_sink: malloc");
				return 1;
			}
		}
		n = recvmmsg(fd, msgs, BATCH, MSG_WAITFORONE, &to);
		if (n < 0) {
			if (errno == EAGAIN || errno == EINTR)
				continue;
			perror("udp_sink: recvmmsg");
			break;
		}
		for (i = 0; i < n; i++) {
			struct item it = { iov[i].iov_base, NULL, 0,
					   msgs[i].msg_len };

			iov[i].iov_base = NULL;
			c->pkts++;
			c->bytes += msgs[i].msg_len;
			hand_off(&it);
		}
		hand_off_batch_done(n);
		report("recvmmsg", c, &last, &tlast, quiet);
	}
	for (i = 0; i < BATCH; i++)
		free(iov[i].iov_base);
	return 0;
}

/* ---- Sending ------------------------------------------------------------- */

static int
parse_addr(const char *prog, const char *s, struct sockaddr_in *sa)
{
	char host[64];
	const char *colon = strrchr(s, ':');

	memset(sa, 0, sizeof(*sa));
	sa->sin_family = AF_INET;
	if (colon == NULL || (size_t)(colon - s) >= sizeof(host)) {
		fprintf(stderr, "%s: --send wants ADDR:PORT\n", prog);
		return -1;
	}
	memcpy(host, s, (size_t)(colon - s));
	host[colon - s] = '\0';
	if (inet_pton(AF_INET, host, &sa->sin_addr) != 1) {
		fprintf(stderr, "%s: bad IPv4 address '%s'\n", prog, host);
		return -1;
	}
	sa->sin_port = htons((uint16_t)pp_tool_parse_num(prog, "--send port",
							 colon + 1, 1, 65535));
	return 0;
}

static int
send_loop(const struct sockaddr_in *dst, unsigned int size,
	  unsigned long long count, unsigned long long rate,
	  unsigned int duration)
{
	struct mmsghdr msgs[BATCH];
	struct iovec iov[BATCH];
	unsigned char *bufs;
	unsigned long long sent = 0, seq;
	double t0 = pp_tool_now_s(), t;
	int fd, n, i, want;

	fd = socket(AF_INET, SOCK_DGRAM, 0);
	if (fd < 0) {
		perror("udp_sink: socket");
		return 1;
	}
	bufs = calloc(BATCH, size ? size : 1);
	if (bufs == NULL) {
		close(fd);
		return 1;
	}
	memset(msgs, 0, sizeof(msgs));
	for (i = 0; i < BATCH; i++) {
		iov[i].iov_base = bufs + (size_t)i * size;
		iov[i].iov_len = size;
		msgs[i].msg_hdr.msg_iov = &iov[i];
		msgs[i].msg_hdr.msg_iovlen = 1;
		msgs[i].msg_hdr.msg_name = (void *)dst;
		msgs[i].msg_hdr.msg_namelen = sizeof(*dst);
	}
	while (!stop && (count == 0 || sent < count)) {
		t = pp_tool_now_s() - t0;
		if (duration != 0 && t >= duration)
			break;
		want = BATCH;
		if (count != 0 && count - sent < BATCH)
			want = (int)(count - sent);
		if (rate != 0 && (double)sent >= t * (double)rate) {
			usleep(100);
			continue;
		}
		for (i = 0; i < want; i++) {
			seq = sent + (unsigned long long)i;
			if (size >= sizeof(seq))
				memcpy(iov[i].iov_base, &seq, sizeof(seq));
		}
		n = sendmmsg(fd, msgs, (unsigned int)want, 0);
		if (n < 0) {
			if (errno == ENOBUFS || errno == EAGAIN ||
			    errno == ECONNREFUSED)
				continue;
			perror("udp_sink: sendmmsg");
			break;
		}
		sent += (unsigned long long)n;
	}
	t = pp_tool_now_s() - t0;
	printf("udp_sink: sent %llu datagrams of %u bytes in %.3f s: %.0f pps\n",
	       sent, size, t, t > 0 ? (double)sent / t : 0.0);
	free(bufs);
	close(fd);
	return 0;
}

/* ---- Main ----------------------------------------------------------------- */

int
main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "mode", required_argument, NULL, 'm' },
		{ "bind", required_argument, NULL, 'b' },
		{ "port", required_argument, NULL, 'p' },
		{ "entries", required_argument, NULL, 'e' },
		{ "return-thread", no_argument, NULL, 'r' },
		{ "count", required_argument, NULL, 'c' },
		{ "duration", required_argument, NULL, 'd' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "send", required_argument, NULL, 's' },
		{ "size", required_argument, NULL, 'z' },
		{ "rate", required_argument, NULL, 'R' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct sockaddr_in sa = { .sin_family = AF_INET };
	const char *bind_addr = "127.0.0.1", *send_to = NULL;
	unsigned long long count = 0, rate = 0;
	unsigned int duration = 0, port = 9000, entries = 1024, size = 64;
	enum mode mode = MODE_URING;
	struct counts c = { 0, 0 };
	bool quiet = false;
	pthread_t th = 0;
	double t0, t;
	int opt, fd, rc, bufsz = 8 << 20;

	while ((opt = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		switch (opt) {
		case 'm':
			if (strcmp(optarg, "uring") == 0) {
				mode = MODE_URING;
			} else if (strcmp(optarg, "recvmmsg") == 0) {
				mode = MODE_RECVMMSG;
			} else {
				fprintf(stderr,
					"%s: --mode must be uring or recvmmsg\n",
					argv[0]);
				return 2;
			}
			break;
		case 'b':
			bind_addr = optarg;
			break;
		case 'p':
			port = (unsigned int)pp_tool_parse_num(argv[0], "--port",
							       optarg, 1, 65535);
			break;
		case 'e':
			entries = (unsigned int)pp_tool_parse_num(argv[0],
					"--entries", optarg, 1, 32768);
			if (entries & (entries - 1)) {
				fprintf(stderr,
					"%s: --entries must be a power of two\n",
					argv[0]);
				return 2;
			}
			break;
		case 'r':
			ret_thread = true;
			break;
		case 'c':
			count = pp_tool_parse_num(argv[0], "--count", optarg, 0,
						  1ULL << 48);
			break;
		case 'd':
			duration = (unsigned int)pp_tool_parse_num(argv[0],
					"--duration", optarg, 0, 86400);
			break;
		case 'q':
			quiet = true;
			break;
		case 's':
			send_to = optarg;
			break;
		case 'z':
			size = (unsigned int)pp_tool_parse_num(argv[0], "--size",
							       optarg, 0, 65507);
			break;
		case 'R':
			rate = pp_tool_parse_num(argv[0], "--rate", optarg, 0,
						 1ULL << 32);
			break;
		case 'h':
			usage(argv[0]);
			return 0;
		default:
			usage(argv[0]);
			return 2;
		}
	}
	if (optind != argc) {
		usage(argv[0]);
		return 2;
	}
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);

	if (send_to != NULL) {
		if (parse_addr(argv[0], send_to, &sa) != 0)
			return 2;
		return send_loop(&sa, size, count, rate, duration);
	}

	if (inet_pton(AF_INET, bind_addr, &sa.sin_addr) != 1) {
		fprintf(stderr, "%s: bad IPv4 address '%s'\n", argv[0],
			bind_addr);
		return 2;
	}
	sa.sin_port = htons((uint16_t)port);
	fd = socket(AF_INET, SOCK_DGRAM, 0);
	if (fd < 0) {
		perror("udp_sink: socket");
		return 1;
	}
	/* A deep receive queue, so short stalls of the receiver do not
	 * turn into drops (FORCE needs CAP_NET_ADMIN; else the capped one). */
	if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &bufsz,
		       sizeof(bufsz)) != 0)
		(void)setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &bufsz,
				 sizeof(bufsz));
	if (mode == MODE_RECVMMSG) {
		struct timeval tv = { 0, 100000 };

		(void)setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	}
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) != 0) {
		fprintf(stderr, "udp_sink: bind %s:%u: %s\n", bind_addr, port,
			strerror(errno));
		close(fd);
		return 1;
	}
	if (ret_thread) {
		if (ptr_ring_init(&handoff, 4096, 0) != 0 ||
		    sem_init(&handoff_sem, 0, 0) != 0 ||
		    pthread_create(&th, NULL, returner, NULL) != 0) {
			fprintf(stderr, "udp_sink: cannot start the returner\n");
			close(fd);
			return 1;
		}
	}
	/* Ready: a test or a benchmark script waits for this line. */
	printf("udp_sink: listening on %s:%u (%s%s)\n", bind_addr, port,
	       mode == MODE_URING ? "uring" : "recvmmsg",
	       ret_thread ? ", return thread" : "");
	fflush(stdout);
	t0 = pp_tool_now_s();
	if (mode == MODE_URING)
		rc = recv_uring(fd, entries, count, duration, quiet, &c);
	else
		rc = recv_mmsg(fd, count, duration, quiet, &c);
	t = pp_tool_now_s() - t0;
	hand_off_done(th);
	if (ret_thread)
		ptr_ring_cleanup(&handoff, NULL);
	close(fd);
	if (pool != NULL) {
		/* Every page is back (the ring torn down, the returner
		 * joined): destroy frees the pool at once. */
		page_pool_disable_direct_recycling(pool);
		page_pool_destroy(pool);
	}
	printf("udp_sink: %s received %llu datagrams, %llu bytes in %.3f s: "
	       "%.0f pps, %.2f MB/s\n",
	       mode == MODE_URING ? "uring" : "recvmmsg", c.pkts, c.bytes, t,
	       t > 0 ? (double)c.pkts / t : 0.0,
	       t > 0 ? (double)c.bytes / t / 1e6 : 0.0);
	return rc;
}
