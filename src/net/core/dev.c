/* SPDX-License-Identifier: MIT */
/*
 * Copyright (c) 2026 The pagepool authors
 *
 * Network devices: allocation and registry, open/close, NAPI, XDP attach,
 * generic XDP, and the small stack that receives skbs (the kernel's
 * net/core/dev.c and net/ethernet/eth.c, the parts a driver's RX path
 * meets, written anew).
 *
 * NAPI is a thread here: dev_open() makes the calling thread the owner of
 * the device's NAPI instances before the driver creates its page_pools,
 * so the pools recycle directly on that thread, and napi_poll() refuses
 * any other. Generic XDP follows the kernel: the program sees the skb's
 * linear data from the MAC header, with at least XDP_PACKET_HEADROOM in
 * front; a driver that left less gets its head copied
 * (pskb_expand_head()). The stack parses Ethernet, IPv4 and UDP, counts,
 * and consumes the skb in the NAPI thread, so pool pages go straight back
 * to the alloc cache.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pagepool/page_pool.h>

#include "dev_priv.h"

/* ---- Registry ---------------------------------------------------------- */

static pthread_mutex_t dev_lock = PTHREAD_MUTEX_INITIALIZER;
static struct net_device *dev_list;
static int ifindex_next = 2;
static unsigned long dev_gen = 1;

unsigned long
_pp_dev_gen(void)
{
	/* A13: pairs with release R13 in register/unregister: a thread that
	 * sees the new generation sees the registry change. */
	return pp_load_acquire(&dev_gen);
}

struct net_device *
alloc_netdev_mqs(int sizeof_priv, const char *name,
		 void (*setup)(struct net_device *), unsigned int txqs,
		 unsigned int rxqs)
{
	struct net_device *dev;
	unsigned int i;

	if (name == NULL || strlen(name) == 0 || strlen(name) >= IFNAMSIZ ||
	    sizeof_priv < 0 || txqs == 0 || rxqs == 0 || txqs > 256 ||
	    rxqs > 256) {
		errno = EINVAL;
		return NULL;
	}
	dev = calloc(1, sizeof(*dev));
	if (dev == NULL)
		goto nomem;
	dev->_rx = calloc(rxqs, sizeof(*dev->_rx));
	dev->_tx = calloc(txqs, sizeof(*dev->_tx));
	dev->priv = sizeof_priv ? aligned_alloc(PP_CACHELINE_SIZE,
						(sizeof_priv + PP_CACHELINE_SIZE - 1) &
						~(PP_CACHELINE_SIZE - 1)) : NULL;
	if (dev->_rx == NULL || dev->_tx == NULL ||
	    (sizeof_priv && dev->priv == NULL))
		goto nomem;
	if (sizeof_priv)
		memset(dev->priv, 0, (size_t)sizeof_priv);
	snprintf(dev->name, sizeof(dev->name), "%s", name);
	dev->num_rx_queues = rxqs;
	dev->num_tx_queues = txqs;
	dev->mtu = ETH_DATA_LEN;
	for (i = 0; i < rxqs; i++) {
		dev->_rx[i].dev = dev;
		dev->_rx[i].index = i;
	}
	for (i = 0; i < txqs; i++) {
		dev->_tx[i].dev = dev;
		dev->_tx[i].index = i;
	}
	if (setup != NULL)
		setup(dev);
	return dev;
nomem:
	if (dev != NULL) {
		free(dev->_rx);
		free(dev->_tx);
		free(dev->priv);
		free(dev);
	}
	errno = ENOMEM;
	return NULL;
}

void
free_netdev(struct net_device *dev)
{
	if (dev == NULL)
		return;
	if (dev->netdev_ops != NULL && dev->netdev_ops->ndo_uninit != NULL)
		dev->netdev_ops->ndo_uninit(dev);
	free(dev->_rx);
	free(dev->_tx);
	free(dev->priv);
	free(dev);
}

