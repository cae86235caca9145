/* SPDX-License-Identifier: MIT */
/*
 * Copyright (c) 2026 The pagepool authors
 *
 * The DMA dispatch layer and the identity device.
 *
 * Every public DMA call lands here first: arguments are checked (a bad one
 * is -EINVAL and changes nothing), a device that was unbound turns the call
 * into a fault (or ENODEV for map), the device's op runs, and only then is
 * the call counted. Keeping validation, the unbound rule and the counters
 * in one place is what lets the IOMMU model and custom devices (an AF_XDP
 * UMEM) be nothing but address translation, and lets page_pool tests count
 * maps and syncs the same way on any device.
 *
 * Counters are relaxed atomics on their own cache lines: they order
 * nothing, and map/sync sit on page_pool's refill and recycle paths, where
 * a lock would cost more than the work being counted. Each thread counts
 * in its own shard (dma_priv.h), so the RX path's device write and syncs
 * take no locked instruction at all.
 *
 * The identity device is the machine without an IOMMU: the DMA address is
 * the virtual address and syncs are compiler barriers (x86 DMA is cache
 * coherent). It cannot see which addresses are mapped, so it only faults on
 * use after unbind and on the addresses 0 and DMA_MAPPING_ERROR.
 *
 * With PP_DMA_F_DEBUG or PP_DMA_F_BOUNCE, debug.c wraps the device's unmap,
 * sync and access ops in its own checking ones at creation, and map calls
 * it directly (it needs the caller's address): the default devices pay one
 * predicted branch per map and nothing elsewhere.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#if defined(__x86_64__)
#include <cpuid.h>
#endif

#include "dma_priv.h"
#include "lib/mem_priv.h"
#include "lib/opts_priv.h"
#include "lib/usdt.h"

__thread unsigned int _pp_dma_tls_shard PP_TLS_IE;
static unsigned int dma_shard_next;
__thread struct dma_held _pp_dma_held PP_TLS_IE;

#ifdef PP_DMA_HAVE_MOVSB
unsigned int _pp_dma_copy_kind;

unsigned int
_pp_dma_copy_probe(void)
{
	unsigned int a, b, c, d, k = 1;

	if (__get_cpuid_count(7, 0, &a, &b, &c, &d) && (d & (1u << 4)))
		k = 2;
	/* Relaxed: pairs with the relaxed load in _pp_dma_copy_movsb(); a
	 * racing prober stores the same value. */
	pp_store_relaxed(&_pp_dma_copy_kind, k);
	return k;
}
#endif

void
_pp_dma_count_flush(void)
{
	struct dma_held *h = &_pp_dma_held;
	struct dma_shard *sh;

	if (h->core == NULL)
		return;
	if (h->syncs_for_cpu != 0 || h->syncs_for_device != 0) {
		sh = dma_shard_of(h->dev);
		dma_count_in(h->dev, sh, DMA_C_syncs_for_cpu, h->syncs_for_cpu);
		dma_count_in(h->dev, sh, DMA_C_bytes_synced_for_cpu,
			     h->bytes_for_cpu);
		dma_count_in(h->dev, sh, DMA_C_syncs_for_device,
			     h->syncs_for_device);
		dma_count_in(h->dev, sh, DMA_C_bytes_synced_for_device,
			     h->bytes_for_device);
	}
	*h = (struct dma_held){ 0 };
}

unsigned int
_pp_dma_shard_assign(void)
{
	/* Relaxed: only hands out distinct numbers; each shard's counters
	 * are then written by this thread alone. Past DMA_SHARDS the
	 * number stays above it (the shared counters). */
	unsigned int s = pp_fetch_add_relaxed(&dma_shard_next, 1u) + 1;

	if (s > DMA_SHARDS)
		s = DMA_SHARDS + 1;
	_pp_dma_tls_shard = s;
	return s;
}

static inline bool
dma_dir_valid(enum dma_data_direction dir)
{
	return dir == DMA_BIDIRECTIONAL || dir == DMA_TO_DEVICE ||
	       dir == DMA_FROM_DEVICE;
}

static inline int
dma_einval(void)
{
	errno = EINVAL;
	return -EINVAL;
}

/* ------------------------------------------------------------------ */
/* Faults */

