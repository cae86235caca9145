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
 *
 * Threaded NAPI (the kernel's dev_set_threaded(), napi_threaded_poll()):
 * a thread per NAPI instance, started when the device is up and threaded,
 * stopped when either ends. The hand-over keeps the page_pool rule that
 * only the owner touches a pool's alloc cache: the new thread publishes
 * its identity and waits; the control thread moves the instance and its
 * pools to it and then schedules it (the lock and the state RMW order the
 * control thread's last use of the pools before the thread's first). On
 * the way back the thread leaves its loop and says so under the lock
 * before the control thread takes the pools back and joins it. Between
 * the two, scheduling follows the kernel's state word: napi_schedule_prep()
 * sets SCHED, or MISSED when already set, and napi_complete_done() clears
 * SCHED unless MISSED asks for another poll; both are read-modify-writes
 * of the one word, so a schedule racing with the completion is never lost
 * (tests/model/napi_sched.pml checks it, and that undoing either half
 * loses a frame).
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pagepool/page_pool.h>

#include "lib/fork_priv.h"
#include "dev_priv.h"
#include "page_pool_priv.h"

/* ---- Registry ---------------------------------------------------------- */

static pthread_mutex_t dev_lock = PTHREAD_MUTEX_INITIALIZER;
static struct net_device *dev_list;
static int ifindex_next = 2;
static unsigned long dev_gen = 1;

/* Fork (lib/fork.c, order 2): dev_lock is held by no other thread across
 * the fork; the child releases it as the parent does. */
void
_pp_dev_fork(enum pp_fork_phase phase)
{
	_pp_fork_mutex(&dev_lock, phase);
}

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

/* ---- Threaded NAPI ----------------------------------------------------- */

/*
 * An instance's thread. Allocated when the instance first goes threaded
 * and kept until netif_napi_del(), so that an interrupt racing with the
 * thread's stop (__napi_schedule() from a device thread) never touches
 * freed memory; the pthread itself lives only while threaded and up.
 */
struct napi_thread {
	struct napi_struct *napi;
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t wake;		/* the thread waits for work or stop */
	pthread_cond_t ack;		/* the control thread waits for it */
	unsigned long self;		/* its pp_thread_self(), under lock */
	int stop;			/* set under lock, read atomically */
	int exited;			/* left its loop, under lock */
	bool running;			/* control thread only */
};

/* Idle rounds (each a sched_yield()) before the thread sleeps: a short
 * busy poll, so that a device refilling at a steady rate does not pay a
 * sleep and a wake-up per batch (the kernel's busy-poll budget idea). */
#define NAPI_THREAD_IDLE_SPINS	32

/* Wait until @t's instance is scheduled on it (0) or the thread must stop
 * (-1): the kernel's napi_thread_wait(). */
static int
napi_thread_wait(struct napi_thread *t)
{
	struct napi_struct *n = t->napi;
	unsigned int spins = 0;

	for (;;) {
		/* A20: pairs with release R20 in napi_thread_stop(). */
		if (pp_load_acquire(&t->stop))
			return -1;
		/* A21: pairs with the RMWs that set SCHED_THREADED
		 * (__napi_schedule(), napi_thread_start()): the poll sees
		 * what the scheduler wrote before. */
		if (pp_load_acquire(&n->state) & NAPIF_STATE_SCHED_THREADED)
			return 0;
		if (spins++ < NAPI_THREAD_IDLE_SPINS) {
			sched_yield();
			continue;
		}
		pthread_mutex_lock(&t->lock);
		/* Under the lock, which __napi_schedule() and the stop take
		 * after setting what is tested: no wake-up is lost. Relaxed:
		 * the lock orders them. */
		while (!pp_load_relaxed(&t->stop) &&
		       !(pp_load_relaxed(&n->state) & NAPIF_STATE_SCHED_THREADED))
			pthread_cond_wait(&t->wake, &t->lock);
		pthread_mutex_unlock(&t->lock);
		spins = 0;
	}
}

static void *
napi_threaded_poll(void *arg)
{
	struct napi_thread *t = arg;
	struct napi_struct *n = t->napi;
	int work;

	pthread_mutex_lock(&t->lock);
	t->self = pp_thread_self();
	pthread_cond_broadcast(&t->ack);
	pthread_mutex_unlock(&t->lock);

	while (napi_thread_wait(t) == 0) {
		/* F22: pairs with the fence of a device raising its
		 * interrupt before testing THREADED (netsim's sim_irq()):
		 * the device saw THREADED, or this poll sees its frames. */
		__atomic_thread_fence(__ATOMIC_SEQ_CST);
		/* The kernel's napi_threaded_poll_loop(): poll again while
		 * the driver used its whole budget (it did not complete). */
		for (;;) {
			work = n->poll(n, n->weight);
			/* A20 again: a stop ends even a busy queue's loop. */
			if (work < n->weight || pp_load_acquire(&t->stop))
				break;
		}
	}

	pthread_mutex_lock(&t->lock);
	t->exited = 1;
	pthread_cond_broadcast(&t->ack);
	pthread_mutex_unlock(&t->lock);
	return NULL;
}

static int
napi_thread_start(struct napi_struct *n)
{
	struct napi_thread *t = n->thread;
	unsigned long from = pp_load_relaxed(&n->list_owner);
	pthread_attr_t attr;
	char name[IFNAMSIZ + 16];
	cpu_set_t set;
	int err;

	if (t == NULL) {
		t = calloc(1, sizeof(*t));
		if (t == NULL)
			return -ENOMEM;
		t->napi = n;
		pthread_mutex_init(&t->lock, NULL);
		pthread_cond_init(&t->wake, NULL);
		pthread_cond_init(&t->ack, NULL);
		/* R23: pairs with acquire A23 in __napi_schedule(). */
		pp_store_release(&n->thread, t);
	}
	t->self = 0;
	t->exited = 0;
	pp_store_relaxed(&t->stop, 0);
	err = pthread_attr_init(&attr);
	if (err != 0)
		return -err;
	if (n->thread_cpu >= 0) {
		CPU_ZERO(&set);
		CPU_SET(n->thread_cpu, &set);
		err = pthread_attr_setaffinity_np(&attr, sizeof(set), &set);
	}
	if (err == 0)
		err = pthread_create(&t->thread, &attr, napi_threaded_poll, t);
	pthread_attr_destroy(&attr);
	if (err != 0)
		return -err;
	/* The kernel's kthread name, cut to the 15 bytes of a comm. */
	snprintf(name, sizeof(name), "napi/%s-%u", n->dev->name, n->napi_id);
	name[15] = '\0';
	(void)pthread_setname_np(t->thread, name);

	pthread_mutex_lock(&t->lock);
	while (t->self == 0)
		pthread_cond_wait(&t->ack, &t->lock);
	pthread_mutex_unlock(&t->lock);
	t->running = true;

	/* The thread waits for its first schedule: hand it the instance and
	 * the pools, then schedule it (once, as a driver's open does). */
	_pp_napi_owner_move(n, from, t->self);
	/* Relaxed: napi_poll() compares it with its caller, who is neither
	 * thread; the thread reads it after A21. */
	pp_store_relaxed(&n->list_owner, t->self);
	/* R21: pairs with acquire A21 in napi_thread_wait(); seq_cst for
	 * F22's pairing (a device testing THREADED). */
	__atomic_fetch_or(&n->state, NAPIF_STATE_THREADED | NAPIF_STATE_SCHED |
				     NAPIF_STATE_SCHED_THREADED,
			  __ATOMIC_SEQ_CST);
	pthread_mutex_lock(&t->lock);
	pthread_cond_signal(&t->wake);
	pthread_mutex_unlock(&t->lock);
	return 0;
}

/* Stop @n's thread; the calling thread becomes the owner again. */
static void
napi_thread_stop(struct napi_struct *n)
{
	struct napi_thread *t = n->thread;

	if (t == NULL || !t->running)
		return;
	/* No more wake-ups: schedules from now on leave the instance to
	 * its owner's loop (relaxed: the lock below orders it for the
	 * thread; a device that misses it wakes a thread that stops). */
	__atomic_fetch_and(&n->state, ~(unsigned long)NAPIF_STATE_THREADED,
			   __ATOMIC_RELAXED);
	pthread_mutex_lock(&t->lock);
	/* R20: pairs with acquire A20 in napi_thread_wait() and the poll
	 * loop. */
	pp_store_release(&t->stop, 1);
	pthread_cond_signal(&t->wake);
	while (!t->exited)
		pthread_cond_wait(&t->ack, &t->lock);
	pthread_mutex_unlock(&t->lock);
	/* Out of its loop (the lock ordered its last poll before this):
	 * take the instance and its pools back, then join. */
	_pp_napi_owner_move(n, t->self, pp_thread_self());
	pp_store_relaxed(&n->list_owner, pp_thread_self());
	pthread_join(t->thread, NULL);
	t->running = false;
	/* Unscheduled: the owner's loop polls it from now on. Relaxed: a
	 * racing schedule's bits are harmless to a loop that polls anyway,
	 * and napi_complete_done() clears them. */
	__atomic_fetch_and(&n->state,
			   ~(unsigned long)(NAPIF_STATE_SCHED |
					    NAPIF_STATE_MISSED |
					    NAPIF_STATE_SCHED_THREADED),
			   __ATOMIC_RELAXED);
}

static void
dev_napi_threads_stop(struct net_device *dev)
{
	struct napi_struct *n;

	for (n = dev->napi_list; n != NULL; n = n->dev_list)
		napi_thread_stop(n);
	pp_store_relaxed(&dev->owner, pp_thread_self());
}

static int
dev_napi_threads_start(struct net_device *dev)
{
	struct napi_struct *n;
	unsigned int count = 0;
	int ret;

	for (n = dev->napi_list; n != NULL; n = n->dev_list) {
		ret = napi_thread_start(n);
		if (ret != 0) {
			dev_napi_threads_stop(dev);
			return ret;
		}
		count++;
	}
	/* Relaxed: readers compare it with their own identity only (a
	 * driver's "am I the NAPI thread" test). */
	pp_store_relaxed(&dev->owner,
			 count == 1 ? pp_load_relaxed(&dev->napi_list->list_owner)
				    : 0UL);
	return 0;
}

int
dev_set_threaded(struct net_device *dev, bool threaded)
{
	int ret;

	if (dev == NULL)
		return -EINVAL;
	if (dev->threaded == threaded)
		return 0;
	if (!threaded) {
		if (dev->flags & IFF_UP)
			dev_napi_threads_stop(dev);
		pp_store_relaxed(&dev->threaded, false);
		return 0;
	}
	if (dev->flags & IFF_UP) {
		ret = dev_napi_threads_start(dev);
		if (ret != 0)
			return ret;
	}
	/* Relaxed: a setting read by the tools, ordered by nothing. */
	pp_store_relaxed(&dev->threaded, true);
	return 0;
}

int
napi_set_thread_cpu(struct napi_struct *napi, int cpu)
{
	cpu_set_t set;
	int err;

	if (napi == NULL || cpu < -1 || cpu >= CPU_SETSIZE)
		return -EINVAL;
	if (napi->thread != NULL && napi->thread->running) {
		if (cpu >= 0) {
			CPU_ZERO(&set);
			CPU_SET(cpu, &set);
		} else if (sched_getaffinity(0, sizeof(set), &set) != 0) {
			return -errno;
		}
		err = pthread_setaffinity_np(napi->thread->thread, sizeof(set),
					     &set);
		if (err != 0)
			return -err;
	}
	napi->thread_cpu = cpu;
	return 0;
}

bool
napi_schedule_prep(struct napi_struct *n)
{
	unsigned long val, new;

	if (n == NULL)
		return false;
	val = pp_load_relaxed(&n->state);
	do {
		if (val & NAPIF_STATE_DISABLE)
			return false;
		new = val | NAPIF_STATE_SCHED;
		/* Already scheduled: have the poll run again. */
		if (val & NAPIF_STATE_SCHED)
			new |= NAPIF_STATE_MISSED;
		/* R24/A24: the RMWs of the state word form one chain: the
		 * release publishes the caller's work (the frames it wrote)
		 * to the completion's acquire in napi_complete_done(), and
		 * the acquire sees that completion. */
	} while (!__atomic_compare_exchange_n(&n->state, &val, new, true,
					      __ATOMIC_ACQ_REL,
					      __ATOMIC_RELAXED));
	return !(val & NAPIF_STATE_SCHED);
}

void
__napi_schedule(struct napi_struct *n)
{
	struct napi_thread *t;

	if (n == NULL)
		return;
	/* A23: pairs with release R23 in napi_thread_start(). */
	t = pp_load_acquire(&n->thread);
	/* Relaxed: a stale THREADED wakes a thread that is stopping. */
	if (t == NULL || !(pp_load_relaxed(&n->state) & NAPIF_STATE_THREADED))
		return;	/* the owner's loop polls it (the kernel's softirq) */
	/* R21: pairs with acquire A21 in napi_thread_wait(). */
	__atomic_fetch_or(&n->state, NAPIF_STATE_SCHED_THREADED,
			  __ATOMIC_RELEASE);
	pthread_mutex_lock(&t->lock);
	pthread_cond_signal(&t->wake);
	pthread_mutex_unlock(&t->lock);
}

/* ---- Up, down, NAPI ---------------------------------------------------- */

int
dev_open(struct net_device *dev)
{
	struct napi_struct *n;
	unsigned int q;
	int ret = 0;

	if (dev == NULL)
		return -EINVAL;
	if (dev->flags & IFF_UP)
		return 0;
	dev->owner = pp_thread_self();
	for (n = dev->napi_list; n != NULL; n = n->dev_list)
		pp_store_relaxed(&n->list_owner, pp_thread_self());
	for (q = 0; q < dev->num_rx_queues; q++)
		if (dev->_rx[q].napi != NULL)
			pp_store_relaxed(&dev->_rx[q].napi->list_owner,
					 pp_thread_self());
	if (dev->netdev_ops != NULL && dev->netdev_ops->ndo_open != NULL)
		ret = dev->netdev_ops->ndo_open(dev);
	if (ret != 0) {
		dev->owner = 0;
		return ret;
	}
	/* R14: pairs with the relaxed checks of other threads (redirects,
	 * transmits), which only decide whether to try. */
	pp_store_release(&dev->flags, dev->flags | IFF_UP);
	if (dev->threaded) {
		ret = dev_napi_threads_start(dev);
		if (ret != 0) {
			dev_close(dev);
			return ret;
		}
	}
	return 0;
}

void
dev_close(struct net_device *dev)
{
	if (dev == NULL || !(dev->flags & IFF_UP))
		return;
	/* The NAPI threads stop first: the driver's stop frees the rings
	 * and pools as their owner. */
	if (dev->threaded)
		dev_napi_threads_stop(dev);
	/* Down first, so redirects and transmits stop trying; the caller
	 * makes sure none is still running (the kernel waits for RCU). */
	pp_store_relaxed(&dev->flags, dev->flags & ~IFF_UP);
	if (dev->netdev_ops != NULL && dev->netdev_ops->ndo_stop != NULL)
		dev->netdev_ops->ndo_stop(dev);
	pp_store_relaxed(&dev->owner, 0UL);
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
	napi->thread = NULL;
	napi->thread_cpu = -1;
	napi->dev_list = dev->napi_list;
	dev->napi_list = napi;
}

void
netif_napi_del(struct napi_struct *napi)
{
	struct napi_struct **pp;
	struct napi_thread *t;

	if (napi == NULL)
		return;
	napi->poll = NULL;
	t = napi->thread;
	if (t != NULL) {
		napi_thread_stop(napi);
		pthread_mutex_destroy(&t->lock);
		pthread_cond_destroy(&t->wake);
		pthread_cond_destroy(&t->ack);
		free(t);
		napi->thread = NULL;
	}
	if (napi->dev == NULL)
		return;
	for (pp = &napi->dev->napi_list; *pp != NULL; pp = &(*pp)->dev_list) {
		if (*pp == napi) {
			*pp = napi->dev_list;
			break;
		}
	}
	napi->dev_list = NULL;
}

int
napi_poll(struct napi_struct *napi)
{
	if (napi == NULL || napi->poll == NULL || napi->dev == NULL)
		return -EINVAL;
	if (!(napi->dev->flags & IFF_UP))
		return -ENETDOWN;
	/* Relaxed: only the owner matches (threaded NAPI moves it). */
	if (pp_load_relaxed(&napi->list_owner) != pp_thread_self())
		return -EPERM;
	return napi->poll(napi, napi->weight);
}

bool
napi_complete_done(struct napi_struct *n, int work_done)
{
	unsigned long val, new;

	(void)work_done;
	if (n == NULL)
		return false;
	/* Never scheduled (an owner's loop polling without interrupts):
	 * nothing to clear. Relaxed: only the poller clears SCHED, and a
	 * schedule that sets it now finds it clear and wakes the poller. */
	val = pp_load_relaxed(&n->state);
	if (!(val & (NAPIF_STATE_SCHED | NAPIF_STATE_MISSED)))
		return true;
	do {
		new = val & ~(NAPIF_STATE_MISSED | NAPIF_STATE_SCHED |
			      NAPIF_STATE_SCHED_THREADED);
		/* A schedule came during the poll: stay scheduled (on the
		 * thread, if threaded). */
		if (val & NAPIF_STATE_MISSED)
			new |= NAPIF_STATE_SCHED |
			       (val & NAPIF_STATE_SCHED_THREADED);
		/* A24/R24: see napi_schedule_prep(). */
	} while (!__atomic_compare_exchange_n(&n->state, &val, new, true,
					      __ATOMIC_ACQ_REL,
					      __ATOMIC_RELAXED));
	if (val & NAPIF_STATE_MISSED) {
		/* Still scheduled on its thread, which polls again; else
		 * the owner's loop does. */
		return false;
	}
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
