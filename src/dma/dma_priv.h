/* SPDX-License-Identifier: MIT */
/*
 * Copyright (c) 2026 The pagepool authors
 *
 * Private: the device's state shared by the dispatch layer (dma.c) and
 * the DMA-API debugging and bounce layer (debug.c), and how the built-in
 * devices (the IOMMU model in iommu.c) are made on top of the dispatch
 * layer without going through the option checks of the public
 * pp_dma_dev_create_ops().
 */
#ifndef PAGEPOOL_DMA_PRIV_H
#define PAGEPOOL_DMA_PRIV_H

#include <pagepool/atomic_pvt.h>
#include <pagepool/dma.h>
#include <pagepool/spinlock_pvt.h>

#include <string.h>

#include "lib/tls_priv.h"

enum dma_counter {
#define DMA_COUNTER_ENUM(name) DMA_C_##name,
	PP_DMA_STATS_COUNTERS(DMA_COUNTER_ENUM)
#undef DMA_COUNTER_ENUM
	DMA_C_NR,
};

#define DMA_NAME_MAX 32

/*
 * Counter shards: each of the first DMA_SHARDS threads that count on any
 * device gets a shard of its own in every device, which only it writes
 * (a relaxed load and store, no read-modify-write: a locked add on the
 * RX path's device write and syncs waits for the frame's stores to drain
 * and cost more than the DMA work itself). Later threads add atomically
 * to the shared ctr[]. pp_dma_dev_get_stats() sums them. Shards are never
 * handed to another thread, so a long-lived program that keeps starting
 * threads ends up on the shared counters: slower, never wrong.
 */
#define DMA_SHARDS 32

struct dma_shard {
	uint64_t ctr[DMA_C_NR];
} PP_CACHELINE_ALIGNED;

struct dma_dbg;

/*
 * The library's state of a device, behind the public struct device's @p
 * (set by _pp_dma_dev_create(), NULL again after pp_dma_dev_destroy()). A
 * device the library allocates is @own, inside this; a device embedded in
 * the caller's struct only points here.
 */
struct pp_dma_core {
	/* Read-mostly: set at creation, read by every call. */
	struct pp_dma_ops ops;
	void *priv;
	unsigned int flags;
	/* 0 until pp_dma_dev_unbind(); R1/A1 in dma.c. */
	int unbound;
	/* Elects the one pp_dma_dev_unbind() that runs (before unbound). */
	int unbinding;
	/* Set once, by the first fault that prints the report. */
	int reported;
	char name[DMA_NAME_MAX];
	/* The mapping table of PP_DMA_F_DEBUG / PP_DMA_F_BOUNCE, else NULL. */
	struct dma_dbg *dbg;
	/* The plain identity device: its ops not wrapped by the debug or
	 * bounce layer, so a sync is a compiler barrier and a device access
	 * a copy (the fast paths below). Set at creation. */
	bool plain;

	/* Rare: the last-fault record, under @lock. */
	struct pp_spinlock lock PP_CACHELINE_ALIGNED;
	uint32_t last_fault_reason;
	uint64_t last_fault_addr;
	uint64_t last_fault_size;
	uint64_t last_fault_site;

	/* Relaxed statistics, written from every thread: the shared part
	 * (threads without a shard, and the max/unbind snapshots). live is
	 * signed: an unmap on another thread may count before its map did. */
	uint64_t ctr[DMA_C_NR] PP_CACHELINE_ALIGNED;
	int64_t live;

	/* Per-thread counters (see DMA_SHARDS). */
	struct dma_shard shard[DMA_SHARDS];

	/* The public struct of a device made by a create call (unused, zero,
	 * for one set up in the caller's struct by an init call). */
	struct device own PP_CACHELINE_ALIGNED;
};

/* A device the public calls accept: not NULL, and set up (create or init,
 * and not yet destroyed). */
static inline bool
dma_dev_ok(const struct device *dev)
{
	return dev != NULL && dev->p != NULL;
}

/* The calling thread's shard + 1, or 0 before its first count. */
extern __thread unsigned int _pp_dma_tls_shard PP_TLS_IE;

/* _pp_dma_shard_assign() - give the calling thread its shard number. */
unsigned int _pp_dma_shard_assign(void);

