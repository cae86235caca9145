/* SPDX-License-Identifier: MIT */
/*
 * Copyright (c) 2026 The pagepool authors
 *
 * ptr_ring.pml - a spin model of include/pagepool/ptr_ring.h: produce,
 * consume (peek + discard_one) and batched tail zeroing in both zeroing
 * orders, with an optional lockless __ptr_ring_empty() observer.
 *
 * Parameters (spin -DNAME=value; defaults below):
 *   SIZE        ring slots (r->size), 1..8
 *   BATCH       tail-zeroing batch (r->batch), >= 1. Not clamped: the real
 *               __ptr_ring_set_size() uses 1 whenever two cache lines of
 *               pointers exceed half the ring (below 32 slots with 64-byte
 *               lines and 8-byte pointers); the model lets SIZE=4 BATCH=2
 *               exercise batching.
 *   ITEMS       values each producer produces, 1..(255 / NPROD)
 *   NPROD       producers: 1 (lockless __ptr_ring_produce) or 2
 *               (ptr_ring_produce: serialised on producer_lock)
 *   HEAD_FIRST  0 = mainline: zero the tail, then store consumer_head;
 *               1 = seed 002: store consumer_head, then zero the tail
 *   OBSERVER    0 = none; 1 = "snapshot" empty test (head and slot read in
 *               one atomic step); 2 = "two loads", as __ptr_ring_empty()
 *               does it: head, then the slot, as separate steps
 *   CHECK       what the observer asserts:
 *               1 = no false "empty" (sees NULL => nothing unconsumed)
 *               2 = no false "non-empty" (sees an entry => something
 *                   unconsumed)
 *   GHOST       the ghost count the observer is judged against: when an
 *               item starts and stops counting as "in the ring".
 *               0 = in at the producer's slot store, out when the
 *                   consumer's peek load reads it
 *               1 = in at the slot store, out when the consumer_head
 *                   store moves past it
 *               2 = linearisable: an answer is wrong only if no order of
 *                   the operations in progress justifies it. For CHECK 1
 *                   ("empty") an item is in once its produce has returned
 *                   (producer stored, lock dropped) and out at the peek
 *                   load; for CHECK 2 ("non-empty") in at the slot store
 *                   and out once discard_one has returned (for
 *                   HEAD_FIRST = 1 that is after the zeroing).
 *
 * Properties:
 *   - the consumer asserts that each producer's values arrive in order,
 *     without gaps or repeats; at the end every value was consumed exactly
 *     once and the next peek sees NULL; no process blocks forever (spin's
 *     invalid end state check);
 *   - with OBSERVER != 0 the observer's assertion (CHECK) characterises
 *     the lockless empty test; see docs/ptr_ring-model.md.
 *
 * Abstractions (each sound for the properties above):
 *   - sequential consistency: every load and store is one atomic step;
 *   - a failed attempt (produce finding the slot full, peek finding NULL)
 *     changes no shared state and is followed by a retry, so it is modelled
 *     as the load blocking until it succeeds;
 *   - producer, consumer_tail and the local index arithmetic are private to
 *     their owner (producer is guarded by producer_lock when NPROD = 2), so
 *     accesses to them are merged into the neighbouring shared step;
 *   - the caller's check of the consumed value is merged into the peek.
 */

#ifndef SIZE
#define SIZE 2
#endif
#ifndef BATCH
#define BATCH 1
#endif
#ifndef ITEMS
#define ITEMS 5
#endif
#ifndef NPROD
#define NPROD 1
#endif
#ifndef HEAD_FIRST
#define HEAD_FIRST 0
#endif
#ifndef OBSERVER
#define OBSERVER 0
#endif
#ifndef CHECK
#define CHECK 1
#endif
#ifndef GHOST
#define GHOST 0
#endif

#if SIZE < 1 || SIZE > 8
#error "SIZE must be 1..8"
#endif
#if BATCH < 1
#error "BATCH must be >= 1"
#endif
#if NPROD < 1 || NPROD > 2
#error "NPROD must be 1 or 2"
#endif
#if ITEMS < 1 || NPROD * ITEMS > 255
#error "ITEMS must be 1..255/NPROD"
#endif
#if OBSERVER < 0 || OBSERVER > 2
#error "OBSERVER must be 0, 1 or 2"
#endif
#if CHECK < 1 || CHECK > 2
#error "CHECK must be 1 or 2"
#endif
#if GHOST < 0 || GHOST > 2
#error "GHOST must be 0, 1 or 2"
#endif

