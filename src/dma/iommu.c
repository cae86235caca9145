/* SPDX-License-Identifier: MIT */
/*
 * Copyright (c) 2026 The pagepool authors
 *
 * The IOMMU model: a device whose DMA addresses are IOVAs translated
 * through a table, so that every device access, sync and unmap can be
 * checked against what is actually mapped. It exists to make the seed-003
 * crash visible in userspace: after pp_dma_dev_unbind() the domain is gone,
 * and page_pool unmapping a page it still had in flight is a fault here,
 * as it was a crash in iommu_get_dma_domain() in the kernel.
 *
 * IOVA space. [iova_base, iova_base + iova_size) in 4 KiB pages. A mapping
 * of N pages takes a naturally aligned block of 2^order >= N pages (the
 * size-aligned allocation of the kernel's IOVA allocator), from the FIFO
 * free list of its order or else from a bump pointer. Blocks are never
 * split or merged: an IOMMU model needs checking, not density, and the
 * space is large. Freed blocks sit in quarantine, as in ASan: a free list
 * is reused (oldest block first) only once it holds IOMMU_QUARANTINE
 * blocks, or when the bump pointer has run out. So an unmapped IOVA stays
 * unmapped for at least that many later maps of its size, and a stale
 * access faults instead of landing in an unrelated new mapping; memory
 * stays bounded by the live mappings plus the quarantine.
 *
 * Translation table. Two levels indexed by IOVA page number: a first level
 * allocated at create time for the whole space, and second-level chunks of
 * 1024 slots (4 MiB of IOVA) allocated when the bump pointer first reaches
 * them. A slot points at its mapping while the mapping is live and is NULL
 * otherwise, so a lookup is two loads.
 *
 * Locking. One spinlock serialises the writers of the table, free lists
 * and the unbound flag (map, unmap, unbind): sections are a few loads and
 * stores, except when the bump pointer grows and allocates (rare). The
 * configured map/unmap cost is spent outside it, as concurrent IOTLB work
 * would be. Translations (device accesses and syncs) take no lock, as the
 * hardware's page walk takes none: a map fills its descriptor, then
 * publishes it in the table with release stores (R1, R2), and a lookup
 * reads table and descriptor with acquire and relaxed loads (A1, A2).
 * Descriptors are never freed before destroy, only quarantined and reused,
 * so a lookup never touches freed memory; one racing with the unmap of
 * its own buffer may still see the old mapping, as a stale IOTLB entry
 * would (racing a DMA with the unmap of its buffer is the caller's bug on
 * real hardware too).
 */
#include <errno.h>
#include <string.h>
#include <time.h>

#include <pagepool/atomic_pvt.h>
#include <pagepool/spinlock_pvt.h>

#include "dma_priv.h"
#include "lib/mem_priv.h"
#include "lib/opts_priv.h"

#define IOMMU_PAGE_MASK		(PP_IOMMU_PAGE_SIZE - 1)
#define IOMMU_L2_SHIFT		10
#define IOMMU_L2_SLOTS		(1u << IOMMU_L2_SHIFT)
#define IOMMU_MAX_SIZE		(1ULL << 40)
#define IOMMU_MAX_ORDER		(40 - PP_IOMMU_PAGE_SHIFT)
#define IOMMU_DEFAULT_BASE	(1ULL << 32)
#define IOMMU_DEFAULT_SIZE	(1ULL << 32)
#define IOMMU_QUARANTINE	64

struct iommu_map {
	struct iommu_map *next_free;	/* FIFO of its order, when free */
	struct iommu_map *next_all;	/* every block, for destroy */
	uint64_t first;			/* first IOVA page index of the block */
	uint64_t npages;		/* pages in use by the live mapping */
	dma_addr_t dma;			/* start, with vaddr's page offset */
	unsigned char *vaddr;
	size_t size;
	enum dma_data_direction dir;
	unsigned int order;
};