/* The calling thread's shard of @dev, or NULL: count in the shared part. */
static inline struct dma_shard *
dma_shard_of(struct device *dev)
{
	unsigned int s = _pp_dma_tls_shard;

	if (PP_UNLIKELY(s == 0))
		s = _pp_dma_shard_assign();
	return PP_LIKELY(s <= DMA_SHARDS) ? &dev->p->shard[s - 1] : NULL;
}

static inline void
dma_count_in(struct device *dev, struct dma_shard *sh, enum dma_counter c,
	     uint64_t n)
{
	if (PP_LIKELY(sh != NULL)) {
		uint64_t *v = &sh->ctr[c];

		/* This thread is the shard's only writer: relaxed load and
		 * store, read by pp_dma_dev_get_stats() (statistics only,
		 * pairs with nothing). */
		pp_store_relaxed(v, pp_load_relaxed(v) + n);
		return;
	}
	/* Statistics only: relaxed, pairs with nothing. */
	pp_fetch_add_relaxed(&dev->p->ctr[c], n);
}

static inline void
dma_count(struct device *dev, enum dma_counter c, uint64_t n)
{
	dma_count_in(dev, dma_shard_of(dev), c, n);
}

/* A call and its bytes, finding the shard once. */
static inline void
dma_count2(struct device *dev, enum dma_counter calls, enum dma_counter bytes,
	   uint64_t n)
{
	struct dma_shard *sh = dma_shard_of(dev);

	dma_count_in(dev, sh, calls, 1);
	dma_count_in(dev, sh, bytes, n);
}

/* pp_dma_dev_need_sync() of a device that is set up, inline. */
static inline bool
_pp_dma_need_sync(const struct device *dev)
{
	/* As the kernel with CONFIG_DMA_API_DEBUG: the debug checks see
	 * the syncs of a coherent device too. */
	return !(dev->p->flags & PP_DMA_F_COHERENT) ||
	       (dev->p->flags & PP_DMA_F_DEBUG);
}

static inline void
dma_count_sync(struct device *dev, bool for_cpu, size_t size)
{
	if (for_cpu)
		dma_count2(dev, DMA_C_syncs_for_cpu, DMA_C_bytes_synced_for_cpu,
			   size);
	else
		dma_count2(dev, DMA_C_syncs_for_device,
			   DMA_C_bytes_synced_for_device, size);
}

static inline bool
dma_is_unbound(const struct device *dev)
{
	/* A1: pairs with release R1 in pp_dma_dev_unbind(): a call that sees
	 * the device unbound also sees the op's unbind work. */
	return pp_load_acquire(&dev->p->unbound) != 0;
}

/*
 * Sync counts a thread holds back while a driver polls one device
 * (_pp_dma_count_hold() ... _pp_dma_count_flush()): the fast syncs of that
 * device add here, and the flush adds them to the device's counters once
 * per poll, as the driver stores its own RX counters. Between polls every
 * count is in the device's counters.
 */
struct dma_held {
	struct pp_dma_core *core;	/* NULL: nothing held */
	struct device *dev;
	/* @dev if it was the plain identity device and bound when the
	 * hold began, else NULL: its syncs then need no other check. */
	struct device *plain_dev;
	uint64_t syncs_for_cpu, bytes_for_cpu;
	uint64_t syncs_for_device, bytes_for_device;
};

extern __thread struct dma_held _pp_dma_held PP_TLS_IE;

/*
 * _pp_dma_count_hold() - hold back the calling thread's sync counts on
 * @dev (set up) until _pp_dma_count_flush(). Returns false, holding
 * nothing, if the thread already holds a device's: then no flush.
 */
static inline bool
_pp_dma_count_hold(struct device *dev)
{
	if (_pp_dma_held.core != NULL)
		return false;
	_pp_dma_held.dev = dev;
	_pp_dma_held.core = dev->p;
	if (dev->p->plain && !dma_is_unbound(dev))
		_pp_dma_held.plain_dev = dev;
	return true;
}

/* _pp_dma_count_flush() - count what _pp_dma_count_hold() held back. */
void _pp_dma_count_flush(void);

/* A sync's count: held back if the calling thread holds @dev's counts,
 * else counted at once. */
