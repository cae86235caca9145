/* SPDX-License-Identifier: MIT */
/*
 * Copyright (c) 2026 The pagepool authors
 *
 * DOC: ptr_ring — the kernel's bounded ring of pointers, in userspace
 *
 * A fixed-size array of `void *` slots in which NULL means "free". The
 * producer owns `producer`, the consumer owns `consumer_head` and
 * `consumer_tail`, and the two meet only in the slots themselves: a producer
 * may write a slot once it reads NULL there, a consumer may take a slot once
 * it reads non-NULL. Neither side ever reads the other's index, so in the
 * single-producer/single-consumer case the only shared cache lines are the
 * slots being handed over.
 *
 * The consumer does not clear each slot as it takes it. It clears them in
 * batches of two cache lines' worth of pointers (tail zeroing), so the
 * producer, which spins on the slot it wants next, sees a whole line freed at
 * once instead of fighting the consumer for it slot by slot. Two consequences
 * callers must know (both are the kernel's):
 *
 *  - up to batch - 1 consumed entries still occupy slots, so a producer can
 *    see "full" while the consumer has already taken entries;
 *  - the lockless __ptr_ring_empty() may answer wrongly while a consume is in
 *    progress on another thread. Which way it errs depends on the zeroing
 *    order (below); see ptr_ring(7) and docs/ptr_ring-model.md.
 *
 * Zeroing order. Mainline Linux clears the batch and then advances
 * consumer_head, which opens a window in which the slot at consumer_head is
 * already NULL although later slots hold entries: a lockless empty check in
 * that window says "empty" on a non-empty ring. Yunsheng Lin's 2021 patch
 * ("ptr_ring: move r->queue[] clearing after r->consumer_head updating",
 * seed 002) advances the head first and clears afterwards. That closes the
 * window for a reader that sees head and slot together, and drops a branch
 * from the common path; a reader whose two loads (head, then slot) straddle
 * the consume can still see a stale NULL, so the order narrows the window
 * rather than removing it (the spin model shows both). The patch was not
 * merged; pagepool carries both orders so they can be measured side by side:
 *
 *  - PTR_RING_ZEROING (compile time, default PTR_RING_ZERO_MAINLINE) picks
 *    the order used by __ptr_ring_consume() and everything built on it;
 *  - the _variant() forms take the order as a constant argument, so one
 *    binary can run both (ptr_ring_test --variant).
 *
 * Concurrency. One producer and one consumer may run concurrently without
 * locks using the __ forms. Several producers serialise on producer_lock
 * (ptr_ring_produce()), several consumers on consumer_lock
 * (ptr_ring_consume()). page_pool is the multi-producer/single-consumer case:
 * producers lock, the one consumer uses __ptr_ring_consume(). Resize and
 * unconsume take both locks, consumer first, so no lockless caller may run
 * concurrently with them. The _bh, _irq and _any forms are the kernel's
 * names for the same locked operations; userspace has no interrupt context,
 * so they are aliases kept for source compatibility.
 *
 * NULL cannot be stored: producing NULL returns -EINVAL.
 */
#ifndef PAGEPOOL_PTR_RING_H
#define PAGEPOOL_PTR_RING_H

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>

#include <pagepool/kcompat.h>
#include <pagepool/atomic_pvt.h>
#include <pagepool/spinlock_pvt.h>