/* ---- Shared state: the fields of struct ptr_ring that are shared ---- */

byte queue[SIZE];	/* r->queue[]: 0 is NULL, values 1..NPROD*ITEMS */
byte producer;		/* r->producer (producer_lock) */
byte consumer_head;	/* r->consumer_head: written by the consumer only */
bool plock;		/* r->producer_lock */

/* ---- Ghost state (not in the C code) ---- */

short inring;		/* items produced and not yet consumed (see GHOST);
			 * signed: with GHOST 2 and CHECK 1 an item may be
			 * read before its produce has returned */
byte pdone;		/* producers that have finished */
#if OBSERVER == 2
bool obs_open;		/* observer is between its two loads */
bool obs_saw_empty;	/* inring was <= 0 at some instant since the head load */
bool obs_saw_nonempty;	/* inring was > 0 at some instant since then */
#endif

#if OBSERVER == 2
#define OBS_TRACK()							\
	if								\
	:: obs_open && inring <= 0 -> obs_saw_empty = true		\
	:: obs_open && inring > 0 -> obs_saw_nonempty = true		\
	:: else -> skip							\
	fi
#else
#define OBS_TRACK()	skip
#endif

#define GHOST_PRODUCED()	inring++; OBS_TRACK()
#define GHOST_CONSUMED()	inring--; OBS_TRACK()

/* Where the ghost count moves: P_ = produce, C_ = consume. */
#if GHOST == 2 && CHECK == 1
#define GHOST_P_STORE()		skip
#define GHOST_P_DONE()		GHOST_PRODUCED()
#else
#define GHOST_P_STORE()		GHOST_PRODUCED()
#define GHOST_P_DONE()		skip
#endif
#if GHOST == 0 || (GHOST == 2 && CHECK == 1)
#define GHOST_C_READ()		GHOST_CONSUMED()
#else
#define GHOST_C_READ()		skip
#endif
#if GHOST == 1
#define GHOST_C_PUBLISH()	GHOST_CONSUMED()
#else
#define GHOST_C_PUBLISH()	skip
#endif
#if GHOST == 2 && CHECK == 2
#define GHOST_C_DONE()		GHOST_CONSUMED()
#else
#define GHOST_C_DONE()		skip
#endif

#if NPROD > 1
#define LOCK()		!plock -> plock = true
#define UNLOCK()	plock = false
#else
#define LOCK()		skip
#define UNLOCK()	skip
#endif

/*
 * One producer: produces id*ITEMS + 1 .. id*ITEMS + ITEMS, in order, each
 * with (ptr_ring_produce() when NPROD = 2, else) __ptr_ring_produce(),
 * retrying while the ring is full.
 */
proctype Producer(byte id)
{
	byte i = 1;	/* sequence number of the next value */
	byte p;		/* local copy of r->producer */

	do
	:: i > ITEMS -> break
	:: else ->
		/* pp_spin_lock(&producer_lock); producer = r->producer */
		atomic { LOCK(); p = producer };
		/* __ptr_ring_full(): load queue[producer]; full => -ENOSPC,
		 * unlock and retry (a self-loop: modelled as blocking). */
		queue[p] == 0;
		/* pp_store_release(&queue[producer], ptr) */
		d_step { queue[p] = id * ITEMS + i; GHOST_P_STORE() };
		/* if (++producer >= size) producer = 0; r->producer =
		 * producer; pp_spin_unlock(&producer_lock) */
		d_step {
			p++;
			if
			:: p >= SIZE -> p = 0
			:: else -> skip
			fi;
			producer = p;
			UNLOCK();
			GHOST_P_DONE();
			p = 0;
			i++
		}
	od;
	pdone++
}

/*
 * The one consumer: __ptr_ring_consume() until it has taken all
 * NPROD * ITEMS values, then checks that nothing is left.
 */
