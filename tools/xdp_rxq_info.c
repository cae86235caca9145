/* SPDX-License-Identifier: MIT */
/*
 * Copyright (c) 2026 The pagepool authors
 *
 * xdp_rxq_info: the kernel's samples/bpf/xdp_rxq_info (removed from the
 * tree in 6.x) on pagepool's software NIC, with its options and its output
 * lines, as seed 001 ran it on the fec driver:
 *
 *   Running XDP on dev:sim0 (ifindex:2) action:XDP_DROP options:read
 *   XDP stats       CPU     pps         issue-pps
 *   XDP-RX CPU      0       466,553     0
 *   XDP-RX CPU      total   466,553
 *
 * The program is the sample's, as a C function: it counts every packet per
 * CPU and per RX queue, reads the Ethernet header (--read) or swaps the MAC
 * addresses (--swapmac, implied by XDP_TX), and returns the configured
 * action. The device is a netsim NIC (sim0, sim1, ...) created by the
 * tool, its wire inline in the polling thread: each loop iteration lets
 * the wire fill up to 64 posted buffers and then runs one NAPI poll, so
 * the numbers are the per-core cost of the RX path. With --queues N above
 * 1 every queue gets a NAPI thread of its own (threaded NAPI, the
 * kernel's /sys/class/net/DEV/threaded; --threaded 0 turns it off),
 * pinned round-robin over the CPUs the process may use, the inline wire
 * running inside each poll; the program counts per CPU as the sample's
 * per-CPU map does, so one "XDP-RX CPU n" line appears per CPU that saw
 * packets. Our options:
 * --no-recycle (release pages from the pool before the skb is built: the
 * seed's page_pool_release_page column), --duration, --iommu (the IOMMU
 * model instead of the identity DMA device), --bounce (the DMA device in
 * bounce mode with poisoning, as swiotlb=force with DMA-API debugging: a
 * driver that syncs a wrong range shows stale bytes), --size and --flows
 * (the wire's frames), --pcap FILE (the wire replays a classic pcap
 * file's frames instead), --wire thread (the wire on its own thread, the
 * NIC working while the CPU polls).
 *
 * Any other device name is a real interface (a veth end in a network
 * namespace, say): the tool opens an AF_XDP socket on its queue 0 in copy
 * mode (the AF_XDP backend, built with libxdp), the kernel's program
 * bound natively or, with -S, in generic (SKB) mode, and our program runs
 * on every frame the socket receives, with the same output. At exit it
 * prints the kernel's XDP_STATISTICS drop counters; --sleep makes the idle
 * poll loop sleep in poll() instead of spinning, and --cpu-time prints the
 * polling thread's CPU time per packet (getrusage(RUSAGE_THREAD)).
 *
 * At exit the device is destroyed and the tool checks that every page came
 * back (each queue's page_pool is freed at once), that the DMA device saw
 * no fault or DMA-API debug error and holds no mapping, that every frame
 * is accounted for and, with --bounce, that the program never read a
 * poisoned (never synced) byte; otherwise it reports and exits 1.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include <pagepool/netsim.h>
#include <pagepool/page_pool.h>

#include "cli.h"
#include "cpu.h"
#include "netdev_tool.h"
#ifdef PP_HAVE_AFXDP
#include "drivers/net/xsk.h"
#endif

#define EXIT_OK			0
#define EXIT_FAIL		1
#define EXIT_FAIL_OPTION	2
#define EXIT_FAIL_XDP		3

#define MAX_CPUS	256
#define MAX_RXQS	64

enum cfg_options_flags {
	NO_TOUCH = 0x0U,
	READ_MEM = 0x1U,
	SWAP_MAC = 0x2U,
};

/*
 * The sample's per-CPU maps (stats_global_map, rx_queue_index_map): one
 * counter per RX queue and CPU, so each has one writer, the thread that
 * polls the queue (one NAPI per queue, whichever thread it runs on), and
 * the printer reads them while they run. The last row counts frames from
 * a queue index outside the map, which any thread may write.
 */
#define RXQ_OTHER	MAX_RXQS

struct prog_counts {
	uint64_t rx[MAX_RXQS + 1][MAX_CPUS];
	uint64_t issue[MAX_CPUS];
};

struct prog_state {
	uint32_t action;
	uint32_t options;
	bool check_stale;
	uint64_t stale;			/* --bounce: frames with poison */
	uint16_t sink;
	struct prog_counts c;
};

static const char *const action_names[XDP_ACTION_MAX] = {
	[XDP_ABORTED] = "XDP_ABORTED",
	[XDP_DROP] = "XDP_DROP",
	[XDP_PASS] = "XDP_PASS",
	[XDP_TX] = "XDP_TX",
	[XDP_REDIRECT] = "XDP_REDIRECT",
};


/* Frames of a pcap file, for netsim_wire_replay(). */
struct pcap_frames {
	unsigned char *buf;
	const void **frames;
	unsigned int *lens;
	unsigned int n;
};

static uint32_t
pcap_u32(const unsigned char *b, bool swap)
{
	uint32_t v;

	memcpy(&v, b, 4);
	return swap ? __builtin_bswap32(v) : v;
}