static inline void
dma_count_sync_held(struct device *dev, bool for_cpu, size_t size)
{
	if (_pp_dma_held.core != dev->p) {
		dma_count_sync(dev, for_cpu, size);
	} else if (for_cpu) {
		_pp_dma_held.syncs_for_cpu++;
		_pp_dma_held.bytes_for_cpu += size;
	} else {
		_pp_dma_held.syncs_for_device++;
		_pp_dma_held.bytes_for_device += size;
	}
}

/*
 * _pp_dma_sync_mapped() - pp_dma_sync_for_cpu() (@for_cpu) or
 * pp_dma_sync_for_device() of a range the caller knows lies inside a live
 * mapping it made itself on @dev (page_pool's pages: each was checked
 * when the pool mapped it, and the pool keeps every sync inside the
 * page's block). On the plain identity device that needs no argument
 * check: the sync is a compiler barrier, counted as any sync is, and a
 * device unbound since still faults (through the full call). Every other
 * device (IOMMU model, debug or bounce layer, custom ops) takes the full
 * call, with all its checks. What the kernel's dma_sync_single_*() cost
 * on a direct-mapped, coherent-cache machine: an inline test and nothing.
 */
/*
 * The leaf of _pp_dma_sync_mapped(): the sync done and true while the
 * calling thread holds back the counts of @dev (_pp_dma_count_hold()) and
 * @dev was the plain identity device, bound, when the hold began; false,
 * nothing done, otherwise. The device is checked once per hold, as a NIC
 * driver's poll samples its device's state once: an unbind from another
 * thread during a poll shows from the next poll on (unbinding a device
 * still in use is the caller's bug, see pp_dma_dev_unbind()). It calls
 * nothing, so a caller's fast path needs no stack frame for it.
 */
static inline bool
_pp_dma_sync_mapped_held(struct device *dev, size_t size, bool for_cpu)
{
	if (PP_LIKELY(_pp_dma_held.plain_dev == dev)) {
		pp_barrier();
		if (for_cpu) {
			_pp_dma_held.syncs_for_cpu++;
			_pp_dma_held.bytes_for_cpu += size;
		} else {
			_pp_dma_held.syncs_for_device++;
			_pp_dma_held.bytes_for_device += size;
		}
		return true;
	}
	return false;
}

/*
 * A poll's fast syncs tallied in the caller's locals (registers, not the
 * thread-local), for a driver whose poll found its device plain when the
 * hold began (_pp_dma_held_plain()): each sync is then a barrier and two
 * register adds; _pp_dma_sync_tally_add() adds the tally to the held
 * counts once, before the poll's flush. Counts stay exact.
 */
struct dma_sync_tally {
	uint64_t syncs_for_cpu, bytes_for_cpu;
	uint64_t syncs_for_device, bytes_for_device;
};

/* True while the calling thread holds back the counts of @dev and @dev
 * was the plain identity device, bound, when the hold began: until the
 * flush, its syncs of ranges the caller mapped itself need no check. */
static inline bool
_pp_dma_held_plain(const struct device *dev)
{
	return _pp_dma_held.plain_dev == dev;
}

/* A fast sync (the device _pp_dma_held_plain()) of @size bytes, tallied. */
static inline void
_pp_dma_sync_tally(struct dma_sync_tally *t, size_t size, bool for_cpu)
{
	pp_barrier();
	if (for_cpu) {
		t->syncs_for_cpu++;
		t->bytes_for_cpu += size;
	} else {
		t->syncs_for_device++;
		t->bytes_for_device += size;
	}
}

/* Add @t to the held counts; the caller still holds them. */
static inline void
_pp_dma_sync_tally_add(const struct dma_sync_tally *t)
{
	_pp_dma_held.syncs_for_cpu += t->syncs_for_cpu;
	_pp_dma_held.bytes_for_cpu += t->bytes_for_cpu;
	_pp_dma_held.syncs_for_device += t->syncs_for_device;
	_pp_dma_held.bytes_for_device += t->bytes_for_device;
}

static inline int
_pp_dma_sync_mapped(struct device *dev, dma_addr_t addr, size_t offset,
		    size_t size, enum dma_data_direction dir, bool for_cpu)
{
	if (PP_LIKELY(_pp_dma_sync_mapped_held(dev, size, for_cpu)))
		return 0;
	if (dev->p->plain && !dma_is_unbound(dev)) {
		pp_barrier();
		dma_count_sync_held(dev, for_cpu, size);
		return 0;
	}
	return for_cpu ? pp_dma_sync_for_cpu(dev, addr, offset, size, dir) :
			 pp_dma_sync_for_device(dev, addr, offset, size, dir);
}