struct iommu_fifo {
	struct iommu_map *head;
	struct iommu_map *tail;
	uint64_t count;
};

struct iommu {
	struct pp_spinlock lock;
	bool unbound;
	uint64_t base;
	uint64_t npages;		/* size of the IOVA space in pages */
	uint64_t bump;			/* next never-used page index */
	uint64_t map_cost_ns;
	uint64_t unmap_cost_ns;
	struct iommu_map ***l1;
	uint64_t l1_len;
	struct iommu_map *all;
	struct iommu_fifo free[IOMMU_MAX_ORDER + 1];
};

/* Busy-wait @ns nanoseconds: IOMMU page-table and IOTLB work. */
static void
iommu_delay(uint64_t ns)
{
	struct timespec t0, t;
	uint64_t spent;

	if (ns == 0)
		return;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		pp_cpu_relax();
		clock_gettime(CLOCK_MONOTONIC, &t);
		spent = (uint64_t)(t.tv_sec - t0.tv_sec) * 1000000000u +
			(uint64_t)t.tv_nsec - (uint64_t)t0.tv_nsec;
	} while (spent < ns);
}

static unsigned int
iommu_order(uint64_t npages)
{
	unsigned int order = 0;

	while ((1ULL << order) < npages)
		order++;
	return order;
}

/* Any context (lock-free readers too). */
static struct iommu_map **
iommu_slot(struct iommu *io, uint64_t idx)
{
	/* A1: pairs with release R1 in iommu_grow_table(): a chunk seen
	 * is seen zeroed. */
	struct iommu_map **l2 = pp_load_acquire(&io->l1[idx >> IOMMU_L2_SHIFT]);

	return l2 != NULL ? &l2[idx & (IOMMU_L2_SLOTS - 1)] : NULL;
}

/* The live mapping whose IOVA pages cover @addr, or NULL. Any context. */
static struct iommu_map *
iommu_lookup(struct iommu *io, dma_addr_t addr)
{
	struct iommu_map **slot;
	uint64_t idx;

	if (addr < io->base)
		return NULL;
	idx = (addr - io->base) >> PP_IOMMU_PAGE_SHIFT;
	if (idx >= io->npages)
		return NULL;
	slot = iommu_slot(io, idx);
	/* A2: pairs with release R2 in iommu_map_page(): the descriptor's
	 * fields are those of the mapping the slot was published for. */
	return slot != NULL ? pp_load_acquire(slot) : NULL;
}

/* A translation: the mapping's fields, read once. */
struct iommu_xlat {
	dma_addr_t dma;
	unsigned char *vaddr;
	size_t size;
	enum dma_data_direction dir;
};

/*
 * Check that [addr, addr + len) lies inside one live mapping, without the
 * lock. True with *x filled, or false with *reason set.
 */
static bool
iommu_check_range(struct iommu *io, dma_addr_t addr, size_t len,
		  struct iommu_xlat *x, enum pp_dma_fault_reason *reason)
{
	struct iommu_map *m;

	/* A3: pairs with release R3 in iommu_unbind(). */
	if (pp_load_acquire(&io->unbound)) {
		*reason = PP_DMA_FAULT_UNBOUND;
		return false;
	}
	m = iommu_lookup(io, addr);
	if (m == NULL) {
		*reason = PP_DMA_FAULT_UNMAPPED;
		return false;
	}
	/* Relaxed: ordered by A2; written under the lock by map only. */
	x->dma = pp_load_relaxed(&m->dma);
	x->vaddr = pp_load_relaxed(&m->vaddr);
	x->size = pp_load_relaxed(&m->size);
	x->dir = pp_load_relaxed(&m->dir);
	/* Offset first: past the end, size - offset would wrap and let
	 * any short access through. */
	if (addr < x->dma || addr - x->dma > x->size ||
	    len > x->size - (addr - x->dma)) {
		*reason = PP_DMA_FAULT_RANGE;
		return false;
	}
	return true;
}