/*
 * Read a classic pcap file (not pcapng): the 24-byte global header with
 * the magic of microsecond or nanosecond timestamps in either byte order,
 * version 2.x, link type Ethernet (1); then records of a 16-byte header
 * and the captured bytes. Anything else is refused with a message naming
 * the file and what is wrong, so a bad file never reaches the wire.
 * Return: 0, or -1 after the message.
 */
static int
pcap_load(const char *path, struct pcap_frames *pf)
{
	unsigned char gh[24], rh[16];
	size_t cap = 0, used = 0, ncap = 0;
	uint32_t magic, linktype, incl;
	bool swap;
	FILE *f;
	int rc = -1;

	memset(pf, 0, sizeof(*pf));
	f = fopen(path, "rb");
	if (f == NULL) {
		fprintf(stderr, "ERR: --pcap %s: %s\n", path, strerror(errno));
		return -1;
	}
	if (fread(gh, 1, sizeof(gh), f) != sizeof(gh)) {
		fprintf(stderr, "ERR: --pcap %s: too short for a pcap header\n",
			path);
		goto out;
	}
	memcpy(&magic, gh, 4);
	if (magic == 0xa1b2c3d4u || magic == 0xa1b23c4du) {
		swap = false;
	} else if (magic == 0xd4c3b2a1u || magic == 0x4d3cb2a1u) {
		swap = true;
	} else {
		fprintf(stderr,
			"ERR: --pcap %s: not a classic pcap file (magic 0x%08x; pcapng is not read)\n",
			path, magic);
		goto out;
	}
	if ((swap ? (gh[4] << 8 | gh[5]) : (gh[5] << 8 | gh[4])) != 2) {
		fprintf(stderr, "ERR: --pcap %s: pcap version is not 2.x\n",
			path);
		goto out;
	}
	linktype = pcap_u32(gh + 20, swap) & 0x0fffffffu;
	if (linktype != 1) {
		fprintf(stderr,
			"ERR: --pcap %s: link type %u, not Ethernet (1)\n",
			path, linktype);
		goto out;
	}
	for (;;) {
		size_t got = fread(rh, 1, sizeof(rh), f);

		if (got == 0 && feof(f))
			break;
		if (got != sizeof(rh)) {
			fprintf(stderr,
				"ERR: --pcap %s: frame %u: truncated record header\n",
				path, pf->n + 1);
			goto out;
		}
		incl = pcap_u32(rh + 8, swap);
		if (incl > NETSIM_REPLAY_MAX_LEN) {
			fprintf(stderr,
				"ERR: --pcap %s: frame %u: %u bytes captured, more than %u (a corrupt file?)\n",
				path, pf->n + 1, incl, NETSIM_REPLAY_MAX_LEN);
			goto out;
		}
		if (used + incl > cap) {
			unsigned char *nb;

			cap = (used + incl) * 2 + 4096;
			nb = realloc(pf->buf, cap);
			if (nb == NULL)
				goto oom;
			pf->buf = nb;
		}
		if (pf->n == ncap) {
			unsigned int *nl;

			ncap = ncap * 2 + 64;
			if (ncap > UINT32_MAX / 2)
				goto oom;
			nl = realloc(pf->lens, ncap * sizeof(*nl));
			if (nl == NULL)
				goto oom;
			pf->lens = nl;
		}
		if (fread(pf->buf + used, 1, incl, f) != incl) {
			fprintf(stderr,
				"ERR: --pcap %s: frame %u: truncated (%u bytes announced)\n",
				path, pf->n + 1, incl);
			goto out;
		}
		pf->lens[pf->n++] = incl;
		used += incl;
	}
	if (ferror(f)) {
		fprintf(stderr, "ERR: --pcap %s: %s\n", path, strerror(errno));
		goto out;
	}
	if (pf->n == 0) {
		fprintf(stderr, "ERR: --pcap %s: no frames\n", path);
		goto out;
	}
	pf->frames = calloc(pf->n, sizeof(*pf->frames));
	if (pf->frames == NULL)
		goto oom;
	for (used = 0, ncap = 0; ncap < pf->n; ncap++) {
		pf->frames[ncap] = pf->buf + used;
		used += pf->lens[ncap];
	}
	rc = 0;
	goto out;
oom:
	fprintf(stderr, "ERR: --pcap %s: out of memory\n", path);
out:
	fclose(f);
	if (rc != 0) {
		/* A refused file leaves nothing allocated behind. */
		free(pf->buf);
		free(pf->frames);
		free(pf->lens);
		memset(pf, 0, sizeof(*pf));
	}
	return rc;
}

static void
pcap_free(struct pcap_frames *pf)
{
	free(pf->buf);
	free(pf->frames);
	free(pf->lens);
	memset(pf, 0, sizeof(*pf));
}

/*
 * Under --bounce the CPU's copy of every byte the device owns is
 * PP_DMA_POISON until the driver syncs it for the CPU; a run of eight
 * poison bytes in a frame means the driver (or the pool) synced the wrong
 * range. Eight, because single poison bytes occur in real frames
 * (checksums, ports); eight in a row do not in the wire's frames.
 */
static bool
frame_has_poison(const unsigned char *p, const unsigned char *end)
{
	unsigned int run = 0;

	for (; p < end; p++) {
		run = *p == PP_DMA_POISON ? run + 1 : 0;
		if (run == 8)
			return true;
	}
	return false;
}

