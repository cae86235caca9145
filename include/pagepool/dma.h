/* SPDX-License-Identifier: MIT */
/*
 * Copyright (c) 2026 The pagepool authors
 *
 * DMA devices: what page_pool maps its pages through, and what a (software)
 * NIC reads and writes them through.
 *
 * DOC: DMA devices
 *
 * A `struct device` (the kernel's name, so `page_pool_params.dev` keeps its
 * type) is a small ops table - map, unmap, sync for device, sync for CPU,
 * and a device-side access - behind one dispatch layer that validates
 * arguments, enforces "nothing after unbind", and keeps the counters every
 * device shares. Three kinds exist:
 *
 *  - the identity device (pp_dma_identity_create()): the DMA address is the
 *    virtual address, syncs are compiler barriers (coherent x86). It models a
 *    machine without an IOMMU and is what benchmarks use.
 *  - the IOMMU model (pp_iommu_create()): each map takes a range of a
 *    private IOVA space, page-granular, with a translation table behind it;
 *    mapping can be given a cost in ns. Any access through an address that
 *    is not mapped, beyond the mapping, in the wrong direction, or after
 *    pp_dma_dev_unbind() is a fault. This is how the seed-003 crash (the
 *    driver unbinds while page_pool still has pages mapped, then page_pool
 *    unmaps them) is reproduced, and shown fixed.
 *  - custom devices (pp_dma_dev_create_ops()): the caller's ops, for example
 *    an AF_XDP UMEM whose DMA address is the UMEM offset.
 *
 * Faults. A fault is counted, recorded (address and reason, see
 * pp_dma_dev_get_stats()), reported once per device on stderr (unless
 * PP_DMA_F_QUIET) and, with PP_DMA_F_FATAL, ends the process with abort().
 * The faulting call returns -EFAULT and changes no state: a faulting device
 * access touches no memory, a faulting unmap or sync leaves the mapping as
 * it was. Faults are:
 *  - unmap of an address that is not the start of a live mapping (never
 *    mapped, or already unmapped), or with another size or direction;
 *  - sync of a range not inside one live mapping, or (for a mapping that is
 *    not DMA_BIDIRECTIONAL) in another direction;
 *  - a device write into a DMA_TO_DEVICE mapping, a device read from a
 *    DMA_FROM_DEVICE one, or an access not inside one live mapping;
 *  - any unmap, sync or access after pp_dma_dev_unbind() (reason
 *    PP_DMA_FAULT_UNBOUND); map then fails with ENODEV instead.
 * The identity device has no table: it detects only unbound use and the
 * addresses 0 and DMA_MAPPING_ERROR.
 *
 * Debugging (PP_DMA_F_DEBUG, any device): the dispatch layer keeps its own
 * table of live mappings with the call site of each map, and checks every
 * unmap, sync and device access against it first, as the kernel's
 * dma-debug does. Besides the faults above (now also on the identity
 * device) it finds a double unmap (PP_DMA_FAULT_DOUBLE_UNMAP), a device
 * write into bytes the CPU owns - synced for the CPU and not yet synced
 * back for the device, tracked per byte (PP_DMA_FAULT_CPU_OWNED) - and
 * mappings live at pp_dma_dev_destroy() (listed with their call sites;
 * fatal with PP_DMA_F_FATAL). Reports name the device, address, size and
 * the mapping's call site; debug_errors counts them.
 *
 * Bounce mode (PP_DMA_F_BOUNCE, identity and IOMMU devices): as the
 * kernel's swiotlb=force, each mapping gets its own device-side buffer and
 * the DMA address leads to it. Map copies the whole mapping out; sync for
 * device copies the range out for TO_DEVICE/BIDIRECTIONAL; sync for CPU
 * copies exactly the range back for FROM_DEVICE/BIDIRECTIONAL; unmap
 * without DMA_ATTR_SKIP_CPU_SYNC copies the whole mapping back unless
 * TO_DEVICE. Bytes never synced keep their old contents, or PP_DMA_POISON
 * with PP_DMA_F_POISON. A debugging mode: it allocates and copies.
 *
 * Counting. Every device counts maps, unmaps, syncs (and bytes synced),
 * device reads and writes, faults and live mappings, so page_pool tests can
 * count on either device. A map without DMA_ATTR_SKIP_CPU_SYNC also syncs the
 * whole mapping for the device, and an unmap without it syncs the mapping
 * for the CPU unless the direction is DMA_TO_DEVICE; both are counted as
 * syncs (page_pool passes the attribute and syncs max_len itself).
 *
 * Errors: int calls return 0 or a negative errno (and set errno); map
 * returns DMA_MAPPING_ERROR and sets errno; constructors return NULL and
 * set errno. A bad argument (NULL device, size 0, bad direction, unknown
 * attrs) is -EINVAL with no state change and is not a fault.
 *
 * Context: unless stated otherwise, every call may run on any thread,
 * concurrently with any other call on the same device except
 * pp_dma_dev_destroy().
 */
