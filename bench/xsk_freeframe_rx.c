/* SPDX-License-Identifier: MIT */
/*
 * Copyright (c) 2026 The pagepool authors
 *
 * xsk_freeframe_rx: an AF_XDP receiver written the way programs do it
 * without a pool, the baseline pagepool's AF_XDP backend is measured
 * against (issue 10). Like the xdpsock sample and the AF_XDP examples
 * that followed it, it keeps the UMEM's frames on a free-frame stack of
 * its own: frames start on the stack and in the fill ring; each received
 * descriptor is read (its Ethernet header, as xdp_rxq_info --read does)
 * and its frame pushed back on the stack, the XDP_DROP of this receiver;
 * the fill ring is topped up from the stack after every batch.
 *
 * The socket is made with libxdp (xsk_umem__create, xsk_socket__create,
 * whose default program redirects the queue to the socket) in copy mode,
 * bound in XDP_DRV (native) mode or, with -S, XDP_SKB (generic) mode.
 *
 * It reports the packets received and their rate (over the span from the
 * first to the last packet, so a sender started later does not count),
 * the CPU time of the receiving thread per packet (getrusage
 * RUSAGE_THREAD; meaningful with --poll, where the thread sleeps in
 * poll() when the ring is empty instead of spinning), and the kernel's
 * XDP_STATISTICS drop counters. In copy mode the kernel copies each frame
 * into the UMEM in the softirq that runs XDP, which is not this thread:
 * the thread's time is the user-space side of the ring and its syscalls.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <linux/if_link.h>
#include <net/if.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <bpf/libbpf.h>
#include <stdarg.h>
#include <xdp/libxdp.h>
#include <xdp/xsk.h>

#include "cli.h"
#include "cpu.h"

#define PROG		"xsk_freeframe_rx"
#define FRAME_SIZE	XSK_UMEM__DEFAULT_FRAME_SIZE	/* 4096 */

struct rx_cfg {
	const char *dev;
	unsigned int queue;
	bool skb_mode;
	bool poll_mode;
	bool quiet;
	unsigned int frames;
	unsigned int ring;		/* fill and RX ring entries */
	unsigned int batch;
	unsigned long long count;	/* stop after; 0: no limit */
	unsigned int duration;		/* s; 0: no limit */
	int cpu;
};

/*
 * The receiver's state: the UMEM and its rings, the socket and its RX
 * ring, and the free-frame stack. One thread owns all of it.
 */
struct rx_sock {
	struct xsk_ring_prod fill;
	struct xsk_ring_cons comp;
	struct xsk_ring_cons rx;
	struct xsk_umem *umem;
	struct xsk_socket *xsk;
	unsigned char *area;
	size_t area_len;
	uint64_t *free_frames;		/* the stack */
	unsigned int nr_free;
};

static volatile sig_atomic_t stop;
static volatile unsigned long sink;

static void
on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

/* libbpf and libxdp: warnings only (not their notes on ELF sections). */
static int
bpf_print_warn(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	return level == LIBBPF_WARN ? vfprintf(stderr, fmt, ap) : 0;
}

static int
xdp_print_warn(enum libxdp_print_level level, const char *fmt, va_list ap)
{
	return level == LIBXDP_WARN ? vfprintf(stderr, fmt, ap) : 0;
}

static uint64_t
thread_cpu_ns(void)
{
	struct rusage ru;

	if (getrusage(RUSAGE_THREAD, &ru) != 0)
		return 0;
	return ((uint64_t)ru.ru_utime.tv_sec + (uint64_t)ru.ru_stime.tv_sec) *
		1000000000ULL +
	       ((uint64_t)ru.ru_utime.tv_usec + (uint64_t)ru.ru_stime.tv_usec) *
		1000ULL;
}