static struct net_device *
find_by_name_locked(const char *name)
{
	struct net_device *d;

	for (d = dev_list; d != NULL; d = d->registry_next)
		if (strcmp(d->name, name) == 0)
			return d;
	return NULL;
}

int
register_netdev(struct net_device *dev)
{
	char name[IFNAMSIZ];
	unsigned int i;
	int ret = 0, q;

	if (dev == NULL)
		return -EINVAL;
	pthread_mutex_lock(&dev_lock);
	if (strchr(dev->name, '%') != NULL) {
		/* The template must have exactly one %d. */
		const char *p = strchr(dev->name, '%');

		if (p[1] != 'd' || strchr(p + 1, '%') != NULL) {
			ret = -EINVAL;
			goto out;
		}
		for (i = 0; i < 1000; i++) {
			snprintf(name, sizeof(name), dev->name, i);
			if (find_by_name_locked(name) == NULL)
				break;
		}
		if (i == 1000) {
			ret = -ENFILE;
			goto out;
		}
		memcpy(dev->name, name, sizeof(name));
	} else if (find_by_name_locked(dev->name) != NULL) {
		ret = -EEXIST;
		goto out;
	}
	dev->ifindex = ifindex_next++;
	dev->registry_next = dev_list;
	dev_list = dev;
	/* R13: pairs with acquire A13 in _pp_dev_gen(). */
	pp_store_release(&dev_gen, dev_gen + 1);
out:
	pthread_mutex_unlock(&dev_lock);
	if (ret == 0)
		for (q = 0; q < (int)dev->num_rx_queues; q++)
			ret = xdp_rxq_info_reg(&dev->_rx[q].xdp_rxq, dev,
					       (uint32_t)q, 0);
	return ret;
}

void
unregister_netdev(struct net_device *dev)
{
	struct net_device **pp;
	unsigned int q;

	if (dev == NULL)
		return;
	if (dev->flags & IFF_UP)
		dev_close(dev);
	pthread_mutex_lock(&dev_lock);
	for (pp = &dev_list; *pp != NULL; pp = &(*pp)->registry_next) {
		if (*pp == dev) {
			*pp = dev->registry_next;
			break;
		}
	}
	/* R13: pairs with acquire A13 in _pp_dev_gen(). */
	pp_store_release(&dev_gen, dev_gen + 1);
	pthread_mutex_unlock(&dev_lock);
	for (q = 0; q < dev->num_rx_queues; q++)
		xdp_rxq_info_unreg(&dev->_rx[q].xdp_rxq);
}

struct net_device *
dev_get_by_name(const char *name)
{
	struct net_device *d;

	if (name == NULL)
		return NULL;
	pthread_mutex_lock(&dev_lock);
	d = find_by_name_locked(name);
	pthread_mutex_unlock(&dev_lock);
	return d;
}

struct net_device *
dev_get_by_index(int ifindex)
{
	struct net_device *d;

	pthread_mutex_lock(&dev_lock);
	for (d = dev_list; d != NULL; d = d->registry_next)
		if (d->ifindex == ifindex)
			break;
	pthread_mutex_unlock(&dev_lock);
	return d;
}

/* ---- Up, down, NAPI ---------------------------------------------------- */

int
dev_open(struct net_device *dev)
{
	unsigned int q;
	int ret = 0;

	if (dev == NULL)
		return -EINVAL;
	if (dev->flags & IFF_UP)
		return 0;
	dev->owner = pp_thread_self();
	for (q = 0; q < dev->num_rx_queues; q++)
		if (dev->_rx[q].napi != NULL)
			napi_init_current(dev->_rx[q].napi);
	if (dev->netdev_ops != NULL && dev->netdev_ops->ndo_open != NULL)
		ret = dev->netdev_ops->ndo_open(dev);
	if (ret != 0) {
		dev->owner = 0;
		return ret;
	}
	/* R14: pairs with the relaxed checks of other threads (redirects,
	 * transmits), which only decide whether to try. */
	pp_store_release(&dev->flags, dev->flags | IFF_UP);
	return 0;
}

