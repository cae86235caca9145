/* SPDX-License-Identifier: MIT */
/*
 * Copyright (c) 2026 The pagepool authors
 *
 * XDP core: RX queue info and memory models, frames and their return, and
 * running a program (the kernel's net/core/xdp.c and the parts of
 * bpf_prog_run_xdp() and the XDP tracepoints a driver relies on, written
 * anew).
 *
 * Memory models. Registering MEM_TYPE_PAGE_POOL takes a user reference on
 * the pool (page_pool_use_xdp_mem()), so the pool outlives the driver's
 * page_pool_destroy() until the model is unregistered too, as in the
 * kernel. A frame is returned by looking at its page: a page_pool page
 * carries its pool (page->pp), so no id lookup is needed on the hot path;
 * the ids only name registrations.
 *
 * Programs are C functions (see xdp.h); bpf_prog_run_xdp() is the
 * boundary where the kernel's verifier would have guaranteed that the
 * packet bounds stay inside the buffer, so it checks them after the run.
 *
 * Redirect. bpf_redirect() records the target in the calling thread's
 * redirect state; xdp_do_redirect() turns the buffer into a frame and
 * queues it per target device, and the queue goes to the target's
 * ndo_xdp_xmit() when it holds XDP_BULK_QUEUE_SIZE frames or at
 * xdp_do_flush(), the end of the poll. The target transmits the frame and
 * returns it with xdp_return_frame() from its own thread, so pages come
 * back to the source's pool through the ring when the devices are polled
 * by different threads.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pagepool/page_frag_cache.h>
#include <pagepool/page_pool.h>
#include <pagepool/xdp.h>

#include "lib/fork_priv.h"
#include "lib/mem_priv.h"
#include "lib/tls_priv.h"
#include "dev_priv.h"

enum {
	REG_STATE_NEW = 0,
	REG_STATE_REGISTERED,
	REG_STATE_UNREGISTERED,
	REG_STATE_UNUSED,
};

/* Ids of memory-model registrations: cyclic, never 0. */
static uint32_t mem_id_next;

int
xdp_rxq_info_reg(struct xdp_rxq_info *xdp_rxq, struct net_device *dev,
		 uint32_t queue_index, unsigned int napi_id)
{
	if (xdp_rxq == NULL || dev == NULL)
		return -EINVAL;
	if (xdp_rxq->reg_state == REG_STATE_REGISTERED)
		xdp_rxq_info_unreg(xdp_rxq);
	memset(xdp_rxq, 0, sizeof(*xdp_rxq));
	xdp_rxq->dev = dev;
	xdp_rxq->queue_index = queue_index;
	xdp_rxq->napi_id = napi_id;
	xdp_rxq->reg_state = REG_STATE_REGISTERED;
	return 0;
}

bool
xdp_rxq_info_is_reg(const struct xdp_rxq_info *xdp_rxq)
{
	return xdp_rxq != NULL && xdp_rxq->reg_state == REG_STATE_REGISTERED;
}

/* A page_pool registration: the pool whose user reference the model
 * holds, found again by its queue at unregister time (the kernel keys
 * its table by id). */
struct mem_reg {
	struct xdp_rxq_info *rxq;
	struct page_pool *pool;
	struct mem_reg *next;
};

static pthread_mutex_t mem_lock = PTHREAD_MUTEX_INITIALIZER;
static struct mem_reg *mem_regs;

/* Fork (lib/fork.c, order 2): mem_lock is held by no other thread across
 * the fork; the child releases it as the parent does. */
void
_pp_xdp_fork(enum pp_fork_phase phase)
{
	_pp_fork_mutex(&mem_lock, phase);
}

int
xdp_rxq_info_reg_mem_model(struct xdp_rxq_info *xdp_rxq,
			   enum xdp_mem_type type, void *allocator)
{
	struct mem_reg *r;

