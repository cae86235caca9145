/* SPDX-License-Identifier: MIT */
/*
 * Copyright (c) 2026 The pagepool authors
 *
 * Threaded NAPI (dev_set_threaded()) on the software NIC: two to four RX
 * queues, each polled by a thread of its own named "napi/simN-ID" and
 * pinned round-robin over the CPUs the process may use. Each case checks
 * that
 *  - the program runs on the queue's own thread, the instance's owner,
 *    and that this thread owns the queue's page_pool (direct recycling
 *    there only: nothing reaches the ring when nothing is freed
 *    elsewhere), while napi_poll() from another thread is refused;
 *  - every frame is counted from the wire to where it ends (sent =
 *    received + missed; received = seen by the program; then dropped,
 *    passed to the stack, transmitted or redirected);
 *  - switching threaded NAPI off hands the queues and their pools back to
 *    the calling thread, and on again to new threads;
 *  - every queue's pool is freed when the device goes away (nothing in
 *    flight), with no DMA fault or mapping left.
 * The frames come from the test thread (netsim_wire_rx(), whose interrupt
 * wakes the NAPI thread: a lost wake-up shows as a timeout), from the
 * inline wire inside the poll (netsim_wire_in_poll(): the threads never
 * sleep), and from a wire thread per queue. XDP_PASS delivers to the
 * stack inline; XDP_REDIRECT goes to a CPU map, whose thread frees the
 * pages (back through the ring), and to another device polled by the
 * test thread.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <string.h>
#include <unistd.h>

#include <pagepool/netsim.h>
#include <pagepool/page_pool.h>

#include "helpers.h"
#include "netsim_helpers.h"
#include "page_pool_helpers.h"

#define MAXQ 4

struct qprog {
	uint32_t act;
	uint32_t ifindex;		/* XDP_REDIRECT to a device */
	struct bpf_cpu_map *cpumap;	/* or to this map's entry 0 */
	struct napi_struct *napi[MAXQ];
	/* Per queue: written by the queue's NAPI thread only (a relaxed
	 * store of the incremented value), read by the test thread with
	 * relaxed loads: single-writer counters. */
	uint64_t runs[MAXQ];
	unsigned long tid[MAXQ];	/* the thread that ran the queue */
	uint64_t foreign;		/* runs off the owner: any thread */
};

static uint32_t
qprog_run(struct xdp_md *ctx, void *priv)
{
	struct qprog *st = priv;
	unsigned int q = ctx->rx_queue_index;
	unsigned char *eth = ctx->data;

	if (q >= MAXQ ||
	    /* Relaxed: the owner compares it with itself. */
	    pp_load_relaxed(&st->napi[q]->list_owner) != pp_thread_self()) {
		/* Any thread: atomic; pairs with the test's relaxed load. */
		pp_fetch_add_relaxed(&st->foreign, 1);
		return XDP_ABORTED;
	}
	/* Single writer (the queue's thread); the test reads relaxed. */
	pp_store_relaxed(&st->runs[q], pp_load_relaxed(&st->runs[q]) + 1);
	pp_store_relaxed(&st->tid[q], pp_thread_self());
	if (st->act == XDP_REDIRECT && st->cpumap != NULL)
		return (uint32_t)bpf_redirect_map(st->cpumap, 0, 0);
	if (st->act == XDP_REDIRECT)
		return (uint32_t)bpf_redirect(st->ifindex, 0);
	if (st->act == XDP_TX)
		t_xdp_swap_macs(eth);
	return st->act;
}

static uint64_t
qprog_total(struct qprog *st, unsigned int nq)
{
	uint64_t sum = 0;
	unsigned int q;

	for (q = 0; q < nq; q++)
		sum += pp_load_relaxed(&st->runs[q]);
	return sum;
}

/* Has every queue's program run? */
static bool
qprog_all_ran(struct qprog *st, unsigned int nq)
{
	unsigned int q;

	for (q = 0; q < nq; q++)
		if (pp_load_relaxed(&st->runs[q]) == 0)
			return false;
	return true;
}

/* Pools freed: counted by their disconnect callback (the release thread
 * or the destroying one). */
static int pools_freed;
static struct page_pool *watched[MAXQ];
static unsigned int nwatched;

