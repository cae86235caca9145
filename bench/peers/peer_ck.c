/* SPDX-License-Identifier: MIT */
/*
 * Copyright (c) 2026 The pagepool authors
 *
 * peer_ck: Concurrency Kit's ck_ring as the SPSC peer of our ptr_ring.
 *   ck_ring_spsc   ck_ring_enqueue_spsc / ck_ring_dequeue_spsc, 1024 slots
 *                  (ck keeps one empty: 1023 usable; ptr_ring uses all
 *                  1024), values 1..N checked in order by the consumer
 * Same harness, item count and CPUs as pagepool_ptr_ring_spsc.
 */
#define _GNU_SOURCE
#include <stdlib.h>

#include <ck_ring.h>

#include "peers.h"

struct ck_spsc {
	struct ck_ring ring;
	struct ck_ring_buffer buf[PEER_RING_SIZE];
};

static bool
ck_enq(void *ring, void *v)
{
	struct ck_spsc *c = ring;

	return ck_ring_enqueue_spsc(&c->ring, c->buf, v);
}

static void *
ck_deq(void *ring)
{
	struct ck_spsc *c = ring;
	void *v;

	if (!ck_ring_dequeue_spsc(&c->ring, c->buf, &v))
		return NULL;
	return v;
}

static void *
ck_b(void *arg)
{
	struct peer_spsc *s = arg;

	peer_spsc_b_enter(s, true);
	peer_spsc_consumer(s, ck_deq);
	return NULL;
}

static void
ck_a(struct peer_spsc *s)
{
	peer_spsc_producer(s, ck_enq);
}

int
main(int argc, char **argv)
{
	struct ck_spsc *c;
	unsigned int round;

	peer_init(argc, argv, "peer_ck", "Concurrency Kit ck_ring SPSC",
		  NULL);
	/* Cache-line aligned, as ck's producer and consumer fields are. */
	if (posix_memalign((void **)&c, 64, sizeof(*c)) != 0)
		peer_die("out of memory");
	ck_ring_init(&c->ring, PEER_RING_SIZE);
	for (round = 0; round < peer_opts.rounds; round++)
		peer_spsc_run("ck_ring_spsc", c, ck_b, ck_a);
	free(c);
	return 0;
}