	if (!xdp_rxq_info_is_reg(xdp_rxq) || (unsigned int)type >= MEM_TYPE_MAX)
		return -EINVAL;
	if (type == MEM_TYPE_XSK_BUFF_POOL)
		return -EOPNOTSUPP;
	if (type == MEM_TYPE_PAGE_POOL && allocator == NULL)
		return -EINVAL;
	if (xdp_rxq->mem.id != 0)
		xdp_rxq_info_unreg_mem_model(xdp_rxq);
	xdp_rxq->mem.type = type;
	if (type != MEM_TYPE_PAGE_POOL)
		return 0;
	r = calloc(1, sizeof(*r));
	if (r == NULL)
		return -ENOMEM;
	r->rxq = xdp_rxq;
	r->pool = allocator;
	page_pool_use_xdp_mem(r->pool, NULL, &xdp_rxq->mem);
	pthread_mutex_lock(&mem_lock);
	if (++mem_id_next == 0)
		mem_id_next = 1;
	xdp_rxq->mem.id = mem_id_next;
	r->next = mem_regs;
	mem_regs = r;
	pthread_mutex_unlock(&mem_lock);
	return 0;
}

void
xdp_rxq_info_unreg_mem_model(struct xdp_rxq_info *xdp_rxq)
{
	struct mem_reg **pp, *r = NULL;

	if (xdp_rxq == NULL || xdp_rxq->mem.type != MEM_TYPE_PAGE_POOL ||
	    xdp_rxq->mem.id == 0)
		return;
	pthread_mutex_lock(&mem_lock);
	for (pp = &mem_regs; *pp != NULL; pp = &(*pp)->next) {
		if ((*pp)->rxq == xdp_rxq) {
			r = *pp;
			*pp = r->next;
			break;
		}
	}
	pthread_mutex_unlock(&mem_lock);
	xdp_rxq->mem.id = 0;
	if (r != NULL) {
		/* The model's user reference: the pool may be freed now. */
		page_pool_destroy(r->pool);
		free(r);
	}
}

void
xdp_rxq_info_unreg(struct xdp_rxq_info *xdp_rxq)
{
	if (xdp_rxq == NULL || xdp_rxq->reg_state != REG_STATE_REGISTERED)
		return;
	xdp_rxq_info_unreg_mem_model(xdp_rxq);
	xdp_rxq->reg_state = REG_STATE_UNREGISTERED;
	xdp_rxq->dev = NULL;
}

/* ---- Frames ------------------------------------------------------------ */

struct xdp_frame *
xdp_convert_buff_to_frame(struct xdp_buff *xdp)
{
	unsigned char *hard = xdp->data_hard_start;
	unsigned char *data = xdp->data;
	struct xdp_frame *xdpf;
	uint32_t headroom, metasize;

	metasize = (unsigned char *)xdp->data_meta <= data ?
			   (uint32_t)(data - (unsigned char *)xdp->data_meta) : 0;
	headroom = (uint32_t)(data - hard);
	if (headroom < sizeof(*xdpf) + metasize)
		return NULL;
	xdpf = (struct xdp_frame *)(void *)hard;
	xdpf->data = data;
	xdpf->len = (uint32_t)((unsigned char *)xdp->data_end - data);
	xdpf->headroom = headroom - (uint32_t)sizeof(*xdpf);
	xdpf->metasize = metasize;
	xdpf->frame_sz = xdp->frame_sz;
	xdpf->flags = xdp->flags;
	xdpf->mem = xdp->rxq->mem;
	xdpf->dev_rx = xdp->rxq->dev;
	return xdpf;
}

static void
xdp_return(void *data, const struct xdp_mem_info *mem, bool napi_direct)
{
	struct page *page;

	switch (mem->type) {
	case MEM_TYPE_PAGE_POOL:
		page = compound_head(virt_to_page(data));
		page_pool_put_full_page(page->pp, page, napi_direct);
		break;
	case MEM_TYPE_PAGE_SHARED:
		page_frag_free(data);
		break;
	case MEM_TYPE_PAGE_ORDER0:
		put_page(virt_to_page(data));
		break;
	default:
		fprintf(stderr, "pagepool: xdp_return: bad memory type %u\n",
			mem->type);
		break;
	}
}

void
xdp_return_frame(struct xdp_frame *xdpf)
{
	if (xdpf != NULL)
		xdp_return(xdpf->data, &xdpf->mem, false);
}

