/* SPDX-License-Identifier: MIT */
/*
 * Copyright (c) 2026 The pagepool authors
 *
 * pp_pktgen: a packet sender for the tests and benchmarks that move real
 * packets, where the kernel's pktgen is not built in. It sends
 * Ethernet/IPv4/UDP frames of a given size out of an interface:
 *
 *   --mode packet  (default) an AF_PACKET raw socket, frames handed over in
 *                  sendmmsg() batches with PACKET_QDISC_BYPASS, so each one
 *                  goes straight to the driver's xmit;
 *   --mode xdp     an AF_XDP socket's TX ring (copy mode, libxdp), where
 *                  built with libxdp;
 *   --mode udp     ordinary UDP datagrams over sockets (sendmmsg) to
 *                  --dst-ip:--udp-dst-port, for receivers on the socket
 *                  path (udp_sink and io_uring).
 *
 * The frames carry the kernel pktgen's header after the UDP header (magic,
 * sequence number, time) when they have room for it, so a capture tells
 * them apart; --flows varies the UDP source port so the traffic spreads
 * over receive queues. --rate paces the sender with a token bucket on
 * CLOCK_MONOTONIC, sleeping (never spinning) between bursts, so a receiver
 * on the same machine gets the CPU time the sender does not need.
 *
 * Counting is exact: a frame counts as sent only when the kernel accepted
 * it (sendmmsg's count). A frame the next hop refused for want of room
 * (ENOBUFS: a full backlog or ring behind a veth) is sent again, and the
 * refusals are reported.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <linux/if_packet.h>
#include <net/ethernet.h>
#include <net/if.h>
#include <netinet/in.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#ifdef PP_PKTGEN_HAVE_XSK
#include <xdp/xsk.h>
#endif

#include "cli.h"
#include "cpu.h"

#define PROG		"pp_pktgen"
#define HDR_LEN		42U	/* Ethernet 14 + IPv4 20 + UDP 8 */
#define MIN_FRAME	60U	/* ETH_ZLEN: the Ethernet minimum, no FCS */
#define MAX_UDP_FRAME	(65507U + HDR_LEN)
#define MAX_BATCH	1024U
#define PKTGEN_MAGIC	0xbe9be955U	/* the kernel pktgen's header magic */

/* Exit codes: 0 done, 1 failed, 2 bad usage, 3 no permission. */
#define EXIT_USAGE	2
#define EXIT_PERM	3

enum mode { MODE_PACKET, MODE_UDP, MODE_XDP };

static const char *const mode_name[] = { "packet", "udp", "xdp" };

struct cfg {
	enum mode mode;
	const char *dev;
	unsigned int ifindex;
	unsigned int size;		/* frame bytes, without FCS */
	unsigned long long count;	/* 0: no limit */
	unsigned long long rate;	/* pps, 0: as fast as possible */
	unsigned int duration;		/* s, 0: no limit */
	unsigned int flows;
	unsigned int batch;
	int cpu;			/* -1: not pinned */
	bool quiet;
	unsigned int queue;		/* xdp: queue id */
	unsigned char dst_mac[6];
	unsigned char src_mac[6];
	bool have_src_mac;
	struct in_addr src_ip, dst_ip;
	bool have_src_ip;
	unsigned int sport, dport;	/* UDP ports; sport 0: udp mode picks */
	bool have_sport;
};

/* What a run did; the senders fill it in. */
struct result {
	unsigned long long sent;
	unsigned long long nobufs;	/* refusals retried (ENOBUFS/EAGAIN) */
	unsigned long long refused;	/* udp: ECONNREFUSED, retried */
	double secs;
};

static volatile sig_atomic_t stop;

static void
on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static void
usage(FILE *out)
{
	fprintf(out,
		"usage: " PROG " --dev IFNAME [OPTS]             frames out of IFNAME\n"
		"       " PROG " --mode udp --dst-ip ADDR [OPTS] UDP datagrams\n\n"
		"    --mode packet|xdp|udp  AF_PACKET sendmmsg (default), AF_XDP TX ring\n"
		"                           (copy mode), or UDP sockets\n"
		"    --dev IFNAME           interface to send from (packet, xdp)\n"
		"    --dst-mac MAC          destination MAC (ff:ff:ff:ff:ff:ff)\n"
		"    --src-mac MAC          source MAC (the interface's)\n"
		"    --src-ip ADDR          IPv4 source (198.18.0.1; udp: bind to it)\n"
		"    --dst-ip ADDR          IPv4 destination (198.18.0.2)\n"
		"    --udp-src-port N       first UDP source port (9; udp: ephemeral)\n"
		"    --udp-dst-port N       UDP destination port (9)\n"
		"    --flows N              source ports used, one after another (1)\n"
		"    --size BYTES           frame size without FCS: 60 to MTU+14 (60);\n"
		"                           udp: 42 to 65549, payload is SIZE-42\n"
		"    --count N              frames to send (0: until --duration/SIGINT)\n"
		"    --duration SEC         stop after SEC seconds (0: no limit)\n"
		"    --rate PPS             at most PPS frames a second (0: no limit)\n"
		"    --batch N              frames per sendmmsg / TX ring batch (64)\n"
		"    --cpu N                pin to CPU N\n"
		"    --queue N              xdp: queue to bind (0)\n"
		"    -q, --quiet            no per-second lines\n"
		"    -h, --help             this text\n"
		"\nExit: 0 done, 1 failed, 2 bad usage, 3 no permission (run as root).\n");
}