static const char *const dma_fault_names[PP_DMA_FAULT_NR] = {
	[PP_DMA_FAULT_NONE] = "no fault",
	[PP_DMA_FAULT_UNMAPPED] = "address not mapped",
	[PP_DMA_FAULT_RANGE] = "access outside the mapping",
	[PP_DMA_FAULT_DIR] = "direction not allowed by the mapping",
	[PP_DMA_FAULT_SIZE] = "unmap size differs from map size",
	[PP_DMA_FAULT_UNBOUND] = "device unbound",
	[PP_DMA_FAULT_DEVICE] = "device error",
	[PP_DMA_FAULT_DOUBLE_UNMAP] = "unmap of a mapping already unmapped",
	[PP_DMA_FAULT_CPU_OWNED] = "device write into memory the CPU owns",
	[PP_DMA_FAULT_LEAK] = "mapping live when the device is destroyed",
};

const char *
pp_dma_fault_str(enum pp_dma_fault_reason reason)
{
	if ((unsigned int)reason >= PP_DMA_FAULT_NR)
		return "?";
	return dma_fault_names[reason];
}

/*
 * Context: any thread, concurrently with every other call on @dev. Never
 * called with a lock held: the report prints and a fatal device aborts.
 */
int
_pp_dma_report(struct device *dev, dma_addr_t addr, size_t size,
	       uintptr_t site, enum pp_dma_fault_reason reason, bool debug)
{
	char where[160];

	PP_TRACE(dma_fault, dev, dev->p->name, addr, reason);
	pp_spin_lock(&dev->p->lock);
	dev->p->last_fault_addr = addr;
	dev->p->last_fault_reason = reason;
	dev->p->last_fault_size = size;
	dev->p->last_fault_site = site;
	pp_spin_unlock(&dev->p->lock);
	dma_count(dev, DMA_C_faults, 1);
	if (debug)
		dma_count(dev, DMA_C_debug_errors, 1);

	/* Once per device; the exchange only elects the reporter (no data
	 * is published through it). */
	if (!(dev->p->flags & PP_DMA_F_QUIET) &&
	    pp_xchg_acquire(&dev->p->reported, 1) == 0) {
		if (debug) {
			_pp_dma_site_str(site, where, sizeof(where));
			fprintf(stderr,
				"pagepool: DMA-API debug: device %s: %s at "
				"%#llx size %zu, mapping made at %s%s\n",
				dev->p->name, pp_dma_fault_str(reason),
				(unsigned long long)addr, size, where,
				(dev->p->flags & PP_DMA_F_FATAL) ?
					", aborting" :
					"; further faults are only counted");
		} else {
			fprintf(stderr,
				"pagepool: DMA fault on device %s: %s at "
				"%#llx%s\n",
				dev->p->name, pp_dma_fault_str(reason),
				(unsigned long long)addr,
				(dev->p->flags & PP_DMA_F_FATAL) ?
					", aborting" :
					"; further faults are only counted");
		}
	}
	if (dev->p->flags & PP_DMA_F_FATAL)
		abort();
	errno = EFAULT;
	return -EFAULT;
}

int
pp_dma_dev_fault(struct device *dev, dma_addr_t addr,
		 enum pp_dma_fault_reason reason)
{
	if (!dma_dev_ok(dev) || (unsigned int)reason == PP_DMA_FAULT_NONE ||
	    (unsigned int)reason >= PP_DMA_FAULT_NR)
		return dma_einval();
	return _pp_dma_report(dev, addr, 0, 0, reason, false);
}

/* ------------------------------------------------------------------ */
/* Creation and destruction */

struct device *
_pp_dma_dev_create(struct device *dev, const struct pp_dma_ops *ops,
		   void *priv, unsigned int flags, const char *name,
		   const char *default_name)
{
	struct pp_dma_core *core;

	if (dev != NULL && dev->p != NULL) {
		errno = EINVAL;
		return NULL;
	}
	core = _pp_zalloc_aligned(sizeof(*core), PP_CACHELINE_SIZE);
	if (core == NULL)
		return NULL;
	if (dev == NULL)
		dev = &core->own;
	else if (name == NULL)
		name = dev->init_name;
	dev->p = core;
	core->ops = *ops;
	core->priv = priv;
	core->flags = flags;
	if ((flags & (PP_DMA_F_DEBUG | PP_DMA_F_BOUNCE)) &&
	    _pp_dma_dbg_init(dev) != 0) {
		dev->p = NULL;
		_pp_free(core);
		errno = ENOMEM;
		return NULL;
	}
	pp_spin_lock_init(&core->lock);
	snprintf(core->name, sizeof(core->name), "%s",
		 name != NULL ? name : default_name);
	return dev;
}

