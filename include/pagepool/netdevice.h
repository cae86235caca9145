/* SPDX-License-Identifier: MIT */
/*
 * Copyright (c) 2026 The pagepool authors
 *
 * DOC: netdevice — network devices, NAPI, generic XDP and a small stack
 *
 * The kernel's struct net_device and NAPI (include/linux/netdevice.h,
 * net/core/dev.c), as much as a driver's RX/TX path and the tools need.
 * A device has RX and TX queues and a driver (struct net_device_ops);
 * devices are registered by name ("sim%d" picks the first free number) and
 * found with dev_get_by_name() and dev_get_by_index().
 *
 * NAPI is a thread. dev_open() runs on the thread that will poll the
 * device: it becomes the owner of every NAPI instance of the device, so
 * the queues' page_pools recycle directly on it. That thread calls
 * napi_poll() in a loop; each call runs the driver's poll function with the
 * budget (64, NAPI_POLL_WEIGHT). dev_close() runs on the same thread.
 *
 * Threaded NAPI, as the kernel's dev_set_threaded() (the
 * /sys/class/net/DEV/threaded switch): each NAPI instance gets a thread of
 * its own, named "napi/DEV-ID" (ID the instance's napi_id), pinned where
 * napi_set_thread_cpu() says (a pagepool extension: the kernel's user runs
 * taskset on the kthread). The thread becomes the instance's owner and the
 * owner of the page_pools bound to it (page_pool_params.napi), so direct
 * recycling happens in that thread only and pages freed anywhere else go
 * through the pool's ring. It polls while the driver has work (a poll
 * that used its whole budget), else sleeps until napi_schedule() (the
 * device's interrupt) wakes it. Turning it off, dev_close() and
 * unregister_netdev() stop and join the threads, and the calling thread
 * owns the instances and their pools again.
 *
 * XDP attaches per device in native mode (the driver runs the program on
 * its raw buffer, ndo_bpf) or generic mode (XDP_FLAGS_SKB_MODE: the stack
 * runs it on the skb the driver built, do_xdp_generic(), copying the head
 * when the driver left less than XDP_PACKET_HEADROOM). XDP_PASS and
 * devices without a program deliver skbs to the stack: netif_receive_skb()
 * parses Ethernet, IPv4 and UDP, counts (struct netdev_stack_stats) and
 * frees the skb, inline in the NAPI thread.
 *
 * Not modelled: GRO, qdiscs, sockets, routing, netlink, refcounted device
 * lookups (a found device stays valid until unregister_netdev()).
 */
#ifndef PAGEPOOL_NETDEVICE_H
#define PAGEPOOL_NETDEVICE_H

#include <stdbool.h>
#include <stdint.h>

#include <pagepool/kcompat.h>
#include <pagepool/dma.h>
#include <pagepool/page_pool_types.h>
#include <pagepool/skbuff.h>
#include <pagepool/xdp.h>