static int
parse_mac(const char *s, unsigned char mac[6])
{
	unsigned int b[6];
	char tail;
	int i;

	if (strlen(s) != 17 ||
	    sscanf(s, "%2x:%2x:%2x:%2x:%2x:%2x%c", &b[0], &b[1], &b[2], &b[3],
		   &b[4], &b[5], &tail) != 6)
		return -1;
	for (i = 0; i < 6; i++) {
		if (s[i * 3] == ' ' || s[i * 3 + 1] == ' ' ||
		    (i < 5 && s[i * 3 + 2] != ':'))
			return -1;
		mac[i] = (unsigned char)b[i];
	}
	return 0;
}

static void
parse_ip(const char *opt, const char *s, struct in_addr *a)
{
	if (inet_pton(AF_INET, s, a) != 1) {
		fprintf(stderr, PROG ": %s: '%s' is not an IPv4 address\n", opt,
			s);
		exit(EXIT_USAGE);
	}
}

/* ---- Frames -------------------------------------------------------------- */

static uint16_t
ip_csum(const void *hdr, size_t len)
{
	const unsigned char *p = hdr;
	uint32_t sum = 0;
	size_t i;

	for (i = 0; i + 1 < len; i += 2)
		sum += (uint32_t)(p[i] << 8 | p[i + 1]);
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)~sum;
}

static void
put16(unsigned char *p, unsigned int v)
{
	p[0] = (unsigned char)(v >> 8);
	p[1] = (unsigned char)v;
}

static void
put32(unsigned char *p, uint32_t v)
{
	p[0] = (unsigned char)(v >> 24);
	p[1] = (unsigned char)(v >> 16);
	p[2] = (unsigned char)(v >> 8);
	p[3] = (unsigned char)v;
}

/*
 * Write one Ethernet/IPv4/UDP frame of c->size bytes at @f: TTL 32, no
 * fragmentation, the UDP checksum left out (0, allowed over IPv4), the
 * payload zero but for the pktgen header.
 */
static void
build_frame(const struct cfg *c, unsigned char *f)
{
	unsigned char *ip = f + 14, *udp = f + 34;

	memset(f, 0, c->size);
	memcpy(f, c->dst_mac, 6);
	memcpy(f + 6, c->src_mac, 6);
	put16(f + 12, 0x0800);
	ip[0] = 0x45;
	put16(ip + 2, c->size - 14);
	ip[8] = 32;
	ip[9] = IPPROTO_UDP;
	memcpy(ip + 12, &c->src_ip, 4);
	memcpy(ip + 16, &c->dst_ip, 4);
	put16(ip + 10, ip_csum(ip, 20));
	put16(udp, c->sport);
	put16(udp + 2, c->dport);
	put16(udp + 4, c->size - 34);
	if (c->size >= HDR_LEN + 16)
		put32(udp + 8, PKTGEN_MAGIC);
}

/*
 * Per-frame fields: the flow's source port and the pktgen header's
 * sequence number and time. @p points at the UDP header (packet and xdp)
 * or at the payload (udp: port fixed per socket).
 */
static inline void
stamp_udp(const struct cfg *c, unsigned char *udp, unsigned long long seq,
	  const struct timespec *ts)
{
	if (c->flows > 1)
		put16(udp, c->sport + (unsigned int)(seq % c->flows));
	if (c->size >= HDR_LEN + 16) {
		put32(udp + 12, (uint32_t)seq);
		put32(udp + 16, (uint32_t)ts->tv_sec);
		put32(udp + 20, (uint32_t)(ts->tv_nsec / 1000));
	}
}

static inline void
stamp_payload(const struct cfg *c, unsigned char *pl, unsigned long long seq,
	      const struct timespec *ts)
{
	if (c->size >= HDR_LEN + 16) {
		put32(pl + 4, (uint32_t)seq);
		put32(pl + 8, (uint32_t)ts->tv_sec);
		put32(pl + 12, (uint32_t)(ts->tv_nsec / 1000));
	}
}

/* ---- Pacing and reporting ------------------------------------------------ */

/*
 * A token bucket: tokens come at c->rate a second; a burst is sent when
 * there are tokens for all of it, and the sender sleeps until then.
 * Bursts are at most a batch and small enough for a thousand of them a
 * second, so low rates are smooth. The bucket holds 5 ms of tokens (two
 * bursts at least): a sleep that ends late keeps the tokens it earned,
 * so the rate is met on a busy machine whose wake-ups come milliseconds
 * late, and what a longer stall loses is not made up in one rush.
 */
struct pacer {
	unsigned long long rate;
	unsigned int burst;
	double depth;
	double tokens;
	uint64_t last;
};

