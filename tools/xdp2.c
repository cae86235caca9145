/* SPDX-License-Identifier: MIT */
/*
 * Copyright (c) 2026 The pagepool authors
 *
 * xdp2: the kernel's samples/bpf xdp2 (xdp2_kern.c with xdp1_user.c) on
 * pagepool's software NIC. The program parses Ethernet (with up to two
 * VLAN tags) and IPv4 or IPv6, counts packets per IP protocol, swaps the
 * MAC addresses and sends the packet back out (XDP_TX); every second the
 * tool prints the rate per protocol seen, as seed 001 shows it:
 *
 *   proto 17:     122473 pkt/s
 *
 * The device is a netsim NIC the tool creates; its wire runs inline in the
 * polling thread unless --wire thread. Our options beyond the sample's
 * -S, -N and -F: --duration, --no-recycle, --iommu, --bounce (the DMA
 * device in bounce mode with poisoning: a wrong sync shows as poisoned
 * headers, counted under a protocol never sent), --size, --flows, --wire.
 * Any other IFACE is a real interface (a veth end in a network namespace):
 * the tool opens an AF_XDP socket on its queue 0 in copy mode (-S binds
 * the kernel's program in SKB mode) and the program runs on every frame
 * the socket receives, sending it back out on the socket's TX ring;
 * --sleep and --cpu-time as in xdp_rxq_info.
 * At exit the tool checks, as xdp_rxq_info does, that every frame and
 * page is accounted for and the DMA device saw no fault or DMA-API debug
 * error.
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
#include <unistd.h>

#include <pagepool/netsim.h>
#include <pagepool/page_pool.h>

#include "cli.h"
#include "cpu.h"
#include "netdev_tool.h"
#ifdef PP_HAVE_AFXDP
#include "drivers/net/xsk.h"
#endif

#define NPROTO 256

struct xdp2_state {
	uint64_t rxcnt[NPROTO];
};

static int
parse_ipv4(const unsigned char *data, size_t off, const unsigned char *end)
{
	if (data + off + 20 > end)
		return 0;
	return data[off + 9];
}

static int
parse_ipv6(const unsigned char *data, size_t off, const unsigned char *end)
{
	if (data + off + 40 > end)
		return 0;
	return data[off + 6];
}

/* xdp2_kern.c's program: count by IP protocol, swap MACs, XDP_TX. */
static uint32_t
xdp2_prog(struct xdp_md *ctx, void *priv)
{
	struct xdp2_state *st = priv;
	unsigned char *data = ctx->data, *end = ctx->data_end, tmp[ETH_ALEN];
	size_t off = ETH_HLEN;
	unsigned int proto;
	int ipproto = 0, i;

	if (data + off > end)
		return XDP_DROP;
	proto = (unsigned int)data[12] << 8 | data[13];
	for (i = 0; i < 2 && (proto == 0x8100 || proto == 0x88A8); i++) {
		if (data + off + 4 > end)
			return XDP_DROP;
		proto = (unsigned int)data[off + 2] << 8 | data[off + 3];
		off += 4;
	}
	if (proto == ETH_P_IP)
		ipproto = parse_ipv4(data, off, end);
	else if (proto == ETH_P_IPV6)
		ipproto = parse_ipv6(data, off, end);
	st->rxcnt[ipproto]++;
	memcpy(tmp, data, ETH_ALEN);
	memcpy(data, data + ETH_ALEN, ETH_ALEN);
	memcpy(data + ETH_ALEN, tmp, ETH_ALEN);
	return XDP_TX;
}

static void
usage(const char *prog)
{
	fprintf(stderr,
		"usage: %s [OPTS] IFACE\n\n"
		"OPTS:\n"
		"    -S    use skb-mode\n"
		"    -N    enforce native mode\n"
		"    -F    force loading prog\n"
		"    --duration SEC        stop after SEC seconds (0: at SIGINT)\n"
		"    --no-recycle          release pages before building skbs\n"
		"    --iommu               DMA through the IOMMU model\n"
		"    --bounce              DMA device in bounce mode, poisoning\n"
		"                          unsynced bytes\n"
		"    --size BYTES          frame size on the wire (64)\n"
		"    --flows N             UDP flows on the wire (1)\n"
		"    --wire inline|thread  where the wire runs (inline)\n"
		"    --sleep               AF_XDP: sleep in poll() when idle\n"
		"    --cpu-time            print the polling thread's CPU time\n"
		"                          per packet at exit\n"
		"IFACE not named sim<N> is a real interface: an AF_XDP socket\n"
		"on its queue 0 (copy mode; -S binds in SKB mode).\n",
		prog);
}

