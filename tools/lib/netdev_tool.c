/* SPDX-License-Identifier: MIT */
/*
 * Copyright (c) 2026 The pagepool authors
 *
 * The XDP tools' device set-up and teardown; see netdev_tool.h.
 */
#include "netdev_tool.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#ifdef PP_HAVE_AFXDP
#include "drivers/net/xsk.h"
#endif

volatile sig_atomic_t pp_tool_stop;
static int pools_watched;	/* the main thread's */
static int pools_freed;

static void
on_signal(int sig)
{
	(void)sig;
	pp_tool_stop = 1;
}

void
pp_tool_catch_signals(void)
{
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
}

static void
on_pool_free(void *pool)
{
	(void)pool;
	/* Any thread (the deferred release's): pairs with the acquire in
	 * pp_tool_pool_freed(). */
	__atomic_fetch_add(&pools_freed, 1, __ATOMIC_RELEASE);
}

void
pp_tool_watch_pool(struct page_pool *pool)
{
	page_pool_use_xdp_mem(pool, on_pool_free, NULL);
	page_pool_destroy(pool);	/* the reference just taken */
	pools_watched++;
}

bool
pp_tool_pool_freed(void)
{
	/* Pairs with the release in on_pool_free(). */
	return pools_watched > 0 &&
	       __atomic_load_n(&pools_freed, __ATOMIC_ACQUIRE) == pools_watched;
}

struct device *
pp_tool_dma_dev_create(bool iommu, unsigned int flags)
{
	struct device *dmadev;

	if (iommu) {
		struct pp_iommu_opts io = { .sz = sizeof(io), .flags = flags };

		dmadev = pp_iommu_create(&io);
	} else {
		struct pp_dma_dev_opts id = { .sz = sizeof(id),
					      .flags = flags };

		dmadev = pp_dma_identity_create(&id);
	}
	if (dmadev == NULL)
		fprintf(stderr, "ERR: DMA device: %s\n", strerror(errno));
	return dmadev;
}

/* sim0 .. sim@want into @devs, counted in @ndev; 0, or the exit code. */
static int
netsim_devs_create(struct net_device **devs, unsigned int *ndev,
		   unsigned int want, const struct netsim_opts *opts,
		   const char *ifname)
{
	unsigned int i;
	int err;

	for (i = 0; i <= want; i++) {
		devs[i] = netsim_create(opts);
		if (devs[i] == NULL) {
			err = errno;
			fprintf(stderr, "ERR: cannot create %s: %s\n", ifname,
				strerror(err));
			return err == EINVAL ? 2 : 1;
		}
		(*ndev)++;
	}
	return 0;
}

#ifdef PP_HAVE_AFXDP
/* The AF_XDP device over @ifname into devs[0]; 0, or the exit code. */
static int
xsk_dev_create(struct net_device **devs, unsigned int *ndev,
	       const char *ifname, uint32_t xdp_flags, bool no_recycle,
	       const char *unknown)
{
	struct pp_xsk_opts xo = { .sz = sizeof(xo),
		.skb_mode = (xdp_flags & XDP_FLAGS_SKB_MODE) != 0,
		.no_recycle = no_recycle };
	char msg[256];
	int err;

	devs[0] = pp_xsk_create(ifname, &xo, msg, sizeof(msg));
	if (devs[0] == NULL) {
		err = errno;
		fprintf(stderr, "ERR: %s: %s\n",
			err == ENODEV ? unknown : ifname, msg);
		return err == ENODEV || err == EINVAL ? 2 : 1;
	}
	*ndev = 1;
	return 0;
}
#endif

int
pp_tool_devs_open(struct net_device **devs, unsigned int *ndev,
		  struct net_device **devp, const char *ifname, bool xsk,
		  uint32_t xdp_flags, unsigned int want,
		  const struct netsim_opts *opts, const char *unknown)
{
	struct net_device *dev;
	int rc, ret;

#ifdef PP_HAVE_AFXDP
	if (xsk)
		rc = xsk_dev_create(devs, ndev, ifname, xdp_flags,
				    opts->no_recycle, unknown);
	else
#endif
		rc = netsim_devs_create(devs, ndev, want, opts, ifname);
	(void)xsk, (void)xdp_flags;
	if (rc != 0)
		return rc;
	dev = dev_get_by_name(ifname);
	if (dev == NULL) {
		fprintf(stderr, "ERR: %s\n", unknown);
		return 2;
	}
	ret = dev_open(dev);
	if (ret != 0) {
#ifdef PP_HAVE_AFXDP
		if (xsk)
			fprintf(stderr, "ERR: cannot open %s: %s\n", ifname,
				pp_xsk_open_error(dev));
		else
#endif
			fprintf(stderr, "ERR: cannot open %s: %s\n", ifname,
				strerror(-ret));
		return 1;
	}
	*devp = dev;
	return 0;
}

void
pp_tool_devs_destroy(struct net_device **devs, unsigned int n, bool xsk)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
#ifdef PP_HAVE_AFXDP
		if (xsk) {
			pp_xsk_destroy(devs[i]);
			continue;
		}
#endif
		netsim_destroy(devs[i]);
	}
	(void)xsk;
	pp_skb_cache_thread_drain();
}

static double
tv_s(const struct timeval *a, const struct timeval *b)
{
	return (double)(b->tv_sec - a->tv_sec) +
	       (double)(b->tv_usec - a->tv_usec) / 1e6;
}

void
pp_tool_print_cpu_time(const char *lead, const struct rusage *ru0,
		       const struct rusage *ru1, uint64_t rx)
{
	pp_tool_print_cpu_time_of(lead, ru0, ru1, rx, "polling thread");
}

void
pp_tool_print_cpu_time_of(const char *lead, const struct rusage *ru0,
			  const struct rusage *ru1, uint64_t rx,
			  const char *who)
{
	double usr = tv_s(&ru0->ru_utime, &ru1->ru_utime);
	double sys = tv_s(&ru0->ru_stime, &ru1->ru_stime);

	printf("%sCPU time per packet: %.1f ns (user %.3f s, sys %.3f s, %" PRIu64 " packets, %s)\n",
	       lead, rx != 0 ? (usr + sys) * 1e9 / (double)rx : 0.0, usr, sys,
	       rx, who);
}

#ifdef PP_HAVE_AFXDP
void
pp_tool_print_xsk_stats(struct net_device *dev)
{
	struct pp_xsk_stats xs;

	pp_xsk_get_stats(dev, &xs);
	printf("AF_XDP kernel XDP_STATISTICS: rx_dropped:%" PRIu64
	       " rx_ring_full:%" PRIu64 " rx_fill_ring_empty_descs:%" PRIu64
	       " rx_invalid_descs:%" PRIu64 " tx_invalid_descs:%" PRIu64 "\n",
	       xs.rx_dropped, xs.rx_ring_full, xs.rx_fill_ring_empty_descs,
	       xs.rx_invalid_descs, xs.tx_invalid_descs);
}
#endif