void
xdp_return_frame_rx_napi(struct xdp_frame *xdpf)
{
	if (xdpf != NULL)
		xdp_return(xdpf->data, &xdpf->mem, true);
}

void
xdp_return_buff(struct xdp_buff *xdp)
{
	if (xdp != NULL)
		xdp_return(xdp->data, &xdp->rxq->mem, true);
}

void
xdp_flush_frame_bulk(struct xdp_frame_bulk *bq)
{
	if (bq == NULL || bq->count == 0)
		return;
	page_pool_put_page_bulk(bq->q, (unsigned int)bq->count);
	bq->count = 0;
}

void
xdp_return_frame_bulk(struct xdp_frame *xdpf, struct xdp_frame_bulk *bq)
{
	if (xdpf == NULL || bq == NULL)
		return;
	if (xdpf->mem.type != MEM_TYPE_PAGE_POOL) {
		xdp_return_frame(xdpf);
		return;
	}
	if (bq->count == XDP_BULK_QUEUE_SIZE)
		xdp_flush_frame_bulk(bq);
	bq->q[bq->count++] = compound_head(virt_to_page(xdpf->data));
}

/* ---- Running programs -------------------------------------------------- */

uint32_t
bpf_prog_run_xdp(const struct bpf_prog *prog, struct xdp_buff *xdp)
{
	return _pp_bpf_prog_run_xdp(prog, xdp);
}

void
bpf_warn_invalid_xdp_action(struct net_device *dev,
			    const struct bpf_prog *prog, uint32_t act)
{
	static int warned;

	/* Once per process, as the kernel's pr_warn_once. */
	if (__atomic_exchange_n(&warned, 1, __ATOMIC_RELAXED))
		return;
	fprintf(stderr,
		"pagepool: %s XDP return value %u on prog %s dev %s, expect packet loss!\n",
		act >= XDP_ACTION_MAX ? "Illegal" : "Driver unsupported", act,
		prog != NULL && prog->name != NULL ? prog->name : "?",
		dev != NULL ? dev->name : "N/A");
}

void
trace_xdp_exception(struct net_device *dev, const struct bpf_prog *prog,
		    uint32_t act)
{
	(void)prog;
	(void)act;
	if (dev != NULL)
		/* Any thread (the RX and TX paths of different queues):
		 * an atomic add, read with relaxed loads. */
		pp_fetch_add_relaxed(&dev->xdp_exceptions, 1);
}

/* ---- Redirect ---------------------------------------------------------- */

/*
 * What bpf_redirect() asked for, and the frames queued per target device
 * until xdp_do_flush(): per thread, as the kernel keeps them per CPU
 * (bpf_redirect_info, the devmap's xdp_dev_bulk_queue). A poll redirects
 * to a handful of devices at most.
 */
#define XDP_REDIRECT_TARGETS 8

/* A queue per target: a device (ndo_xdp_xmit) or a CPU map entry. */
struct xdp_dev_bulk_queue {
	struct net_device *dev;
	struct bpf_cpu_map_entry *rcpu;
	unsigned int count;
	struct xdp_frame *q[XDP_BULK_QUEUE_SIZE];
};

struct bpf_redirect_info {
	uint32_t tgt_index;
	bool pending;
	struct bpf_cpu_map *map;	/* bpf_redirect_map(), or NULL */
	uint32_t map_key;
	/* The last lookup, valid while the registry generation holds. */
	unsigned long cache_gen;
	int cache_ifindex;
	struct net_device *cache_dev;
	unsigned int nbq;
	struct xdp_dev_bulk_queue bq[XDP_REDIRECT_TARGETS];
};

/*
 * The calling thread's, NULL until its first bpf_redirect*(). On the heap
 * (1.3 KiB), reached through an initial-exec pointer, so that the
 * library's thread-local storage stays small enough for dlopen()
 * (lib/tls_priv.h); freed at the thread's exit (frames a thread queued
 * and never flushed are lost with it, as they always were).
 */
static __thread struct bpf_redirect_info *redirect_info PP_TLS_IE;
static pthread_key_t redirect_key;
static pthread_once_t redirect_once = PTHREAD_ONCE_INIT;
static bool redirect_key_ok;