int
main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "duration", required_argument, NULL, 'D' },
		{ "no-recycle", no_argument, NULL, 'R' },
		{ "iommu", no_argument, NULL, 'I' },
		{ "bounce", no_argument, NULL, 'B' },
		{ "size", required_argument, NULL, 'L' },
		{ "flows", required_argument, NULL, 'f' },
		{ "wire", required_argument, NULL, 'W' },
		{ "sleep", no_argument, NULL, 'Z' },
		{ "cpu-time", no_argument, NULL, 'T' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct netsim_opts nopts = { .sz = sizeof(nopts) };
	struct pp_dma_stats ds = { .sz = sizeof(ds) };
	struct xdp2_state st, prev;
	struct net_device *devs[16], *dev;
	struct napi_struct *napi;
	struct netsim_stats ws;
	struct bpf_prog prog;
	struct device *dmadev;
	const char *ifname;
	uint32_t xdp_flags = XDP_FLAGS_UPDATE_IF_NOEXIST;
	unsigned int duration = 0, want = 0, ndev = 0, i;
	bool iommu = false, wire_thread = false, bounce = false;
	uint64_t iter = 0, seen, rx;
	double t0, tlast, t;
	char check[IFNAMSIZ], unknown[IFNAMSIZ + 32];
	int opt, ret, rc = 0;
	bool xsk = false, sleep_idle = false, cpu_time = false;
	bool sized = false;
	struct page_pool *pool;
	struct rusage ru0, ru1;

	while ((opt = getopt_long(argc, argv, "SNFh", longopts, NULL)) != -1) {
		switch (opt) {
		case 'S':
			xdp_flags |= XDP_FLAGS_SKB_MODE;
			break;
		case 'N':
			/* The default; the sample's flag kept for its users. */
			xdp_flags |= XDP_FLAGS_DRV_MODE;
			break;
		case 'F':
			xdp_flags &= ~XDP_FLAGS_UPDATE_IF_NOEXIST;
			break;
		case 'D':
			duration = (unsigned int)pp_tool_parse_num(argv[0],
					"--duration", optarg, 0, 86400);
			break;
		case 'R':
			nopts.no_recycle = true;
			break;
		case 'I':
			iommu = true;
			break;
		case 'B':
			bounce = true;
			break;
		case 'L':
			nopts.frame_len = (unsigned int)pp_tool_parse_num(
				argv[0], "--size", optarg, 1, 65536);
			sized = true;
			break;
		case 'f':
			nopts.flows = (unsigned int)pp_tool_parse_num(
				argv[0], "--flows", optarg, 1, 65536);
			break;
		case 'W':
			if (strcmp(optarg, "thread") == 0) {
				wire_thread = true;
			} else if (strcmp(optarg, "inline") != 0) {
				fprintf(stderr,
					"ERR: --wire must be inline or thread\n");
				return 2;
			}
			break;
		case 'Z':
			sleep_idle = true;
			break;
		case 'T':
			cpu_time = true;
			break;
		case 'h':
			usage(argv[0]);
			return 0;
		default:
			usage(argv[0]);
			return 2;
		}
	}
	if (optind != argc - 1) {
		usage(argv[0]);
		return 2;
	}
	if ((xdp_flags & XDP_FLAGS_MODES) == XDP_FLAGS_MODES) {
		fprintf(stderr, "ERR: -S and -N exclude each other\n");
		return 2;
	}
	ifname = argv[optind];
	(void)sized;		/* AF_XDP builds only */
	(void)sleep_idle;
	if (strncmp(ifname, "sim", 3) != 0) {
#ifdef PP_HAVE_AFXDP
		xsk = true;
		if (sized || nopts.flows != 0 || wire_thread || iommu ||
		    bounce) {
			fprintf(stderr,
				"ERR: %s is a real interface: --size, --flows, --wire, --iommu and --bounce are the software NIC's\n",
				ifname);
			return 2;
		}
#else
		fprintf(stderr,
			"ERR: unknown interface %s: not a software NIC (sim<N>), and this build has no AF_XDP backend (libxdp-dev, libbpf-dev; meson -Dafxdp=enabled)\n",
			ifname);
		return 2;
#endif
	} else if (sscanf(ifname, "sim%u", &want) != 1 || want >= 16 ||
	    (snprintf(check, sizeof(check), "sim%u", want),
	     strcmp(check, ifname) != 0)) {
		fprintf(stderr, "ERR: unknown interface %s: %s\n", ifname,
			strerror(ENODEV));
		return 2;
	}

	dmadev = pp_tool_dma_dev_create(iommu, bounce ? PP_DMA_F_BOUNCE |
							PP_DMA_F_POISON : 0);
	if (dmadev == NULL)
		return 1;
	nopts.dma_dev = dmadev;
	snprintf(unknown, sizeof(unknown), "unknown interface %s", ifname);
	rc = pp_tool_devs_open(devs, &ndev, &dev, ifname, xsk, xdp_flags, want,
			       &nopts, unknown);
	if (rc != 0)
		goto out;
	pool = netsim_page_pool(dev, 0);
	napi = netsim_napi(dev, 0);
#ifdef PP_HAVE_AFXDP
	if (xsk) {
		pool = pp_xsk_page_pool(dev);
		napi = pp_xsk_napi(dev);
	}
#endif
	pp_tool_watch_pool(pool);

	memset(&st, 0, sizeof(st));
	memset(&prev, 0, sizeof(prev));
	prog = (struct bpf_prog){ .run = xdp2_prog, .priv = &st,
				  .name = "xdp_prog1" };
	ret = dev_xdp_attach(dev, &prog, xdp_flags);
	if (ret != 0) {
		fprintf(stderr, "ERR: link set xdp fd failed: %s\n",
			strerror(-ret));
		rc = 1;
		goto out;
	}
	pp_tool_catch_signals();
	if (wire_thread && netsim_wire_start(dev, 0, 0) != 0) {
		fprintf(stderr, "ERR: wire thread failed\n");
		rc = 1;
		goto out;
	}
	getrusage(RUSAGE_THREAD, &ru0);
	t0 = tlast = pp_tool_now_s();
	while (!pp_tool_stop) {
		int work;

		if (!wire_thread && !xsk)
			netsim_wire_rx(dev, 0, NAPI_POLL_WEIGHT);
		work = napi_poll(napi);
		if (work == 0 && wire_thread)
			sched_yield();
#ifdef PP_HAVE_AFXDP
		if (work == 0 && xsk && sleep_idle)
			pp_xsk_wait(dev, 50);
#endif
		if ((++iter & 255) != 0 && work != 0)
			continue;
		t = pp_tool_now_s();
		if (t - tlast >= 1.0) {
			for (i = 0; i < NPROTO; i++) {
				if (st.rxcnt[i] == prev.rxcnt[i])
					continue;
				printf("proto %u: %10" PRIu64 " pkt/s\n", i,
				       (uint64_t)((double)(st.rxcnt[i] -
							   prev.rxcnt[i]) /
						  (t - tlast)));
			}
			fflush(stdout);
			prev = st;
			tlast = t;
		}
		if (duration != 0 && t - t0 >= duration)
			break;
	}
	if (wire_thread) {
		netsim_wire_stop(dev, 0);
		while (napi_poll(napi) > 0)
			;
	}
	getrusage(RUSAGE_THREAD, &ru1);
	dev_xdp_attach(dev, NULL, xdp_flags & XDP_FLAGS_MODES);
	if (!xsk)
		netsim_wire_rx(dev, 0, 0);
	napi_poll(napi);

	rx = dev->stats.rx_packets;
	for (i = 0, seen = 0; i < NPROTO; i++)
		seen += st.rxcnt[i];
	if (cpu_time)
		pp_tool_print_cpu_time("", &ru0, &ru1, rx);
#ifdef PP_HAVE_AFXDP
	if (xsk) {
		/* Give the kernel a moment to complete what was sent back. */
		for (i = 0; i < 100 && dev->stats.tx_packets +
				dev->xdp_exceptions < rx; i++) {
			usleep(1000);
			napi_poll(napi);
		}
		/* Closing counts what was delivered and never polled. */
		dev_close(dev);
		printf("AF_XDP dev:%s queue:0 mode:%s received:%" PRIu64
		       " tx:%" PRIu64 " exceptions:%" PRIu64 " missed:%" PRIu64
		       "\n", dev->name,
		       xdp_flags & XDP_FLAGS_SKB_MODE ? "skb" : "native", rx,
		       dev->stats.tx_packets, dev->xdp_exceptions,
		       dev->stats.rx_missed_errors);
		pp_tool_print_xsk_stats(dev);
		fflush(stdout);
		if (seen != rx ||
		    dev->stats.tx_packets + dev->xdp_exceptions != rx) {
			fprintf(stderr,
				"ERR: frames unaccounted: received %" PRIu64
				", seen %" PRIu64 ", sent back %" PRIu64
				", exceptions %" PRIu64 "\n", rx, seen,
				dev->stats.tx_packets, dev->xdp_exceptions);
			rc = 1;
		}
		goto out;
	}
#endif
	netsim_get_stats(dev, &ws);
	/* Sent back out or, when the TX ring was full, an exception. */
	if (ws.wire_sent != rx + dev->stats.rx_missed_errors ||
	    seen != rx || ws.wire_tx + dev->xdp_exceptions != rx) {
		fprintf(stderr,
			"ERR: frames unaccounted: wire %" PRIu64 ", received %" PRIu64
			", seen %" PRIu64 ", sent back %" PRIu64 "\n",
			ws.wire_sent, rx, seen, ws.wire_tx);
		rc = 1;
	}
out:
	pp_tool_devs_destroy(devs, ndev, xsk);
	if (rc == 0 && !pp_tool_pool_freed()) {
		fprintf(stderr, "ERR: pages still in flight after destroy\n");
		rc = 1;
	}
	if (pp_dma_dev_get_stats(dmadev, &ds) == 0 &&
	    (ds.faults != 0 || ds.live_mappings != 0 ||
	     ds.debug_errors != 0)) {
		fprintf(stderr, "ERR: DMA: %" PRIu64 " faults, %" PRIu64
			" debug errors, %" PRIu64 " mappings left\n", ds.faults,
			ds.debug_errors, ds.live_mappings);
		rc = 1;
	}
	pp_dma_dev_destroy(dmadev);
	return rc;
}