#ifndef PAGEPOOL_DMA_H
#define PAGEPOOL_DMA_H

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <pagepool/kcompat.h>
#include <pagepool/opts.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef uint64_t dma_addr_t;

/* Returned by a failed map; never a valid DMA address. */
#define DMA_MAPPING_ERROR	(~(dma_addr_t)0)

/* The kernel's values. DMA_NONE is rejected by every call. */
enum dma_data_direction {
	DMA_BIDIRECTIONAL = 0,
	DMA_TO_DEVICE = 1,
	DMA_FROM_DEVICE = 2,
	DMA_NONE = 3,
};

/*
 * Map/unmap attributes, with the kernel's values. WEAK_ORDERING and NO_WARN
 * are accepted and have no effect; SKIP_CPU_SYNC suppresses the implicit
 * sync at map and unmap. Other bits are rejected with EINVAL.
 */
#define DMA_ATTR_WEAK_ORDERING	(1UL << 1)
#define DMA_ATTR_SKIP_CPU_SYNC	(1UL << 5)
#define DMA_ATTR_NO_WARN	(1UL << 8)
#define DMA_ATTR_ALL \
	(DMA_ATTR_WEAK_ORDERING | DMA_ATTR_SKIP_CPU_SYNC | DMA_ATTR_NO_WARN)

struct pp_dma_core;

/**
 * struct device - a DMA device, complete so that it can be embedded.
 * @parent: the device this one hangs under, as the kernel's dev.parent;
 *	the caller's, never read by the library.
 * @init_name: the name an init call gives the device when its options
 *	name none (the kernel's init_name); NULL: the kind's default.
 * @driver_data: the caller's pointer (dev_set_drvdata() in the kernel
 *	compat tree); never read by the library.
 * @p: private: the library's state of the device; NULL until an init
 *	call, and again after pp_dma_dev_destroy().
 * @pp_reserved: private: zero.
 *
 * Two ways to have one. pp_dma_identity_create(), pp_iommu_create() and
 * pp_dma_dev_create_ops() allocate it. pp_dma_identity_init(),
 * pp_iommu_init() and pp_dma_dev_init_ops() set up one the caller
 * embeds in its own struct, as drivers embed the kernel's in a pci_dev;
 * it must be zeroed first (at least @p NULL). pp_dma_dev_destroy() ends
 * either: it frees a created device, and leaves an embedded one the
 * caller's, set up no more (an init call may set it up again).
 *
 * Every other call takes either kind and fails with EINVAL (or does
 * nothing, for pp_dma_dev_destroy()) on one that is not set up.
 */
struct device {
	struct device *parent;
	const char *init_name;
	void *driver_data;
	struct pp_dma_core *p;
	void *pp_reserved[4];
};

/* Device flags (struct pp_dma_dev_opts and struct pp_iommu_opts). */
/* Print nothing on stderr: no fault report, no leak report at destroy. */
#define PP_DMA_F_QUIET		(1u << 0)
/* A fault ends the process with abort(), after the report. */
#define PP_DMA_F_FATAL		(1u << 1)
/* Coherent device: pp_dma_dev_need_sync() is false (unless PP_DMA_F_DEBUG),
 * so callers following the kernel (page_pool) skip syncs; syncs still work
 * if made. */
#define PP_DMA_F_COHERENT	(1u << 2)
/*
 * DMA-API debugging, as the kernel's CONFIG_DMA_API_DEBUG: the dispatch
 * layer keeps a table of the device's live mappings, each with the call
 * site that mapped it, and checks every unmap, sync and device access
 * against it (see DOC). Any device; costs a lock and a lookup per call.
 */