static void
pacer_init(struct pacer *p, unsigned long long rate, unsigned int batch)
{
	unsigned long long b = rate / 1000;

	p->rate = rate;
	p->burst = (unsigned int)(b < 1 ? 1 : b > batch ? batch : b);
	p->depth = (double)rate * 0.005;
	if (p->depth < 2.0 * p->burst)
		p->depth = 2.0 * p->burst;
	p->tokens = p->burst;
	p->last = pp_tool_now_ns();
}

/* How many frames may go now (at most @want); sleeps for tokens. */
static unsigned int
pacer_take(struct pacer *p, unsigned int want)
{
	uint64_t t;
	double need;

	if (p->rate == 0)
		return want;
	if (want > p->burst)
		want = p->burst;
	for (;;) {
		t = pp_tool_now_ns();
		p->tokens += (double)(t - p->last) * (double)p->rate / 1e9;
		p->last = t;
		if (p->tokens > p->depth)
			p->tokens = p->depth;
		if (p->tokens >= want || stop)
			return want;
		need = ((double)want - p->tokens) * 1e9 / (double)p->rate;
		struct timespec ts = {
			.tv_sec = (time_t)(need / 1e9),
			.tv_nsec = (long)((uint64_t)need % 1000000000ULL),
		};
		nanosleep(&ts, NULL);
	}
}

static void
pacer_spend(struct pacer *p, unsigned int n)
{
	if (p->rate != 0)
		p->tokens -= n;
}

struct progress {
	uint64_t t0, next, last_t;
	unsigned long long last_sent;
	bool quiet;
	unsigned int size;
};

static void
progress_init(struct progress *pr, const struct cfg *c)
{
	pr->t0 = pp_tool_now_ns();
	pr->next = pr->t0 + 1000000000ULL;
	pr->last_t = pr->t0;
	pr->last_sent = 0;
	pr->quiet = c->quiet;
	pr->size = c->size;
}

/* A line a second; true when --duration is over. */
static bool
progress_tick(struct progress *pr, const struct cfg *c, uint64_t t,
	      unsigned long long sent)
{
	double dt, pps;

	if (c->duration != 0 &&
	    t - pr->t0 >= (uint64_t)c->duration * 1000000000ULL)
		return true;
	if (t < pr->next)
		return false;
	if (!pr->quiet) {
		dt = (double)(t - pr->last_t) / 1e9;
		pps = (double)(sent - pr->last_sent) / dt;
		printf(PROG ": %6.3f s: %10.0f pps %9.1f Mbit/s  sent %llu\n",
		       (double)(t - pr->t0) / 1e9, pps,
		       pps * pr->size * 8 / 1e6, sent);
		fflush(stdout);
	}
	pr->last_t = t;
	pr->last_sent = sent;
	pr->next += 1000000000ULL;
	if (pr->next <= t)
		pr->next = t + 1000000000ULL;
	return false;
}

/* How many frames the next batch may carry, at most c->batch. */
static unsigned int
batch_want(const struct cfg *c, unsigned long long sent)
{
	unsigned long long left;

	if (c->count == 0)
		return c->batch;
	left = c->count - sent;
	return left < c->batch ? (unsigned int)left : c->batch;
}

/* ---- sendmmsg() batches --------------------------------------------------- */

/* Point @msg at the one buffer @base of @len bytes, through @iov. */
static void
mmsg_point(struct mmsghdr *msg, struct iovec *iov, void *base, size_t len)
{
	iov->iov_base = base;
	iov->iov_len = len;
	msg->msg_hdr.msg_iov = iov;
	msg->msg_hdr.msg_iovlen = 1;
}

/*
 * Send msgs[off..want) on @fd: how many went, or -EAGAIN when the kernel
 * had no room (counted in nobufs, after a yield) or the call was
 * interrupted: the caller sends the same again; else -errno.
 */
static int
mmsg_send(int fd, struct mmsghdr *msgs, unsigned int off, unsigned int want,
	  struct result *res)
{
	int n = sendmmsg(fd, msgs + off, want - off, 0);

	if (n >= 0)
		return n;
	if (errno != ENOBUFS && errno != EAGAIN && errno != EINTR)
		return -errno;
	if (errno != EINTR)
		res->nobufs++;
	sched_yield();
	return -EAGAIN;
}

/* ---- AF_PACKET ----------------------------------------------------------- */