/*
 * The identity device's copy into and out of memory (its DMA engine's
 * transfer): on x86-64 CPUs with fast short REP MOVSB (FSRM,
 * CPUID.(EAX=7,ECX=0):EDX[4]) one REP MOVSB, as the kernel's memcpy() is
 * on such CPUs; memcpy() elsewhere. Measured on XDP_DROP, whose wire
 * write was about a quarter of its time: every RX buffer's frame sits at
 * the same page offset, so the lines the ring cycles through share one
 * L1 set and are never there when written; libc's vector stores wait for
 * each line (one 64-byte store instead of its two gains nothing), the
 * string copy, likely writing whole lines without reading them first,
 * does not (docs/benchmarks.md). The IOMMU model's copy measured slower
 * with it and keeps memcpy(). Sanitizer builds, which see no access made
 * in inline assembly, and model checkers use memcpy().
 */
#if defined(PP_MODEL_CHECK)
#elif defined(__x86_64__) && !defined(__SANITIZE_ADDRESS__) &&                \
	!defined(__SANITIZE_THREAD__) && !defined(__has_feature)
#define PP_DMA_HAVE_MOVSB 1
#elif defined(__x86_64__) && defined(__has_feature)
#if !__has_feature(address_sanitizer) && !__has_feature(thread_sanitizer) && \
	!__has_feature(memory_sanitizer)
#define PP_DMA_HAVE_MOVSB 1
#endif
#endif

#ifdef PP_DMA_HAVE_MOVSB
/* 0: not probed yet, 1: memcpy(), 2: REP MOVSB (_pp_dma_copy_probe()). */
extern unsigned int _pp_dma_copy_kind;
unsigned int _pp_dma_copy_probe(void);
#endif

/* Whether _pp_dma_copy() may take REP MOVSB on this CPU. */
static inline bool
_pp_dma_copy_movsb(void)
{
#ifdef PP_DMA_HAVE_MOVSB
	/* Relaxed: every prober stores the same value; pairs with the
	 * relaxed store in _pp_dma_copy_probe(), no order needed. */
	unsigned int k = pp_load_relaxed(&_pp_dma_copy_kind);

	if (PP_UNLIKELY(k == 0))
		k = _pp_dma_copy_probe();
	return k == 2;
#else
	return false;
#endif
}

/* Copy @len bytes; @movsb: _pp_dma_copy_movsb(), sampled by the caller. */
static inline void
_pp_dma_copy(void *dst, const void *src, size_t len, bool movsb)
{
#ifdef PP_DMA_HAVE_MOVSB
	if (PP_LIKELY(movsb)) {
		unsigned char *d = dst;
		const unsigned char *s = src;
		size_t n = len;

		/* The bytes read and written as operands, not a "memory"
		 * clobber: the caller's loop keeps its registers. */
		__asm__ volatile("rep movsb"
				 : "+D"(d), "+S"(s), "+c"(n),
				   "=m"(*(unsigned char (*)[len])dst)
				 : "m"(*(const unsigned char (*)[len])src));
		return;
	}
#endif
	(void)movsb;
	memcpy(dst, src, len);
}

/*
 * A device's burst of writes into memory (a NIC's DMA engine filling the
 * RX buffers of one descriptor ring segment): _pp_dma_burst_begin()
 * checks the device once (set up, still bound, the plain identity
 * device), each _pp_dma_burst_write() then checks only its address, as
 * the identity device does, and copies; _pp_dma_burst_end() counts the
 * burst's writes and bytes at once. On any other device, or a device
 * unbound, each write is the full pp_dma_dev_write() (the IOMMU model
 * translates and checks every buffer; the debug layer checks ownership),
 * and counts itself. Context: one thread per burst.
 */
struct pp_dma_burst {
	struct device *dev;
	bool plain;
	bool movsb;		/* _pp_dma_copy_movsb() */
	uint64_t writes;
	uint64_t bytes;
};

static inline void
_pp_dma_burst_begin(struct pp_dma_burst *b, struct device *dev)
{
	b->dev = dev;
	b->plain = dma_dev_ok(dev) && dev->p->plain && !dma_is_unbound(dev);
	b->movsb = _pp_dma_copy_movsb();
	b->writes = 0;
	b->bytes = 0;
}