static void
on_pool_free(void *pool)
{
	(void)pool;
	/* Pairs with the acquire load in wait_pools_freed(). */
	__atomic_fetch_add(&pools_freed, 1, __ATOMIC_RELEASE);
}

/* Take a reference to every queue's pool, with the callback: from any
 * thread (the pools may belong to NAPI threads already). */
static void
watch_pools(struct net_device *dev, unsigned int nq)
{
	unsigned int q;

	__atomic_store_n(&pools_freed, 0, __ATOMIC_RELAXED);
	for (q = 0; q < nq; q++) {
		watched[q] = netsim_page_pool(dev, q);
		CHECK(watched[q] != NULL);
		page_pool_use_xdp_mem(watched[q], on_pool_free, NULL);
	}
	nwatched = nq;
}

/* Drop those references again, leaving the callbacks: while this thread
 * owns the pools (a destroy from another thread while a NAPI thread owns
 * them is a debug error), and before the device goes, so that the
 * driver's destroy is the last. */
static void
unwatch_pools(void)
{
	unsigned int q;

	for (q = 0; q < nwatched; q++)
		page_pool_destroy(watched[q]);
}

/* After the device is gone: each pool must have been freed, nothing
 * being in flight. */
static void
wait_pools_freed(void)
{
	int waited;

	for (waited = 0;
	     __atomic_load_n(&pools_freed, __ATOMIC_ACQUIRE) < (int)nwatched;
	     waited++) {
		CHECK(waited < 2000);
		usleep(1000);
	}
	CHECK_EQ(__atomic_load_n(&pools_freed, __ATOMIC_ACQUIRE),
		 (int)nwatched);
	nwatched = 0;
}

/* The CPUs this process may run on, for round-robin pinning. */
static int cpus[CPU_SETSIZE];
static int ncpus;

static void
cpus_init(void)
{
	cpu_set_t set;
	int c;

	CHECK_EQ(sched_getaffinity(0, sizeof(set), &set), 0);
	for (c = 0; c < CPU_SETSIZE; c++)
		if (CPU_ISSET(c, &set))
			cpus[ncpus++] = c;
	CHECK(ncpus > 0);
}

/* How many of this process's threads are called "napi/@dev-...". */
static int
count_napi_threads(const struct net_device *dev)
{
	char prefix[32], path[300], comm[64];
	struct dirent *de;
	DIR *d;
	FILE *f;
	int n = 0;

	snprintf(prefix, sizeof(prefix), "napi/%s-", dev->name);
	d = opendir("/proc/self/task");
	if (d == NULL)
		return -1;
	while ((de = readdir(d)) != NULL) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/proc/self/task/%s/comm",
			 de->d_name);
		f = fopen(path, "r");
		if (f == NULL)
			continue;
		if (fgets(comm, sizeof(comm), f) != NULL &&
		    strncmp(comm, prefix, strlen(prefix)) == 0)
			n++;
		fclose(f);
	}
	closedir(d);
	return n;
}

/*
 * count_napi_threads() once it reaches @want, or after two seconds: a
 * joined thread can stay listed in /proc/self/task for a moment, since
 * pthread_join() returns when the kernel clears the thread's tid, early in
 * its exit (seen in a CI run: one thread still listed right after
 * threaded NAPI was switched off). -1 without /proc.
 */
static int
napi_threads_settle(const struct net_device *dev, int want)
{
	int n = count_napi_threads(dev);

	for (int i = 0; i < 2000 && n != want && n >= 0; i++) {
		usleep(1000);
		n = count_napi_threads(dev);
	}
	return n;
}

/* Each queue's instance, pool and program run on a thread of its own. */
static void
check_threaded(struct net_device *dev, struct qprog *st, unsigned int nq)
{
	unsigned int q, r;
	int names;

	for (q = 0; q < nq; q++) {
		struct napi_struct *napi = netsim_napi(dev, q);
		unsigned long owner = pp_load_relaxed(&napi->list_owner);

		CHECK(owner != 0 && owner != pp_thread_self());
		CHECK_EQ(pp_load_relaxed(&netsim_page_pool(dev, q)->owner),
			 owner);
		CHECK_EQ(napi_poll(napi), -EPERM);
		for (r = 0; r < q; r++)
			CHECK(pp_load_relaxed(&netsim_napi(dev, r)->list_owner)
			      != owner);
		if (pp_load_relaxed(&st->runs[q]) != 0)
			CHECK_EQ(pp_load_relaxed(&st->tid[q]), owner);
	}
	names = napi_threads_settle(dev, (int)nq);
	if (names >= 0)	/* no /proc: not checked */
		CHECK_EQ(names, (int)nq);
}