static void
redirect_info_destructor(void *arg)
{
	_pp_free(arg);
	redirect_info = NULL;
}

static void
redirect_key_init(void)
{
	redirect_key_ok = pthread_key_create(&redirect_key,
					     redirect_info_destructor) == 0;
}

/* The calling thread's redirect state, made on first use; NULL without
 * memory (or a key to free it with at the thread's exit). */
static __attribute__((noinline)) struct bpf_redirect_info *
redirect_info_create(void)
{
	struct bpf_redirect_info *ri;

	pthread_once(&redirect_once, redirect_key_init);
	if (!redirect_key_ok)
		return NULL;
	ri = _pp_zalloc_thread(redirect_key, sizeof(*ri));
	redirect_info = ri;
	return ri;
}

static PP_ALWAYS_INLINE struct bpf_redirect_info *
redirect_info_get(void)
{
	struct bpf_redirect_info *ri = redirect_info;

	if (PP_LIKELY(ri != NULL))
		return ri;
	return redirect_info_create();
}

long
bpf_redirect(uint32_t ifindex, uint64_t flags)
{
	struct bpf_redirect_info *ri;

	if (flags != 0)
		return XDP_ABORTED;
	/* No memory for the thread's redirect state: the program's verdict
	 * cannot be carried out, so the frame is aborted (dropped). */
	ri = redirect_info_get();
	if (PP_UNLIKELY(ri == NULL))
		return XDP_ABORTED;
	ri->tgt_index = ifindex;
	ri->map = NULL;
	ri->pending = true;
	return XDP_REDIRECT;
}

long
bpf_redirect_map(void *map, uint32_t key, uint64_t flags)
{
	struct bpf_redirect_info *ri;

	if (flags != 0 || map == NULL)
		return XDP_ABORTED;
	ri = redirect_info_get();
	if (PP_UNLIKELY(ri == NULL))
		return XDP_ABORTED;
	ri->map = map;
	ri->map_key = key;
	ri->pending = true;
	return XDP_REDIRECT;
}

/* The device the pending redirect names, if it can take XDP frames. */
static struct net_device *
redirect_target(struct bpf_redirect_info *ri)
{
	unsigned long gen = _pp_dev_gen();
	struct net_device *dev;

	if (!ri->pending || ri->map != NULL)
		return NULL;
	ri->pending = false;
	if (ri->cache_gen == gen && ri->cache_ifindex == (int)ri->tgt_index) {
		dev = ri->cache_dev;
	} else {
		dev = dev_get_by_index((int)ri->tgt_index);
		ri->cache_gen = gen;
		ri->cache_ifindex = (int)ri->tgt_index;
		ri->cache_dev = dev;
	}
	if (dev == NULL || !(pp_load_relaxed(&dev->flags) & IFF_UP))
		return NULL;
	return dev;
}

static void
bq_xmit_all(struct xdp_dev_bulk_queue *bq)
{
	struct net_device *dev = bq->dev;
	int sent, i;

	if (bq->count == 0)
		return;
	if (bq->rcpu != NULL) {
		/* A CPU map entry counts its own drops. */
		sent = (int)_pp_cpu_map_enqueue(bq->rcpu, bq->q, bq->count);
		for (i = sent; i < (int)bq->count; i++)
			xdp_return_frame_rx_napi(bq->q[i]);
		bq->count = 0;
		return;
	}
	sent = dev->netdev_ops->ndo_xdp_xmit(dev, (int)bq->count, bq->q,
					     XDP_XMIT_FLUSH);
	if (sent < 0)
		sent = 0;
	/* What the target did not take goes back from here, the source's
	 * NAPI thread, as the kernel's bq_xmit_all() does. */
	for (i = sent; i < (int)bq->count; i++)
		xdp_return_frame_rx_napi(bq->q[i]);
	if (sent < (int)bq->count)
		pp_fetch_add_relaxed(&dev->stats.tx_dropped,
				     (uint64_t)((int)bq->count - sent));
	bq->count = 0;
}