void
dev_close(struct net_device *dev)
{
	if (dev == NULL || !(dev->flags & IFF_UP))
		return;
	/* Down first, so redirects and transmits stop trying; the caller
	 * makes sure none is still running (the kernel waits for RCU). */
	pp_store_relaxed(&dev->flags, dev->flags & ~IFF_UP);
	if (dev->netdev_ops != NULL && dev->netdev_ops->ndo_stop != NULL)
		dev->netdev_ops->ndo_stop(dev);
	dev->owner = 0;
}

void
netif_napi_add_weight(struct net_device *dev, struct napi_struct *napi,
		      int (*poll)(struct napi_struct *, int), int weight)
{
	static unsigned int napi_id_next = 1;

	if (dev == NULL || napi == NULL)
		return;
	napi->dev = dev;
	napi->poll = poll;
	napi->weight = weight > 0 ? weight : NAPI_POLL_WEIGHT;
	napi->napi_id = __atomic_fetch_add(&napi_id_next, 1, __ATOMIC_RELAXED);
	napi->state = 0;
}

void
netif_napi_del(struct napi_struct *napi)
{
	if (napi != NULL)
		napi->poll = NULL;
}

int
napi_poll(struct napi_struct *napi)
{
	if (napi == NULL || napi->poll == NULL || napi->dev == NULL)
		return -EINVAL;
	if (!(napi->dev->flags & IFF_UP))
		return -ENETDOWN;
	if (napi->list_owner != pp_thread_self())
		return -EPERM;
	return napi->poll(napi, napi->weight);
}

bool
napi_complete_done(struct napi_struct *napi, int work_done)
{
	(void)napi;
	(void)work_done;
	return true;
}

/* ---- XDP attach -------------------------------------------------------- */

int
dev_xdp_attach(struct net_device *dev, struct bpf_prog *prog, uint32_t flags)
{
	bool have_drv, generic;
	struct netdev_bpf bpf;
	int ret;

	if (dev == NULL || (flags & ~XDP_FLAGS_MASK) ||
	    (flags & XDP_FLAGS_MODES) == XDP_FLAGS_MODES)
		return -EINVAL;
	if (prog != NULL && prog->run == NULL)
		return -EINVAL;
	have_drv = dev->netdev_ops != NULL && dev->netdev_ops->ndo_bpf != NULL;
	if ((flags & XDP_FLAGS_DRV_MODE) && !have_drv)
		return -EOPNOTSUPP;
	generic = (flags & XDP_FLAGS_SKB_MODE) || !have_drv;
	if (prog == NULL) {
		/* Detach whichever mode the flags name (or is attached). */
		if (!(flags & XDP_FLAGS_MODES))
			generic = dev->xdp_prog != NULL;
	} else if (generic ? dev->xdp_prog_drv != NULL : dev->xdp_prog != NULL) {
		return -EEXIST;
	} else if ((flags & XDP_FLAGS_UPDATE_IF_NOEXIST) &&
		   (generic ? dev->xdp_prog : dev->xdp_prog_drv) != NULL) {
		return -EBUSY;
	}
	if (generic) {
		/* R7: pairs with acquire A7 in netif_receive_skb(): the NAPI
		 * thread sees the program's setup before calling it. */
		pp_store_release(&dev->xdp_prog, prog);
		return 0;
	}
	if (!have_drv)	/* unreachable: no driver means generic */
		return -EOPNOTSUPP;
	bpf.command = XDP_SETUP_PROG;
	bpf.prog = prog;
	ret = dev->netdev_ops->ndo_bpf(dev, &bpf);
	if (ret == 0)
		pp_store_release(&dev->xdp_prog_drv, prog);
	return ret;
}