/* ... and back on the calling thread. */
static void
check_unthreaded(struct net_device *dev, unsigned int nq)
{
	unsigned int q;

	for (q = 0; q < nq; q++) {
		CHECK_EQ(pp_load_relaxed(&netsim_napi(dev, q)->list_owner),
			 pp_thread_self());
		CHECK_EQ(pp_load_relaxed(&netsim_page_pool(dev, q)->owner),
			 pp_thread_self());
	}
	CHECK_EQ(napi_threads_settle(dev, 0) > 0, 0);
}

/* Wait until the program has seen @want frames: the NAPI threads woke
 * for them (a lost wake-up times out here). */
static void
wait_runs(struct qprog *st, unsigned int nq, uint64_t want)
{
	uint64_t spins;

	for (spins = 0; qprog_total(st, nq) < want; spins++) {
		CHECK(spins < 2000000);	/* about 10 s of yields */
		if (spins > 1000)
			usleep(5);
		else
			sched_yield();
	}
	CHECK_EQ(qprog_total(st, nq), want);
}

/* Feed @rounds rounds of up to 32 frames per queue from this thread and
 * wait for each round: returns the frames received. */
static uint64_t
feed(struct net_device *dev, struct qprog *st, unsigned int nq,
     uint64_t rounds, uint64_t seen)
{
	uint64_t i, got = 0;
	unsigned int q;
	int n;

	for (i = 0; i < rounds; i++) {
		for (q = 0; q < nq; q++) {
			n = netsim_wire_rx(dev, q, 32);
			CHECK(n >= 0);
			got += (uint64_t)n;
		}
		wait_runs(st, nq, seen + got);
		/* Now and then long enough idle for the threads to sleep:
		 * the next frames must wake them. */
		if (i % 16 == 15)
			usleep(500);
	}
	return got;
}

/* The device transmits what is posted; the owner (this thread, threaded
 * NAPI off) completes it. */
static void
flush_tx(struct net_device *dev, unsigned int nq)
{
	unsigned int q;

	for (q = 0; q < nq; q++) {
		CHECK(netsim_wire_rx(dev, q, 0) >= 0);
		CHECK(napi_poll(netsim_napi(dev, q)) >= 0);
	}
}

static void
pin_round_robin(struct net_device *dev, unsigned int nq)
{
	unsigned int q;

	for (q = 0; q < nq; q++)
		CHECK_EQ(napi_set_thread_cpu(netsim_napi(dev, q),
					     cpus[q % (unsigned int)ncpus]), 0);
}

/*
 * Frames from this thread into @nq threaded queues; the device set
 * threaded before it is opened (@early) or after; threaded off and on in
 * the middle.
 */
