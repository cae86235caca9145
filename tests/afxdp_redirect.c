/* SPDX-License-Identifier: MIT */
/*
 * Copyright (c) 2026 The pagepool authors
 *
 * XDP_REDIRECT between two AF_XDP devices, each polled by a NAPI thread of
 * its own: every frame the first device (IN) receives is redirected to the
 * second (OUT), whose poll copies it into its own UMEM, sends it on its TX
 * ring and returns the original to IN's pool from OUT's thread (the
 * cross-thread return through the pool's ring). Runs until SIGINT or
 * SECONDS, then prints one line for the test script to check against the
 * far end of OUT:
 *
 *   redirect: received R redirected X sent S dropped D
 *
 * and checks that every received frame was redirected (the program saw
 * all), every redirected frame was sent or dropped, and both pools were
 * freed (no page in flight) after the devices are destroyed.
 *
 *   afxdp_redirect IN OUT SECONDS
 * Exit 0, 1 (a check failed), 2 (usage or set-up), 77 (no AF_XDP here).
 */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <pagepool/netdevice.h>
#include <pagepool/page_pool.h>

#include "drivers/net/xsk.h"

struct napi_thread {
	struct net_device *dev;
	pthread_t tid;
	int stop;		/* R1/A1 */
	int ready;		/* R2/A2 */
	int err;
	int pool_freed;		/* R3/A3 */
	void *pool;
};

static struct napi_thread tin, tout;
static volatile sig_atomic_t interrupted;
static uint64_t seen;		/* IN's thread only */
static int out_ifindex;

static uint32_t
redirect_prog(struct xdp_md *ctx, void *priv)
{
	(void)ctx;
	(void)priv;
	seen++;
	return (uint32_t)bpf_redirect((uint32_t)out_ifindex, 0);
}

static void
on_pool_free(void *pool)
{
	struct napi_thread *t = pool == tin.pool ? &tin : &tout;

	/* R3: pairs with acquire A3 in main(). */
	__atomic_store_n(&t->pool_freed, 1, __ATOMIC_RELEASE);
}

static void *
napi_thread_fn(void *arg)
{
	struct napi_thread *t = arg;
	struct napi_struct *napi;
	struct page_pool *pool;
	int ret;

	ret = dev_open(t->dev);
	if (ret != 0) {
		fprintf(stderr, "afxdp_redirect: cannot open %s: %s\n",
			t->dev->name, pp_xsk_open_error(t->dev));
		t->err = ret;
		/* R2: pairs with acquire A2 in main(). */
		__atomic_store_n(&t->ready, 1, __ATOMIC_RELEASE);
		return NULL;
	}
	pool = pp_xsk_page_pool(t->dev);
	t->pool = pool;
	page_pool_use_xdp_mem(pool, on_pool_free, NULL);
	page_pool_destroy(pool);	/* the reference just taken */
	napi = pp_xsk_napi(t->dev);
	/* R2: pairs with acquire A2 in main(). */
	__atomic_store_n(&t->ready, 1, __ATOMIC_RELEASE);
	/* A1: pairs with release R1 in main(). */
	while (!__atomic_load_n(&t->stop, __ATOMIC_ACQUIRE))
		if (napi_poll(napi) == 0)
			pp_xsk_wait(t->dev, 10);
	/* What is still in the rings. */
	while (napi_poll(napi) > 0)
		;
	dev_close(t->dev);
	return NULL;
}

static void
on_signal(int sig)
{
	(void)sig;
	interrupted = 1;
}

static int
start(struct napi_thread *t)
{
	if (pthread_create(&t->tid, NULL, napi_thread_fn, t) != 0)
		return -1;
	/* A2: pairs with release R2 in napi_thread_fn(). */
	while (!__atomic_load_n(&t->ready, __ATOMIC_ACQUIRE))
		usleep(1000);
	return t->err;
}

static void
stop_thread(struct napi_thread *t)
{
	/* R1: pairs with acquire A1 in napi_thread_fn(). */
	__atomic_store_n(&t->stop, 1, __ATOMIC_RELEASE);
	pthread_join(t->tid, NULL);
}

int
main(int argc, char **argv)
{
	struct pp_xsk_opts o = { .sz = sizeof(o) };
	struct bpf_prog prog = { .run = redirect_prog, .name = "redirect" };
	uint64_t rx, tx, drop;
	char msg[256];
	int secs, i, rc = 0, ret;

	if (argc != 4 || (secs = atoi(argv[3])) <= 0) {
		fprintf(stderr, "usage: %s IN OUT SECONDS\n", argv[0]);
		return 2;
	}
	tin.dev = pp_xsk_create(argv[1], &o, msg, sizeof(msg));
	if (tin.dev == NULL) {
		fprintf(stderr, "afxdp_redirect: %s: %s\n", argv[1], msg);
		return 2;
	}
	tout.dev = pp_xsk_create(argv[2], &o, msg, sizeof(msg));
	if (tout.dev == NULL) {
		fprintf(stderr, "afxdp_redirect: %s: %s\n", argv[2], msg);
		pp_xsk_destroy(tin.dev);
		return 2;
	}
	out_ifindex = tout.dev->ifindex;
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	/* OUT first: it must be up before IN redirects to it. */
	ret = start(&tout);
	if (ret == 0) {
		ret = dev_xdp_attach(tin.dev, &prog, XDP_FLAGS_DRV_MODE);
		if (ret != 0)
			fprintf(stderr, "afxdp_redirect: attach: %s\n",
				strerror(-ret));
	}
	if (ret == 0)
		ret = start(&tin);
	if (ret != 0) {
		if (tin.tid != 0 && tin.err == 0)
			stop_thread(&tin);
		else if (tin.tid != 0)
			pthread_join(tin.tid, NULL);
		if (tout.err == 0)
			stop_thread(&tout);
		else
			pthread_join(tout.tid, NULL);
		pp_xsk_destroy(tin.dev);
		pp_xsk_destroy(tout.dev);
		return ret == -EPERM || ret == -EAFNOSUPPORT ? 77 : 2;
	}
	printf("redirect: ready\n");
	fflush(stdout);
	for (i = 0; i < secs * 10 && !interrupted; i++)
		usleep(100000);
	/* IN first, so nothing is redirected to a device going down. */
	stop_thread(&tin);
	stop_thread(&tout);

	rx = tin.dev->stats.rx_packets;
	tx = tout.dev->stats.tx_packets;
	drop = tout.dev->stats.tx_dropped;
	printf("redirect: received %" PRIu64 " redirected %" PRIu64
	       " sent %" PRIu64 " dropped %" PRIu64 "\n", rx, seen, tx, drop);
	if (seen != rx || tx + drop != seen) {
		fprintf(stderr, "afxdp_redirect: frames unaccounted\n");
		rc = 1;
	}
	pp_xsk_destroy(tin.dev);
	pp_xsk_destroy(tout.dev);
	pp_skb_cache_thread_drain();
	/* A3: pairs with release R3 in on_pool_free(). */
	if (!__atomic_load_n(&tin.pool_freed, __ATOMIC_ACQUIRE) ||
	    !__atomic_load_n(&tout.pool_freed, __ATOMIC_ACQUIRE)) {
		fprintf(stderr, "afxdp_redirect: pages still in flight\n");
		rc = 1;
	}
	return rc;
}