/*
 * The CPU the program runs on, as the per-CPU map sees it, kept per
 * thread: asked once by each NAPI thread (pinned, it never moves) and
 * again after each report by the single polling thread of --threaded 0,
 * which may move (the report loop, on that thread, resets it).
 */
static __thread int prog_cpu = -1;

static uint32_t rxq_info_prog(struct xdp_md *ctx, void *priv);

/* Out of line and a tail call, so the program's fast path saves no
 * registers. */
static __attribute__((noinline, cold)) uint32_t
rxq_info_prog_cpu(struct xdp_md *ctx, void *priv)
{
	int cpu = sched_getcpu();

	prog_cpu = cpu < 0 || cpu >= MAX_CPUS ? 0 : cpu;
	return rxq_info_prog(ctx, priv);
}

static uint32_t
rxq_info_prog(struct xdp_md *ctx, void *priv)
{
	struct prog_state *st = priv;
	unsigned char *eth = ctx->data, tmp[ETH_ALEN];
	unsigned int q = ctx->rx_queue_index;
	int cpu = prog_cpu;

	if (PP_UNLIKELY(cpu < 0))
		return rxq_info_prog_cpu(ctx, priv);
	if (q >= MAX_RXQS) {
		/* Any thread: atomic adds; the printer's relaxed loads in
		 * counts_snapshot() read them. */
		pp_fetch_add_relaxed(&st->c.rx[RXQ_OTHER][cpu], 1);
		pp_fetch_add_relaxed(&st->c.issue[cpu], 1);
		return st->action;
	}
	/* One writer, the queue's poller: a relaxed store of the
	 * incremented value (a plain add's cost); pairs with the relaxed
	 * load in counts_snapshot(), with no order needed. */
	pp_store_relaxed(&st->c.rx[q][cpu], pp_load_relaxed(&st->c.rx[q][cpu]) + 1);
	/* Any poller; read after the pollers are joined. */
	if (st->check_stale && frame_has_poison(eth, ctx->data_end))
		pp_fetch_add_relaxed(&st->stale, 1);
	if (st->options & (READ_MEM | SWAP_MAC)) {
		if ((unsigned char *)ctx->data_end < eth + ETH_HLEN)
			return XDP_ABORTED;
		if (st->options & SWAP_MAC) {
			memcpy(tmp, eth, ETH_ALEN);
			memcpy(eth, eth + ETH_ALEN, ETH_ALEN);
			memcpy(eth + ETH_ALEN, tmp, ETH_ALEN);
		} else {
			/* Every poller writes it, nobody reads it: only a
			 * load the compiler must keep. */
			pp_store_relaxed(&st->sink,
					 (uint16_t)(eth[12] << 8 | eth[13]));
		}
	}
	return st->action;
}

static void
usage(const char *prog)
{
	printf("\nDOCUMENTATION:\n"
	       " XDP RX-queue info extract example on pagepool's software NIC\n\n"
	       "Usage: %s [options]\n\n"
	       "Options:\n"
	       " --dev, -d NAME        device (sim0, sim1, ...)\n"
	       " --skb-mode, -S        use skb-mode (generic XDP)\n"
	       " --sec, -s SEC         interval between measurements (2)\n"
	       " --no-separators, -z   no thousands separators\n"
	       " --action, --act, -a   XDP action (XDP_PASS)\n"
	       " --readmem, --read, -r read the packet (Ethernet header)\n"
	       " --swapmac, -m         swap MAC addresses (implied by XDP_TX)\n"
	       " --force, -F           replace an attached program\n"
	       " --no-recycle          release pages before building skbs\n"
	       " --duration SEC        stop after SEC seconds (0: at SIGINT)\n"
	       " --iommu               DMA through the IOMMU model\n"
	       " --coherent            a cache-coherent DMA device (no syncs)\n"
	       " --bounce              DMA device in bounce mode, poisoning\n"
	       "                       unsynced bytes (with or without --iommu)\n"
	       " --size BYTES          frame size on the wire (64)\n"
	       " --flows N             UDP flows on the wire (1)\n"
	       " --pcap FILE           replay a classic pcap file's frames\n"
	       "                       instead of generating them\n"
	       " --queues N            RX queues, flows spread by RSS (1)\n"
	       " --ring N              RX/TX descriptors per queue, a power\n"
	       "                       of two, 16 to 4096 (256), as\n"
	       "                       ethtool -G sets a NIC's rings\n"
	       " --wire inline|thread  the wire in the polling thread (inline,\n"
	       "                       the default) or on its own thread\n"
	       " --threaded 0|1        a NAPI thread per queue, pinned\n"
	       "                       round-robin over the allowed CPUs\n"
	       "                       (/sys/class/net/DEV/threaded; default\n"
	       "                       1 with --queues above 1, else 0)\n"
	       " --sleep               AF_XDP: sleep in poll() when idle\n"
	       " --cpu-time            print the polling thread's CPU time\n"
	       "                       per packet at exit\n"
	       " --help, -h            this text\n\n"
	       "A device not named sim<N> is a real interface: an AF_XDP\n"
	       "socket on its queue 0 (copy mode; -S binds the kernel's\n"
	       "program in SKB mode, else native).\n\n", prog);
}