static int
send_packet(const struct cfg *c, struct result *res)
{
	struct sockaddr_ll sll = {
		.sll_family = AF_PACKET,
		.sll_ifindex = (int)c->ifindex,
	};
	struct mmsghdr *msgs;
	struct iovec *iov;
	unsigned char *frames;
	struct pacer pacer;
	struct progress pr;
	struct timespec ts;
	unsigned long long sent = 0;
	unsigned int i, want, off = 0;
	int fd, one = 1, sndbuf = 4 << 20, n, rc = 1;

	progress_init(&pr, c);
	/*
	 * Protocol 0: the socket sends only, and no frame of the interface
	 * is ever queued to it.
	 */
	fd = socket(AF_PACKET, SOCK_RAW, 0);
	if (fd < 0) {
		int e = errno;

		fprintf(stderr, PROG ": AF_PACKET socket: %s%s\n", strerror(e),
			e == EPERM || e == EACCES ?
			" (needs CAP_NET_RAW: run as root)" : "");
		return e == EPERM || e == EACCES ? EXIT_PERM : 1;
	}
	if (bind(fd, (struct sockaddr *)&sll, sizeof(sll)) != 0) {
		fprintf(stderr, PROG ": bind to %s: %s\n", c->dev,
			strerror(errno));
		close(fd);
		return 1;
	}
	if (setsockopt(fd, SOL_PACKET, PACKET_QDISC_BYPASS, &one,
		       sizeof(one)) != 0)
		fprintf(stderr, PROG ": PACKET_QDISC_BYPASS: %s (sending through the qdisc)\n",
			strerror(errno));
	if (setsockopt(fd, SOL_SOCKET, SO_SNDBUFFORCE, &sndbuf,
		       sizeof(sndbuf)) != 0)
		(void)setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &sndbuf,
				 sizeof(sndbuf));

	msgs = calloc(c->batch, sizeof(*msgs));
	iov = calloc(c->batch, sizeof(*iov));
	frames = malloc((size_t)c->batch * c->size);
	if (msgs == NULL || iov == NULL || frames == NULL) {
		fprintf(stderr, PROG ": out of memory\n");
		goto out;
	}
	for (i = 0; i < c->batch; i++) {
		build_frame(c, frames + (size_t)i * c->size);
		mmsg_point(&msgs[i], &iov[i], frames + (size_t)i * c->size,
			   c->size);
	}

	pacer_init(&pacer, c->rate, c->batch);
	progress_init(&pr, c);
	/*
	 * msgs[off..off+want) is the batch in flight: what the kernel
	 * refused stays in place and goes again with the next call.
	 */
	while (!stop && (c->count == 0 || sent < c->count)) {
		if (off == 0) {
			want = pacer_take(&pacer, batch_want(c, sent));
			clock_gettime(CLOCK_REALTIME, &ts);
			for (i = 0; i < want; i++)
				stamp_udp(c, frames + (size_t)i * c->size + 34,
					  sent + i, &ts);
		}
		n = mmsg_send(fd, msgs, off, want, res);
		if (n == -EAGAIN)
			continue;
		if (n < 0) {
			fprintf(stderr, PROG ": sendmmsg on %s: %s\n", c->dev,
				strerror(-n));
			goto out;
		}
		sent += (unsigned int)n;
		pacer_spend(&pacer, (unsigned int)n);
		off += (unsigned int)n;
		if (off == want)
			off = 0;
		else
			res->nobufs++;	/* the rest was refused */
		if (progress_tick(&pr, c, pp_tool_now_ns(), sent))
			break;
	}
	rc = 0;
out:
	res->sent = sent;
	res->secs = (double)(pp_tool_now_ns() - pr.t0) / 1e9;
	free(frames);
	free(iov);
	free(msgs);
	close(fd);
	return rc;
}

/* ---- UDP sockets --------------------------------------------------------- */

