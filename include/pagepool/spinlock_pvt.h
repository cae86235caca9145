/* SPDX-License-Identifier: MIT */
/*
 * Copyright (c) 2026 The pagepool authors
 *
 * Indirect header (installed because inline locked ring operations need it;
 * not API).
 *
 * The kernel's spinlock_t for userspace: a test-and-test-and-set lock. It is
 * what ptr_ring's producer and consumer locks are in the kernel, and it keeps
 * the locked ring paths free of system calls. The _bh/_irq/_irqsave
 * flavours of the kernel collapse to this one lock: userspace has no
 * interrupt context to exclude.
 *
 * Spinning suits the short critical sections of a ring; callers that may be
 * preempted while holding a lock on an oversubscribed machine pay for it, as
 * in the kernel with preemption enabled.
 */
#ifndef PAGEPOOL_SPINLOCK_PVT_H
#define PAGEPOOL_SPINLOCK_PVT_H

#include <pagepool/atomic_pvt.h>

struct pp_spinlock {
	int locked;
};

#define PP_SPINLOCK_INIT { 0 }

static inline void
pp_spin_lock_init(struct pp_spinlock *lock)
{
	pp_store_relaxed(&lock->locked, 0);
}

static inline void
pp_spin_lock(struct pp_spinlock *lock)
{
	/* A1: pairs with release R1 in pp_spin_unlock(). Needed: relaxed,
	 * tests/genmc/ptr_ring_mpsc.c finds a race on r->producer. */
	while (pp_xchg_acquire(&lock->locked, 1) != 0) {
		/* Wait read-only so the line is not bounced while held. */
		while (pp_load_relaxed(&lock->locked) != 0)
			pp_cpu_relax();
	}
}

static inline int
pp_spin_trylock(struct pp_spinlock *lock)
{
	/* A1: pairs with release R1 in pp_spin_unlock(). Needed: relaxed,
	 * tests/genmc/spinlock.c finds a race in the critical section. */
	return pp_load_relaxed(&lock->locked) == 0 &&
	       pp_xchg_acquire(&lock->locked, 1) == 0;
}

static inline void
pp_spin_unlock(struct pp_spinlock *lock)
{
	/* R1: pairs with acquire A1 in pp_spin_lock()/pp_spin_trylock().
	 * Needed: relaxed, tests/genmc/ptr_ring_mpsc.c finds a race. */
	pp_store_release(&lock->locked, 0);
}

#endif /* PAGEPOOL_SPINLOCK_PVT_H */
