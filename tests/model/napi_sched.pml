/* SPDX-License-Identifier: MIT */
/*
 * Copyright (c) 2026 The pagepool authors
 *
 * napi_sched.pml - a spin model of threaded NAPI's scheduling
 * (src/net/core/dev.c): a device (netsim's wire thread, or
 * netsim_wire_rx() on another thread) writes frames and raises its
 * interrupt, napi_schedule() = napi_schedule_prep() + __napi_schedule();
 * the NAPI thread (napi_threaded_poll()) polls with a budget, completes
 * with napi_complete_done() when it did less than the budget, and waits
 * for SCHED_THREADED, first without the lock (its idle spin), then under
 * the lock on a condition variable (napi_thread_wait()).
 *
 * The property: no lost wake-up. Once the device has written all its
 * frames and raised its last interrupt, the NAPI thread never sleeps with
 * a frame left unpolled: a monitor asserts, whenever the device is done
 * and the thread sleeps with no signal pending (so nothing can wake it
 * again), that every frame was polled. Spin's interleavings are
 * sequentially consistent; the C code's orderings (the state word's
 * read-modify-writes, acq_rel, and the lock) give the same order to the
 * steps modelled here.
 *
 * Parameters (spin -DNAME=value; defaults below):
 *   NF       frames the device writes, one interrupt each: 1..4
 *   B        the poll's budget: 1..2
 *   MISSED   1 = napi_schedule_prep() sets MISSED when the instance is
 *            already scheduled (the kernel's, ours); 0 = it only fails
 *   HONOUR   1 = napi_complete_done() keeps the instance scheduled when
 *            MISSED is set (ours); 0 = it clears SCHED regardless
 *   PRECHECK 1 = the thread tests SCHED_THREADED without the lock before
 *            locking (its idle spin; harmless); 0 = only under the lock
 *
 * The real code holds for every NF and B; MISSED=0 or HONOUR=0 is
 * violated (a frame written while the thread polls, whose interrupt finds
 * the instance still scheduled, is left in the ring).
 */

#ifndef NF
#define NF 3
#endif
#ifndef B
#define B 2
#endif
#ifndef MISSED
#define MISSED 1
#endif
#ifndef HONOUR
#define HONOUR 1
#endif
#ifndef PRECHECK
#define PRECHECK 1
#endif

byte pending;		/* frames written, not polled */
byte polled;
bit sched = 1;		/* the start's kick: SCHED | SCHED_THREADED */
bit missed;
bit schedthr = 1;
bit lock;		/* the thread's mutex */
bit asleep;		/* in pthread_cond_wait() */
bit wake;		/* a signal delivered to the sleeper */
bit dev_done;

inline lock_take() {
	atomic { lock == 0 -> lock = 1 }
}

proctype Device()
{
	byte i = 0;
	bit claimed;

	do
	:: i < NF ->
		/* The descriptor written (R11), then the interrupt. */
		pending++;
		/* napi_schedule_prep(): one compare-and-swap. */
		atomic {
			if
			:: sched ->
				if
				:: MISSED -> missed = 1
				:: else -> skip
				fi;
				claimed = 0
			:: else ->
				sched = 1;
				claimed = 1
			fi
		}
		if
		:: claimed ->
			/* __napi_schedule(): SCHED_THREADED, then lock,
			 * signal, unlock. */
			schedthr = 1;
			lock_take();
			if
			:: asleep -> wake = 1
			:: else -> skip
			fi;
			lock = 0
		:: else -> skip
		fi;
		i++
	:: else -> break
	od;
	dev_done = 1
}

proctype Napi()
{
	byte work;

wait:
	if
	:: PRECHECK && schedthr -> goto poll
	:: else -> skip
	fi;
	lock_take();
	do
	:: schedthr -> break
	:: else ->
		/* pthread_cond_wait(): unlock and sleep in one step. */
		atomic { asleep = 1; lock = 0 };
end_sleep:
		atomic { wake == 1 && lock == 0 -> wake = 0; asleep = 0; lock = 1 }
	od;
	lock = 0;
poll:
	/* The driver's poll: up to B frames. */
	atomic {
		if
		:: pending < B -> work = pending
		:: else -> work = B
		fi;
		pending = pending - work;
		polled = polled + work
	}
	if
	:: work == B -> goto poll	/* budget used: poll again */
	:: else ->
		/* napi_complete_done(): one compare-and-swap. */
		atomic {
			if
			:: HONOUR && missed ->
				missed = 0	/* stays scheduled, on the thread */
			:: else ->
				sched = 0;
				missed = 0;
				schedthr = 0
			fi
		};
		goto wait
	fi
}

/* Nothing can wake a sleeper once the device is done: then every frame
 * must have been polled. */
active proctype Monitor()
{
end_watch:
	atomic {
		dev_done && asleep && wake == 0 ->
			assert(pending == 0 && polled == NF)
	}
}

init
{
	atomic {
		run Device();
		run Napi()
	}
}