static int
send_udp(const struct cfg *c, struct result *res)
{
	struct sockaddr_in dst = {
		.sin_family = AF_INET,
		.sin_addr = c->dst_ip,
		.sin_port = htons((uint16_t)c->dport),
	};
	unsigned int plen = c->size - HDR_LEN, i, want, off = 0, cur = 0;
	struct mmsghdr *msgs;
	struct iovec *iov;
	unsigned char *bufs;
	int *fds;
	struct pacer pacer;
	struct progress pr;
	struct timespec ts;
	unsigned long long sent = 0;
	int n, rc = 1, sndbuf = 4 << 20;

	progress_init(&pr, c);
	fds = calloc(c->flows, sizeof(*fds));
	msgs = calloc(c->batch, sizeof(*msgs));
	iov = calloc(c->batch, sizeof(*iov));
	bufs = calloc(c->batch, plen ? plen : 1);
	if (fds == NULL || msgs == NULL || iov == NULL || bufs == NULL) {
		fprintf(stderr, PROG ": out of memory\n");
		free(fds);
		fds = NULL;
		goto out;
	}
	for (i = 0; i < c->flows; i++)
		fds[i] = -1;
	/* One connected socket per flow: its own source port. */
	for (i = 0; i < c->flows; i++) {
		struct sockaddr_in src = {
			.sin_family = AF_INET,
			.sin_addr = c->have_src_ip ? c->src_ip :
				    (struct in_addr){ htonl(INADDR_ANY) },
			.sin_port = htons((uint16_t)(c->have_sport ?
						     c->sport + i : 0)),
		};

		fds[i] = socket(AF_INET, SOCK_DGRAM, 0);
		if (fds[i] < 0) {
			perror(PROG ": socket");
			goto out;
		}
		if (setsockopt(fds[i], SOL_SOCKET, SO_SNDBUFFORCE, &sndbuf,
			       sizeof(sndbuf)) != 0)
			(void)setsockopt(fds[i], SOL_SOCKET, SO_SNDBUF,
					 &sndbuf, sizeof(sndbuf));
		if ((c->have_src_ip || c->have_sport) &&
		    bind(fds[i], (struct sockaddr *)&src, sizeof(src)) != 0) {
			fprintf(stderr, PROG ": bind %s:%u: %s\n",
				inet_ntoa(src.sin_addr),
				ntohs(src.sin_port), strerror(errno));
			goto out;
		}
		if (connect(fds[i], (struct sockaddr *)&dst,
			    sizeof(dst)) != 0) {
			fprintf(stderr, PROG ": connect %s:%u: %s\n",
				inet_ntoa(c->dst_ip), c->dport,
				strerror(errno));
			goto out;
		}
	}
	for (i = 0; i < c->batch; i++) {
		unsigned char *pl = bufs + (size_t)i * plen;

		if (plen >= 16)
			put32(pl, PKTGEN_MAGIC);
		mmsg_point(&msgs[i], &iov[i], pl, plen);
	}

	pacer_init(&pacer, c->rate, c->batch);
	progress_init(&pr, c);
	while (!stop && (c->count == 0 || sent < c->count)) {
		if (off == 0) {
			want = pacer_take(&pacer, batch_want(c, sent));
			clock_gettime(CLOCK_REALTIME, &ts);
			for (i = 0; i < want; i++)
				stamp_payload(c, bufs + (size_t)i * plen,
					      sent + i, &ts);
		}
		n = mmsg_send(fds[cur], msgs, off, want, res);
		if (n == -EAGAIN)
			continue;
		/* An ICMP port unreachable came back: the datagram refused
		 * with it was not sent; send it again. */
		if (n == -ECONNREFUSED) {
			res->refused++;
			continue;
		}
		if (n < 0) {
			fprintf(stderr, PROG ": sendmmsg to %s:%u: %s\n",
				inet_ntoa(c->dst_ip), c->dport, strerror(-n));
			goto out;
		}
		sent += (unsigned int)n;
		pacer_spend(&pacer, (unsigned int)n);
		off += (unsigned int)n;
		if (off == want) {
			off = 0;
			if (++cur == c->flows)
				cur = 0;
		}
		if (progress_tick(&pr, c, pp_tool_now_ns(), sent))
			break;
	}
	rc = 0;
out:
	res->sent = sent;
	res->secs = (double)(pp_tool_now_ns() - pr.t0) / 1e9;
	if (fds != NULL) {
		for (i = 0; i < c->flows; i++)
			if (fds[i] >= 0)
				close(fds[i]);
	}
	free(fds);
	free(bufs);
	free(iov);
	free(msgs);
	return rc;
}

/* ---- AF_XDP TX ----------------------------------------------------------- */

#ifdef PP_PKTGEN_HAVE_XSK
/*
 * A TX-only AF_XDP socket in copy mode: every UMEM frame holds a ready
 * frame, descriptors go on the TX ring in batches and a sendto() kick
 * has the kernel build an skb of each and hand it to the driver (xsk's
 * generic xmit, at most 32 a kick). No XDP program is loaded: sending
 * needs none. A frame counts as sent when it comes back on the
 * completion ring, less those the driver dropped (the kick then fails
 * with EBUSY, one for each); a driver that is busy (EAGAIN) leaves the
 * descriptor on the ring for the next kick.
 */
#define XSK_FRAMES	4096U
#define XSK_FRAME_SIZE	4096U