void
xdp_do_flush(void)
{
	struct bpf_redirect_info *ri = redirect_info;
	unsigned int i;

	if (ri == NULL)
		return;
	for (i = 0; i < ri->nbq; i++)
		bq_xmit_all(&ri->bq[i]);
	ri->nbq = 0;
}

int
xdp_do_redirect(struct net_device *dev, struct xdp_buff *xdp,
		const struct bpf_prog *prog)
{
	struct bpf_redirect_info *ri = redirect_info;
	struct xdp_dev_bulk_queue *bq = NULL;
	struct bpf_cpu_map_entry *rcpu = NULL;
	struct net_device *tgt = NULL;
	struct xdp_frame *xdpf;
	unsigned int i, max = XDP_BULK_QUEUE_SIZE;

	(void)dev;
	(void)prog;
	/* No state: this thread never asked for a redirect. */
	if (ri == NULL)
		return -ENODEV;
	if (ri->pending && ri->map != NULL) {
		ri->pending = false;
		rcpu = _pp_cpu_map_lookup(ri->map, ri->map_key);
		if (rcpu == NULL)
			return -ENODEV;
		max = CPU_MAP_BULK_SIZE;
	} else {
		tgt = redirect_target(ri);
		if (tgt == NULL || tgt->netdev_ops == NULL ||
		    tgt->netdev_ops->ndo_xdp_xmit == NULL)
			return -ENODEV;
	}
	for (i = 0; i < ri->nbq; i++) {
		if (ri->bq[i].dev == tgt && ri->bq[i].rcpu == rcpu) {
			bq = &ri->bq[i];
			break;
		}
	}
	if (bq == NULL) {
		if (ri->nbq == XDP_REDIRECT_TARGETS)
			xdp_do_flush();
		bq = &ri->bq[ri->nbq++];
		bq->dev = tgt;
		bq->rcpu = rcpu;
		bq->count = 0;
	}
	xdpf = xdp_convert_buff_to_frame(xdp);
	if (xdpf == NULL)
		return -EINVAL;
	if (bq->count == max)
		bq_xmit_all(bq);
	bq->q[bq->count++] = xdpf;
	return 0;
}

struct sk_buff *
xdp_build_skb_from_frame(struct xdp_frame *xdpf, struct net_device *dev)
{
	unsigned int headroom;
	struct sk_buff *skb;

	if (xdpf == NULL || dev == NULL) {
		errno = EINVAL;
		return NULL;
	}
	/* The buffer starts at the frame itself, in its headroom. */
	headroom = (unsigned int)sizeof(*xdpf) + xdpf->headroom;
	skb = napi_build_skb(xdpf, xdpf->frame_sz);
	if (skb == NULL)
		return NULL;
	skb_reserve(skb, (int)headroom);
	__skb_put(skb, xdpf->len);
	if (xdpf->mem.type == MEM_TYPE_PAGE_POOL)
		skb_mark_for_recycle(skb);
	skb->protocol = eth_type_trans(skb, dev);
	return skb;
}

int
_pp_xdp_generic_redirect(struct sk_buff *skb, const struct bpf_prog *prog)
{
	struct bpf_redirect_info *ri = redirect_info;
	struct bpf_cpu_map_entry *rcpu;
	struct net_device *tgt;

	if (ri == NULL)
		return -ENODEV;
	/* A CPU map takes the skb itself (the kernel's
	 * cpu_map_generic_redirect()); a full ring drops it. */
	if (ri->pending && ri->map != NULL) {
		ri->pending = false;
		rcpu = _pp_cpu_map_lookup(ri->map, ri->map_key);
		if (rcpu == NULL)
			return -ENODEV;
		/* The stack there takes it from the network header, as it
		 * came out of eth_type_trans(). */
		__skb_pull(skb, skb->mac_len);
		if (_pp_cpu_map_enqueue_skb(rcpu, skb) != 0)
			kfree_skb(skb);
		return 0;
	}
	tgt = redirect_target(ri);
	if (tgt == NULL)
		return -ENODEV;
	/* The kernel's generic redirect to a device: transmit the skb
	 * there, past the qdisc. */
	skb->dev = tgt;
	_pp_generic_xdp_tx(skb, prog);
	return 0;
}