static void
usage(FILE *out)
{
	fprintf(out,
		"usage: " PROG " -i IFNAME [OPTS]\n\n"
		"    -i, --interface IFNAME  interface to receive on\n"
		"    -q, --queue N           queue (0)\n"
		"    -S, --xdp-skb           XDP_SKB (generic) mode\n"
		"    -N, --xdp-native        XDP_DRV (native) mode, the default\n"
		"    -p, --poll              sleep in poll() while the ring is empty\n"
		"    -n, --count N           stop after N packets (0: no limit)\n"
		"    -d, --duration SEC      stop after SEC seconds (0: at SIGINT)\n"
		"    -f, --frames N          UMEM frames of 4096 bytes (4096)\n"
		"    -r, --ring N            fill and RX ring entries (2048)\n"
		"    -b, --batch N           descriptors taken per batch (64)\n"
		"    -c, --cpu N             pin to CPU N\n"
		"        --quiet             no per-second lines\n"
		"    -h, --help              this text\n"
		"\nExit: 0 done, 1 failed, 2 bad usage, 3 no permission (run as root).\n");
}

/* Pop up to @n frames off the stack into the fill ring. */
static void
refill(struct rx_sock *s, unsigned int n)
{
	uint32_t idx;
	unsigned int i, got;

	if (n > s->nr_free)
		n = s->nr_free;
	/* Reserving is all or nothing: ask for what the ring has room for. */
	n = xsk_prod_nb_free(&s->fill, n) < n ? xsk_prod_nb_free(&s->fill, n) : n;
	if (n == 0)
		return;
	got = xsk_ring_prod__reserve(&s->fill, n, &idx);
	for (i = 0; i < got; i++)
		*xsk_ring_prod__fill_addr(&s->fill, idx + i) =
			s->free_frames[--s->nr_free];
	xsk_ring_prod__submit(&s->fill, got);
}