/* The checks of pp_dma_dev_create_ops() and pp_dma_dev_init_ops(). */
static struct device *
dma_ops_setup(struct device *dev, const struct pp_dma_ops *ops, void *priv,
	      const struct pp_dma_dev_opts *opts)
{
	struct pp_dma_ops copy;
	unsigned int flags;

	if (ops == NULL || !PP_OPTS_VALID(ops) || !PP_OPTS_VALID(opts)) {
		errno = EINVAL;
		return NULL;
	}
	/* Take only the part of @ops the caller's struct has. */
	memset(&copy, 0, sizeof(copy));
	memcpy(&copy, ops, ops->sz < sizeof(copy) ? ops->sz : sizeof(copy));
	copy.sz = sizeof(copy);
	flags = PP_OPTS_GET(opts, flags, 0u);
	/* A custom map op may accept only its own memory (a UMEM): it is
	 * never handed a bounce buffer. */
	if (copy.map_page == NULL || copy.unmap_page == NULL ||
	    !_pp_dma_flags_valid(flags, false)) {
		errno = EINVAL;
		return NULL;
	}
	return _pp_dma_dev_create(dev, &copy, priv, flags,
				  PP_OPTS_GET(opts, name, NULL), "custom");
}

struct device *
pp_dma_dev_create_ops(const struct pp_dma_ops *ops, void *priv,
		      const struct pp_dma_dev_opts *opts)
{
	return dma_ops_setup(NULL, ops, priv, opts);
}

int
pp_dma_dev_init_ops(struct device *dev, const struct pp_dma_ops *ops,
		    void *priv, const struct pp_dma_dev_opts *opts)
{
	if (dev == NULL)
		return dma_einval();
	return _pp_dma_init_ret(dma_ops_setup(dev, ops, priv, opts));
}

bool
_pp_dma_flags_valid(unsigned int flags, bool bounce_ok)
{
	if ((flags & ~PP_DMA_F_ALL) != 0)
		return false;
	if ((flags & PP_DMA_F_POISON) && !(flags & PP_DMA_F_BOUNCE))
		return false;
	/* A bounce buffer is never coherent: syncs are what move data. */
	if ((flags & PP_DMA_F_BOUNCE) &&
	    (!bounce_ok || (flags & PP_DMA_F_COHERENT)))
		return false;
	return true;
}

/* Context: nothing else may use @dev, now or later. */
void
pp_dma_dev_destroy(struct device *dev)
{
	struct pp_dma_core *core;
	int64_t live;

	if (!dma_dev_ok(dev))
		return;
	live = pp_load_relaxed(&dev->p->live);
	if (live != 0 && !(dev->p->flags & PP_DMA_F_QUIET))
		fprintf(stderr,
			"pagepool: DMA device %s destroyed with %lld live "
			"mapping(s)\n",
			dev->p->name, (long long)live);
	/* Lists the leaked mappings with their call sites, frees the bounce
	 * buffers (the device is gone: nothing is copied back). */
	_pp_dma_dbg_destroy(dev);
	if (dev->p->ops.release != NULL)
		dev->p->ops.release(dev);
	/* An embedded device's struct stays the caller's, set up no more
	 * (it may be set up again); a created one is inside @core. */
	core = dev->p;
	dev->p = NULL;
	_pp_free(core);
}

/*
 * Context: any thread; one caller wins, the others get -EALREADY. A map
 * racing with unbind either fails with ENODEV or succeeds and stays live
 * (the IOMMU model decides that under its own lock); unbind_live_mappings
 * is a snapshot that may miss such a racing map. Unbinding while other
 * threads still map is the caller's bug, as it is in a driver.
 */
int
pp_dma_dev_unbind(struct device *dev)
{
	if (!dma_dev_ok(dev))
		return dma_einval();
	/*
	 * The exchange elects one unbinder; no lock is held while the op
	 * runs, so a custom op may report faults or read this device's
	 * statistics (both take dev->p->lock) without deadlocking.
	 */
	if (__atomic_exchange_n(&dev->p->unbinding, 1, __ATOMIC_ACQ_REL) != 0) {
		errno = EALREADY;
		return -EALREADY;
	}
	if (dev->p->ops.unbind != NULL)
		dev->p->ops.unbind(dev);
	pp_store_relaxed(&dev->p->ctr[DMA_C_unbind_live_mappings],
			 (uint64_t)pp_load_relaxed(&dev->p->live));
	/* R1: pairs with acquire A1 in dma_is_unbound(). */
	pp_store_release(&dev->p->unbound, 1);
	return 0;
}