/* ---- Ethernet, generic XDP and the stack ------------------------------- */

uint16_t
eth_type_trans(struct sk_buff *skb, struct net_device *dev)
{
	const unsigned char *eth;
	uint16_t proto;

	skb->dev = dev;
	skb_reset_mac_header(skb);
	skb->mac_len = ETH_HLEN;
	eth = skb->data;
	__skb_pull(skb, ETH_HLEN);
	if (eth[0] & 1)
		skb->pkt_type = memcmp(eth, "\xff\xff\xff\xff\xff\xff", 6) == 0 ?
					PACKET_BROADCAST : PACKET_MULTICAST;
	else if (memcmp(eth, dev->dev_addr, ETH_ALEN) != 0)
		skb->pkt_type = PACKET_OTHERHOST;
	else
		skb->pkt_type = PACKET_HOST;
	/* The EtherType as it lies in memory: network byte order. */
	memcpy(&proto, eth + 12, sizeof(proto));
	return proto;
}

static struct xdp_rxq_info *
skb_xdp_rxq(struct sk_buff *skb)
{
	unsigned int q = skb->queue_mapping;

	if (q >= skb->dev->num_rx_queues)
		q = 0;
	return &skb->dev->_rx[q].xdp_rxq;
}

/* bpf_prog_run_generic_xdp(): the program on the skb's linear data from
 * the MAC header; the skb follows the bounds the program moved. */
static uint32_t
run_generic_xdp(struct sk_buff *skb, const struct bpf_prog *prog)
{
	unsigned int mac_len = (unsigned int)(skb->data - skb_mac_header(skb));
	unsigned char *hard_start = skb->data - skb_headroom(skb);
	unsigned char *orig_data, *orig_end;
	struct xdp_buff xdp;
	uint32_t act;
	long off;

	xdp_init_buff(&xdp, (uint32_t)(skb_end_pointer(skb) - hard_start) +
				    SKB_DATA_ALIGN(sizeof(struct skb_shared_info)),
		      skb_xdp_rxq(skb));
	xdp_prepare_buff(&xdp, hard_start, (int)(skb_headroom(skb) - mac_len),
			 (int)(skb_headlen(skb) + mac_len), true);
	orig_data = xdp.data;
	orig_end = xdp.data_end;
	act = _pp_bpf_prog_run_xdp(prog, &xdp);
	off = (unsigned char *)xdp.data - orig_data;
	if (off > 0)
		__skb_pull(skb, (unsigned int)off);
	else if (off < 0)
		__skb_push(skb, (unsigned int)-off);
	if (off != 0) {
		skb->mac_header = (uint16_t)(skb->mac_header + off);
		skb_reset_network_header(skb);
	}
	off = (unsigned char *)xdp.data_end - orig_end;
	if (off != 0) {
		skb->tail = (uint32_t)((unsigned char *)xdp.data_end - skb->head);
		skb->len = (unsigned int)((long)skb->len + off);
	}
	if (act == XDP_TX || act == XDP_REDIRECT)
		__skb_push(skb, mac_len);
	return act;
}

void
_pp_generic_xdp_tx(struct sk_buff *skb, const struct bpf_prog *prog)
{
	struct net_device *dev = skb->dev;

	if (dev->netdev_ops == NULL || dev->netdev_ops->ndo_start_xmit == NULL ||
	    dev->netdev_ops->ndo_start_xmit(skb, dev) != NETDEV_TX_OK) {
		trace_xdp_exception(dev, prog, XDP_TX);
		/* Any thread (a redirect's target is not ours): atomic. */
		pp_fetch_add_relaxed(&dev->stats.tx_dropped, 1);
		kfree_skb(skb);
	}
}