static int
parse_xdp_action(const char *s)
{
	int i;

	for (i = 0; i < XDP_ACTION_MAX; i++)
		if (strcmp(s, action_names[i]) == 0)
			return i;
	return -1;
}

static void
list_xdp_actions(void)
{
	int i;

	printf("Available XDP --action <options>\n");
	for (i = 0; i < XDP_ACTION_MAX; i++)
		printf("\t%s\n", action_names[i]);
	printf("\n");
}

static const char *
options2str(uint32_t flags)
{
	if (flags == NO_TOUCH)
		return "no_touch";
	if (flags & SWAP_MAC)
		return "swapmac";
	return "read";
}

/* The sample's "%'-11.0f": thousands separators unless -z, left aligned. */
static void
fmt_num(char *buf, size_t len, double v, bool sep)
{
	char raw[32], out[48];
	int n, i, o = 0;

	snprintf(raw, sizeof(raw), "%.0f", v);
	if (!sep) {
		snprintf(buf, len, "%s", raw);
		return;
	}
	n = (int)strlen(raw);
	for (i = 0; i < n; i++) {
		out[o++] = raw[i];
		if (i < n - 1 && (n - 1 - i) % 3 == 0)
			out[o++] = ',';
	}
	out[o] = '\0';
	snprintf(buf, len, "%s", out);
}

/* Read the live counters into @snap: relaxed loads, each pairing with
 * its writer's relaxed store or add in rxq_info_prog() (counters order
 * nothing; each load is whole). */
static void
counts_snapshot(struct prog_counts *snap, const struct prog_state *st,
		unsigned int nq)
{
	unsigned int q, i;

	for (q = 0; q <= MAX_RXQS; q++) {
		if (q >= nq && q != RXQ_OTHER)
			continue;
		for (i = 0; i < MAX_CPUS; i++)
			snap->rx[q][i] = pp_load_relaxed(&st->c.rx[q][i]);
	}
	for (i = 0; i < MAX_CPUS; i++)
		snap->issue[i] = pp_load_relaxed(&st->c.issue[i]);
}

/* Frames the program saw on @cpu (every queue), or in all when @cpu < 0. */
static uint64_t
counts_rx(const struct prog_counts *c, int cpu, unsigned int nq)
{
	uint64_t sum = 0;
	unsigned int q;
	int i;

	for (q = 0; q <= MAX_RXQS; q++) {
		if (q >= nq && q != RXQ_OTHER)
			continue;
		for (i = 0; i < MAX_CPUS; i++)
			if (cpu < 0 || i == cpu)
				sum += c->rx[q][i];
	}
	return sum;
}

static void
stats_print(const struct net_device *dev, int ifindex, const char *action,
	    uint32_t options, const struct prog_counts *cur,
	    const struct prog_counts *prev, double period, bool sep,
	    unsigned int nq)
{
	char a[48], b[48];
	double pps, err, sum = 0, esum = 0;
	int i, q;

	printf("\nRunning XDP on dev:%s (ifindex:%d) action:%s options:%s\n",
	       dev->name, ifindex, action, options2str(options));
	printf("%-15s %-7s %-11s %-11s\n", "XDP stats", "CPU", "pps",
	       "issue-pps");
	for (i = 0; i < MAX_CPUS; i++) {
		pps = (double)(counts_rx(cur, i, nq) - counts_rx(prev, i, nq)) /
		      period;
		err = (double)(cur->issue[i] - prev->issue[i]) / period;
		sum += pps;
		esum += err;
		if (pps <= 0 && err <= 0)
			continue;
		fmt_num(a, sizeof(a), pps, sep);
		fmt_num(b, sizeof(b), err, sep);
		printf("%-15s %-7d %-11s %-10s\n", "XDP-RX CPU", i, a, b);
	}
	fmt_num(a, sizeof(a), sum, sep);
	printf("%-15s %-7s %-11s\n", "XDP-RX CPU", "total", a);
	(void)esum;

	printf("\n%-15s %-7s %-11s %-11s\n", "RXQ stats", "RXQ:CPU", "pps",
	       "issue-pps");
	for (q = 0; q < (int)nq && q < MAX_RXQS; q++) {
		sum = 0;
		for (i = 0; i < MAX_CPUS; i++) {
			pps = (double)(cur->rx[q][i] - prev->rx[q][i]) / period;
			sum += pps;
			if (pps <= 0)
				continue;
			fmt_num(a, sizeof(a), pps, sep);
			fmt_num(b, sizeof(b), 0, sep);
			printf("%-15s %3d:%-3d %-11s %-10s\n", "rx_queue_index",
			       q, i, a, b);
		}
		fmt_num(a, sizeof(a), sum, sep);
		printf("%-15s %3d:%-3s %-11s\n", "rx_queue_index", q, "sum", a);
	}
	fflush(stdout);
}