#define PP_DMA_F_DEBUG		(1u << 3)
/*
 * Bounce mode, as the kernel's swiotlb=force: each mapping gets its own
 * device-side buffer and the DMA address points at it; bytes move between
 * it and the CPU's memory only at map, sync and unmap. Implies
 * PP_DMA_F_DEBUG. Identity and IOMMU devices only; not with
 * PP_DMA_F_COHERENT.
 */
#define PP_DMA_F_BOUNCE		(1u << 4)
/*
 * With PP_DMA_F_BOUNCE: the CPU's copy of a range the device owns for
 * DMA_FROM_DEVICE or DMA_BIDIRECTIONAL (after map, and after sync for
 * device in those directions, once the CPU's bytes are copied out) is
 * filled with PP_DMA_POISON, so bytes read without a sync for the CPU are
 * visibly stale instead of plausibly old.
 */
#define PP_DMA_F_POISON		(1u << 5)
#define PP_DMA_F_ALL \
	(PP_DMA_F_QUIET | PP_DMA_F_FATAL | PP_DMA_F_COHERENT | \
	 PP_DMA_F_DEBUG | PP_DMA_F_BOUNCE | PP_DMA_F_POISON)

/* The byte PP_DMA_F_POISON fills stale CPU-side bytes with. */
#define PP_DMA_POISON		0xd5

/* Why a fault happened. */
enum pp_dma_fault_reason {
	PP_DMA_FAULT_NONE = 0,
	PP_DMA_FAULT_UNMAPPED,	/* no live mapping there (never or no more) */
	PP_DMA_FAULT_RANGE,	/* runs past the end of the mapping */
	PP_DMA_FAULT_DIR,	/* direction not allowed by the mapping */
	PP_DMA_FAULT_SIZE,	/* unmap size differs from the map size */
	PP_DMA_FAULT_UNBOUND,	/* the device was unbound */
	PP_DMA_FAULT_DEVICE,	/* reported by a custom device, other cause */
	PP_DMA_FAULT_DOUBLE_UNMAP, /* unmap of a mapping already unmapped */
	PP_DMA_FAULT_CPU_OWNED,	/* device write into bytes the CPU owns */
	PP_DMA_FAULT_LEAK,	/* mapping live when the device is destroyed */
	PP_DMA_FAULT_NR,
};

/**
 * struct pp_dma_dev_opts - options of the identity and custom devices; fill
 * with PP_OPTS().
 * @sz: sizeof(struct pp_dma_dev_opts), set by PP_OPTS().
 * @flags: PP_DMA_F_*.
 * @name: name used in reports (copied, truncated to 31 bytes); default
 *	"identity" or "custom".
 */
struct pp_dma_dev_opts {
	size_t sz;
	unsigned int flags;
	const char *name;
};

/**
 * struct pp_iommu_opts - IOMMU model options; fill with PP_OPTS().
 * @sz: sizeof(struct pp_iommu_opts), set by PP_OPTS().
 * @flags: PP_DMA_F_*.
 * @name: name used in reports (copied, truncated to 31 bytes); default
 *	"iommu".
 * @map_cost_ns: time each map spends busy-waiting, modelling IOMMU page
 *	table and IOTLB work (0: none). Not spent under any lock.
 * @unmap_cost_ns: the same for each unmap (IOTLB invalidation).
 * @iova_base: first IOVA, a multiple of PP_IOMMU_PAGE_SIZE (0: 4 GiB, so
 *	IOVAs never look like virtual addresses or small offsets).
 * @iova_size: size of the IOVA space in bytes, a multiple of
 *	PP_IOMMU_PAGE_SIZE, at most 2^40 (0: 4 GiB).
 */
struct pp_iommu_opts {
	size_t sz;
	unsigned int flags;
	const char *name;
	uint64_t map_cost_ns;
	uint64_t unmap_cost_ns;
	uint64_t iova_base;
	uint64_t iova_size;
};

/* Translation granule of the IOMMU model. A mapping takes the IOVA pages
 * covering [vaddr, vaddr + size) and keeps vaddr's offset in its page. */
#define PP_IOMMU_PAGE_SHIFT	12
#define PP_IOMMU_PAGE_SIZE	(1UL << PP_IOMMU_PAGE_SHIFT)