proctype Consumer()
{
	byte tail;		/* r->consumer_tail (consumer-private) */
	byte ch;		/* local consumer_head in discard_one */
	byte zend;		/* head-first: end of the range to zero */
	byte k;			/* __ptr_ring_zero_tail()'s cursor */
	byte v;			/* the value peeked */
	byte who;		/* producer of v */
	byte last[NPROD];	/* last sequence number seen per producer */
	byte taken;

	do
	:: taken == NPROD * ITEMS -> break
	:: else ->
		/* __ptr_ring_peek(): pp_load_acquire(&queue[consumer_head]);
		 * NULL => empty, retry (modelled as blocking). The caller's
		 * check of the value and discard_one's first line
		 * (consumer_head = r->consumer_head + 1) are local. */
		d_step {
			queue[consumer_head] != 0 ->
			v = queue[consumer_head];
			GHOST_C_READ();
			who = (v - 1) / ITEMS;
			assert(who < NPROD);
			/* in order, no gap, no repeat */
			assert((v - 1) % ITEMS + 1 == last[who] + 1);
			last[who]++;
			taken++;
			v = 0;
			who = 0;
			ch = consumer_head + 1
		};
#if HEAD_FIRST == 0
		/* Mainline: zero, then wrap, then publish the head. */
		if
		:: ch - tail >= BATCH || ch >= SIZE ->
			/* __ptr_ring_zero_tail(r, ch): highest slot first,
			 * one relaxed store per step */
			k = ch;
			do
			:: atomic { k > tail -> k--; queue[k] = 0 }
			:: else -> break
			od;
			k = 0;
			tail = ch
		:: else -> skip
		fi;
		/* wrap; pp_store_relaxed(&r->consumer_head, ch) */
		d_step {
			if
			:: ch >= SIZE -> ch = 0; tail = 0
			:: else -> skip
			fi;
			consumer_head = ch;
			GHOST_C_PUBLISH();
			GHOST_C_DONE();	/* the last step */
			ch = 0
		}
#else
		/* Seed 002: publish the head, then zero. */
		if
		:: ch - tail >= BATCH || ch >= SIZE ->
			/* zero_end = ch; wrap; store the head */
			d_step {
				zend = ch;
				if
				:: ch >= SIZE -> ch = 0
				:: else -> skip
				fi;
				consumer_head = ch;
				GHOST_C_PUBLISH()
			};
			/* __ptr_ring_zero_tail(r, zero_end) */
			k = zend;
			do
			:: atomic { k > tail -> k--; queue[k] = 0 }
			:: else -> break
			od;
			/* r->consumer_tail = consumer_head (atomic, not
			 * d_step: the loop above jumps here) */
			atomic {
				k = 0; zend = 0; tail = ch; ch = 0;
				GHOST_C_DONE()
			}
		:: else ->
			d_step {
				consumer_head = ch;
				GHOST_C_PUBLISH();
				GHOST_C_DONE();
				ch = 0
			}
		fi
#endif
	od;

	/* Every value consumed exactly once, and nothing extra left: once
	 * all producers are done, the next peek must see NULL. */
	pdone == NPROD;
	d_step {
		k = 0;
		do
		:: k < NPROD -> assert(last[k] == ITEMS); k++
		:: else -> break
		od;
		assert(inring == 0);
		assert(queue[consumer_head] == 0)
	}
}

#if OBSERVER != 0
/*
 * A lockless __ptr_ring_empty() on a third thread, at any point of the run
 * (spin explores every placement). "empty" is the answer queue[h] == NULL.
 */
proctype Observer()
{
	byte h;
	byte s;

#if OBSERVER == 1
	/* Snapshot: head and slot in one step. The answer must agree with
	 * the ghost count at that instant. */
	d_step {
		h = consumer_head;
		s = queue[h];
#if CHECK == 1
		assert(s != 0 || inring <= 0)	/* "empty" => nothing unconsumed */
#else
		assert(s == 0 || inring > 0)	/* "non-empty" => something */
#endif
	}
#else
	/* Two loads, as the C code: pp_load_relaxed(&consumer_head), then
	 * pp_load_relaxed(&queue[h]). The answer is accepted if it was true
	 * at SOME instant between the two loads (linearisable). */
	d_step {
		h = consumer_head;
		obs_open = true;
		obs_saw_empty = (inring <= 0);
		obs_saw_nonempty = (inring > 0)
	};
	d_step {
		s = queue[h];
		obs_open = false;
#if CHECK == 1
		assert(s != 0 || obs_saw_empty)
#else
		assert(s == 0 || obs_saw_nonempty)
#endif
	}
#endif
}
#endif

init
{
	byte n;

	atomic {
		do
		:: n < NPROD -> run Producer(n); n++
		:: else -> break
		od;
		run Consumer();
#if OBSERVER != 0
		run Observer()
#else
		skip
#endif
	}
}
