/* SPDX-License-Identifier: MIT */
/*
 * Copyright (c) 2026 The pagepool authors
 *
 * What DMA-API debugging and bounce mode cost per packet. Bounce mode is a
 * debugging mode, not a fast path; this puts a number on "how much slower
 * does my driver test run", and shows that the default devices pay
 * nothing for its existence.
 *
 * Two packet-sized cycles, each on every device set-up:
 *  - "map": what a driver without page_pool does per received frame: map a
 *    4 KiB page DMA_FROM_DEVICE, sync for the device, the device writes a
 *    frame at the headroom, sync that for the CPU, unmap;
 *  - "recycle": what page_pool does per frame (the mapping is kept): sync
 *    for the device, device write, sync for the CPU.
 * Syncs are of the frame length at the headroom, as page_pool's are.
 *
 * Usage: bench_dma_bounce [-n ITERATIONS] [-r ROUNDS] [-l FRAME_LEN]
 * Prints, per set-up and cycle, the median nanoseconds per frame over the
 * rounds, with min and max.
 */
#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <pagepool/dma.h>

#include "cpu.h"

#define HEADROOM	256
#define MAX_ROUNDS	31

struct setup {
	const char *name;
	bool iommu;
	unsigned int flags;
};

static const struct setup setups[] = {
	{ "identity", false, 0 },
	{ "identity+debug", false, PP_DMA_F_DEBUG },
	{ "identity+bounce", false, PP_DMA_F_BOUNCE },
	{ "identity+bounce+poison", false, PP_DMA_F_BOUNCE | PP_DMA_F_POISON },
	{ "iommu", true, 0 },
	{ "iommu+debug", true, PP_DMA_F_DEBUG },
	{ "iommu+bounce", true, PP_DMA_F_BOUNCE },
	{ "iommu+bounce+poison", true, PP_DMA_F_BOUNCE | PP_DMA_F_POISON },
};

static uint64_t
now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

static struct device *
make(const struct setup *s)
{
	if (s->iommu) {
		PP_OPTS(pp_iommu_opts, o, .flags = s->flags | PP_DMA_F_FATAL);
		return pp_iommu_create(&o);
	}
	PP_OPTS(pp_dma_dev_opts, o, .flags = s->flags | PP_DMA_F_FATAL);
	return pp_dma_identity_create(&o);
}

/* One round of @n frames; nanoseconds per frame, or -1 on error. */
static double
round_ns(struct device *dev, bool map_each, unsigned char *page,
	 const unsigned char *frame, size_t len, long n)
{
	dma_addr_t a = 0;
	uint64_t t0, t1;
	long i;
	int err = 0;

	if (!map_each) {
		a = pp_dma_map(dev, page, 4096, DMA_FROM_DEVICE,
			       DMA_ATTR_SKIP_CPU_SYNC);
		if (a == DMA_MAPPING_ERROR)
			return -1;
	}
	t0 = now_ns();
	for (i = 0; i < n; i++) {
		if (map_each) {
			a = pp_dma_map(dev, page, 4096, DMA_FROM_DEVICE,
				       DMA_ATTR_SKIP_CPU_SYNC);
			err |= a == DMA_MAPPING_ERROR;
		}
		err |= pp_dma_sync_for_device(dev, a, HEADROOM, len,
					      DMA_FROM_DEVICE);
		err |= pp_dma_dev_write(dev, a + HEADROOM, frame, len);
		err |= pp_dma_sync_for_cpu(dev, a, HEADROOM, len,
					   DMA_FROM_DEVICE);
		if (map_each)
			err |= pp_dma_unmap(dev, a, 4096, DMA_FROM_DEVICE,
					    DMA_ATTR_SKIP_CPU_SYNC);
	}
	t1 = now_ns();
	if (!map_each)
		err |= pp_dma_unmap(dev, a, 4096, DMA_FROM_DEVICE,
				    DMA_ATTR_SKIP_CPU_SYNC);
	/* The CPU's view must be the frame: the bench measures a correct
	 * driver, not a fast wrong one. */
	if (err || memcmp(page + HEADROOM, frame, len) != 0)
		return -1;
	return (double)(t1 - t0) / (double)n;
}

int
main(int argc, char **argv)
{
	static unsigned char page[4096] __attribute__((aligned(4096)));
	unsigned char frame[4096 - HEADROOM];
	double ns[2][sizeof(setups) / sizeof(setups[0])][MAX_ROUNDS];
	long n = 200000, rounds = 5, len = 1500;
	unsigned int s, c;
	int opt;
	long r;

	for (r = 1; r < argc; r++) {
		if (strcmp(argv[r], "--help") == 0 ||
		    strcmp(argv[r], "-h") == 0) {
			printf("usage: %s [-n ITERATIONS] [-r ROUNDS] "
			       "[-l FRAME_LEN]\n"
			       "ns per frame of a packet-sized DMA cycle on "
			       "each device set-up\n", argv[0]);
			return 0;
		}
	}
	while ((opt = getopt(argc, argv, "n:r:l:")) != -1) {
		switch (opt) {
		case 'n':
			n = strtol(optarg, NULL, 0);
			break;
		case 'r':
			rounds = strtol(optarg, NULL, 0);
			break;
		case 'l':
			len = strtol(optarg, NULL, 0);
			break;
		default:
			fprintf(stderr, "usage: %s [-n ITERATIONS] "
				"[-r ROUNDS] [-l FRAME_LEN]\n", argv[0]);
			return 2;
		}
	}
	if (n < 1 || rounds < 1 || rounds > MAX_ROUNDS || len < 1 ||
	    len > (long)sizeof(frame)) {
		fprintf(stderr, "bad arguments\n");
		return 2;
	}
	for (r = 0; r < len; r++)
		frame[r] = (unsigned char)(r * 7 + 3);

	/* Rounds interleave the set-ups, so drift hits them all alike. */
	for (r = 0; r < rounds; r++) {
		for (s = 0; s < sizeof(setups) / sizeof(setups[0]); s++) {
			struct device *dev = make(&setups[s]);

			if (dev == NULL) {
				perror("device");
				return 1;
			}
			for (c = 0; c < 2; c++) {
				ns[c][s][r] = round_ns(dev, c == 0, page,
						       frame, (size_t)len, n);
				if (ns[c][s][r] < 0) {
					fprintf(stderr, "%s: DMA error\n",
						setups[s].name);
					return 1;
				}
			}
			pp_dma_dev_destroy(dev);
		}
	}
	printf("bench_dma_bounce: %ld frames of %ld bytes x %ld rounds; "
	       "ns per frame, median (min-max)\n", n, len, rounds);
	printf("%-24s %28s %28s\n", "device", "map+sync+write+sync+unmap",
	       "recycle: sync+write+sync");
	for (s = 0; s < sizeof(setups) / sizeof(setups[0]); s++) {
		printf("%-24s", setups[s].name);
		for (c = 0; c < 2; c++) {
			pp_tool_sort_doubles(ns[c][s], (size_t)rounds);
			printf(" %12.1f (%6.1f-%6.1f)", ns[c][s][rounds / 2],
			       ns[c][s][0], ns[c][s][rounds - 1]);
		}
		printf("\n");
	}
	return 0;
}