/**
 * struct pp_dma_ops - a device's operations, for pp_dma_dev_create_ops().
 * @sz: sizeof(struct pp_dma_ops); unknown non-zero tail bytes are rejected.
 * @map_page: map [vaddr, vaddr + size); return the DMA address, or
 *	DMA_MAPPING_ERROR with errno set. Required.
 * @unmap_page: undo a map; 0, or the result of pp_dma_dev_fault(). Required.
 * @sync_single_for_device: make CPU writes to [addr, addr + size) visible to
 *	the device; 0 or pp_dma_dev_fault(). NULL: nothing to do.
 * @sync_single_for_cpu: make device writes visible to the CPU; as above.
 * @access: the device reads (@to_memory false) or writes (@to_memory true)
 *	@len bytes at @addr from or into @buf; 0 or pp_dma_dev_fault(). NULL:
 *	pp_dma_dev_read()/pp_dma_dev_write() fail with EOPNOTSUPP.
 * @unbind: called once by pp_dma_dev_unbind(), after which the dispatch
 *	layer turns every call into a fault or ENODEV. May be NULL.
 * @release: called by pp_dma_dev_destroy() to free the private state.
 *	May be NULL.
 *
 * The dispatch layer has checked the device, sizes, direction and attrs and
 * the unbound state before an op runs, and does the counting: an op only
 * translates and checks addresses. Ops run on the calling thread,
 * concurrently with each other: they must be thread-safe.
 * pp_dma_dev_priv() gives the @priv passed at creation.
 */
struct pp_dma_ops {
	size_t sz;
	dma_addr_t (*map_page)(struct device *dev, void *vaddr, size_t size,
			       enum dma_data_direction dir,
			       unsigned long attrs);
	int (*unmap_page)(struct device *dev, dma_addr_t addr, size_t size,
			  enum dma_data_direction dir, unsigned long attrs);
	int (*sync_single_for_device)(struct device *dev, dma_addr_t addr,
				      size_t size,
				      enum dma_data_direction dir);
	int (*sync_single_for_cpu)(struct device *dev, dma_addr_t addr,
				   size_t size, enum dma_data_direction dir);
	int (*access)(struct device *dev, dma_addr_t addr, void *buf,
		      size_t len, bool to_memory);
	void (*unbind)(struct device *dev);
	void (*release)(struct device *dev);
};

/*
 * Counters of a device, from one X-macro list so the struct, the name table
 * and pp_dma_dev_dump() agree. Names are stable.
 */
#define PP_DMA_STATS_COUNTERS(X)                                             \
	X(maps)			/* successful maps */                        \
	X(map_errors)		/* failed maps (ENOMEM, ENODEV, ...) */     \
	X(unmaps)		/* successful unmaps */                      \
	X(syncs_for_device)                                                  \
	X(syncs_for_cpu)                                                     \
	X(bytes_synced_for_device)                                           \
	X(bytes_synced_for_cpu)                                              \
	X(dev_reads)		/* device reads of memory (TX DMA) */        \
	X(dev_writes)		/* device writes to memory (RX DMA) */       \
	X(bytes_read)                                                        \
	X(bytes_written)                                                     \
	X(faults)                                                            \
	X(live_mappings)	/* mapped and not unmapped */                \
	X(max_live_mappings)	/* high-water mark of live_mappings */       \
	X(unbind_live_mappings)	/* live when unbound: seed 003's bug */ \
	X(debug_errors)		/* faults found by PP_DMA_F_DEBUG checks */ \
	X(bounce_maps)		/* mappings given a bounce buffer */         \
	X(bytes_bounced)	/* bytes copied to or from bounce buffers */

/* 2: debug_errors, bounce_maps, bytes_bounced, last_fault_size and
 * last_fault_site appended. */
#define PP_DMA_STATS_VERSION 2

/**
 * struct pp_dma_stats - snapshot of a device's counters.
 * @sz: set by the caller to sizeof(struct pp_dma_stats); the library fills
 *	only that much, so an older caller's shorter struct stays safe.
 * @version: PP_DMA_STATS_VERSION of the library that filled it.
 * @unbound: non-zero once pp_dma_dev_unbind() was called.
 * @last_fault_reason: enum pp_dma_fault_reason of the last fault.
 * @last_fault_addr: DMA address of the last fault.
 * The counters: see PP_DMA_STATS_COUNTERS().
 * @last_fault_size: size of the access, sync or unmap of the last fault
 *	(0 if unknown or for pp_dma_dev_fault()).
 * @last_fault_site: with PP_DMA_F_DEBUG, the return address in the code
 *	that mapped the mapping of the last fault (0 if none is known).
 *
 * Fields are only ever appended (PP_DMA_STATS_VERSION counts the
 * additions): a caller built against an older header passes its smaller
 * @sz and gets the fields it knows.
 *
 * Counters are read one by one while other threads may be counting: a
 * snapshot taken during traffic is not atomic as a whole.
 */