static int
send_xdp(const struct cfg *c, struct result *res)
{
	struct xsk_umem_config ucfg = {
		.fill_size = 2048,
		.comp_size = XSK_FRAMES,
		.frame_size = XSK_FRAME_SIZE,
		.frame_headroom = 0,
	};
	struct xsk_socket_config scfg = {
		.rx_size = 0,
		.tx_size = XSK_FRAMES,
		.libxdp_flags = XSK_LIBXDP_FLAGS__INHIBIT_PROG_LOAD,
		.bind_flags = XDP_COPY | XDP_USE_NEED_WAKEUP,
	};
	/* Zeroed: libxdp leaves the completion ring's cached indexes as
	 * it found them. */
	struct xsk_ring_prod fill = { 0 }, tx = { 0 };
	struct xsk_ring_cons comp = { 0 };
	struct xsk_umem *umem = NULL;
	struct xsk_socket *xsk = NULL;
	struct xdp_statistics xst;
	socklen_t optlen;
	struct pacer pacer;
	struct progress pr;
	struct timespec ts;
	unsigned long long queued = 0, completed = 0, dropped = 0;
	unsigned int i, want, got, n, frame = 0, outstanding = 0;
	uint32_t idx;
	uint64_t drain_end = 0, t;
	size_t len = (size_t)XSK_FRAMES * XSK_FRAME_SIZE;
	unsigned char *area;
	int err, fd, rc = 1;

	progress_init(&pr, c);
	area = mmap(NULL, len, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (area == MAP_FAILED) {
		perror(PROG ": mmap UMEM");
		return 1;
	}
	for (i = 0; i < XSK_FRAMES; i++)
		build_frame(c, area + (size_t)i * XSK_FRAME_SIZE);
	err = xsk_umem__create(&umem, area, len, &fill, &comp, &ucfg);
	if (err != 0) {
		fprintf(stderr, PROG ": xsk_umem__create: %s%s\n", strerror(-err),
			err == -EPERM ? " (needs CAP_NET_RAW and CAP_IPC_LOCK: run as root)" : "");
		munmap(area, len);
		return err == -EPERM ? EXIT_PERM : 1;
	}
	err = xsk_socket__create(&xsk, c->dev, c->queue, umem, NULL, &tx,
				 &scfg);
	if (err != 0) {
		fprintf(stderr, PROG ": AF_XDP socket on %s queue %u: %s%s\n",
			c->dev, c->queue, strerror(-err),
			err == -EPERM ? " (run as root)" :
			err == -EINVAL ? " (no such queue?)" : "");
		rc = err == -EPERM ? EXIT_PERM : 1;
		goto out;
	}
	fd = xsk_socket__fd(xsk);

	pacer_init(&pacer, c->rate, c->batch);
	progress_init(&pr, c);
	for (;;) {
		n = xsk_ring_cons__peek(&comp, XSK_FRAMES, &idx);
		if (n != 0) {
			xsk_ring_cons__release(&comp, n);
			outstanding -= n;
			completed += n;
		}
		t = pp_tool_now_ns();
		if (stop || (c->count != 0 && queued >= c->count) ||
		    progress_tick(&pr, c, t, completed - dropped)) {
			/* Wait for the frames on the ring, up to a second. */
			if (outstanding == 0)
				break;
			if (drain_end == 0)
				drain_end = t + 1000000000ULL;
			else if (t > drain_end)
				break;
			want = 0;
		} else {
			want = batch_want(c, queued);
			if (want > XSK_FRAMES - outstanding)
				want = XSK_FRAMES - outstanding;
			if (want != 0)
				want = pacer_take(&pacer, want);
		}
		got = want ? xsk_ring_prod__reserve(&tx, want, &idx) : 0;
		if (got != 0) {
			clock_gettime(CLOCK_REALTIME, &ts);
			for (i = 0; i < got; i++) {
				struct xdp_desc *d =
					xsk_ring_prod__tx_desc(&tx, idx + i);

				d->addr = (uint64_t)frame * XSK_FRAME_SIZE;
				d->len = c->size;
				stamp_udp(c, area + d->addr + 34, queued + i,
					  &ts);
				if (++frame == XSK_FRAMES)
					frame = 0;
			}
			xsk_ring_prod__submit(&tx, got);
			queued += got;
			outstanding += got;
			pacer_spend(&pacer, got);
		}
		if (outstanding != 0 &&
		    sendto(fd, NULL, 0, MSG_DONTWAIT, NULL, 0) < 0) {
			if (errno == EBUSY) {
				dropped++;
			} else if (errno == ENOBUFS) {
				res->nobufs++;
				sched_yield();
			} else if (errno != EAGAIN && errno != EINTR) {
				fprintf(stderr, PROG ": AF_XDP kick on %s: %s\n",
					c->dev, strerror(errno));
				goto out;
			}
		}
	}
	rc = 0;
	if (outstanding != 0) {
		fprintf(stderr, PROG ": %u frames still on the TX ring after a second\n",
			outstanding);
		rc = 1;
	}
	optlen = sizeof(xst);
	if (getsockopt(fd, SOL_XDP, XDP_STATISTICS, &xst, &optlen) == 0)
		printf(PROG ": AF_XDP TX: completed %llu, dropped by the driver %llu, tx_invalid_descs %llu, tx_ring_empty_descs %llu\n",
		       completed, dropped,
		       (unsigned long long)xst.tx_invalid_descs,
		       (unsigned long long)xst.tx_ring_empty_descs);
out:
	res->sent = completed - dropped;
	res->secs = (double)(pp_tool_now_ns() - pr.t0) / 1e9;
	if (xsk != NULL)
		xsk_socket__delete(xsk);
	if (umem != NULL)
		xsk_umem__delete(umem);
	munmap(area, len);
	return rc;
}
#else
static int
send_xdp(const struct cfg *c, struct result *res)
{
	(void)c;
	(void)res;
	return EXIT_USAGE;	/* refused in main() */
}
#endif

/* ---- Set-up -------------------------------------------------------------- */

/* The interface's index, MTU and MAC; exit with a reason if it is not. */
static int
open_dev(struct cfg *c, unsigned int *mtu)
{
	struct ifreq ifr;
	int fd;

	if (strlen(c->dev) >= IFNAMSIZ) {
		fprintf(stderr, PROG ": --dev: '%s' is longer than an interface name\n",
			c->dev);
		return EXIT_USAGE;
	}
	c->ifindex = if_nametoindex(c->dev);
	if (c->ifindex == 0) {
		fprintf(stderr, PROG ": no interface '%s' here (%s)\n", c->dev,
			strerror(errno));
		return 1;
	}
	fd = socket(AF_INET, SOCK_DGRAM, 0);
	if (fd < 0) {
		perror(PROG ": socket");
		return 1;
	}
	memset(&ifr, 0, sizeof(ifr));
	strcpy(ifr.ifr_name, c->dev);
	if (ioctl(fd, SIOCGIFMTU, &ifr) != 0) {
		fprintf(stderr, PROG ": %s: MTU: %s\n", c->dev, strerror(errno));
		close(fd);
		return 1;
	}
	*mtu = (unsigned int)ifr.ifr_mtu;
	if (!c->have_src_mac) {
		if (ioctl(fd, SIOCGIFHWADDR, &ifr) != 0) {
			fprintf(stderr, PROG ": %s: MAC address: %s\n", c->dev,
				strerror(errno));
			close(fd);
			return 1;
		}
		if (ifr.ifr_hwaddr.sa_family != 1 /* ARPHRD_ETHER */) {
			fprintf(stderr, PROG ": %s is not an Ethernet interface\n",
				c->dev);
			close(fd);
			return 1;
		}
		memcpy(c->src_mac, ifr.ifr_hwaddr.sa_data, 6);
	}
	if (ioctl(fd, SIOCGIFFLAGS, &ifr) == 0 && !(ifr.ifr_flags & IFF_UP)) {
		fprintf(stderr, PROG ": %s is down\n", c->dev);
		close(fd);
		return 1;
	}
	close(fd);
	return 0;
}

int
main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "mode", required_argument, NULL, 'm' },
		{ "dev", required_argument, NULL, 'i' },
		{ "dst-mac", required_argument, NULL, 'D' },
		{ "src-mac", required_argument, NULL, 'M' },
		{ "src-ip", required_argument, NULL, 'a' },
		{ "dst-ip", required_argument, NULL, 'A' },
		{ "udp-src-port", required_argument, NULL, 'p' },
		{ "udp-dst-port", required_argument, NULL, 'P' },
		{ "flows", required_argument, NULL, 'f' },
		{ "size", required_argument, NULL, 'z' },
		{ "count", required_argument, NULL, 'n' },
		{ "duration", required_argument, NULL, 'd' },
		{ "rate", required_argument, NULL, 'r' },
		{ "batch", required_argument, NULL, 'b' },
		{ "cpu", required_argument, NULL, 'c' },
		{ "queue", required_argument, NULL, 'Q' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct cfg c = {
		.mode = MODE_PACKET,
		.size = MIN_FRAME,
		.flows = 1,
		.batch = 64,
		.cpu = -1,
		.dst_mac = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff },
		.sport = 9,
		.dport = 9,
	};
	struct result res = { 0 };
	struct sigaction sa;
	unsigned int mtu = 0, maxsz;
	double pps;
	int opt, rc;

	inet_pton(AF_INET, "198.18.0.1", &c.src_ip);
	inet_pton(AF_INET, "198.18.0.2", &c.dst_ip);
	while ((opt = getopt_long(argc, argv, "hq", longopts, NULL)) != -1) {
		switch (opt) {
		case 'm':
			if (strcmp(optarg, "packet") == 0) {
				c.mode = MODE_PACKET;
			} else if (strcmp(optarg, "udp") == 0) {
				c.mode = MODE_UDP;
			} else if (strcmp(optarg, "xdp") == 0) {
				c.mode = MODE_XDP;
			} else {
				fprintf(stderr, PROG ": --mode must be packet, xdp or udp\n");
				return EXIT_USAGE;
			}
			break;
		case 'i':
			c.dev = optarg;
			break;
		case 'D':
			if (parse_mac(optarg, c.dst_mac) != 0) {
				fprintf(stderr, PROG ": --dst-mac: '%s' is not a MAC address (xx:xx:xx:xx:xx:xx)\n",
					optarg);
				return EXIT_USAGE;
			}
			break;
		case 'M':
			if (parse_mac(optarg, c.src_mac) != 0) {
				fprintf(stderr, PROG ": --src-mac: '%s' is not a MAC address (xx:xx:xx:xx:xx:xx)\n",
					optarg);
				return EXIT_USAGE;
			}
			c.have_src_mac = true;
			break;
		case 'a':
			parse_ip("--src-ip", optarg, &c.src_ip);
			c.have_src_ip = true;
			break;
		case 'A':
			parse_ip("--dst-ip", optarg, &c.dst_ip);
			break;
		case 'p':
			c.sport = (unsigned int)pp_tool_parse_num(PROG,
					"--udp-src-port", optarg, 1, 65535);
			c.have_sport = true;
			break;
		case 'P':
			c.dport = (unsigned int)pp_tool_parse_num(PROG,
					"--udp-dst-port", optarg, 1, 65535);
			break;
		case 'f':
			c.flows = (unsigned int)pp_tool_parse_num(PROG,
					"--flows", optarg, 1, 65535);
			break;
		case 'z':
			c.size = (unsigned int)pp_tool_parse_num(PROG, "--size",
					optarg, HDR_LEN, MAX_UDP_FRAME);
			break;
		case 'n':
			c.count = pp_tool_parse_num(PROG, "--count", optarg, 0,
						    1ULL << 48);
			break;
		case 'd':
			c.duration = (unsigned int)pp_tool_parse_num(PROG,
					"--duration", optarg, 0, 86400);
			break;
		case 'r':
			c.rate = pp_tool_parse_num(PROG, "--rate", optarg, 0,
						   1ULL << 32);
			break;
		case 'b':
			c.batch = (unsigned int)pp_tool_parse_num(PROG,
					"--batch", optarg, 1, MAX_BATCH);
			break;
		case 'c':
			c.cpu = (int)pp_tool_parse_num(PROG, "--cpu", optarg, 0,
						       CPU_SETSIZE - 1);
			break;
		case 'Q':
			c.queue = (unsigned int)pp_tool_parse_num(PROG,
					"--queue", optarg, 0, 255);
			break;
		case 'q':
			c.quiet = true;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return EXIT_USAGE;
		}
	}
	if (optind != argc) {
		fprintf(stderr, PROG ": unexpected argument '%s'\n",
			argv[optind]);
		usage(stderr);
		return EXIT_USAGE;
	}