/* As identity_bad() in dma.c: what the identity device refuses. */
static inline bool
_pp_dma_identity_bad(dma_addr_t addr, size_t size)
{
#if UINTPTR_MAX < UINT64_MAX
	if (addr > UINTPTR_MAX)
		return true;
#endif
	return addr == 0 || addr == DMA_MAPPING_ERROR ||
	       size > UINTPTR_MAX - addr;
}

/* @src: @len bytes, @len not 0 (the device's own buffer, as for
 * pp_dma_dev_write(); the caller vouches for it). */
static inline int
_pp_dma_burst_write(struct pp_dma_burst *b, dma_addr_t addr, const void *src,
		    size_t len)
{
	if (PP_LIKELY(b->plain && !_pp_dma_identity_bad(addr, len))) {
		_pp_dma_copy((void *)(uintptr_t)addr, src, len, b->movsb);
		b->writes++;
		b->bytes += len;
		return 0;
	}
	/* Anything else, a bad address included: the full call, which
	 * faults (and counts the fault) as it would have. */
	return pp_dma_dev_write(b->dev, addr, src, len);
}

static inline void
_pp_dma_burst_end(struct pp_dma_burst *b)
{
	struct dma_shard *sh;

	if (b->writes == 0)
		return;
	sh = dma_shard_of(b->dev);
	dma_count_in(b->dev, sh, DMA_C_dev_writes, b->writes);
	dma_count_in(b->dev, sh, DMA_C_bytes_written, b->bytes);
}

/*
 * _pp_dma_dev_create() - set up a device around @ops (copied; trusted:
 * complete and of the current size) and @priv: in @dev, the caller's
 * struct (an init call), or, with @dev NULL, in one the library allocates
 * (a create call). @flags are PP_DMA_F_* (already checked); the name is
 * @name, else @dev's init_name, else @default_name.
 * Returns the device; NULL with errno EINVAL (@dev already set up: its @p
 * is not NULL) or ENOMEM, and @priv is then the caller's to free.
 */
struct device *_pp_dma_dev_create(struct device *dev,
				  const struct pp_dma_ops *ops, void *priv,
				  unsigned int flags, const char *name,
				  const char *default_name);

/* _pp_dma_init_ret() - an init call's return for @dev from
 * _pp_dma_dev_create(): 0, or the negative errno. */
static inline int
_pp_dma_init_ret(const struct device *dev)
{
	return dev != NULL ? 0 : -errno;
}

/*
 * _pp_dma_flags_valid() - @flags are known PP_DMA_F_* bits in a
 * combination the device accepts: POISON needs BOUNCE, BOUNCE excludes
 * COHERENT, and only devices whose map op takes any address (@bounce_ok:
 * identity, IOMMU) may bounce.
 */
bool _pp_dma_flags_valid(unsigned int flags, bool bounce_ok);

/*
 * _pp_dma_report() - record and report a fault found at @addr for @size
 * bytes of the mapping made at @site (0: unknown). @debug: found by the
 * PP_DMA_F_DEBUG checks. Counts, reports once per device, aborts if
 * PP_DMA_F_FATAL. Returns -EFAULT with errno set. Holds no lock on entry.
 */
int _pp_dma_report(struct device *dev, dma_addr_t addr, size_t size,
		   uintptr_t site, enum pp_dma_fault_reason reason,
		   bool debug);

/* _pp_dma_site_str() - "@site (object+offset, symbol+offset)" into @buf. */
void _pp_dma_site_str(uintptr_t site, char *buf, size_t len);

/*
 * The debug and bounce layer (debug.c). _pp_dma_dbg_init() sets dev->dbg
 * and replaces the unmap, sync and access ops with checking wrappers
 * around the device's own; map goes through _pp_dma_dbg_map() when
 * dev->dbg is set.
 */
int _pp_dma_dbg_init(struct device *dev);
void _pp_dma_dbg_destroy(struct device *dev);
dma_addr_t _pp_dma_dbg_map(struct device *dev, void *vaddr, size_t size,
			   enum dma_data_direction dir, unsigned long attrs,
			   uintptr_t site);

#endif /* PAGEPOOL_DMA_PRIV_H */