struct pp_dma_stats {
	size_t sz;
	uint32_t version;
	uint32_t unbound;
	uint32_t last_fault_reason;
	uint32_t reserved;
	uint64_t last_fault_addr;
#define PP_DMA_STATS_FIELD(name) uint64_t name;
	PP_DMA_STATS_COUNTERS(PP_DMA_STATS_FIELD)
#undef PP_DMA_STATS_FIELD
	uint64_t last_fault_size;
	uint64_t last_fault_site;
};

/**
 * pp_dma_identity_create() - a device whose DMA address is the virtual
 * address, as on a machine without an IOMMU.
 * @opts: options, or NULL for defaults.
 *
 * Return: the device; NULL with errno EINVAL (bad options or flags) or
 * ENOMEM.
 */
PP_API struct device *
pp_dma_identity_create(const struct pp_dma_dev_opts *opts);

/**
 * pp_iommu_create() - a device behind the checking IOMMU model.
 * @opts: options, or NULL for defaults.
 *
 * Return: the device; NULL with errno EINVAL (bad options, flags, IOVA base
 * or size) or ENOMEM.
 */
PP_API struct device *pp_iommu_create(const struct pp_iommu_opts *opts);

/**
 * pp_dma_dev_create_ops() - a device with the caller's ops.
 * @ops: operations (copied); map_page and unmap_page are required.
 * @priv: private pointer for the ops, see pp_dma_dev_priv().
 * @opts: options, or NULL for defaults.
 *
 * Return: the device; NULL with errno EINVAL or ENOMEM.
 */
PP_API struct device *
pp_dma_dev_create_ops(const struct pp_dma_ops *ops, void *priv,
		      const struct pp_dma_dev_opts *opts);

/**
 * pp_dma_identity_init() - set up @dev, the caller's (embedded) struct
 * device, as an identity device. See pp_dma_identity_create().
 * @dev: zeroed, or destroyed since its last set-up (@dev->p NULL).
 * @opts: options, or NULL for defaults; a NULL name takes
 *	@dev->init_name.
 *
 * Return: 0; -EINVAL (NULL @dev, @dev already set up, bad options or
 * flags) or -ENOMEM, with errno set and @dev unchanged.
 */
PP_API int pp_dma_identity_init(struct device *dev,
				const struct pp_dma_dev_opts *opts);

/**
 * pp_iommu_init() - set up @dev, the caller's (embedded) struct device,
 * behind the checking IOMMU model. See pp_iommu_create().
 * @dev: zeroed, or destroyed since its last set-up (@dev->p NULL).
 * @opts: options, or NULL for defaults; a NULL name takes
 *	@dev->init_name.
 *
 * Return: 0; -EINVAL (NULL @dev, @dev already set up, bad options, flags,
 * IOVA base or size) or -ENOMEM, with errno set and @dev unchanged.
 */
PP_API int pp_iommu_init(struct device *dev, const struct pp_iommu_opts *opts);

/**
 * pp_dma_dev_init_ops() - set up @dev, the caller's (embedded) struct
 * device, with the caller's ops. See pp_dma_dev_create_ops().
 *
 * Return: 0; -EINVAL or -ENOMEM, with errno set and @dev unchanged.
 */
PP_API int pp_dma_dev_init_ops(struct device *dev,
			       const struct pp_dma_ops *ops, void *priv,
			       const struct pp_dma_dev_opts *opts);

/**
 * pp_dma_dev_destroy() - end a device: free a created one; leave an
 * embedded one (set up by an init call) the caller's, with @p NULL again.
 * NULL, or a device not set up, is a no-op.
 *
 * Mappings still live are leaked: unless PP_DMA_F_QUIET, their count is
 * reported on stderr (read live_mappings from pp_dma_dev_get_stats() first
 * to check for zero). Context: no other call on @dev may be running or
 * follow.
 */
PP_API void pp_dma_dev_destroy(struct device *dev);