#ifndef PP_PKTGEN_HAVE_XSK
	if (c.mode == MODE_XDP) {
		fprintf(stderr, PROG ": --mode xdp: built without libxdp\n");
		return EXIT_USAGE;
	}
#endif
	if (c.mode == MODE_UDP) {
		if (!c.have_sport)
			c.sport = 0;
		if (c.have_sport && c.sport + c.flows - 1 > 65535) {
			fprintf(stderr, PROG ": --udp-src-port %u with --flows %u runs past port 65535\n",
				c.sport, c.flows);
			return EXIT_USAGE;
		}
		if (c.flows > 1024) {
			fprintf(stderr, PROG ": --mode udp: --flows is at most 1024 (a socket each)\n");
			return EXIT_USAGE;
		}
	} else {
		if (c.dev == NULL) {
			fprintf(stderr, PROG ": --dev IFNAME is required with --mode %s\n",
				mode_name[c.mode]);
			return EXIT_USAGE;
		}
		if (c.sport + c.flows - 1 > 65535) {
			fprintf(stderr, PROG ": --udp-src-port %u with --flows %u runs past port 65535\n",
				c.sport, c.flows);
			return EXIT_USAGE;
		}
		if (c.size < MIN_FRAME) {
			fprintf(stderr, PROG ": --size %u is below the Ethernet minimum of %u bytes\n",
				c.size, MIN_FRAME);
			return EXIT_USAGE;
		}
		rc = open_dev(&c, &mtu);
		if (rc != 0)
			return rc;
		maxsz = mtu + 14;
		if (c.mode == MODE_XDP && maxsz > 4096)
			maxsz = 4096;	/* one UMEM frame */
		if (c.size > maxsz) {
			fprintf(stderr, PROG ": --size %u is out of range for %s: %u to %u bytes (MTU %u%s)\n",
				c.size, c.dev, MIN_FRAME, maxsz, mtu,
				c.mode == MODE_XDP ? ", one UMEM frame" : "");
			return EXIT_USAGE;
		}
	}

	if (c.cpu >= 0) {
		rc = pp_tool_pin_cpu(c.cpu);
		if (rc != 0) {
			fprintf(stderr, PROG ": --cpu %d: %s\n", c.cpu,
				strerror(-rc));
			return EXIT_USAGE;
		}
	}
	/* Sleep as long as asked: the pacer's bursts are ~1 ms apart. */
	(void)prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);

	switch (c.mode) {
	case MODE_PACKET:
		rc = send_packet(&c, &res);
		break;
	case MODE_UDP:
		rc = send_udp(&c, &res);
		break;
	default:
		rc = send_xdp(&c, &res);
		break;
	}
	if (rc != 0 && res.sent == 0)
		return rc;

	pps = res.secs > 0 ? (double)res.sent / res.secs : 0.0;
	printf(PROG ": sent %llu packets of %u bytes in %.3f s: %.0f pps, %.1f Mbit/s (mode %s, %s%s%u flows, batch %u, ENOBUFS retries %llu",
	       res.sent, c.size, res.secs, pps, pps * c.size * 8 / 1e6,
	       mode_name[c.mode], c.dev ? c.dev : "", c.dev ? ", " : "",
	       c.flows, c.batch, res.nobufs);
	if (c.mode == MODE_UDP)
		printf(", ECONNREFUSED %llu", res.refused);
	printf(")\n");
	/* The kernel pktgen's result lines, for scripts that read those. */
	printf("Result: %s: %.0f(c0+d0) usec, %llu (%ubyte,0frags)\n",
	       rc == 0 ? "OK" : "ERROR", res.secs * 1e6, res.sent, c.size);
	printf("  %.0fpps %.0fMb/sec (%.0fbps) errors: %llu\n", pps,
	       pps * c.size * 8 / 1e6, pps * c.size * 8, res.nobufs);
	return rc;
}