static void
run_feed(unsigned int nq, uint32_t act, bool generic, bool iommu, bool early)
{
	struct qprog st = { .act = act };
	struct bpf_prog prog = { .run = qprog_run, .priv = &st,
				 .name = "qprog" };
	struct netsim_opts o = { .sz = sizeof(o), .queues = nq, .flows = 64,
				 .frame_len = 128 };
	struct page_pool_stats ps;
	struct netsim_stats ws;
	struct net_device *dev;
	uint64_t rx, seen, rounds = (uint64_t)t_scale(300);
	unsigned int q;

	o.dma_dev = t_dma_dev_create(iommu, 0);
	dev = netsim_create(&o);
	CHECK(dev != NULL);
	for (q = 0; q < nq; q++)
		st.napi[q] = netsim_napi(dev, q);
	pin_round_robin(dev, nq);
	if (early)
		CHECK_EQ(dev_set_threaded(dev, true), 0);
	CHECK_EQ(dev_open(dev), 0);
	CHECK_EQ(dev_xdp_attach(dev, &prog, generic ? XDP_FLAGS_SKB_MODE : 0),
		 0);
	watch_pools(dev, nq);
	if (!early)
		CHECK_EQ(dev_set_threaded(dev, true), 0);
	CHECK(dev->threaded);
	CHECK_EQ(dev_set_threaded(dev, true), 0);	/* no change */
	CHECK_EQ(netsim_wire_in_poll(dev, true), -EBUSY);

	seen = feed(dev, &st, nq, rounds, 0);
	check_threaded(dev, &st, nq);

	/* Off: this thread polls again, the pools are its own. */
	CHECK_EQ(dev_set_threaded(dev, false), 0);
	CHECK(!dev->threaded);
	check_unthreaded(dev, nq);
	unwatch_pools();
	for (q = 0; q < nq; q++) {
		int n = netsim_wire_rx(dev, q, 16);

		CHECK(n >= 0);
		CHECK_EQ(napi_poll(netsim_napi(dev, q)), n);
		seen += (uint64_t)n;
	}
	CHECK_EQ(qprog_total(&st, nq), seen);
	flush_tx(dev, nq);

	/* On again: new threads. */
	CHECK_EQ(dev_set_threaded(dev, true), 0);
	seen += feed(dev, &st, nq, rounds, seen);
	check_threaded(dev, &st, nq);
	CHECK_EQ(dev_set_threaded(dev, false), 0);
	flush_tx(dev, nq);

	CHECK_EQ(netsim_get_stats(dev, &ws), 0);
	rx = pp_load_relaxed(&dev->stats.rx_packets);
	CHECK_EQ(pp_load_relaxed(&st.foreign), 0);
	CHECK_EQ(ws.dma_errors, 0);
	CHECK_EQ(ws.wire_sent, rx + dev->stats.rx_missed_errors);
	CHECK_EQ(rx, seen);
	CHECK_EQ(dev->stats.rx_dropped, 0);
	CHECK_EQ(qprog_total(&st, nq), rx);
	for (q = 0; q < nq; q++)
		CHECK(pp_load_relaxed(&st.runs[q]) > 0);	/* RSS spread */
	switch (act) {
	case XDP_DROP:
		CHECK_EQ(dev->stack.rx + ws.wire_tx + dev->xdp_exceptions, 0);
		break;
	case XDP_PASS:
		CHECK_EQ(dev->stack.udp, rx);
		CHECK_EQ(ws.wire_tx + dev->xdp_exceptions, 0);
		break;
	case XDP_TX:
		CHECK_EQ(ws.wire_tx + dev->xdp_exceptions, rx);
		CHECK_EQ(dev->stats.tx_packets, ws.wire_tx);
		break;
	}
	/* Everything was freed by the queue's owner: directly. */
	for (q = 0; q < nq; q++) {
		ps = pp_test_stats(netsim_page_pool(dev, q));
		CHECK_EQ(ps.recycle_stats.ring, 0);
		CHECK(ps.recycle_stats.cached > 0);
		CHECK_EQ(page_pool_debug_errors(netsim_page_pool(dev, q)), 0);
	}
	netsim_destroy(dev);
	wait_pools_freed();
	t_dma_dev_destroy_clean(o.dma_dev);
}

/* The inline wire in the poll: the NAPI threads never sleep; the device
 * is closed (and its threads stopped) while they poll at full speed. */