/**
 * pp_dma_dev_unbind() - the driver is gone: every mapping becomes invalid.
 *
 * Afterwards map fails with ENODEV, and unmap, sync and device access are
 * faults (PP_DMA_FAULT_UNBOUND). The mappings live at this moment are
 * counted in unbind_live_mappings: a correct page_pool leaves none.
 * Return: 0; -EINVAL for NULL; -EALREADY if already unbound.
 */
PP_API int pp_dma_dev_unbind(struct device *dev);

/** pp_dma_dev_priv() - the @priv given to pp_dma_dev_create_ops(). */
PP_API void *pp_dma_dev_priv(const struct device *dev);

/** pp_dma_dev_name() - the device's name ("" for NULL). */
PP_API const char *pp_dma_dev_name(const struct device *dev);

/**
 * pp_dma_dev_need_sync() - whether syncs do anything on @dev: false for a
 * PP_DMA_F_COHERENT device without PP_DMA_F_DEBUG (and NULL), true
 * otherwise. The kernel's dma_dev_need_sync(), which is true on every
 * device under CONFIG_DMA_API_DEBUG.
 */
PP_API bool pp_dma_dev_need_sync(const struct device *dev);

/**
 * pp_dma_map() - map [vaddr, vaddr + size) for DMA in direction @dir.
 * @attrs: DMA_ATTR_* (see DMA_ATTR_ALL).
 *
 * Without DMA_ATTR_SKIP_CPU_SYNC the whole mapping is also synced for the
 * device.
 * Return: the DMA address; DMA_MAPPING_ERROR with errno EINVAL (NULL dev or
 * vaddr, size 0 or wrapping, bad direction, unknown attrs), ENODEV (device
 * unbound) or ENOMEM (IOVA space exhausted, no memory).
 */
PP_API dma_addr_t pp_dma_map(struct device *dev, void *vaddr, size_t size,
			     enum dma_data_direction dir,
			     unsigned long attrs);

/**
 * pp_dma_unmap() - undo pp_dma_map(); @addr, @size and @dir as mapped.
 *
 * Without DMA_ATTR_SKIP_CPU_SYNC (and unless @dir is DMA_TO_DEVICE) the
 * mapping is synced for the CPU first.
 * Return: 0; -EINVAL (bad arguments); -EFAULT (a fault, see DOC).
 */
PP_API int pp_dma_unmap(struct device *dev, dma_addr_t addr, size_t size,
			enum dma_data_direction dir, unsigned long attrs);

/**
 * pp_dma_sync_for_device() - give [addr + offset, addr + offset + size) back
 * to the device after CPU access. The range must lie inside one live
 * mapping. Size 0 only checks the address.
 *
 * Return: 0; -EINVAL (NULL dev, bad direction, addr + offset wraps);
 * -EFAULT (a fault).
 */
PP_API int pp_dma_sync_for_device(struct device *dev, dma_addr_t addr,
				  size_t offset, size_t size,
				  enum dma_data_direction dir);

/**
 * pp_dma_sync_for_cpu() - make what the device wrote to
 * [addr + offset, addr + offset + size) visible to the CPU. As
 * pp_dma_sync_for_device() otherwise.
 */
PP_API int pp_dma_sync_for_cpu(struct device *dev, dma_addr_t addr,
			       size_t offset, size_t size,
			       enum dma_data_direction dir);

/**
 * pp_dma_dev_write() - the device writes @len bytes from @src to memory at
 * DMA address @addr (a NIC receiving a packet).
 *
 * Return: 0; -EINVAL (NULL dev or src, len 0); -EOPNOTSUPP (custom device
 * without an access op); -EFAULT (a fault: memory untouched).
 */
PP_API int pp_dma_dev_write(struct device *dev, dma_addr_t addr,
			    const void *src, size_t len);

/**
 * pp_dma_dev_read() - the device reads @len bytes at DMA address @addr into
 * @dst (a NIC transmitting). As pp_dma_dev_write() otherwise.
 */
PP_API int pp_dma_dev_read(struct device *dev, dma_addr_t addr, void *dst,
			   size_t len);

/**
 * pp_dma_dev_fault() - record a fault on @dev: count it, remember @addr and
 * @reason, report the first one on stderr (unless PP_DMA_F_QUIET) and
 * abort() if the device is PP_DMA_F_FATAL. For custom ops to report theirs.
 *
 * Return: -EFAULT (-EINVAL for NULL dev or an unknown reason).
 */