void *
pp_dma_dev_priv(const struct device *dev)
{
	return dma_dev_ok(dev) ? dev->p->priv : NULL;
}

const char *
pp_dma_dev_name(const struct device *dev)
{
	return dma_dev_ok(dev) ? dev->p->name : "";
}

bool
pp_dma_dev_need_sync(const struct device *dev)
{
	return dma_dev_ok(dev) && _pp_dma_need_sync(dev);
}

/* ------------------------------------------------------------------ */
/* Map, unmap, sync, device access */

dma_addr_t
pp_dma_map(struct device *dev, void *vaddr, size_t size,
	   enum dma_data_direction dir, unsigned long attrs)
{
	dma_addr_t addr;
	int64_t live;
	uint64_t max;

	if (!dma_dev_ok(dev) || vaddr == NULL || size == 0 ||
	    size > UINTPTR_MAX - (uintptr_t)vaddr || !dma_dir_valid(dir) ||
	    (attrs & ~DMA_ATTR_ALL) != 0) {
		errno = EINVAL;
		return DMA_MAPPING_ERROR;
	}
	if (dma_is_unbound(dev)) {
		dma_count(dev, DMA_C_map_errors, 1);
		errno = ENODEV;
		return DMA_MAPPING_ERROR;
	}
	/* The debug table needs the caller; the other ops it wraps. */
	if (PP_UNLIKELY(dev->p->dbg != NULL))
		addr = _pp_dma_dbg_map(dev, vaddr, size, dir, attrs,
				       (uintptr_t)__builtin_return_address(0));
	else
		addr = dev->p->ops.map_page(dev, vaddr, size, dir, attrs);
	if (addr == DMA_MAPPING_ERROR) {
		dma_count(dev, DMA_C_map_errors, 1);
		return DMA_MAPPING_ERROR;
	}
	dma_count(dev, DMA_C_maps, 1);
	/* Statistics only: relaxed, pairs with nothing. */
	live = pp_fetch_add_relaxed(&dev->p->live, 1) + 1;
	max = pp_load_relaxed(&dev->p->ctr[DMA_C_max_live_mappings]);
	while (live > 0 && (uint64_t)live > max &&
	       !pp_cmpxchg_relaxed(&dev->p->ctr[DMA_C_max_live_mappings], &max,
				   (uint64_t)live))
		;
	/* The op synced the new mapping for the device itself, as the
	 * kernel's map_page ops do; count it. */
	if (!(attrs & DMA_ATTR_SKIP_CPU_SYNC))
		dma_count_sync(dev, false, size);
	return addr;
}

int
pp_dma_unmap(struct device *dev, dma_addr_t addr, size_t size,
	     enum dma_data_direction dir, unsigned long attrs)
{
	int ret;

	if (!dma_dev_ok(dev) || size == 0 || !dma_dir_valid(dir) ||
	    (attrs & ~DMA_ATTR_ALL) != 0)
		return dma_einval();
	if (dma_is_unbound(dev))
		return pp_dma_dev_fault(dev, addr, PP_DMA_FAULT_UNBOUND);
	ret = dev->p->ops.unmap_page(dev, addr, size, dir, attrs);
	if (ret != 0)
		return ret;
	dma_count(dev, DMA_C_unmaps, 1);
	/* Statistics only: relaxed, pairs with nothing. */
	pp_fetch_add_relaxed(&dev->p->live, -1);
	if (!(attrs & DMA_ATTR_SKIP_CPU_SYNC) && dir != DMA_TO_DEVICE)
		dma_count_sync(dev, true, size);
	return 0;
}

static inline bool identity_bad(dma_addr_t addr, size_t size);
static int identity_sync(struct device *dev, dma_addr_t addr, size_t size,
			 enum dma_data_direction dir);
static int identity_access(struct device *dev, dma_addr_t addr, void *buf,
			   size_t len, bool to_memory);

static int
dma_sync(struct device *dev, dma_addr_t addr, size_t offset, size_t size,
	 enum dma_data_direction dir, bool for_cpu)
{
	int (*op)(struct device *, dma_addr_t, size_t,
		  enum dma_data_direction);
	int ret;

