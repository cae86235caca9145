/* SPDX-License-Identifier: MIT */
/*
 * Copyright (c) 2026 The pagepool authors
 *
 * What the XDP tools (xdp_rxq_info, xdp2) share around their device: the
 * stop flag their signals set, the DMA device, the software NICs sim0 ..
 * simN or one AF_XDP device, its opening, the watch on its page_pool, and
 * the teardown with its checks. Error messages go to stderr, as the tools
 * print them.
 */
#ifndef PAGEPOOL_TOOLS_NETDEV_TOOL_H
#define PAGEPOOL_TOOLS_NETDEV_TOOL_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/resource.h>

#include <pagepool/netsim.h>
#include <pagepool/page_pool.h>

/* Set by SIGINT and SIGTERM once pp_tool_catch_signals() ran. */
extern volatile sig_atomic_t pp_tool_stop;

void pp_tool_catch_signals(void);

/*
 * Watch @pool (one call per pool, from the main thread, while it owns
 * the pool): pp_tool_pool_freed() says, after the device is gone, whether
 * every watched pool was freed (every page came back). Drops the
 * reference page_pool_use_xdp_mem() takes, so the device's teardown frees
 * it.
 */
void pp_tool_watch_pool(struct page_pool *pool);
bool pp_tool_pool_freed(void);

/*
 * The DMA device: an IOMMU domain with @iommu, else the identity mapping,
 * with @flags (PP_DMA_F_*). NULL, reported, on failure.
 */
struct device *pp_tool_dma_dev_create(bool iommu, unsigned int flags);

/*
 * Create the tool's devices and open the one named @ifname into @devp:
 * with @xsk the AF_XDP device over the real interface @ifname (generic XDP
 * if @xdp_flags has XDP_FLAGS_SKB_MODE, else native; @opts->no_recycle as
 * the software NIC's), else the software NICs sim0 .. sim@want (@opts).
 * They go into @devs, counted in @ndev (the caller destroys them, also
 * after a failure). Returns 0, or the exit code after reporting: 2 for
 * bad options or an unknown interface (reported as "ERR: @unknown", the
 * tool's words, then why), else 1.
 */
int pp_tool_devs_open(struct net_device **devs, unsigned int *ndev,
		      struct net_device **devp, const char *ifname, bool xsk,
		      uint32_t xdp_flags, unsigned int want,
		      const struct netsim_opts *opts, const char *unknown);

/* Destroy the @n devices (@xsk: AF_XDP ones) and drain the skb cache. */
void pp_tool_devs_destroy(struct net_device **devs, unsigned int n, bool xsk);

/*
 * Print the CPU time the polling thread spent per packet between @ru0 and
 * @ru1 (RUSAGE_THREAD) over @rx packets; @lead goes first ("" or "\n").
 */
void pp_tool_print_cpu_time(const char *lead, const struct rusage *ru0,
			    const struct rusage *ru1, uint64_t rx);
/* The same, for the CPU time of @who ("process, NAPI threads"). */
void pp_tool_print_cpu_time_of(const char *lead, const struct rusage *ru0,
			       const struct rusage *ru1, uint64_t rx,
			       const char *who);

#ifdef PP_HAVE_AFXDP
/* Print the kernel's XDP_STATISTICS of the AF_XDP device @dev. */
void pp_tool_print_xsk_stats(struct net_device *dev);
#endif

#endif /* PAGEPOOL_TOOLS_NETDEV_TOOL_H */