PP_API int pp_dma_dev_fault(struct device *dev, dma_addr_t addr,
			    enum pp_dma_fault_reason reason);

/** pp_dma_fault_str() - a short description of @reason ("?" if unknown). */
PP_API const char *pp_dma_fault_str(enum pp_dma_fault_reason reason);

/**
 * pp_dma_dev_get_stats() - snapshot the counters of @dev into @stats.
 * @stats: @stats->sz must be set (at least offsetof(..., version) + 4).
 *
 * Return: 0; -EINVAL (NULL argument or too small sz).
 */
PP_API int pp_dma_dev_get_stats(const struct device *dev,
				struct pp_dma_stats *stats);

/**
 * pp_dma_dev_dump() - print the device's name, state and counters to @f,
 * one "name value" pair per line.
 *
 * Return: 0; -EINVAL (NULL argument).
 */
PP_API int pp_dma_dev_dump(const struct device *dev, FILE *f);

/** pp_dma_mapping_error() - -ENOMEM if @addr is DMA_MAPPING_ERROR, else 0. */
static inline int
pp_dma_mapping_error(const struct device *dev, dma_addr_t addr)
{
	(void)dev;
	return addr == DMA_MAPPING_ERROR ? -ENOMEM : 0;
}

/*
 * The kernel's names, for code ported from a driver. Everything here takes
 * a virtual address or a DMA address (there is no dma_map_page_attrs():
 * map page_address(page) instead). The void ones drop the result
 * as the kernel's do: faults are still counted and reported.
 */
static inline int
dma_mapping_error(const struct device *dev, dma_addr_t addr)
{
	return pp_dma_mapping_error(dev, addr);
}

static inline bool
dma_dev_need_sync(const struct device *dev)
{
	return pp_dma_dev_need_sync(dev);
}

static inline dma_addr_t
dma_map_single_attrs(struct device *dev, void *ptr, size_t size,
		     enum dma_data_direction dir, unsigned long attrs)
{
	return pp_dma_map(dev, ptr, size, dir, attrs);
}

static inline dma_addr_t
dma_map_single(struct device *dev, void *ptr, size_t size,
	       enum dma_data_direction dir)
{
	return pp_dma_map(dev, ptr, size, dir, 0);
}

static inline void
dma_unmap_single_attrs(struct device *dev, dma_addr_t addr, size_t size,
		       enum dma_data_direction dir, unsigned long attrs)
{
	(void)pp_dma_unmap(dev, addr, size, dir, attrs);
}

static inline void
dma_unmap_single(struct device *dev, dma_addr_t addr, size_t size,
		 enum dma_data_direction dir)
{
	(void)pp_dma_unmap(dev, addr, size, dir, 0);
}

static inline void
dma_unmap_page_attrs(struct device *dev, dma_addr_t addr, size_t size,
		     enum dma_data_direction dir, unsigned long attrs)
{
	(void)pp_dma_unmap(dev, addr, size, dir, attrs);
}

static inline void
dma_unmap_page(struct device *dev, dma_addr_t addr, size_t size,
	       enum dma_data_direction dir)
{
	(void)pp_dma_unmap(dev, addr, size, dir, 0);
}

static inline void
dma_sync_single_for_device(struct device *dev, dma_addr_t addr, size_t size,
			   enum dma_data_direction dir)
{
	(void)pp_dma_sync_for_device(dev, addr, 0, size, dir);
}

static inline void
dma_sync_single_for_cpu(struct device *dev, dma_addr_t addr, size_t size,
			enum dma_data_direction dir)
{
	(void)pp_dma_sync_for_cpu(dev, addr, 0, size, dir);
}

static inline void
dma_sync_single_range_for_device(struct device *dev, dma_addr_t addr,
				 size_t offset, size_t size,
				 enum dma_data_direction dir)
{
	(void)pp_dma_sync_for_device(dev, addr, offset, size, dir);
}

static inline void
dma_sync_single_range_for_cpu(struct device *dev, dma_addr_t addr,
			      size_t offset, size_t size,
			      enum dma_data_direction dir)
{
	(void)pp_dma_sync_for_cpu(dev, addr, offset, size, dir);
}

#ifdef __cplusplus
}
#endif

#endif /* PAGEPOOL_DMA_H */