#ifdef __cplusplus
extern "C" {
#endif

/**
 * enum ptr_ring_zeroing - order of tail zeroing and consumer_head update
 * @PTR_RING_ZERO_MAINLINE: clear the consumed batch, then move the head
 *	(Linux as merged).
 * @PTR_RING_ZERO_HEAD_FIRST: move the head, then clear the batch (seed 002).
 */
enum ptr_ring_zeroing {
	PTR_RING_ZERO_MAINLINE = 0,
	PTR_RING_ZERO_HEAD_FIRST = 1,
};

#ifndef PTR_RING_ZEROING
#define PTR_RING_ZEROING PTR_RING_ZERO_MAINLINE
#endif

/**
 * struct ptr_ring - the ring. ABI: inline functions access its fields.
 *
 * Three cache lines, as in the kernel: what the producer writes, what the
 * consumer writes, and what both only read. Fields are the kernel's.
 */
struct ptr_ring {
	/* Producer side: written only under producer_lock (or by the one
	 * lockless producer). */
	int producer PP_CACHELINE_ALIGNED;
	struct pp_spinlock producer_lock;

	/* Consumer side: next slot to take, first slot not yet zeroed. */
	int consumer_head PP_CACHELINE_ALIGNED;
	int consumer_tail;
	struct pp_spinlock consumer_lock;

	/* Read-mostly: changed only by init and resize, under both locks. */
	int size PP_CACHELINE_ALIGNED;
	int batch;
	void **queue;
};

PP_STATIC_ASSERT(offsetof(struct ptr_ring, producer) % PP_CACHELINE_SIZE == 0,
	       "producer group must start a cache line");
PP_STATIC_ASSERT(offsetof(struct ptr_ring, consumer_head) % PP_CACHELINE_SIZE ==
		       0,
	       "consumer group must start a cache line");
PP_STATIC_ASSERT(offsetof(struct ptr_ring, size) % PP_CACHELINE_SIZE == 0,
	       "read-mostly group must start a cache line");

/* Largest ring: indices are int and head - tail must not overflow. */
#define PTR_RING_SIZE_MAX ((int)(0x7fffffff / sizeof(void *)))

/*
 * ---- Full -------------------------------------------------------------
 */

/**
 * __ptr_ring_full() - is the next producer slot still occupied?
 * @r: the ring
 *
 * Context: the producer (caller holds producer_lock, or is the only
 * producer). The answer can be stale by the time it is used if a consumer
 * runs concurrently, but only in the safe direction: a slot seen free stays
 * free until this producer fills it.
 *
 * Return: true if a produce would fail with -ENOSPC; a ring of size 0 is
 * always full.
 */
static inline bool
__ptr_ring_full(struct ptr_ring *r)
{
	if (PP_UNLIKELY(r->size == 0))
		return true;
	return pp_load_relaxed(&r->queue[r->producer]) != NULL;
}

/**
 * ptr_ring_full() - __ptr_ring_full() under producer_lock.
 * @r: the ring
 *
 * Context: any thread.
 */
static inline bool
ptr_ring_full(struct ptr_ring *r)
{
	bool ret;

	pp_spin_lock(&r->producer_lock);
	ret = __ptr_ring_full(r);
	pp_spin_unlock(&r->producer_lock);
	return ret;
}

/** ptr_ring_full_irq() - alias of ptr_ring_full() (kernel name). */
static inline bool
ptr_ring_full_irq(struct ptr_ring *r)
{
	return ptr_ring_full(r);
}

/** ptr_ring_full_any() - alias of ptr_ring_full() (kernel name). */
static inline bool
ptr_ring_full_any(struct ptr_ring *r)
{
	return ptr_ring_full(r);
}

/** ptr_ring_full_bh() - alias of ptr_ring_full() (kernel name). */
static inline bool
ptr_ring_full_bh(struct ptr_ring *r)
{
	return ptr_ring_full(r);
}

/*
 * ---- Produce ----------------------------------------------------------
 */

/**
 * __ptr_ring_produce() - store @ptr in the next slot.
 * @r: the ring
 * @ptr: a non-NULL pointer
 *
 * Context: the producer (caller holds producer_lock, or is the only
 * producer); may run concurrently with one consumer.
 *
 * Return: 0; -ENOSPC if the ring is full (or has size 0); -EINVAL if @ptr is
 * NULL (NULL marks a free slot and cannot be stored).
 */
static inline int
__ptr_ring_produce(struct ptr_ring *r, void *ptr)
{
	int producer = r->producer;

	if (PP_UNLIKELY(ptr == NULL))
		return -EINVAL;
	if (PP_UNLIKELY(__ptr_ring_full(r)))
		return -ENOSPC;
	/*
	 * R1: pairs with acquire A1 in __ptr_ring_peek(): whoever sees the
	 * pointer also sees everything written to the object before it was
	 * produced (the kernel's smp_wmb() + WRITE_ONCE()). Needed: relaxed,
	 * tests/genmc/ptr_ring_spsc.c finds a race on the payload.
	 */
	pp_store_release(&r->queue[producer], ptr);
	if (PP_UNLIKELY(++producer >= r->size))
		producer = 0;
	r->producer = producer;
	return 0;
}

/**
 * ptr_ring_produce() - __ptr_ring_produce() under producer_lock.
 * @r: the ring
 * @ptr: a non-NULL pointer
 *
 * Context: any thread; any number of concurrent producers.
 * Return: as __ptr_ring_produce().
 */
static inline int
ptr_ring_produce(struct ptr_ring *r, void *ptr)
{
	int ret;

	pp_spin_lock(&r->producer_lock);
	ret = __ptr_ring_produce(r, ptr);
	pp_spin_unlock(&r->producer_lock);
	return ret;
}

/** ptr_ring_produce_irq() - alias of ptr_ring_produce() (kernel name). */
static inline int
ptr_ring_produce_irq(struct ptr_ring *r, void *ptr)
{
	return ptr_ring_produce(r, ptr);
}

/** ptr_ring_produce_any() - alias of ptr_ring_produce() (kernel name). */
static inline int
ptr_ring_produce_any(struct ptr_ring *r, void *ptr)
{
	return ptr_ring_produce(r, ptr);
}

/** ptr_ring_produce_bh() - alias of ptr_ring_produce() (kernel name). */
static inline int
ptr_ring_produce_bh(struct ptr_ring *r, void *ptr)
{
	return ptr_ring_produce(r, ptr);
}

/**
 * __ptr_ring_produce_batched() - store up to @n pointers, in order.
 * @r: the ring
 * @array: the pointers; none may be NULL
 * @n: how many
 *
 * pagepool's extension (the kernel has only the consume side batched).
 * Stops at the first full slot or the first NULL entry. Each run of free
 * slots (up to the end of the array) is filled from its end back to its
 * start, so the consumer finds a run whole (peers' burst row: 3.23 ->
 * 3.07 ns an item against rte_ring's burst, docs/benchmarks.md).
 *
 * Context: as __ptr_ring_produce().
 * Return: the number stored, 0..@n (a bulk call returns the count done).
 */
static inline int
__ptr_ring_produce_batched(struct ptr_ring *r, void **array, int n)
{
	int size = r->size, producer = r->producer, i = 0;
	void **queue = r->queue;

	/* The slots of n single produces, with the index kept in a register
	 * and stored once (only the producer reads it), in runs that stop at
	 * the end of the array, so the wrap is tested once per run. */
	while (i < n && size > 0) {
		/* The run's slots and entries through their own pointers, one
		 * index for both, a long so that it indexes with no sign
		 * extension: gcc keeps one counter per loop this way (three
		 * before, and two copies of it for the exits). */
		void **slot = &queue[producer], **src = &array[i];
		long len = size - producer, run, k;

		if (len > n - i)
			len = n - i;
		/* The run of free slots (and non-NULL entries) first ... */
		for (run = 0; run < len; run++)
			if (PP_UNLIKELY(src[run] == NULL ||
					pp_load_relaxed(&slot[run]) != NULL))
				break;
		/* ... then filled from its end back to its start, so that a
		 * consumer polling the first slot finds the whole run at once
		 * instead of chasing the producer through its cache lines. */
		for (k = run; k-- > 0;)
			/* R1: pairs with acquire A1 in __ptr_ring_peek() and
			 * __ptr_ring_consume_batched(), as in
			 * __ptr_ring_produce(). Needed: relaxed,
			 * tests/genmc/ptr_ring_batched.c finds the payload
			 * race. */
			pp_store_release(&slot[k], src[k]);
		producer += (int)run;
		i += (int)run;
		if (run < len)
			break;
		if (producer >= size)
			producer = 0;
	}
	r->producer = producer;
	return i;
}

/**
 * ptr_ring_produce_batched() - __ptr_ring_produce_batched() under
 * producer_lock, held once for the whole batch.
 * @r: the ring
 * @array: the pointers
 * @n: how many
 *
 * Context: any thread.
 * Return: the number stored.
 */
static inline int
ptr_ring_produce_batched(struct ptr_ring *r, void **array, int n)
{
	int ret;

	pp_spin_lock(&r->producer_lock);
	ret = __ptr_ring_produce_batched(r, array, n);
	pp_spin_unlock(&r->producer_lock);
	return ret;
}

/*
 * ---- Peek and empty ---------------------------------------------------
 */

/**
 * __ptr_ring_peek() - the entry the next consume would return.
 * @r: the ring
 *
 * Context: the consumer (caller holds consumer_lock, or is the only
 * consumer).
 * Return: the entry, or NULL if the ring is empty (or has size 0).
 */
static inline void *
__ptr_ring_peek(struct ptr_ring *r)
{
	if (PP_UNLIKELY(r->size == 0))
		return NULL;
	/* A1: pairs with release R1 in __ptr_ring_produce(). Needed:
	 * relaxed, tests/genmc/ptr_ring_spsc.c finds a payload race. */
	return pp_load_acquire(&r->queue[r->consumer_head]);
}

/**
 * __ptr_ring_empty() - lockless emptiness test.
 * @r: the ring
 *
 * Context: any thread, without locks, with these rules (the kernel's):
 *  - never while the ring may be resized;
 *  - if another thread consumes concurrently the answer may be wrong: it
 *    may say "empty" for a non-empty ring, in both zeroing orders (with
 *    the mainline order even when head and slot are read together). A
 *    caller that needs a reliable "empty" must
 *    either drain the ring itself or synchronise with the consumer and test
 *    again afterwards;
 *  - a caller looping on it must relax the CPU (a pause) between tests.
 *
 * Return: true if the slot at consumer_head is free.
 */
static inline bool
__ptr_ring_empty(struct ptr_ring *r)
{
	if (PP_UNLIKELY(r->size == 0))
		return true;
	/* Pairs with the relaxed head stores in __ptr_ring_discard_one()
	 * (the kernel's READ_ONCE/WRITE_ONCE pair): the index is read once,
	 * and is always a valid slot. */
	return pp_load_relaxed(
		       &r->queue[pp_load_relaxed(&r->consumer_head)]) == NULL;
}

/**
 * ptr_ring_empty() - __ptr_ring_empty() under consumer_lock: exact with
 * respect to other consumers.
 * @r: the ring
 *
 * Context: any thread.
 */
static inline bool
ptr_ring_empty(struct ptr_ring *r)
{
	bool ret;

	pp_spin_lock(&r->consumer_lock);
	ret = __ptr_ring_empty(r);
	pp_spin_unlock(&r->consumer_lock);
	return ret;
}

/** ptr_ring_empty_irq() - alias of ptr_ring_empty() (kernel name). */
static inline bool
ptr_ring_empty_irq(struct ptr_ring *r)
{
	return ptr_ring_empty(r);
}

/** ptr_ring_empty_any() - alias of ptr_ring_empty() (kernel name). */
static inline bool
ptr_ring_empty_any(struct ptr_ring *r)
{
	return ptr_ring_empty(r);
}

/** ptr_ring_empty_bh() - alias of ptr_ring_empty() (kernel name). */
static inline bool
ptr_ring_empty_bh(struct ptr_ring *r)
{
	return ptr_ring_empty(r);
}

/*
 * ---- Consume ----------------------------------------------------------
 */

/**
 * __ptr_ring_zero_tail() - free the consumed slots [consumer_tail,
 * @consumer_head) and make @consumer_head the new tail.
 * @r: the ring
 * @consumer_head: one past the last consumed slot (at most r->size)
 *
 * Slots are cleared from the highest down: the producer spins on the lowest
 * of them, so it sees nothing until the whole batch is free and does not
 * pull the line back while the consumer is still writing it.
 *
 * Context: the consumer.
 */
static inline void
__ptr_ring_zero_tail(struct ptr_ring *r, int consumer_head)
{
	int head = consumer_head, tail = r->consumer_tail;
	void **queue = r->queue;

	/* Relaxed: the producer only tests for NULL; it takes nothing from
	 * the consumer but the free slot itself. (The bounds are in locals:
	 * the compiler cannot tell that the slot stores leave them alone.) */
	while (PP_LIKELY(head > tail))
		pp_store_relaxed(&queue[--head], NULL);
	r->consumer_tail = consumer_head;
}

/**
 * __ptr_ring_advance_variant() - publish @consumer_head, one past the last
 * entry consumed, zeroing the consumed slots when a batch is due, with the
 * zeroing order @order (a compile-time constant in every caller).
 * @r: the ring
 * @consumer_head: the new head, consumer_head + 1 .. r->size (the slots
 *	between the old head and it were all read)
 * @order: PTR_RING_ZERO_MAINLINE or PTR_RING_ZERO_HEAD_FIRST
 *
 * One entry (__ptr_ring_discard_one()) or a whole batch read in one pass
 * (__ptr_ring_consume_batched()) retire the same way: the slots are freed
 * once at least r->batch of them are consumed, or at the end of the array.
 *
 * Context: the consumer.
 */
static PP_ALWAYS_INLINE void
__ptr_ring_advance_variant(struct ptr_ring *r, int consumer_head,
			   enum ptr_ring_zeroing order)
{
	if (order == PTR_RING_ZERO_MAINLINE) {
		/* Linux as merged: zero, then wrap, then publish the head.
		 * Between the zeroing and the head store the slot at the old
		 * head is NULL: the false "empty" window of seed 002. */
		if (PP_UNLIKELY(consumer_head - r->consumer_tail >= r->batch ||
				consumer_head >= r->size))
			__ptr_ring_zero_tail(r, consumer_head);
		if (PP_UNLIKELY(consumer_head >= r->size)) {
			consumer_head = 0;
			r->consumer_tail = 0;
		}
		/* Pairs with the relaxed head load in __ptr_ring_empty(). */
		pp_store_relaxed(&r->consumer_head, consumer_head);
		return;
	}

	/* Seed 002: publish the head first, so the slot at the new head is
	 * never one being cleared (for size >= 2; a reader still holding the
	 * old head can see it cleared), and the common case costs one
	 * branch. */
	if (PP_UNLIKELY(consumer_head - r->consumer_tail >= r->batch ||
			consumer_head >= r->size)) {
		int zero_end = consumer_head;

		if (consumer_head >= r->size)
			consumer_head = 0;
		/* Pairs with the relaxed head load in __ptr_ring_empty(). */
		pp_store_relaxed(&r->consumer_head, consumer_head);
		__ptr_ring_zero_tail(r, zero_end);
		r->consumer_tail = consumer_head;
		return;
	}
	pp_store_relaxed(&r->consumer_head, consumer_head);
}

/**
 * __ptr_ring_discard_one_variant() - advance past the entry just peeked,
 * with the zeroing order @order (a compile-time constant in every caller).
 * @r: the ring
 * @order: PTR_RING_ZERO_MAINLINE or PTR_RING_ZERO_HEAD_FIRST
 *
 * Context: the consumer, after a successful __ptr_ring_peek().
 */
static PP_ALWAYS_INLINE void
__ptr_ring_discard_one_variant(struct ptr_ring *r, enum ptr_ring_zeroing order)
{
	__ptr_ring_advance_variant(r, r->consumer_head + 1, order);
}

/**
 * __ptr_ring_discard_one() - advance past the entry just peeked.
 * @r: the ring
 *
 * Uses the build's zeroing order (PTR_RING_ZEROING).
 * Context: the consumer, after a successful __ptr_ring_peek().
 */
static inline void
__ptr_ring_discard_one(struct ptr_ring *r)
{
	__ptr_ring_discard_one_variant(r, (enum ptr_ring_zeroing)PTR_RING_ZEROING);
}

/**
 * __ptr_ring_consume_variant() - take the next entry, with zeroing order
 * @order (a compile-time constant).
 * @r: the ring
 * @order: the zeroing order
 *
 * Context: the consumer.
 * Return: the entry, or NULL if the ring is empty.
 */
static PP_ALWAYS_INLINE void *
__ptr_ring_consume_variant(struct ptr_ring *r, enum ptr_ring_zeroing order)
{
	void *ptr = __ptr_ring_peek(r);

	if (PP_LIKELY(ptr != NULL))
		__ptr_ring_discard_one_variant(r, order);
	return ptr;
}

/**
 * __ptr_ring_consume() - take the next entry.
 * @r: the ring
 *
 * Context: the consumer (caller holds consumer_lock, or is the only
 * consumer); may run concurrently with one producer.
 * Return: the entry, or NULL if the ring is empty.
 */
static inline void *
__ptr_ring_consume(struct ptr_ring *r)
{
	return __ptr_ring_consume_variant(
		r, (enum ptr_ring_zeroing)PTR_RING_ZEROING);
}

/**
 * __ptr_ring_consume_batched_variant() - take up to @n entries with zeroing
 * order @order.
 * @r: the ring
 * @array: receives the entries, oldest first
 * @n: capacity of @array
 * @order: the zeroing order (a compile-time constant)
 *
 * Context: the consumer.
 * Return: the number taken, 0..@n.
 */
static PP_ALWAYS_INLINE int
__ptr_ring_consume_batched_variant(struct ptr_ring *r, void **array, int n,
				   enum ptr_ring_zeroing order)
{
	int size = r->size, head, got = 0;
	void **queue = r->queue;

	if (PP_UNLIKELY(size == 0))
		return 0;
	head = r->consumer_head;
	/*
	 * The same entries, the same order and the same retirement as n
	 * single consumes, in two passes: read the run of filled slots up
	 * to the end of the array, then publish the head and zero the
	 * batch once (__ptr_ring_advance_variant()) rather than once per
	 * entry. A run that reaches the end of the array wraps and goes on
	 * from slot 0.
	 */
	while (got < n) {
		/* Slots and entries through their own pointers, one index
		 * for both (as in __ptr_ring_produce_batched()). */
		void **slot = &queue[head], **dst = &array[got];
		long len = size - head, k;

		if (len > n - got)
			len = n - got;
		for (k = 0; k < len; k++) {
			/* A1: pairs with release R1 in __ptr_ring_produce()
			 * and __ptr_ring_produce_batched(), as in
			 * __ptr_ring_peek(); tests/genmc/ptr_ring_batched.c
			 * finds the payload race without it. */
			void *ptr = pp_load_acquire(&slot[k]);

			if (ptr == NULL)
				break;
			dst[k] = ptr;
		}
		if (k == 0)
			break;
		head += (int)k;
		got += (int)k;
		__ptr_ring_advance_variant(r, head, order);
		if (head < size)
			break;
		head = 0;
	}
	return got;
}

/**
 * __ptr_ring_consume_batched() - take up to @n entries.
 * @r: the ring
 * @array: receives the entries, oldest first
 * @n: capacity of @array
 *
 * Context: the consumer.
 * Return: the number taken, 0..@n.
 */
static inline int
__ptr_ring_consume_batched(struct ptr_ring *r, void **array, int n)
{
	return __ptr_ring_consume_batched_variant(
		r, array, n, (enum ptr_ring_zeroing)PTR_RING_ZEROING);
}

/**
 * ptr_ring_consume() - __ptr_ring_consume() under consumer_lock.
 * @r: the ring
 *
 * Context: any thread; any number of concurrent consumers.
 * Return: the entry, or NULL if the ring is empty.
 */
static inline void *
ptr_ring_consume(struct ptr_ring *r)
{
	void *ptr;

	pp_spin_lock(&r->consumer_lock);
	ptr = __ptr_ring_consume(r);
	pp_spin_unlock(&r->consumer_lock);
	return ptr;
}

/** ptr_ring_consume_irq() - alias of ptr_ring_consume() (kernel name). */
static inline void *
ptr_ring_consume_irq(struct ptr_ring *r)
{
	return ptr_ring_consume(r);
}

/** ptr_ring_consume_any() - alias of ptr_ring_consume() (kernel name). */
static inline void *
ptr_ring_consume_any(struct ptr_ring *r)
{
	return ptr_ring_consume(r);
}

/** ptr_ring_consume_bh() - alias of ptr_ring_consume() (kernel name). */
static inline void *
ptr_ring_consume_bh(struct ptr_ring *r)
{
	return ptr_ring_consume(r);
}

/**
 * ptr_ring_consume_batched() - __ptr_ring_consume_batched() under
 * consumer_lock, held once for the batch.
 * @r: the ring
 * @array: receives the entries
 * @n: capacity of @array
 *
 * Context: any thread.
 * Return: the number taken.
 */
static inline int
ptr_ring_consume_batched(struct ptr_ring *r, void **array, int n)
{
	int ret;

	pp_spin_lock(&r->consumer_lock);
	ret = __ptr_ring_consume_batched(r, array, n);
	pp_spin_unlock(&r->consumer_lock);
	return ret;
}

/** ptr_ring_consume_batched_irq() - alias (kernel name). */
static inline int
ptr_ring_consume_batched_irq(struct ptr_ring *r, void **array, int n)
{
	return ptr_ring_consume_batched(r, array, n);
}

/** ptr_ring_consume_batched_any() - alias (kernel name). */
static inline int
ptr_ring_consume_batched_any(struct ptr_ring *r, void **array, int n)
{
	return ptr_ring_consume_batched(r, array, n);
}

/** ptr_ring_consume_batched_bh() - alias (kernel name). */
static inline int
ptr_ring_consume_batched_bh(struct ptr_ring *r, void **array, int n)
{
	return ptr_ring_consume_batched(r, array, n);
}

/*
 * ---- Peek with a callback ---------------------------------------------
 *
 * The kernel's macros: call f on the entry at the head (NULL if empty)
 * without consuming it, so the caller can inspect it (its length, say)
 * under the consumer lock. f must not block and must accept NULL.
 */
#define __PTR_RING_PEEK_CALL(r, f) ((f)(__ptr_ring_peek(r)))

#define PTR_RING_PEEK_CALL(r, f)                                            \
	__extension__({                                                     \
		__typeof__((f)(NULL)) __pp_peek_ret;                        \
		pp_spin_lock(&(r)->consumer_lock);                          \
		__pp_peek_ret = __PTR_RING_PEEK_CALL(r, f);                 \
		pp_spin_unlock(&(r)->consumer_lock);                        \
		__pp_peek_ret;                                              \
	})

#define PTR_RING_PEEK_CALL_IRQ(r, f) PTR_RING_PEEK_CALL(r, f)
#define PTR_RING_PEEK_CALL_BH(r, f)  PTR_RING_PEEK_CALL(r, f)
#define PTR_RING_PEEK_CALL_ANY(r, f) PTR_RING_PEEK_CALL(r, f)

/*
 * ---- Set-up, resize, unconsume, cleanup (out of line: src/lib/ptr_ring.c) --
 */

/**
 * __ptr_ring_set_size() - set size and the tail-zeroing batch.
 * @r: the ring
 * @size: the new size
 *
 * The batch is two cache lines of pointers (16 on 64-bit), reduced to 1
 * when that would exceed half the ring: zeroing most of a small ring at once
 * would make the producer bursty.
 *
 * Context: init or resize only (both locks held, or no other user).
 */
static inline void
__ptr_ring_set_size(struct ptr_ring *r, int size)
{
	r->size = size;
	r->batch = SMP_CACHE_BYTES * 2 / (int)sizeof(*(r->queue));
	if (r->batch > r->size / 2 || r->batch == 0)
		r->batch = 1;
}

/**
 * __ptr_ring_init_queue_alloc() - allocate a zeroed, cache-aligned queue.
 * @size: entries (0..PTR_RING_SIZE_MAX)
 * @gfp: allocation flags (accepted for source compatibility)
 *
 * Return: the queue, or NULL (errno ENOMEM; EINVAL for a negative @size).
 * Free it with __ptr_ring_free_queue().
 */
PP_API void **__ptr_ring_init_queue_alloc(int size, gfp_t gfp);

/**
 * __ptr_ring_free_queue() - free a queue from __ptr_ring_init_queue_alloc().
 * @queue: the queue, or NULL
 */
PP_API void __ptr_ring_free_queue(void **queue);

/**
 * ptr_ring_init() - initialise a ring of @size slots.
 * @r: the ring (caller-owned; the type is 64-byte aligned, so heap
 *	memory must come from aligned_alloc() or posix_memalign())
 * @size: number of slots, 0..PTR_RING_SIZE_MAX. A ring of size 0 is valid
 *	and always both empty and full, as in the kernel.
 * @gfp: allocation flags (accepted for source compatibility)
 *
 * Context: before any other use of @r.
 * Return: 0; -EINVAL if @r is NULL or @size negative; -ENOMEM if the queue
 * cannot be allocated or @size exceeds PTR_RING_SIZE_MAX. On error @r is
 * left untouched.
 */
PP_API int ptr_ring_init(struct ptr_ring *r, int size, gfp_t gfp);

/**
 * ptr_ring_resize() - change the number of slots, keeping the entries.
 * @r: the ring
 * @size: the new size (0..PTR_RING_SIZE_MAX)
 * @gfp: allocation flags
 * @destroy: called on each entry that does not fit (the newest ones); may
 *	be NULL, in which case those entries are dropped.
 *
 * The oldest min(count, @size) entries are kept in order; the ring restarts
 * with them at slot 0. The new queue is allocated before any lock is taken
 * and the old one freed after both are dropped; @destroy runs under both
 * locks and must not touch the ring.
 *
 * Context: any thread; takes consumer_lock, then producer_lock. No lockless
 * (__) caller may run concurrently.
 * Return: 0; -EINVAL for bad arguments; -ENOMEM (ring unchanged).
 */
PP_API int ptr_ring_resize(struct ptr_ring *r, int size, gfp_t gfp,
			   void (*destroy)(void *));

/**
 * ptr_ring_resize_multiple() - resize @nrings rings to @size, all or none.
 * @rings: the rings
 * @nrings: how many
 * @size: the new size
 * @gfp: allocation flags
 * @destroy: as for ptr_ring_resize()
 *
 * Every new queue is allocated first; if any allocation fails nothing
 * changes.
 *
 * Context: as ptr_ring_resize(), for each ring in turn.
 * Return: 0; -EINVAL for bad arguments; -ENOMEM (all rings unchanged).
 */
PP_API int ptr_ring_resize_multiple(struct ptr_ring **rings,
				    unsigned int nrings, int size, gfp_t gfp,
				    void (*destroy)(void *));

/**
 * ptr_ring_resize_multiple_bh() - the kernel's current name for
 * ptr_ring_resize_multiple().
 */
PP_API int ptr_ring_resize_multiple_bh(struct ptr_ring **rings,
				       unsigned int nrings, int size,
				       gfp_t gfp, void (*destroy)(void *));

/**
 * ptr_ring_unconsume() - give back entries just consumed, ahead of the rest.
 * @r: the ring
 * @batch: entries in the order they were consumed
 * @n: how many
 * @destroy: called on each entry that no longer fits; may be NULL to drop
 *	them.
 *
 * The zeroing batch is flushed first, then consumer_head walks backwards,
 * storing @batch from its last entry, until it meets an occupied slot (the
 * ring is full): the newest entries of @batch go back, the earliest are
 * destroyed, as in the kernel. NULL entries are skipped. A rare slow path.
 *
 * Context: any thread; takes consumer_lock, then producer_lock.
 */
PP_API void ptr_ring_unconsume(struct ptr_ring *r, void **batch, int n,
			       void (*destroy)(void *));

/**
 * ptr_ring_cleanup() - destroy every remaining entry and free the queue.
 * @r: the ring
 * @destroy: called once per remaining entry, oldest first; may be NULL.
 *
 * Afterwards @r is a ring of size 0 (safe to clean up again or to
 * initialise anew).
 *
 * Context: no other user of @r.
 */
PP_API void ptr_ring_cleanup(struct ptr_ring *r, void (*destroy)(void *));

/* The kernel's allocation-profiling names resolve to the same functions. */
#define ptr_ring_init_noprof ptr_ring_init
#define ptr_ring_resize_noprof ptr_ring_resize
#define ptr_ring_resize_multiple_bh_noprof ptr_ring_resize_multiple_bh
#define __ptr_ring_init_queue_alloc_noprof __ptr_ring_init_queue_alloc

#ifdef __cplusplus
}
#endif

#endif /* PAGEPOOL_PTR_RING_H */