	if (!dma_dev_ok(dev) || !dma_dir_valid(dir) || addr + offset < addr)
		return dma_einval();
	if (dma_is_unbound(dev))
		return pp_dma_dev_fault(dev, addr + offset,
					PP_DMA_FAULT_UNBOUND);
	op = for_cpu ? dev->p->ops.sync_single_for_cpu :
		       dev->p->ops.sync_single_for_device;
	/* The plain identity device inline, as dma_access(). */
	if (PP_LIKELY(op == identity_sync)) {
		if (PP_UNLIKELY(identity_bad(addr + offset, size)))
			return pp_dma_dev_fault(dev, addr + offset,
						PP_DMA_FAULT_UNMAPPED);
		pp_barrier();
	} else if (op != NULL) {
		ret = op(dev, addr + offset, size, dir);
		if (ret != 0)
			return ret;
	}
	/* Held back during a driver's poll (_pp_dma_count_hold()). */
	dma_count_sync_held(dev, for_cpu, size);
	return 0;
}

int
pp_dma_sync_for_device(struct device *dev, dma_addr_t addr, size_t offset,
		       size_t size, enum dma_data_direction dir)
{
	return dma_sync(dev, addr, offset, size, dir, false);
}

int
pp_dma_sync_for_cpu(struct device *dev, dma_addr_t addr, size_t offset,
		    size_t size, enum dma_data_direction dir)
{
	return dma_sync(dev, addr, offset, size, dir, true);
}

static int
dma_access(struct device *dev, dma_addr_t addr, void *buf, size_t len,
	   bool to_memory)
{
	int ret;

	if (!dma_dev_ok(dev) || buf == NULL || len == 0)
		return dma_einval();
	if (dev->p->ops.access == NULL) {
		errno = EOPNOTSUPP;
		return -EOPNOTSUPP;
	}
	if (dma_is_unbound(dev))
		return pp_dma_dev_fault(dev, addr, PP_DMA_FAULT_UNBOUND);
	/* The plain identity device (its op not wrapped by the debug layer)
	 * is called directly: the RX path's per-frame device write. */
	if (PP_LIKELY(dev->p->ops.access == identity_access))
		ret = identity_access(dev, addr, buf, len, to_memory);
	else
		ret = dev->p->ops.access(dev, addr, buf, len, to_memory);
	if (ret != 0)
		return ret;
	if (to_memory)
		dma_count2(dev, DMA_C_dev_writes, DMA_C_bytes_written, len);
	else
		dma_count2(dev, DMA_C_dev_reads, DMA_C_bytes_read, len);
	return 0;
}

int
pp_dma_dev_write(struct device *dev, dma_addr_t addr, const void *src,
		 size_t len)
{
	/* A device write only reads the buffer: @src is never stored to. */
	return dma_access(dev, addr, (void *)(uintptr_t)src, len, true);
}

int
pp_dma_dev_read(struct device *dev, dma_addr_t addr, void *dst, size_t len)
{
	return dma_access(dev, addr, dst, len, false);
}

/* ------------------------------------------------------------------ */
/* Statistics */

/* A counter: the shared part and every thread's shard. */
static uint64_t
dma_sum(struct device *dev, enum dma_counter c)
{
	/* Statistics only: relaxed, pairs with nothing (each shard's
	 * writer stores relaxed, dma_count_in()). */
	uint64_t v = pp_load_relaxed(&dev->p->ctr[c]);
	unsigned int i;

	for (i = 0; i < DMA_SHARDS; i++)
		v += pp_load_relaxed(&dev->p->shard[i].ctr[c]);
	return v;
}