static void
run_in_poll(unsigned int nq, uint32_t act, bool generic)
{
	struct qprog st = { .act = act };
	struct bpf_prog prog = { .run = qprog_run, .priv = &st };
	struct netsim_opts o = { .sz = sizeof(o), .queues = nq, .flows = 64 };
	struct netsim_stats ws;
	struct net_device *dev;
	uint64_t rx, want = (uint64_t)t_scale(200000);
	unsigned int q;

	dev = netsim_create(&o);
	CHECK(dev != NULL);
	for (q = 0; q < nq; q++)
		st.napi[q] = netsim_napi(dev, q);
	pin_round_robin(dev, nq);
	CHECK_EQ(netsim_wire_in_poll(dev, true), 0);
	/* Attached first: the threads receive from the moment they run. */
	CHECK_EQ(dev_xdp_attach(dev, &prog, generic ? XDP_FLAGS_SKB_MODE : 0),
		 0);
	CHECK_EQ(dev_open(dev), 0);
	watch_pools(dev, nq);
	unwatch_pools();
	/* Up and polled by this thread (nobody does): threads now. */
	CHECK_EQ(dev_set_threaded(dev, true), 0);
	CHECK_EQ(netsim_wire_rx(dev, 0, 1), -EBUSY);
	CHECK_EQ(netsim_wire_start(dev, 0, 1), -EBUSY);
	/* Each queue's own thread polls its wire; on a loaded machine one
	 * may not have run by the time the others reach @want (seen once
	 * in 150 runs), so wait for every queue too. */
	while (qprog_total(&st, nq) < want || !qprog_all_ran(&st, nq))
		usleep(1000);
	check_threaded(dev, &st, nq);
	/* Close while polling: the threads stop first, then the driver
	 * frees its rings as the pools' owner. */
	dev_close(dev);
	CHECK(dev->threaded);		/* the setting stays */
	CHECK_EQ(napi_threads_settle(dev, 0), 0);

	CHECK_EQ(netsim_get_stats(dev, &ws), 0);
	rx = pp_load_relaxed(&dev->stats.rx_packets);
	CHECK_EQ(pp_load_relaxed(&st.foreign), 0);
	CHECK_EQ(ws.wire_sent, rx + dev->stats.rx_missed_errors);
	CHECK_EQ(qprog_total(&st, nq), rx);
	for (q = 0; q < nq; q++)
		CHECK(pp_load_relaxed(&st.runs[q]) > 0);
	if (act == XDP_PASS)
		CHECK_EQ(dev->stack.udp, rx);
	if (act == XDP_TX)
		/* What the wire had not sent at close was completed by
		 * the driver's stop. */
		CHECK_EQ(dev->stats.tx_packets + dev->xdp_exceptions, rx);
	netsim_destroy(dev);
	wait_pools_freed();
}

/* A wire thread per queue: the NAPI threads sleep and are woken by the
 * queue's interrupt; no frame waits forever, none is lost. */
static void
run_wire_threads(unsigned int nq, uint32_t act)
{
	struct qprog st = { .act = act };
	struct bpf_prog prog = { .run = qprog_run, .priv = &st };
	struct netsim_opts o = { .sz = sizeof(o), .queues = nq, .flows = 64 };
	struct netsim_stats ws;
	struct net_device *dev;
	uint64_t n = (uint64_t)t_scale(20000);
	unsigned int q;

	dev = netsim_create(&o);
	CHECK(dev != NULL);
	for (q = 0; q < nq; q++)
		st.napi[q] = netsim_napi(dev, q);
	CHECK_EQ(dev_open(dev), 0);
	watch_pools(dev, nq);
	unwatch_pools();
	CHECK_EQ(dev_set_threaded(dev, true), 0);
	CHECK_EQ(dev_xdp_attach(dev, &prog, 0), 0);
	for (q = 0; q < nq; q++)
		CHECK_EQ(netsim_wire_start(dev, q, n), 0);
	wait_runs(&st, nq, nq * n);
	if (act == XDP_TX) {
		uint64_t spins = 0;

		/* The last completions: the wire's interrupt after it
		 * transmitted wakes the threads. */
		while (pp_load_relaxed(&dev->stats.tx_packets) +
			       pp_load_relaxed(&dev->xdp_exceptions) < nq * n) {
			CHECK(spins++ < 2000000);
			usleep(5);
		}
	}
	for (q = 0; q < nq; q++)
		CHECK_EQ(netsim_wire_stop(dev, q), 0);
	check_threaded(dev, &st, nq);
	CHECK_EQ(netsim_get_stats(dev, &ws), 0);
	CHECK_EQ(ws.wire_sent, nq * n);
	CHECK_EQ(pp_load_relaxed(&dev->stats.rx_packets), nq * n);
	CHECK_EQ(dev->stats.rx_missed_errors, 0);
	CHECK_EQ(pp_load_relaxed(&st.foreign), 0);
	if (act == XDP_TX)
		CHECK_EQ(ws.wire_tx + dev->xdp_exceptions, nq * n);
	netsim_destroy(dev);
	wait_pools_freed();
}