/* Make sure the table has slots for pages [first, first + n). Holds lock. */
static int
iommu_grow_table(struct iommu *io, uint64_t first, uint64_t n)
{
	uint64_t i, last = (first + n - 1) >> IOMMU_L2_SHIFT;

	for (i = first >> IOMMU_L2_SHIFT; i <= last; i++) {
		struct iommu_map **l2;

		if (io->l1[i] != NULL)
			continue;
		l2 = _pp_zalloc_aligned(
			IOMMU_L2_SLOTS * sizeof(struct iommu_map *),
			PP_CACHELINE_SIZE);
		if (l2 == NULL)
			return -ENOMEM;
		/* R1: pairs with acquire A1 in iommu_slot(). */
		pp_store_release(&io->l1[i], l2);
	}
	return 0;
}

/* A free block of 2^order pages, reused or carved fresh. Holds lock. */
static struct iommu_map *
iommu_fifo_pop(struct iommu_fifo *fifo)
{
	struct iommu_map *m = fifo->head;

	fifo->head = m->next_free;
	if (fifo->head == NULL)
		fifo->tail = NULL;
	fifo->count--;
	m->next_free = NULL;
	return m;
}

static struct iommu_map *
iommu_get_block(struct iommu *io, unsigned int order)
{
	struct iommu_fifo *fifo = &io->free[order];
	uint64_t block = 1ULL << order, first;
	struct iommu_map *m;

	if (fifo->count >= IOMMU_QUARANTINE)
		return iommu_fifo_pop(fifo);
	first = (io->bump + block - 1) & ~(block - 1);
	if (first > io->npages || block > io->npages - first) {
		if (fifo->head != NULL)
			return iommu_fifo_pop(fifo);
		errno = ENOMEM;
		return NULL;
	}
	/* Table first: chunks it adds stay for later blocks if the
	 * descriptor allocation then fails, and are freed at destroy. Out
	 * of memory, a quarantined block is better than failing. */
	m = NULL;
	if (iommu_grow_table(io, first, block) == 0)
		m = _pp_zalloc_aligned(sizeof(*m), sizeof(void *));
	if (m == NULL)
		return fifo->head != NULL ? iommu_fifo_pop(fifo) : NULL;
	m->first = first;
	m->order = order;
	m->next_all = io->all;
	io->all = m;
	io->bump = first + block;
	return m;
}

static void
iommu_put_block(struct iommu *io, struct iommu_map *m)
{
	struct iommu_fifo *fifo = &io->free[m->order];

	m->next_free = NULL;
	if (fifo->tail != NULL)
		fifo->tail->next_free = m;
	else
		fifo->head = m;
	fifo->tail = m;
	fifo->count++;
}

static dma_addr_t
iommu_map_page(struct device *dev, void *vaddr, size_t size,
	       enum dma_data_direction dir, unsigned long attrs)
{
	struct iommu *io = pp_dma_dev_priv(dev);
	uint64_t off = (uintptr_t)vaddr & IOMMU_PAGE_MASK;
	uint64_t npages, i;
	dma_addr_t dma;
	struct iommu_map *m;

	(void)attrs;
	npages = (off + size + IOMMU_PAGE_MASK) >> PP_IOMMU_PAGE_SHIFT;
	if (npages > io->npages) {
		errno = ENOMEM;
		return DMA_MAPPING_ERROR;
	}
	iommu_delay(io->map_cost_ns);