int
pp_dma_dev_get_stats(const struct device *dev, struct pp_dma_stats *stats)
{
	struct pp_dma_stats s;
	struct device *d = (struct device *)(uintptr_t)dev;
	int64_t live;
	size_t n;

	if (!dma_dev_ok(dev) || stats == NULL ||
	    stats->sz < offsetof(struct pp_dma_stats, version) +
				sizeof(stats->version))
		return dma_einval();
	memset(&s, 0, sizeof(s));
	s.sz = stats->sz;
	s.version = PP_DMA_STATS_VERSION;
	s.unbound = pp_load_acquire(&d->p->unbound) != 0;
	pp_spin_lock(&d->p->lock);
	s.last_fault_reason = d->p->last_fault_reason;
	s.last_fault_addr = d->p->last_fault_addr;
	s.last_fault_size = d->p->last_fault_size;
	s.last_fault_site = d->p->last_fault_site;
	pp_spin_unlock(&d->p->lock);
#define DMA_STATS_COPY(name) \
	s.name = dma_sum(d, DMA_C_##name);
	PP_DMA_STATS_COUNTERS(DMA_STATS_COPY)
#undef DMA_STATS_COPY
	/* live_mappings is kept signed apart; a transiently negative value
	 * (an unmap counted before its map) reads as 0. */
	live = pp_load_relaxed(&d->p->live);
	s.live_mappings = live > 0 ? (uint64_t)live : 0;
	n = stats->sz < sizeof(s) ? stats->sz : sizeof(s);
	memcpy(stats, &s, n);
	return 0;
}

int
pp_dma_dev_dump(const struct device *dev, FILE *f)
{
	PP_OPTS(pp_dma_stats, s);

	if (!dma_dev_ok(dev) || f == NULL || pp_dma_dev_get_stats(dev, &s) != 0)
		return dma_einval();
	fprintf(f, "device %s\n", dev->p->name);
	fprintf(f, "unbound %u\n", s.unbound);
	fprintf(f, "last_fault %s at %#llx\n",
		pp_dma_fault_str(s.last_fault_reason),
		(unsigned long long)s.last_fault_addr);
#define DMA_DUMP(name) \
	fprintf(f, "%s %llu\n", #name, (unsigned long long)s.name);
	PP_DMA_STATS_COUNTERS(DMA_DUMP)
#undef DMA_DUMP
	return 0;
}

/* ------------------------------------------------------------------ */
/* The identity device */

static inline bool
identity_bad(dma_addr_t addr, size_t size)
{
	return _pp_dma_identity_bad(addr, size);
}

static dma_addr_t
identity_map(struct device *dev, void *vaddr, size_t size,
	     enum dma_data_direction dir, unsigned long attrs)
{
	(void)dev;
	(void)size;
	(void)dir;
	(void)attrs;
	/* Coherent: nothing to write back, but keep the compiler from
	 * sinking CPU stores past the point the device may read. */
	pp_barrier();
	return (dma_addr_t)(uintptr_t)vaddr;
}

static int
identity_unmap(struct device *dev, dma_addr_t addr, size_t size,
	       enum dma_data_direction dir, unsigned long attrs)
{
	(void)dir;
	(void)attrs;
	if (identity_bad(addr, size))
		return pp_dma_dev_fault(dev, addr, PP_DMA_FAULT_UNMAPPED);
	pp_barrier();
	return 0;
}

static int
identity_sync(struct device *dev, dma_addr_t addr, size_t size,
	      enum dma_data_direction dir)
{
	(void)dir;
	if (identity_bad(addr, size))
		return pp_dma_dev_fault(dev, addr, PP_DMA_FAULT_UNMAPPED);
	pp_barrier();
	return 0;
}

static inline int
identity_access(struct device *dev, dma_addr_t addr, void *buf, size_t len,
		bool to_memory)
{
	void *mem;

	if (identity_bad(addr, len))
		return pp_dma_dev_fault(dev, addr, PP_DMA_FAULT_UNMAPPED);
	mem = (void *)(uintptr_t)addr;
	if (to_memory)
		_pp_dma_copy(mem, buf, len, _pp_dma_copy_movsb());
	else
		_pp_dma_copy(buf, mem, len, _pp_dma_copy_movsb());
	return 0;
}

static const struct pp_dma_ops identity_ops = {
	.sz = sizeof(struct pp_dma_ops),
	.map_page = identity_map,
	.unmap_page = identity_unmap,
	.sync_single_for_device = identity_sync,
	.sync_single_for_cpu = identity_sync,
	.access = identity_access,
};

static struct device *
identity_setup(struct device *dev, const struct pp_dma_dev_opts *opts)
{
	unsigned int flags;

	if (!PP_OPTS_VALID(opts)) {
		errno = EINVAL;
		return NULL;
	}
	flags = PP_OPTS_GET(opts, flags, 0u);
	if (!_pp_dma_flags_valid(flags, true)) {
		errno = EINVAL;
		return NULL;
	}
	dev = _pp_dma_dev_create(dev, &identity_ops, NULL, flags,
				 PP_OPTS_GET(opts, name, NULL), "identity");
	/* Not wrapped by the debug or bounce layer: the fast paths of
	 * dma_priv.h may skip the dispatch. */
	if (dev != NULL)
		dev->p->plain = dev->p->dbg == NULL;
	return dev;
}

struct device *
pp_dma_identity_create(const struct pp_dma_dev_opts *opts)
{
	return identity_setup(NULL, opts);
}

int
pp_dma_identity_init(struct device *dev, const struct pp_dma_dev_opts *opts)
{
	if (dev == NULL)
		return dma_einval();
	return _pp_dma_init_ret(identity_setup(dev, opts));
}