/* XDP_REDIRECT into a CPU map from threaded queues: the map's thread
 * builds the skbs and frees the pages, which come back through each
 * pool's ring; nothing is lost. */
static void
run_cpumap(unsigned int nq, bool generic)
{
	struct qprog st = { .act = XDP_REDIRECT };
	struct bpf_prog prog = { .run = qprog_run, .priv = &st };
	struct netsim_opts o = { .sz = sizeof(o), .queues = nq, .flows = 64 };
	struct page_pool_stats ps;
	struct cpu_map_stats cs;
	struct net_device *dev;
	uint64_t rx, ring = 0, rounds = (uint64_t)t_scale(200);
	unsigned int q;

	st.cpumap = cpu_map_create(1);
	CHECK(st.cpumap != NULL);
	CHECK_EQ(cpu_map_update_elem(st.cpumap, 0, 1024), 0);
	dev = netsim_create(&o);
	CHECK(dev != NULL);
	for (q = 0; q < nq; q++)
		st.napi[q] = netsim_napi(dev, q);
	pin_round_robin(dev, nq);
	CHECK_EQ(dev_set_threaded(dev, true), 0);
	CHECK_EQ(dev_open(dev), 0);
	CHECK_EQ(dev_xdp_attach(dev, &prog, generic ? XDP_FLAGS_SKB_MODE : 0),
		 0);
	watch_pools(dev, nq);
	rx = feed(dev, &st, nq, rounds, 0);
	check_threaded(dev, &st, nq);
	CHECK_EQ(dev_set_threaded(dev, false), 0);
	unwatch_pools();
	CHECK_EQ(pp_load_relaxed(&dev->stats.rx_packets), rx);
	CHECK_EQ(dev->xdp_exceptions, 0);
	CHECK_EQ(pp_load_relaxed(&st.foreign), 0);
	/* Deleting the entry lets its thread finish its queue. */
	CHECK_EQ(cpu_map_get_stats(st.cpumap, 0, &cs), 0);
	CHECK_EQ(cs.enqueued + cs.dropped, rx);
	CHECK_EQ(cpu_map_delete_elem(st.cpumap, 0), 0);
	CHECK(cs.enqueued > 0);
	CHECK_EQ(pp_load_relaxed(&dev->stack.udp), cs.enqueued);
	cpu_map_destroy(st.cpumap);
	for (q = 0; q < nq; q++) {
		ps = pp_test_stats(netsim_page_pool(dev, q));
		ring += ps.recycle_stats.ring + ps.recycle_stats.ring_full;
	}
	CHECK(ring > 0);
	netsim_destroy(dev);
	wait_pools_freed();
}

/* XDP_REDIRECT from threaded queues of sim A to sim B, which this thread
 * polls: B transmits the frames and returns the pages from this thread,
 * through A's pools' rings. */
static void
run_redirect_dev(unsigned int nq)
{
	struct qprog st = { .act = XDP_REDIRECT };
	struct bpf_prog prog = { .run = qprog_run, .priv = &st };
	struct netsim_opts o = { .sz = sizeof(o), .queues = nq, .flows = 64 };
	struct netsim_opts ot = { .sz = sizeof(ot) };
	struct page_pool_stats ps;
	struct net_device *src, *dst;
	uint64_t rx = 0, i, ring = 0, rounds = (uint64_t)t_scale(200);
	unsigned int q;
	int n;

	src = netsim_create(&o);
	dst = netsim_create(&ot);
	CHECK(src != NULL && dst != NULL);
	for (q = 0; q < nq; q++)
		st.napi[q] = netsim_napi(src, q);
	st.ifindex = (uint32_t)dst->ifindex;
	CHECK_EQ(dev_open(dst), 0);
	CHECK_EQ(dev_set_threaded(src, true), 0);
	CHECK_EQ(dev_open(src), 0);
	CHECK_EQ(dev_xdp_attach(src, &prog, 0), 0);
	watch_pools(src, nq);
	for (i = 0; i < rounds; i++) {
		for (q = 0; q < nq; q++) {
			n = netsim_wire_rx(src, q, 32);
			CHECK(n >= 0);
			rx += (uint64_t)n;
		}
		wait_runs(&st, nq, rx);
		/* The target transmits and completes. */
		CHECK(netsim_wire_rx(dst, 0, 0) >= 0);
		CHECK(napi_poll(netsim_napi(dst, 0)) >= 0);
	}
	check_threaded(src, &st, nq);
	CHECK_EQ(dev_set_threaded(src, false), 0);
	unwatch_pools();
	for (i = 0; i < 3; i++) {
		CHECK(netsim_wire_rx(dst, 0, 0) >= 0);
		CHECK(napi_poll(netsim_napi(dst, 0)) >= 0);
	}
	CHECK_EQ(pp_load_relaxed(&src->stats.rx_packets), rx);
	CHECK_EQ(pp_load_relaxed(&st.foreign), 0);
	CHECK_EQ(src->xdp_exceptions, 0);
	/* Every redirected frame was sent or dropped at the target. */
	CHECK_EQ(pp_load_relaxed(&dst->stats.tx_packets) +
			 pp_load_relaxed(&dst->stats.tx_dropped),
		 rx);
	for (q = 0; q < nq; q++) {
		ps = pp_test_stats(netsim_page_pool(src, q));
		ring += ps.recycle_stats.ring + ps.recycle_stats.ring_full;
	}
	CHECK(ring > 0);
	netsim_destroy(dst);
	netsim_destroy(src);
	wait_pools_freed();
}