	pp_spin_lock(&io->lock);
	if (io->unbound) {
		pp_spin_unlock(&io->lock);
		errno = ENODEV;
		return DMA_MAPPING_ERROR;
	}
	m = iommu_get_block(io, iommu_order(npages));
	if (m == NULL) {
		pp_spin_unlock(&io->lock);
		return DMA_MAPPING_ERROR;
	}
	dma = io->base + (m->first << PP_IOMMU_PAGE_SHIFT) + off;
	/* Relaxed: lock-free lookups read them after A2. */
	pp_store_relaxed(&m->dma, dma);
	pp_store_relaxed(&m->vaddr, (unsigned char *)vaddr);
	pp_store_relaxed(&m->size, size);
	pp_store_relaxed(&m->dir, dir);
	m->npages = npages;
	/* R2: pairs with acquire A2 in iommu_lookup(). */
	for (i = 0; i < npages; i++)
		pp_store_release(iommu_slot(io, m->first + i), m);
	pp_spin_unlock(&io->lock);
	return dma;
}

static int
iommu_unmap_page(struct device *dev, dma_addr_t addr, size_t size,
		 enum dma_data_direction dir, unsigned long attrs)
{
	struct iommu *io = pp_dma_dev_priv(dev);
	enum pp_dma_fault_reason reason = PP_DMA_FAULT_NONE;
	struct iommu_map *m;
	uint64_t i;

	(void)attrs;
	pp_spin_lock(&io->lock);
	m = io->unbound ? NULL : iommu_lookup(io, addr);
	if (io->unbound)
		reason = PP_DMA_FAULT_UNBOUND;
	else if (m == NULL || m->dma != addr)
		reason = PP_DMA_FAULT_UNMAPPED;
	else if (m->size != size)
		reason = PP_DMA_FAULT_SIZE;
	else if (m->dir != dir)
		reason = PP_DMA_FAULT_DIR;
	if (reason != PP_DMA_FAULT_NONE) {
		pp_spin_unlock(&io->lock);
		return pp_dma_dev_fault(dev, addr, reason);
	}
	/* Relaxed: a lookup that misses the clear sees the old mapping,
	 * whose descriptor stays valid (quarantined). */
	for (i = 0; i < m->npages; i++)
		pp_store_relaxed(iommu_slot(io, m->first + i),
				 (struct iommu_map *)NULL);
	iommu_put_block(io, m);
	pp_spin_unlock(&io->lock);
	iommu_delay(io->unmap_cost_ns);
	return 0;
}

static int
iommu_sync(struct device *dev, dma_addr_t addr, size_t size,
	   enum dma_data_direction dir)
{
	struct iommu *io = pp_dma_dev_priv(dev);
	enum pp_dma_fault_reason reason = PP_DMA_FAULT_NONE;
	struct iommu_xlat x;

	/* As the kernel's DMA debugging: a bidirectional mapping may be
	 * synced either way, any other only in its own direction. */
	if (iommu_check_range(io, addr, size, &x, &reason) &&
	    x.dir != DMA_BIDIRECTIONAL && x.dir != dir)
		reason = PP_DMA_FAULT_DIR;
	if (reason != PP_DMA_FAULT_NONE)
		return pp_dma_dev_fault(dev, addr, reason);
	return 0;
}

static int
iommu_access(struct device *dev, dma_addr_t addr, void *buf, size_t len,
	     bool to_memory)
{
	struct iommu *io = pp_dma_dev_priv(dev);
	enum pp_dma_fault_reason reason = PP_DMA_FAULT_NONE;
	unsigned char *mem = NULL;
	struct iommu_xlat x;

	if (iommu_check_range(io, addr, len, &x, &reason)) {
		/* The IOMMU's page permissions: FROM_DEVICE is write-only
		 * for the device, TO_DEVICE read-only. */
		if (x.dir == (to_memory ? DMA_TO_DEVICE : DMA_FROM_DEVICE))
			reason = PP_DMA_FAULT_DIR;
		else
			mem = x.vaddr + (addr - x.dma);
	}
	if (reason != PP_DMA_FAULT_NONE)
		return pp_dma_dev_fault(dev, addr, reason);
	if (to_memory)
		memcpy(mem, buf, len);
	else
		memcpy(buf, mem, len);
	return 0;
}