static int
rx_open(const struct rx_cfg *c, struct rx_sock *s)
{
	struct xsk_umem_config ucfg = {
		.fill_size = c->ring,
		.comp_size = XSK_RING_CONS__DEFAULT_NUM_DESCS,
		.frame_size = FRAME_SIZE,
		.frame_headroom = XSK_UMEM__DEFAULT_FRAME_HEADROOM,
	};
	struct xsk_socket_config scfg = {
		.rx_size = c->ring,
		.tx_size = 0,
		.xdp_flags = c->skb_mode ? XDP_FLAGS_SKB_MODE :
					   XDP_FLAGS_DRV_MODE,
		.bind_flags = XDP_COPY | XDP_USE_NEED_WAKEUP,
	};
	unsigned int i;
	int err;

	s->area_len = (size_t)c->frames * FRAME_SIZE;
	s->area = mmap(NULL, s->area_len, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
	if (s->area == MAP_FAILED) {
		s->area = NULL;
		perror(PROG ": mmap UMEM");
		return 1;
	}
	s->free_frames = calloc(c->frames, sizeof(*s->free_frames));
	if (s->free_frames == NULL) {
		fprintf(stderr, PROG ": out of memory\n");
		return 1;
	}
	for (i = 0; i < c->frames; i++)
		s->free_frames[i] = (uint64_t)(c->frames - 1 - i) * FRAME_SIZE;
	s->nr_free = c->frames;

	err = xsk_umem__create(&s->umem, s->area, s->area_len, &s->fill,
			       &s->comp, &ucfg);
	if (err != 0) {
		s->umem = NULL;
		fprintf(stderr, PROG ": xsk_umem__create: %s%s\n",
			strerror(-err),
			err == -EPERM ? " (run as root)" : "");
		return err == -EPERM ? 3 : 1;
	}
	err = xsk_socket__create(&s->xsk, c->dev, c->queue, s->umem, &s->rx,
				 NULL, &scfg);
	if (err != 0) {
		s->xsk = NULL;
		fprintf(stderr, PROG ": AF_XDP socket on %s queue %u (%s mode, copy): %s%s\n",
			c->dev, c->queue, c->skb_mode ? "skb" : "native",
			strerror(-err),
			err == -EPERM ? " (run as root; bpffs mounted?)" :
			err == -EBUSY ? " (another XDP program on it?)" : "");
		return err == -EPERM ? 3 : 1;
	}
	refill(s, c->ring);
	return 0;
}

static void
rx_close(struct rx_sock *s)
{
	if (s->xsk != NULL)
		xsk_socket__delete(s->xsk);
	if (s->umem != NULL)
		xsk_umem__delete(s->umem);
	if (s->area != NULL)
		munmap(s->area, s->area_len);
	free(s->free_frames);
}

int
main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "interface", required_argument, NULL, 'i' },
		{ "queue", required_argument, NULL, 'q' },
		{ "xdp-skb", no_argument, NULL, 'S' },
		{ "xdp-native", no_argument, NULL, 'N' },
		{ "poll", no_argument, NULL, 'p' },
		{ "count", required_argument, NULL, 'n' },
		{ "duration", required_argument, NULL, 'd' },
		{ "frames", required_argument, NULL, 'f' },
		{ "ring", required_argument, NULL, 'r' },
		{ "batch", required_argument, NULL, 'b' },
		{ "cpu", required_argument, NULL, 'c' },
		{ "quiet", no_argument, NULL, 'Q' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct rx_cfg c = {
		.frames = 4096,
		.ring = XSK_RING_PROD__DEFAULT_NUM_DESCS,
		.batch = 64,
		.cpu = -1,
	};
	struct rx_sock s;
	struct xdp_statistics xst = { 0 };
	struct sigaction sa;
	struct pollfd pfd;
	socklen_t optlen = sizeof(xst);
	uint64_t t0, t, first = 0, last = 0, next, cpu0, cpu1, last_rx = 0;
	unsigned long long rcvd = 0, polls = 0, wakeups = 0;
	unsigned int i, n;
	unsigned long sum = 0;
	uint32_t idx;
	double span, pps;
	int opt, rc;

	while ((opt = getopt_long(argc, argv, "i:q:SNpn:d:f:r:b:c:h", longopts,
				  NULL)) != -1) {
		switch (opt) {
		case 'i':
			c.dev = optarg;
			break;
		case 'q':
			c.queue = (unsigned int)pp_tool_parse_num(PROG,
					"--queue", optarg, 0, 255);
			break;
		case 'S':
			c.skb_mode = true;
			break;
		case 'N':
			c.skb_mode = false;
			break;
		case 'p':
			c.poll_mode = true;
			break;
		case 'n':
			c.count = pp_tool_parse_num(PROG, "--count", optarg, 0,
						    1ULL << 48);
			break;
		case 'd':
			c.duration = (unsigned int)pp_tool_parse_num(PROG,
					"--duration", optarg, 0, 86400);
			break;
		case 'f':
			c.frames = (unsigned int)pp_tool_parse_num(PROG,
					"--frames", optarg, 64, 1U << 20);
			break;
		case 'r':
			c.ring = (unsigned int)pp_tool_parse_num(PROG, "--ring",
					optarg, 64, 1U << 16);
			if (c.ring & (c.ring - 1)) {
				fprintf(stderr, PROG ": --ring must be a power of two\n");
				return 2;
			}
			break;
		case 'b':
			c.batch = (unsigned int)pp_tool_parse_num(PROG,
					"--batch", optarg, 1, 1024);
			break;
		case 'c':
			c.cpu = (int)pp_tool_parse_num(PROG, "--cpu", optarg, 0,
						       CPU_SETSIZE - 1);
			break;
		case 'Q':
			c.quiet = true;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind != argc || c.dev == NULL) {
		fprintf(stderr, PROG ": %s\n", c.dev == NULL ?
			"-i IFNAME is required" : "unexpected argument");
		usage(stderr);
		return 2;
	}
	if (c.frames < c.ring) {
		fprintf(stderr, PROG ": --frames %u is fewer than the fill ring's %u\n",
			c.frames, c.ring);
		return 2;
	}
	if (if_nametoindex(c.dev) == 0) {
		fprintf(stderr, PROG ": no interface '%s' here\n", c.dev);
		return 1;
	}
	if (c.cpu >= 0) {
		rc = pp_tool_pin_cpu(c.cpu);
		if (rc != 0) {
			fprintf(stderr, PROG ": --cpu %d: %s\n", c.cpu,
				strerror(-rc));
			return 2;
		}
	}
	/* One program per interface here: no dispatcher attempt. */
	setenv("LIBXDP_SKIP_DISPATCHER", "1", 0);
	libbpf_set_print(bpf_print_warn);
	libxdp_set_print(xdp_print_warn);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);

	memset(&s, 0, sizeof(s));	/* libxdp leaves cached indexes */
	rc = rx_open(&c, &s);
	if (rc != 0) {
		rx_close(&s);
		return rc;
	}
	pfd.fd = xsk_socket__fd(s.xsk);
	pfd.events = POLLIN;
	printf(PROG ": receiving on %s queue %u, %s mode, copy, %s; %u frames, rings %u\n",
	       c.dev, c.queue, c.skb_mode ? "skb" : "native",
	       c.poll_mode ? "poll()" : "busy polling", c.frames, c.ring);
	fflush(stdout);

	t0 = pp_tool_now_ns();
	next = t0 + 1000000000ULL;
	cpu0 = thread_cpu_ns();
	while (!stop && (c.count == 0 || rcvd < c.count)) {
		n = xsk_ring_cons__peek(&s.rx, c.batch, &idx);
		if (n == 0) {
			t = pp_tool_now_ns();
			if (c.poll_mode) {
				/* Sleep until frames come, a tick at most
				 * (SIGINT, --duration, the per-second line). */
				polls++;
				(void)poll(&pfd, 1, 100);
			} else if (xsk_ring_prod__needs_wakeup(&s.fill)) {
				wakeups++;
				(void)recvfrom(pfd.fd, NULL, 0, MSG_DONTWAIT,
					       NULL, NULL);
			}
		} else {
			for (i = 0; i < n; i++) {
				const struct xdp_desc *d =
					xsk_ring_cons__rx_desc(&s.rx, idx + i);
				const unsigned char *p =
					xsk_umem__get_data(s.area, d->addr);

				/* Read the Ethernet header's protocol. */
				sum += (unsigned long)(p[12] << 8 | p[13]);
				s.free_frames[s.nr_free++] = d->addr &
					~(uint64_t)(FRAME_SIZE - 1);
			}
			xsk_ring_cons__release(&s.rx, n);
			rcvd += n;
			t = pp_tool_now_ns();
			if (first == 0)
				first = t;
			last = t;
			refill(&s, s.nr_free);
			if (xsk_ring_prod__needs_wakeup(&s.fill)) {
				wakeups++;
				(void)recvfrom(pfd.fd, NULL, 0, MSG_DONTWAIT,
					       NULL, NULL);
			}
		}
		if (t >= next) {
			if (!c.quiet) {
				printf(PROG ": %6.3f s: %10llu pps  received %llu\n",
				       (double)(t - t0) / 1e9, rcvd - last_rx,
				       rcvd);
				fflush(stdout);
			}
			last_rx = rcvd;
			next += 1000000000ULL;
			if (next <= t)
				next = t + 1000000000ULL;
		}
		if (c.duration != 0 &&
		    t - t0 >= (uint64_t)c.duration * 1000000000ULL)
			break;
	}
	cpu1 = thread_cpu_ns();
	if (getsockopt(pfd.fd, SOL_XDP, XDP_STATISTICS, &xst, &optlen) != 0)
		fprintf(stderr, PROG ": XDP_STATISTICS: %s\n", strerror(errno));

	span = rcvd > 1 ? (double)(last - first) / 1e9 : 0.0;
	pps = span > 0 ? (double)(rcvd - 1) / span : 0.0;
	printf(PROG ": received %llu packets in %.3f s: %.0f pps, cpu %.1f ns/packet (%.3f s on the thread, %llu polls, %llu wakeups)\n",
	       rcvd, span, pps,
	       rcvd ? (double)(cpu1 - cpu0) / (double)rcvd : 0.0,
	       (double)(cpu1 - cpu0) / 1e9, polls, wakeups);
	printf(PROG ": XDP_STATISTICS rx_dropped %llu rx_ring_full %llu rx_fill_ring_empty_descs %llu rx_invalid_descs %llu\n",
	       (unsigned long long)xst.rx_dropped,
	       (unsigned long long)xst.rx_ring_full,
	       (unsigned long long)xst.rx_fill_ring_empty_descs,
	       (unsigned long long)xst.rx_invalid_descs);
	sink = sum;	/* keeps the reads */
	rx_close(&s);
	return 0;
}