static void
badinput(void)
{
	struct netsim_opts o = { .sz = sizeof(o), .queues = 2 };
	struct napi_struct *napi;
	struct net_device *dev;

	CHECK_EQ(dev_set_threaded(NULL, true), -EINVAL);
	CHECK_EQ(napi_set_thread_cpu(NULL, 0), -EINVAL);
	CHECK_EQ(netsim_wire_in_poll(NULL, true), -EINVAL);
	CHECK(!napi_schedule_prep(NULL));
	__napi_schedule(NULL);
	dev = netsim_create(&o);
	CHECK(dev != NULL);
	napi = netsim_napi(dev, 0);
	CHECK_EQ(napi_set_thread_cpu(napi, -2), -EINVAL);
	CHECK_EQ(napi_set_thread_cpu(napi, CPU_SETSIZE), -EINVAL);
	CHECK_EQ(napi_set_thread_cpu(napi, -1), 0);
	/* Not threaded: a schedule only marks it; the owner polls. */
	CHECK(napi_schedule(napi));
	CHECK(!napi_schedule(napi));
	CHECK(pp_load_relaxed(&napi->state) & NAPIF_STATE_MISSED);
	CHECK(!napi_complete_done(napi, 0));	/* missed: poll again */
	CHECK(napi_complete_done(napi, 0));
	CHECK_EQ(pp_load_relaxed(&napi->state) &
			 (NAPIF_STATE_SCHED | NAPIF_STATE_MISSED),
		 0);
	/* Threaded while down: no thread until it is opened. */
	CHECK_EQ(dev_set_threaded(dev, true), 0);
	CHECK_EQ(count_napi_threads(dev), 0);
	CHECK_EQ(dev_open(dev), 0);
	CHECK(napi_threads_settle(dev, 2) == 2 || count_napi_threads(dev) < 0);
	/* A running thread is re-pinned. */
	CHECK_EQ(napi_set_thread_cpu(napi, cpus[ncpus - 1]), 0);
	CHECK_EQ(napi_set_thread_cpu(napi, -1), 0);
	netsim_destroy(dev);	/* unregister stops the threads */
}

int
main(void)
{
	uint32_t acts[] = { XDP_DROP, XDP_PASS, XDP_TX };
	unsigned int i;

	cpus_init();
	badinput();
	for (i = 0; i < 3; i++) {
		run_feed(2, acts[i], false, false, true);
		run_feed(4, acts[i], true, i == 0, false);
	}
	run_feed(3, XDP_DROP, false, true, false);
	run_in_poll(2, XDP_DROP, false);
	run_in_poll(4, XDP_PASS, false);
	run_in_poll(2, XDP_TX, true);
	run_wire_threads(2, XDP_DROP);
	run_wire_threads(3, XDP_TX);
	run_cpumap(2, false);
	run_cpumap(3, true);
	run_redirect_dev(2);
	pp_skb_cache_thread_drain();
	return T_EXIT_PASS;
}