#ifdef __cplusplus
extern "C" {
#endif

#define IFNAMSIZ		16
#define NAPI_POLL_WEIGHT	64

#define ETH_ALEN	6
#define ETH_HLEN	14
#define ETH_ZLEN	60
#define ETH_DATA_LEN	1500
#define ETH_FRAME_LEN	1514
#define ETH_P_IP	0x0800
#define ETH_P_IPV6	0x86DD

/* dev->flags */
#define IFF_UP		0x1

/*
 * napi->state bits, the kernel's numbers: scheduled to poll; a schedule
 * came while scheduled (poll again); no scheduling (teardown); polled by
 * its own thread; scheduled on that thread.
 */
enum {
	NAPI_STATE_SCHED = 0,
	NAPI_STATE_MISSED = 1,
	NAPI_STATE_DISABLE = 2,
	NAPI_STATE_THREADED = 8,
	NAPI_STATE_SCHED_THREADED = 9,
};

enum {
	NAPIF_STATE_SCHED = 1UL << NAPI_STATE_SCHED,
	NAPIF_STATE_MISSED = 1UL << NAPI_STATE_MISSED,
	NAPIF_STATE_DISABLE = 1UL << NAPI_STATE_DISABLE,
	NAPIF_STATE_THREADED = 1UL << NAPI_STATE_THREADED,
	NAPIF_STATE_SCHED_THREADED = 1UL << NAPI_STATE_SCHED_THREADED,
};

/** netdev_tx_t - what ndo_start_xmit() did with the skb. */
typedef enum netdev_tx {
	NETDEV_TX_OK = 0x00,	/* taken (sent, or dropped and freed) */
	NETDEV_TX_BUSY = 0x10,	/* not taken: the caller still owns it */
} netdev_tx_t;

/** enum bpf_netdev_command - ndo_bpf() commands. */
enum bpf_netdev_command {
	XDP_SETUP_PROG,
};

/** struct netdev_bpf - ndo_bpf() argument. */
struct netdev_bpf {
	enum bpf_netdev_command command;
	struct bpf_prog *prog;
};

/** struct net_device_ops - the driver. */
struct net_device_ops {
	int (*ndo_open)(struct net_device *dev);
	int (*ndo_stop)(struct net_device *dev);
	netdev_tx_t (*ndo_start_xmit)(struct sk_buff *skb,
				      struct net_device *dev);
	int (*ndo_bpf)(struct net_device *dev, struct netdev_bpf *bpf);
	void (*ndo_uninit)(struct net_device *dev);
	/* Queue @n redirected frames for transmission; return how many were
	 * taken (the caller frees the rest) or -errno. Any thread. */
	int (*ndo_xdp_xmit)(struct net_device *dev, int n,
			    struct xdp_frame **frames, uint32_t flags);
};

/** struct netdev_rx_queue - the stack's view of an RX queue. */
struct netdev_rx_queue {
	struct xdp_rxq_info xdp_rxq;	/* generic XDP's */
	struct net_device *dev;
	struct napi_struct *napi;
	unsigned int index;
};

/** struct netdev_queue - a TX queue. */
struct netdev_queue {
	struct net_device *dev;
	unsigned int index;
};

/*
 * Device counters, the kernel's rtnl_link_stats64 subset: written by the
 * device's NAPI thread with relaxed atomic stores, readable anywhere.
 */
struct net_device_stats {
	uint64_t rx_packets;
	uint64_t rx_bytes;
	uint64_t rx_dropped;
	uint64_t rx_length_errors;
	uint64_t rx_missed_errors;
	uint64_t tx_packets;
	uint64_t tx_bytes;
	uint64_t tx_dropped;
};

/**
 * struct netdev_stack_stats - what the small stack counted: every skb
 * delivered (rx), IPv4, UDP, other protocols and malformed headers.
 */
struct netdev_stack_stats {
	uint64_t rx;
	uint64_t ipv4;
	uint64_t udp;
	uint64_t other;
	uint64_t malformed;
};

/** struct net_device - a network device. */
struct net_device {
	char name[IFNAMSIZ];
	int ifindex;
	unsigned int flags;
	unsigned int mtu;
	unsigned char dev_addr[ETH_ALEN];
	const struct net_device_ops *netdev_ops;
	struct device *dma_dev;		/* the kernel's dev.parent */
	unsigned int num_rx_queues;
	unsigned int num_tx_queues;
	struct netdev_rx_queue *_rx;
	struct netdev_queue *_tx;
	struct bpf_prog *xdp_prog;	/* generic mode */
	struct bpf_prog *xdp_prog_drv;	/* native mode (given to ndo_bpf) */
	struct net_device_stats stats;
	struct netdev_stack_stats stack;
	uint64_t xdp_exceptions;	/* trace_xdp_exception() */
	unsigned long owner;		/* the NAPI thread, while up (with
					 * threaded NAPI: the one instance's
					 * thread, or 0 for several) */
	struct napi_struct *napi_list;	/* netif_napi_add() order, reversed */
	bool threaded;			/* dev_set_threaded() */
	struct net_device *registry_next;
	void *priv;
};

/** netdev_priv() - the driver's private area of @dev. */
static inline void *
netdev_priv(const struct net_device *dev)
{
	return dev->priv;
}

/**
 * alloc_netdev_mqs() - a device with @sizeof_priv bytes of driver data,
 * @txqs TX and @rxqs RX queues, named @name ("sim%d": numbered at
 * register time); @setup, if not NULL, is called on it.
 * Return: the device; NULL with errno EINVAL (bad name or queue count) or
 * ENOMEM.
 */
PP_API struct net_device *alloc_netdev_mqs(int sizeof_priv, const char *name,
					   void (*setup)(struct net_device *),
					   unsigned int txqs,
					   unsigned int rxqs);

/** free_netdev() - free an unregistered device (runs ndo_uninit). */
PP_API void free_netdev(struct net_device *dev);

/**
 * register_netdev() - give @dev its name and ifindex (from 2: 1 is the
 * loopback's in the kernel) and make it findable.
 * Return: 0; -EINVAL; -EEXIST (name taken); -ENFILE (no free number).
 */
PP_API int register_netdev(struct net_device *dev);

/** unregister_netdev() - close (if up) and unlist @dev. */
PP_API void unregister_netdev(struct net_device *dev);

/** dev_get_by_name() - the registered device called @name, or NULL. */
PP_API struct net_device *dev_get_by_name(const char *name);

/**
 * dev_get_by_index() - the registered device @ifindex, or NULL. A device
 * must not be unregistered while a program may still redirect to it.
 */
PP_API struct net_device *dev_get_by_index(int ifindex);

/**
 * dev_open() - bring @dev up: the calling thread becomes the owner of its
 * NAPI instances, and the driver's ndo_open() runs.
 * Return: 0 (also if already up); -EINVAL; the driver's error.
 * Context: the thread that will call napi_poll() for the device.
 */
PP_API int dev_open(struct net_device *dev);

/**
 * dev_close() - bring @dev down (ndo_stop()).
 * Context: the thread that opened it.
 */
PP_API void dev_close(struct net_device *dev);

/**
 * netif_napi_add_weight() - make @napi a NAPI instance of @dev with @poll
 * and @weight; netif_napi_add() uses NAPI_POLL_WEIGHT.
 */
PP_API void netif_napi_add_weight(struct net_device *dev,
				  struct napi_struct *napi,
				  int (*poll)(struct napi_struct *, int),
				  int weight);

/** netif_napi_add() - netif_napi_add_weight() with weight 64. */
static inline void
netif_napi_add(struct net_device *dev, struct napi_struct *napi,
	       int (*poll)(struct napi_struct *, int))
{
	netif_napi_add_weight(dev, napi, poll, NAPI_POLL_WEIGHT);
}

/** netif_napi_del() - @napi is no longer used. */
PP_API void netif_napi_del(struct napi_struct *napi);

/**
 * napi_poll() - run @napi's poll function once with its weight as the
 * budget.
 * Return: the work done (packets received), or -EINVAL (no poll function),
 * -EPERM (the caller is not the owner, see dev_open()), -ENETDOWN.
 * Context: the owner thread.
 */
PP_API int napi_poll(struct napi_struct *napi);

/**
 * napi_complete_done() - the poll did @work_done < budget: the queue is
 * drained and @napi no longer scheduled.
 * Return: true (re-arm the interrupt); false when a napi_schedule() came
 * during the poll: @napi stays scheduled and is polled again.
 * Context: the poll function.
 */
PP_API bool napi_complete_done(struct napi_struct *napi, int work_done);

/**
 * napi_schedule_prep() - claim the scheduling of @napi.
 * Return: true if the caller must schedule it (__napi_schedule()); false
 * if it was already scheduled (then it is marked to be polled again, so
 * the work that prompted the call is seen) or is being disabled.
 * Context: any thread (the device's interrupt).
 */
PP_API bool napi_schedule_prep(struct napi_struct *napi);

/**
 * __napi_schedule() - wake @napi's thread to poll it (threaded NAPI);
 * without a thread the owner's own loop polls it and nothing is done.
 * Context: any thread, after napi_schedule_prep() returned true.
 */
PP_API void __napi_schedule(struct napi_struct *napi);

/** napi_schedule() - schedule @napi. Return: true if this call did. */
static inline bool
napi_schedule(struct napi_struct *napi)
{
	if (napi_schedule_prep(napi)) {
		__napi_schedule(napi);
		return true;
	}
	return false;
}

/**
 * dev_set_threaded() - poll each NAPI instance of @dev on a thread of its
 * own (true), or on the device's owner thread again (false). The setting
 * stays with the device: with @dev down the threads start at dev_open()
 * and stop at dev_close(). Each thread, named "napi/DEV-ID", is pinned to
 * the CPU napi_set_thread_cpu() gave its instance, if any, and becomes
 * the owner of the instance and of the page_pools bound to it; when the
 * threads stop, the caller becomes that owner.
 * Return: 0; -EINVAL (NULL @dev, or a CPU the process may not run on);
 * -EAGAIN or -ENOMEM (no thread could be started: threaded mode stays
 * off, as in the kernel).
 * Context: the thread that opens and closes @dev, not while it polls it.
 */
PP_API int dev_set_threaded(struct net_device *dev, bool threaded);

/**
 * napi_set_thread_cpu() - pin @napi's thread to @cpu (-1: no pinning; a
 * running thread then gets the calling thread's CPUs), now
 * if it runs, else when dev_set_threaded() or dev_open() starts it. A
 * pagepool extension (the kernel pins a NAPI kthread with taskset).
 * Return: 0; -EINVAL (NULL @napi, @cpu below -1 or at least CPU_SETSIZE,
 * or a CPU the process may not run on, for a running thread).
 * Context: the thread that sets @napi's device threaded.
 */
PP_API int napi_set_thread_cpu(struct napi_struct *napi, int cpu);

/**
 * dev_xdp_attach() - attach @prog to @dev, or detach with NULL.
 * @flags: XDP_FLAGS_SKB_MODE (generic), XDP_FLAGS_DRV_MODE (native) or
 *	neither (native if the driver supports it); XDP_FLAGS_UPDATE_IF_NOEXIST
 *	refuses to replace a program
 *
 * @prog must stay valid until it is detached and the device closed.
 * Return: 0; -EINVAL (bad flags); -EOPNOTSUPP (native mode without driver
 * support); -EBUSY (UPDATE_IF_NOEXIST and a program is attached); -EEXIST
 * (a program is attached in the other mode); the driver's error.
 * Context: any thread; the NAPI thread sees the change at its next packet.
 */
PP_API int dev_xdp_attach(struct net_device *dev, struct bpf_prog *prog,
			  uint32_t flags);

/**
 * eth_type_trans() - set @skb's device, MAC header and packet type, pull
 * the Ethernet header. Return: the EtherType (network byte order).
 */
PP_API uint16_t eth_type_trans(struct sk_buff *skb, struct net_device *dev);

/**
 * do_xdp_generic() - run @prog on *@pskb the kernel's generic way (the
 * head copied when the headroom is short). Return: XDP_PASS (the caller
 * goes on with *@pskb), or XDP_DROP (the skb was consumed: dropped,
 * transmitted or redirected).
 */
PP_API int do_xdp_generic(const struct bpf_prog *prog, struct sk_buff **pskb);

/**
 * netif_receive_skb() - deliver @skb to the stack: generic XDP if attached,
 * then the small IPv4/UDP stack, which frees it.
 * Return: 0 (NET_RX_SUCCESS) or 1 (NET_RX_DROP).
 * Context: the NAPI thread.
 */
PP_API int netif_receive_skb(struct sk_buff *skb);

/** napi_gro_receive() - netif_receive_skb() (no GRO here). */
static inline int
napi_gro_receive(struct napi_struct *napi, struct sk_buff *skb)
{
	(void)napi;
	return netif_receive_skb(skb);
}

#ifdef __cplusplus
}
#endif

#endif /* PAGEPOOL_NETDEVICE_H */