int
do_xdp_generic(const struct bpf_prog *prog, struct sk_buff **pskb)
{
	struct sk_buff *skb;
	unsigned int mac_len;
	uint32_t act;

	if (prog == NULL)
		return XDP_PASS;
	skb = *pskb;
	mac_len = (unsigned int)(skb->data - skb_mac_header(skb));
	__skb_push(skb, mac_len);
	/*
	 * The headroom native XDP guarantees, and one linear buffer for the
	 * program: as the kernel's netif_receive_generic_xdp(), one head copy
	 * with room for both (the headroom rounded up to NET_SKB_PAD, the
	 * fragments' bytes plus 128 at the tail), then the fragments pulled
	 * into it. A failure drops the skb.
	 */
	if (skb_is_nonlinear(skb) || skb_headroom(skb) < XDP_PACKET_HEADROOM) {
		int hroom = XDP_PACKET_HEADROOM - (int)skb_headroom(skb);
		int troom = (int)(skb->tail + skb->data_len) - (int)skb->end;

		if (pskb_expand_head(skb, hroom > 0 ? (hroom + NET_SKB_PAD - 1) &
							  ~(NET_SKB_PAD - 1) : 0,
				     troom > 0 ? troom + 128 : 0,
				     GFP_ATOMIC) != 0 ||
		    skb_linearize(skb) != 0) {
			trace_xdp_exception(skb->dev, prog, XDP_ABORTED);
			kfree_skb(skb);
			return XDP_DROP;
		}
	}
	__skb_pull(skb, mac_len);
	act = run_generic_xdp(skb, prog);
	switch (act) {
	case XDP_PASS:
		return XDP_PASS;
	case XDP_TX:
		_pp_generic_xdp_tx(skb, prog);
		return XDP_DROP;
	case XDP_REDIRECT:
		if (_pp_xdp_generic_redirect(skb, prog) != 0) {
			trace_xdp_exception(skb->dev, prog, act);
			kfree_skb(skb);
		}
		return XDP_DROP;
	default:
		bpf_warn_invalid_xdp_action(skb->dev, prog, act);
		/* fallthrough */
	case XDP_ABORTED:
		trace_xdp_exception(skb->dev, prog, act);
		/* fallthrough */
	case XDP_DROP:
		kfree_skb(skb);
		return XDP_DROP;
	}
}

/* Stack counters: the NAPI thread and CPU map consumers both count. */
#define stack_stat_inc(field) pp_fetch_add_relaxed(&(field), 1)

/* The small stack: Ethernet was pulled by eth_type_trans(). */
void
_pp_stack_receive(struct sk_buff *skb)
{
	struct netdev_stack_stats *st = &skb->dev->stack;
	const unsigned char *ip;
	unsigned int ihl, tot;

	stack_stat_inc(st->rx);
	if (skb->protocol != htons(ETH_P_IP)) {
		stack_stat_inc(st->other);
		goto out;
	}
	ip = skb->data;
	if (skb_headlen(skb) < 20 || (ip[0] >> 4) != 4)
		goto bad;
	ihl = (ip[0] & 0xfu) * 4;
	tot = (unsigned int)ip[2] << 8 | ip[3];
	if (ihl < 20 || tot < ihl || tot > skb->len)
		goto bad;
	skb_reset_network_header(skb);
	stack_stat_inc(st->ipv4);
	if (ip[9] == 17) {
		if (tot < ihl + 8 || skb_headlen(skb) < ihl + 8)
			goto bad;
		stack_stat_inc(st->udp);
	}
out:
	consume_skb(skb);
	return;
bad:
	stack_stat_inc(st->malformed);
	kfree_skb(skb);
}

int
netif_receive_skb(struct sk_buff *skb)
{
	const struct bpf_prog *prog;

	if (skb == NULL)
		return 1;
	/* A7: pairs with release R7 in dev_xdp_attach(). */
	prog = pp_load_acquire(&skb->dev->xdp_prog);
	if (prog != NULL && do_xdp_generic(prog, &skb) != XDP_PASS)
		return 1;
	_pp_stack_receive(skb);
	return 0;
}
