/* SPDX-License-Identifier: MIT */
/*
 * Copyright (c) 2026 The pagepool authors
 *
 * GenMC: the library's spinlock (pagepool/spinlock_pvt.h) on its own, as
 * the ring's producer and consumer locks and page_pool's locks use it.
 * Three threads increment a plain counter, two under pp_spin_lock() and
 * one under pp_spin_trylock() (retried until it succeeds); a lock too weak
 * to order the critical sections shows as a race on the counter or a lost
 * increment.
 */
#include "harness.h"

static struct pp_spinlock lock = PP_SPINLOCK_INIT;
static int counter;	/* plain: only ever touched under the lock */

static void *
locker(void *arg)
{
	(void)arg;
	pp_spin_lock(&lock);
	counter++;
	pp_spin_unlock(&lock);
	return NULL;
}

static void *
trylocker(void *arg)
{
	(void)arg;
	AWAIT(pp_spin_trylock(&lock));
	counter++;
	pp_spin_unlock(&lock);
	return NULL;
}

int
main(void)
{
	pthread_t a, b, c;

	pthread_create(&a, NULL, locker, NULL);
	pthread_create(&b, NULL, locker, NULL);
	pthread_create(&c, NULL, trylocker, NULL);
	pthread_join(a, NULL);
	pthread_join(b, NULL);
	pthread_join(c, NULL);
	assert(counter == 3);
	return 0;
}