static void
iommu_unbind(struct device *dev)
{
	struct iommu *io = pp_dma_dev_priv(dev);

	pp_spin_lock(&io->lock);
	/* R3: pairs with acquire A3 in iommu_check_range(). */
	pp_store_release(&io->unbound, true);
	pp_spin_unlock(&io->lock);
}

static void
iommu_free(struct iommu *io)
{
	struct iommu_map *m, *next;
	uint64_t i;

	for (m = io->all; m != NULL; m = next) {
		next = m->next_all;
		_pp_free(m);
	}
	if (io->l1 != NULL) {
		for (i = 0; i < io->l1_len; i++)
			_pp_free(io->l1[i]);
		_pp_free(io->l1);
	}
	_pp_free(io);
}

static void
iommu_release(struct device *dev)
{
	iommu_free(pp_dma_dev_priv(dev));
}

static const struct pp_dma_ops iommu_ops = {
	.sz = sizeof(struct pp_dma_ops),
	.map_page = iommu_map_page,
	.unmap_page = iommu_unmap_page,
	.sync_single_for_device = iommu_sync,
	.sync_single_for_cpu = iommu_sync,
	.access = iommu_access,
	.unbind = iommu_unbind,
	.release = iommu_release,
};

/* pp_iommu_create() (@dev NULL) and pp_iommu_init() (the caller's @dev). */
static struct device *
iommu_setup(struct device *dev, const struct pp_iommu_opts *opts)
{
	uint64_t base, size;
	unsigned int flags;
	struct iommu *io;
	int err;

	if (!PP_OPTS_VALID(opts)) {
		errno = EINVAL;
		return NULL;
	}
	flags = PP_OPTS_GET(opts, flags, 0u);
	base = PP_OPTS_GET(opts, iova_base, (uint64_t)0);
	size = PP_OPTS_GET(opts, iova_size, (uint64_t)0);
	if (base == 0)
		base = IOMMU_DEFAULT_BASE;
	if (size == 0)
		size = IOMMU_DEFAULT_SIZE;
	/* base + size <= UINT64_MAX keeps DMA_MAPPING_ERROR out of range. */
	if (!_pp_dma_flags_valid(flags, true) ||
	    (base & IOMMU_PAGE_MASK) != 0 ||
	    (size & IOMMU_PAGE_MASK) != 0 || size > IOMMU_MAX_SIZE ||
	    base > UINT64_MAX - size) {
		errno = EINVAL;
		return NULL;
	}

	io = _pp_zalloc_aligned(sizeof(*io), PP_CACHELINE_SIZE);
	if (io == NULL)
		return NULL;
	pp_spin_lock_init(&io->lock);
	io->base = base;
	io->npages = size >> PP_IOMMU_PAGE_SHIFT;
	io->l1_len = (io->npages + IOMMU_L2_SLOTS - 1) >> IOMMU_L2_SHIFT;
	io->map_cost_ns = PP_OPTS_GET(opts, map_cost_ns, (uint64_t)0);
	io->unmap_cost_ns = PP_OPTS_GET(opts, unmap_cost_ns, (uint64_t)0);
	io->l1 = _pp_zalloc_aligned(io->l1_len * sizeof(*io->l1),
				    PP_CACHELINE_SIZE);
	if (io->l1 == NULL)
		goto fail;
	dev = _pp_dma_dev_create(dev, &iommu_ops, io, flags,
				 PP_OPTS_GET(opts, name, NULL), "iommu");
	if (dev == NULL)
		goto fail;
	return dev;
fail:
	err = errno;
	iommu_free(io);
	errno = err;
	return NULL;
}

struct device *
pp_iommu_create(const struct pp_iommu_opts *opts)
{
	return iommu_setup(NULL, opts);
}

int
pp_iommu_init(struct device *dev, const struct pp_iommu_opts *opts)
{
	if (dev == NULL) {
		errno = EINVAL;
		return -EINVAL;
	}
	return _pp_dma_init_ret(iommu_setup(dev, opts));
}