int
main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "dev", required_argument, NULL, 'd' },
		{ "skb-mode", no_argument, NULL, 'S' },
		{ "sec", required_argument, NULL, 's' },
		{ "no-separators", no_argument, NULL, 'z' },
		{ "action", required_argument, NULL, 'a' },
		{ "act", required_argument, NULL, 'a' },
		{ "readmem", no_argument, NULL, 'r' },
		{ "read", no_argument, NULL, 'r' },
		{ "swapmac", no_argument, NULL, 'm' },
		{ "force", no_argument, NULL, 'F' },
		{ "no-recycle", no_argument, NULL, 'R' },
		{ "duration", required_argument, NULL, 'D' },
		{ "iommu", no_argument, NULL, 'I' },
		{ "size", required_argument, NULL, 'L' },
		{ "flows", required_argument, NULL, 'f' },
		{ "wire", required_argument, NULL, 'W' },
		{ "queues", required_argument, NULL, 'Q' },
		{ "ring", required_argument, NULL, 'G' },
		{ "coherent", no_argument, NULL, 'C' },
		{ "bounce", no_argument, NULL, 'B' },
		{ "pcap", required_argument, NULL, 'P' },
		{ "sleep", no_argument, NULL, 'Z' },
		{ "cpu-time", no_argument, NULL, 'T' },
		{ "threaded", required_argument, NULL, 'H' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *prog_name = argv[0], *ifname = NULL;
	const char *action_str = "XDP_PASS";
	struct netsim_opts nopts = { .sz = sizeof(nopts) };
	struct prog_state *cur = NULL;
	struct prog_counts *snap = NULL, *prev = NULL;
	struct pp_dma_stats ds = { .sz = sizeof(ds) };
	struct net_device *dev = NULL, *extra[16];
	struct netsim_stats ws;
	struct bpf_prog prog;
	struct napi_struct *napi[16];
	struct page_pool *pool;
	struct device *dmadev;
	unsigned int interval = 2, duration = 0, want = 0, ndev = 0, i, q, nq;
	uint32_t xdp_flags = XDP_FLAGS_UPDATE_IF_NOEXIST, options = NO_TOUCH;
	bool sep = true, iommu = false, watching = false, wire_thread = false;
	bool coherent = false, bounce = false;
	const char *pcap_path = NULL;
	char unknown[64];
	struct pcap_frames pf = { 0 };
	unsigned int too_long = 0;
	unsigned int dflags;
	bool xsk = false, sleep_idle = false, cpu_time = false;
	int threaded = -1;	/* --threaded: -1 for the default */
	struct rusage ru0, ru1;
	int kifindex = 0;
	uint64_t rx_detach = 0, xsk_debug = 0;
	double t0, tlast, t;
	uint64_t iter = 0, rx, sent;
	int opt, action, ret, rc = EXIT_OK;

	while ((opt = getopt_long(argc, argv, "d:Ss:za:rmFh", longopts,
				  NULL)) != -1) {
		switch (opt) {
		case 'd':
			if (strlen(optarg) >= IFNAMSIZ) {
				fprintf(stderr, "ERR: --dev name too long\n");
				return EXIT_FAIL_OPTION;
			}
			ifname = optarg;
			break;
		case 'S':
			xdp_flags |= XDP_FLAGS_SKB_MODE;
			break;
		case 's':
			interval = (unsigned int)pp_tool_parse_num(prog_name,
					"--sec", optarg, 1, 3600);
			break;
		case 'z':
			sep = false;
			break;
		case 'a':
			action_str = optarg;
			break;
		case 'r':
			options |= READ_MEM;
			break;
		case 'm':
			options |= SWAP_MAC;
			break;
		case 'F':
			xdp_flags &= ~XDP_FLAGS_UPDATE_IF_NOEXIST;
			break;
		case 'R':
			nopts.no_recycle = true;
			break;
		case 'D':
			duration = (unsigned int)pp_tool_parse_num(prog_name,
					"--duration", optarg, 0, 86400);
			break;
		case 'I':
			iommu = true;
			break;
		case 'L':
			nopts.frame_len = (unsigned int)pp_tool_parse_num(
				prog_name, "--size", optarg, 1, 65536);
			break;
		case 'f':
			nopts.flows = (unsigned int)pp_tool_parse_num(
				prog_name, "--flows", optarg, 1, 65536);
			break;
		case 'C':
			coherent = true;
			break;
		case 'B':
			bounce = true;
			break;
		case 'P':
			pcap_path = optarg;
			break;
		case 'Q':
			nopts.queues = (unsigned int)pp_tool_parse_num(
				prog_name, "--queues", optarg, 1, 16);
			break;
		case 'G':
			nopts.ring_size = (unsigned int)pp_tool_parse_num(
				prog_name, "--ring", optarg, 16, 4096);
			if (nopts.ring_size & (nopts.ring_size - 1)) {
				fprintf(stderr,
					"ERR: --ring %s: not a power of two\n",
					optarg);
				return EXIT_FAIL_OPTION;
			}
			break;
		case 'W':
			if (strcmp(optarg, "thread") == 0) {
				wire_thread = true;
			} else if (strcmp(optarg, "inline") != 0) {
				fprintf(stderr,
					"ERR: --wire must be inline or thread\n");
				return EXIT_FAIL_OPTION;
			}
			break;
		case 'Z':
			sleep_idle = true;
			break;
		case 'T':
			cpu_time = true;
			break;
		case 'H':
			threaded = (int)pp_tool_parse_num(prog_name,
					"--threaded", optarg, 0, 1);
			break;
		case 'h':
			usage(prog_name);
			return EXIT_OK;
		default:
			usage(prog_name);
			return EXIT_FAIL_OPTION;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "ERR: unexpected argument '%s'\n", argv[optind]);
		usage(prog_name);
		return EXIT_FAIL_OPTION;
	}
	if (ifname == NULL) {
		fprintf(stderr, "ERR: required option --dev missing\n");
		usage(prog_name);
		return EXIT_FAIL_OPTION;
	}
	action = parse_xdp_action(action_str);
	if (action < 0) {
		fprintf(stderr, "ERR: Invalid XDP --action: %s\n", action_str);
		list_xdp_actions();
		return EXIT_FAIL_OPTION;
	}
	if (action == XDP_REDIRECT) {
		fprintf(stderr,
			"ERR: XDP_REDIRECT: the program names no target\n");
		return EXIT_FAIL_OPTION;
	}
	if (action == XDP_TX)
		options |= SWAP_MAC;
	if (pcap_path != NULL && (nopts.frame_len != 0 || nopts.flows != 0)) {
		fprintf(stderr,
			"ERR: --pcap replays the file's frames; no --size or --flows\n");
		return EXIT_FAIL_OPTION;
	}
	if (bounce && coherent) {
		fprintf(stderr,
			"ERR: --bounce needs syncs; --coherent has none\n");
		return EXIT_FAIL_OPTION;
	}
	/* The software NIC's devices are sim0 .. sim15; any other name is a
	 * real interface, for the AF_XDP backend. */
	if (strncmp(ifname, "sim", 3) != 0) {
#ifdef PP_HAVE_AFXDP
		xsk = true;
		if (pcap_path != NULL || nopts.frame_len != 0 ||
		    nopts.flows != 0 || nopts.queues > 1 || wire_thread ||
		    nopts.ring_size != 0 || iommu || bounce || coherent ||
		    threaded == 1) {
			fprintf(stderr,
				"ERR: --dev %s is a real interface: --pcap, --size, --flows, --queues, --ring, --wire, --threaded, --iommu, --bounce and --coherent are the software NIC's\n",
				ifname);
			return EXIT_FAIL_OPTION;
		}
#else
		fprintf(stderr,
			"ERR: --dev name unknown err(%d):%s: %s is not a software NIC (sim<N>), and this build has no AF_XDP backend (libxdp-dev, libbpf-dev; meson -Dafxdp=enabled)\n",
			ENODEV, strerror(ENODEV), ifname);
		return EXIT_FAIL_OPTION;
#endif
	} else if (sscanf(ifname, "sim%u", &want) != 1 || want >= 16) {
		errno = ENODEV;
		fprintf(stderr, "ERR: --dev name unknown err(%d):%s\n", errno,
			strerror(errno));
		return EXIT_FAIL_OPTION;
	}
	if (!xsk) {
		char check[IFNAMSIZ];

		snprintf(check, sizeof(check), "sim%u", want);
		if (strcmp(check, ifname) != 0) {
			errno = ENODEV;
			fprintf(stderr, "ERR: --dev name unknown err(%d):%s\n",
				errno, strerror(errno));
			return EXIT_FAIL_OPTION;
		}
	}

	if (pcap_path != NULL) {
		if (pcap_load(pcap_path, &pf) != 0)
			return EXIT_FAIL_OPTION;
		for (i = 0; i < pf.n; i++)
			if (pf.lens[i] > SKB_WITH_OVERHEAD(PAGE_SIZE) -
					 XDP_PACKET_HEADROOM ||
			    pf.lens[i] < ETH_HLEN)
				too_long++;
		if (too_long != 0)
			fprintf(stderr,
				"WARN: --pcap %s: %u of %u frames shorter than %u or longer than the RX buffer (%lu bytes): the NIC drops them (rx_length_errors)\n",
				pcap_path, too_long, pf.n, ETH_HLEN,
				(unsigned long)(SKB_WITH_OVERHEAD(PAGE_SIZE) -
						XDP_PACKET_HEADROOM));
	}
	/* Bounce mode implies the DMA-API debug checks; poison makes a
	 * wrong sync visible in the data, not only in the counters. */
	dflags = coherent ? PP_DMA_F_COHERENT : 0;
	if (bounce)
		dflags |= PP_DMA_F_BOUNCE | PP_DMA_F_POISON;
	dmadev = pp_tool_dma_dev_create(iommu, dflags);
	if (dmadev == NULL) {
		pcap_free(&pf);
		return EXIT_FAIL;
	}
	nopts.dma_dev = dmadev;
	/* Create sim0 .. simN, of which only the one asked for runs, or the
	 * AF_XDP device; a missing one in the sample's words. */
	snprintf(unknown, sizeof(unknown), "--dev name unknown err(%d):%s",
		 ENODEV, strerror(ENODEV));
	rc = pp_tool_devs_open(extra, &ndev, &dev, ifname, xsk, xdp_flags,
			       want, &nopts, unknown);
	if (rc != 0)
		goto out_devs;
	kifindex = dev->ifindex;
	if (pf.n != 0) {
		ret = netsim_wire_replay(dev, pf.frames, pf.lens, pf.n);
		if (ret != 0) {
			fprintf(stderr, "ERR: --pcap %s: %s\n", pcap_path,
				strerror(-ret));
			rc = EXIT_FAIL;
			goto out_devs;
		}
	}
	pool = netsim_page_pool(dev, 0);
#ifdef PP_HAVE_AFXDP
	if (xsk) {
		pool = pp_xsk_page_pool(dev);
		kifindex = pp_xsk_ifindex(dev);
	}
#endif
	/* Every queue's pool, before any NAPI thread owns it. */
	pp_tool_watch_pool(pool);
	for (q = 1; !xsk && q < dev->num_rx_queues; q++)
		pp_tool_watch_pool(netsim_page_pool(dev, q));
	watching = true;

	cur = calloc(1, sizeof(*cur));
	snap = calloc(1, sizeof(*snap));
	prev = calloc(1, sizeof(*prev));
	if (cur == NULL || snap == NULL || prev == NULL) {
		fprintf(stderr, "ERR: out of memory\n");
		rc = EXIT_FAIL;
		goto out_free;
	}
	cur->action = (uint32_t)action;
	cur->options = options;
	cur->check_stale = bounce;
	prog = (struct bpf_prog){ .run = rxq_info_prog, .priv = cur,
				  .name = "xdp_prognum0" };
	ret = dev_xdp_attach(dev, &prog, xdp_flags);
	if (ret != 0) {
		fprintf(stderr, "ERR: link set xdp fd failed (err=%d): %s\n",
			ret, strerror(-ret));
		rc = EXIT_FAIL_XDP;
		goto out_free;
	}
	pp_tool_catch_signals();

	nq = dev->num_rx_queues;
	for (q = 0; q < nq; q++)
		napi[q] = netsim_napi(dev, q);
#ifdef PP_HAVE_AFXDP
	if (xsk)
		napi[0] = pp_xsk_napi(dev);
#endif
	/* Threaded NAPI: a thread per queue, pinned round-robin over the
	 * CPUs we may use; the inline wire then runs inside each poll. */
	if (threaded < 0)
		threaded = !xsk && nq > 1;
	if (threaded) {
		ret = wire_thread ? 0 : netsim_wire_in_poll(dev, true);
		for (q = 0; ret == 0 && q < nq; q++) {
			ret = pp_tool_nth_cpu((int)q);
			if (ret >= 0)
				ret = napi_set_thread_cpu(napi[q], ret);
		}
		if (ret == 0)
			ret = dev_set_threaded(dev, true);
		if (ret != 0) {
			fprintf(stderr, "ERR: threaded NAPI: %s\n",
				strerror(-ret));
			rc = EXIT_FAIL;
			goto out_free;
		}
	}
	for (q = 0; wire_thread && q < nq; q++) {
		ret = netsim_wire_start(dev, q, 0);
		if (ret != 0) {
			fprintf(stderr, "ERR: wire thread: %s\n", strerror(-ret));
			rc = EXIT_FAIL;
			goto out_free;
		}
	}
	/* Threaded: the CPU time of the whole process (its NAPI threads). */
	getrusage(threaded ? RUSAGE_SELF : RUSAGE_THREAD, &ru0);
	t0 = tlast = pp_tool_now_s();
	while (!pp_tool_stop) {
		int work = 0;

		if (threaded) {
			/* The NAPI threads poll; this thread prints. */
			struct timespec ts = { 0, 10 * 1000 * 1000 };

			nanosleep(&ts, NULL);
			goto timers;
		}
		/* One thread polls every queue in turn (NAPI instances
		 * scheduled on one CPU). */
		for (q = 0; q < nq; q++) {
			if (!wire_thread && !xsk)
				netsim_wire_rx(dev, q, NAPI_POLL_WEIGHT);
			work += napi_poll(napi[q]);
		}
		/* An idle round with the wire elsewhere: the NAPI would wait
		 * for an interrupt; give the wire the CPU if it shares it. */
		if (work == 0 && wire_thread)
			sched_yield();
#ifdef PP_HAVE_AFXDP
		/* The AF_XDP NAPI's interrupt: the socket's poll(). */
		if (work == 0 && xsk && sleep_idle)
			pp_xsk_wait(dev, 50);
#endif
		if ((++iter & 255) != 0 && work != 0)
			continue;
timers:
		t = pp_tool_now_s();
		if (t - tlast >= interval) {
			counts_snapshot(snap, cur, nq);
			stats_print(dev, kifindex, action_str, options, snap,
				    prev, t - tlast, sep, nq);
			memcpy(prev, snap, sizeof(*snap));
			tlast = t;
			/* The polling thread may have moved: the program asks
			 * where it runs again (threaded, the NAPI threads are
			 * pinned and keep theirs). */
			prog_cpu = -1;
		}
		if (duration != 0 && t - t0 >= duration)
			break;
	}
	getrusage(threaded ? RUSAGE_SELF : RUSAGE_THREAD, &ru1);
	if (pp_tool_stop)
		printf("\nInterrupted: Removing XDP program on ifindex:%d device:%s\n",
		       kifindex, dev->name);
	for (q = 0; wire_thread && q < nq; q++)
		netsim_wire_stop(dev, q);
	if (threaded) {
		/* The threads stop; the queues and pools are ours again. */
		dev_set_threaded(dev, false);
		netsim_wire_in_poll(dev, false);
	}
	/* What the wire wrote and no poll took yet. */
	for (q = 0; (wire_thread || threaded) && q < nq; q++)
		while (napi_poll(napi[q]) > 0)
			;
	/* AF_XDP: frames keep arriving after the program is detached; they
	 * go to the stack, so the program's count is checked against what
	 * had arrived before. */
	rx_detach = pp_load_relaxed(&dev->stats.rx_packets);
	(void)rx_detach;	/* AF_XDP builds only */
	(void)sleep_idle;
	dev_xdp_attach(dev, NULL, xdp_flags & XDP_FLAGS_MODES);
	/* The device sends what XDP_TX posted; the driver completes it. */
	for (q = 0; q < nq; q++) {
		if (!xsk)
			netsim_wire_rx(dev, q, 0);
		napi_poll(napi[q]);
	}
	/* The pollers are joined or are this thread: plain reads would do;
	 * the snapshot's relaxed loads are what the printer uses anyway. */
	counts_snapshot(snap, cur, nq);
	iter = counts_rx(snap, -1, nq);
	rx = pp_load_relaxed(&dev->stats.rx_packets);
	if (cpu_time)
		pp_tool_print_cpu_time_of("\n", &ru0, &ru1, rx,
					  threaded ? "process, NAPI threads"
						   : "polling thread");
#ifdef PP_HAVE_AFXDP
	if (xsk) {
		/* Closing counts what was delivered and never polled (and
		 * frees the pool: its debug count first). */
		xsk_debug = page_pool_debug_errors(pool);
		dev_close(dev);
		printf("\nAF_XDP dev:%s queue:0 mode:%s received:%" PRIu64
		       " xdp:%" PRIu64 " tx:%" PRIu64 " stack_udp:%" PRIu64
		       " exceptions:%" PRIu64 " missed:%" PRIu64 "\n", dev->name,
		       xdp_flags & XDP_FLAGS_SKB_MODE ? "skb" : "native", rx,
		       iter, pp_load_relaxed(&dev->stats.tx_packets),
		       pp_load_relaxed(&dev->stack.udp),
		       pp_load_relaxed(&dev->xdp_exceptions),
		       pp_load_relaxed(&dev->stats.rx_missed_errors));
		pp_tool_print_xsk_stats(dev);
		fflush(stdout);
		if (iter != rx_detach - dev->stats.rx_length_errors) {
			fprintf(stderr,
				"ERR: frames unaccounted: received %" PRIu64
				", length errors %" PRIu64 ", seen by XDP %" PRIu64 "\n",
				rx, dev->stats.rx_length_errors, iter);
			rc = EXIT_FAIL;
		}
		goto checked;
	}
#endif

	/* Every frame accounted for: the wire's are the driver's or missed;
	 * the program saw every one the driver received. */
	netsim_get_stats(dev, &ws);
	rx = pp_load_relaxed(&dev->stats.rx_packets);
	if (dev->stats.rx_length_errors != 0)
		printf("\nDropped by the NIC, too long or too short: %" PRIu64
		       " frames (rx_length_errors)\n",
		       dev->stats.rx_length_errors);
	sent = ws.wire_sent;
	if (sent != rx + dev->stats.rx_missed_errors + ws.dma_errors +
		    dev->stats.rx_length_errors ||
	    iter != rx - dev->stats.rx_dropped) {
		fprintf(stderr,
			"ERR: frames unaccounted: wire %" PRIu64 ", received %" PRIu64
			", missed %" PRIu64 ", length errors %" PRIu64
			", seen by XDP %" PRIu64 "\n",
			sent, rx, dev->stats.rx_missed_errors,
			dev->stats.rx_length_errors, iter);
		rc = EXIT_FAIL;
	}
#ifdef PP_HAVE_AFXDP
checked:
#endif
	/* PP_DEBUG builds: page_pool's own checks saw no misuse. */
	for (q = 0, iter = xsk_debug; !xsk && q < nq; q++)
		iter += page_pool_debug_errors(netsim_page_pool(dev, q));
	if (iter != 0) {
		fprintf(stderr, "ERR: page_pool: %" PRIu64 " debug errors\n",
			iter);
		rc = EXIT_FAIL;
	}
out_free:
	free(prev);
	free(snap);
out_devs:
	pp_tool_devs_destroy(extra, ndev, xsk);
	if (watching && !pp_tool_pool_freed()) {
		fprintf(stderr, "ERR: pages still in flight after destroy\n");
		rc = EXIT_FAIL;
	}
	if (pp_dma_dev_get_stats(dmadev, &ds) == 0 &&
	    (ds.faults != 0 || ds.live_mappings != 0)) {
		fprintf(stderr, "ERR: DMA: %" PRIu64 " faults, %" PRIu64
			" mappings left\n", ds.faults, ds.live_mappings);
		rc = EXIT_FAIL;
	}
	if (cur != NULL && cur->stale != 0) {
		fprintf(stderr, "ERR: %" PRIu64
			" frames read with poisoned (never synced) bytes\n",
			cur->stale);
		rc = EXIT_FAIL;
	}
	free(cur);
	pcap_free(&pf);
	if (pp_dma_dev_get_stats(dmadev, &ds) == 0 && ds.debug_errors != 0) {
		fprintf(stderr, "ERR: DMA: %" PRIu64 " DMA-API debug errors\n",
			ds.debug_errors);
		rc = EXIT_FAIL;
	}
	pp_dma_dev_destroy(dmadev);
	return rc;
}
