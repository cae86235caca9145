/* SPDX-License-Identifier: MIT */
/*
 * Copyright (c) 2026 The pagepool authors
 *
 * DMA-API debugging and bounce mode: what the kernel's dma-debug and
 * swiotlb=force show a driver developer, on any device model.
 *
 * With PP_DMA_F_DEBUG (or PP_DMA_F_BOUNCE) the dispatch layer keeps its own
 * table of the device's live mappings, each with the return address of the
 * code that mapped it, and checks every unmap, sync and device access
 * against the table before the device's op runs. That finds, on the
 * identity device too, what the IOMMU model's translation table cannot
 * name: who made the mapping an error is about, a double unmap as such,
 * mappings leaked at destroy, and a device writing bytes the CPU owns
 * (synced for the CPU and not yet given back), which on a non-coherent
 * machine is lost data.
 *
 * Bounce mode gives each mapping its own device-side buffer with the
 * mapping's offset in its page (so page-aligned mappings stay page-aligned)
 * and maps that buffer through the device's op: the identity device's DMA
 * address is then the buffer, as swiotlb's is a slot, and the IOMMU model's
 * IOVA translates to it, as iommu-dma does for untrusted devices. Bytes
 * move only as swiotlb moves them: everything at map (so a partial device
 * write never exposes old buffer contents), CPU to buffer at sync for device
 * in DMA_TO_DEVICE/DMA_BIDIRECTIONAL, buffer to CPU at sync for CPU in
 * DMA_FROM_DEVICE/DMA_BIDIRECTIONAL, and the whole mapping back at unmap
 * without DMA_ATTR_SKIP_CPU_SYNC unless DMA_TO_DEVICE. A driver that syncs
 * the wrong range reads bytes the device never delivered; PP_DMA_F_POISON
 * makes those bytes PP_DMA_POISON rather than plausible old data.
 *
 * Ownership is tracked per byte (a bitmap per mapping): a sync for the CPU
 * hands its range to the CPU, a sync for the device hands it back. Bytes,
 * not the whole mapping, because page_pool fragments and multi-buffer
 * drivers legitimately let the device fill one part of a page while the
 * CPU reads another.
 *
 * Locking. One spinlock per device covers the table, the bitmaps and the
 * bounce copies of syncs; the device's ops and fault reports run outside
 * it. This is a debugging mode: correctness and clear reports come before
 * speed (bench/bench_dma_bounce.c measures what it costs).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "dma_priv.h"
#include "lib/mem_priv.h"

#define DBG_SHIFT	12
#define DBG_PAGE	(1UL << DBG_SHIFT)
#define DBG_HASH_BITS	12
#define DBG_HASH	(1u << DBG_HASH_BITS)
/* Unmapped mappings remembered to tell a double unmap from a wild one. */
#define DBG_GONE	256
/* Leaked mappings listed one by one at destroy. */
#define DBG_LEAKS_SHOWN	16

struct dbg_map;

/* A mapping is linked into the bucket of every DBG_PAGE it covers, so
 * finding the mapping that holds an address is one bucket walk. */
struct dbg_link {
	struct dbg_link *next;
	struct dbg_map *m;
};

struct dbg_map {
	dma_addr_t dma;
	size_t size;
	enum dma_data_direction dir;
	bool dying;			/* an unmap of it is in progress */
	unsigned char *cpu;		/* the caller's memory */
	unsigned char *bounce;		/* device-side copy, or NULL */
	void *bounce_mem;		/* allocation holding @bounce */
	uintptr_t site;
	unsigned char *owned;		/* bit per byte: the CPU owns it */
	size_t nlinks;
	struct dbg_link links[];
};

struct dbg_gone {
	dma_addr_t dma;
	size_t size;
	uintptr_t site;
};

struct dma_dbg {
	struct pp_dma_ops real;		/* the device's own ops */
	struct pp_spinlock lock;
	struct dbg_link *hash[DBG_HASH];
	struct dbg_gone gone[DBG_GONE];
	unsigned int gone_next;
};

static unsigned int
dbg_bucket(uint64_t page)
{
	return (unsigned int)((page * 0x9e3779b97f4a7c15ULL) >>
			      (64 - DBG_HASH_BITS));
}


static bool
dbg_covers(const struct dbg_map *m, dma_addr_t addr)
{
	return addr >= m->dma && addr - m->dma < m->size;
}

/* The newest live mapping holding @addr, or NULL. Holds dbg->lock. */
static struct dbg_map *
dbg_find(struct dma_dbg *dbg, dma_addr_t addr)
{
	struct dbg_link *l;

	for (l = dbg->hash[dbg_bucket(addr >> DBG_SHIFT)]; l; l = l->next)
		if (!l->m->dying && dbg_covers(l->m, addr))
			return l->m;
	return NULL;
}

/* The mapping an unmap of (@addr, @size, @dir) means: one starting at
 * @addr, preferably matching exactly (the identity device may map the same
 * bytes twice). Dying ones too, to name a racing double unmap. */
static struct dbg_map *
dbg_find_start(struct dma_dbg *dbg, dma_addr_t addr, size_t size,
	       enum dma_data_direction dir)
{
	struct dbg_map *any = NULL;
	struct dbg_link *l;

	for (l = dbg->hash[dbg_bucket(addr >> DBG_SHIFT)]; l; l = l->next) {
		struct dbg_map *m = l->m;

		if (m->dma != addr)
			continue;
		if (!m->dying && m->size == size && m->dir == dir)
			return m;
		if (any == NULL || (any->dying && !m->dying))
			any = m;
	}
	return any;
}

static void
dbg_insert(struct dma_dbg *dbg, struct dbg_map *m)
{
	uint64_t page = m->dma >> DBG_SHIFT;
	size_t i;

	for (i = 0; i < m->nlinks; i++) {
		struct dbg_link **head = &dbg->hash[dbg_bucket(page + i)];

		m->links[i].m = m;
		m->links[i].next = *head;
		*head = &m->links[i];
	}
}

static void
dbg_remove(struct dma_dbg *dbg, struct dbg_map *m)
{
	uint64_t page = m->dma >> DBG_SHIFT;
	size_t i;

	for (i = 0; i < m->nlinks; i++) {
		struct dbg_link **pp = &dbg->hash[dbg_bucket(page + i)];

		while (*pp != &m->links[i])
			pp = &(*pp)->next;
		*pp = m->links[i].next;
	}
}

static void
dbg_free(struct dbg_map *m)
{
	_pp_free(m->bounce_mem);
	_pp_free(m);
}

/* ------------------------------------------------------------------ */
/* Per-byte ownership */

static void
own_set(unsigned char *bits, size_t off, size_t len, bool cpu)
{
	size_t i;

	/* Whole bytes of the bitmap in the middle, bit by bit at the ends. */
	for (i = off; i < off + len && (i & 7) != 0; i++)
		bits[i >> 3] = cpu ? bits[i >> 3] | (1u << (i & 7)) :
				     bits[i >> 3] & ~(1u << (i & 7));
	if (off + len - i >= 8) {
		memset(&bits[i >> 3], cpu ? 0xff : 0, (off + len - i) >> 3);
		i += (off + len - i) & ~(size_t)7;
	}
	for (; i < off + len; i++)
		bits[i >> 3] = cpu ? bits[i >> 3] | (1u << (i & 7)) :
				     bits[i >> 3] & ~(1u << (i & 7));
}

static bool
own_bit(const unsigned char *bits, size_t i)
{
	return (bits[i >> 3] >> (i & 7)) & 1;
}

/* Any byte of [off, off + len) owned by the CPU? On every device write,
 * so whole words where it can: a frame is ~200 bitmap bytes. */
static bool
own_any(const unsigned char *bits, size_t off, size_t len)
{
	size_t i = off, end = off + len;
	uint64_t w;

	for (; i < end && (i & 7) != 0; i++)
		if (own_bit(bits, i))
			return true;
	for (; end - i >= 8 && ((i >> 3) & 7) != 0; i += 8)
		if (bits[i >> 3] != 0)
			return true;
	for (; end - i >= 64; i += 64) {
		memcpy(&w, &bits[i >> 3], sizeof(w));
		if (w != 0)
			return true;
	}
	for (; end - i >= 8; i += 8)
		if (bits[i >> 3] != 0)
			return true;
	for (; i < end; i++)
		if (own_bit(bits, i))
			return true;
	return false;
}

/* ------------------------------------------------------------------ */
/* Map, unmap, sync, access */

dma_addr_t
_pp_dma_dbg_map(struct device *dev, void *vaddr, size_t size,
		enum dma_data_direction dir, unsigned long attrs,
		uintptr_t site)
{
	struct dma_dbg *dbg = dev->p->dbg;
	unsigned char *bounce = NULL;
	void *mem = NULL;
	struct dbg_map *m;
	dma_addr_t addr;
	size_t nlinks, off;

	if (dev->p->flags & PP_DMA_F_BOUNCE) {
		off = (uintptr_t)vaddr & (DBG_PAGE - 1);
		if (size > SIZE_MAX - off - DBG_PAGE) {
			errno = ENOMEM;
			return DMA_MAPPING_ERROR;
		}
		mem = _pp_zalloc_aligned((off + size + DBG_PAGE - 1) &
					 ~(DBG_PAGE - 1), DBG_PAGE);
		if (mem == NULL)
			return DMA_MAPPING_ERROR;
		bounce = (unsigned char *)mem + off;
		/* Always, as swiotlb: a device that writes only part of the
		 * buffer must leave the rest as the CPU had it. */
		memcpy(bounce, vaddr, size);
	}
	addr = dbg->real.map_page(dev, bounce != NULL ? bounce : vaddr, size,
				  dir, attrs);
	if (addr == DMA_MAPPING_ERROR) {
		_pp_free(mem);
		return DMA_MAPPING_ERROR;
	}
	nlinks = (((addr & (DBG_PAGE - 1)) + size - 1) >> DBG_SHIFT) + 1;
	m = _pp_zalloc_aligned(sizeof(*m) + nlinks * sizeof(m->links[0]) +
				       (size + 7) / 8,
			       sizeof(void *));
	if (m == NULL) {
		(void)dbg->real.unmap_page(dev, addr, size, dir,
					   attrs | DMA_ATTR_SKIP_CPU_SYNC);
		_pp_free(mem);
		errno = ENOMEM;
		return DMA_MAPPING_ERROR;
	}
	m->dma = addr;
	m->size = size;
	m->dir = dir;
	m->cpu = vaddr;
	m->bounce = bounce;
	m->bounce_mem = mem;
	m->site = site;
	m->nlinks = nlinks;
	m->owned = (unsigned char *)&m->links[nlinks];
	if (bounce != NULL) {
		dma_count(dev, DMA_C_bounce_maps, 1);
		dma_count(dev, DMA_C_bytes_bounced, size);
		/* The device owns a FROM_DEVICE or BIDIRECTIONAL buffer from
		 * now on: what the CPU still holds there is stale by the DMA
		 * API's rules. BIDIRECTIONAL too, because XDP drivers map
		 * their RX pages so (for XDP_TX), and their wrong RX syncs
		 * would otherwise read the page's previous, plausible frame. */
		if ((dev->p->flags & PP_DMA_F_POISON) && dir != DMA_TO_DEVICE)
			memset(vaddr, PP_DMA_POISON, size);
	}
	pp_spin_lock(&dbg->lock);
	dbg_insert(dbg, m);
	pp_spin_unlock(&dbg->lock);
	return addr;
}

static int
dbg_unmap_op(struct device *dev, dma_addr_t addr, size_t size,
	     enum dma_data_direction dir, unsigned long attrs)
{
	struct dma_dbg *dbg = dev->p->dbg;
	enum pp_dma_fault_reason reason = PP_DMA_FAULT_NONE;
	uintptr_t site = 0;
	struct dbg_map *m;
	unsigned int i;
	int ret;

	pp_spin_lock(&dbg->lock);
	m = dbg_find_start(dbg, addr, size, dir);
	if (m == NULL || m->dying) {
		reason = m != NULL ? PP_DMA_FAULT_DOUBLE_UNMAP :
				     PP_DMA_FAULT_UNMAPPED;
		site = m != NULL ? m->site : 0;
		for (i = 0; m == NULL && i < DBG_GONE; i++) {
			if (dbg->gone[i].size != 0 &&
			    dbg->gone[i].dma == addr) {
				reason = PP_DMA_FAULT_DOUBLE_UNMAP;
				site = dbg->gone[i].site;
			}
		}
		if (site == 0 && (m = dbg_find(dbg, addr)) != NULL)
			site = m->site;	/* inside someone's mapping */
	} else if (m->size != size) {
		reason = PP_DMA_FAULT_SIZE;
		site = m->site;
	} else if (m->dir != dir) {
		reason = PP_DMA_FAULT_DIR;
		site = m->site;
	} else {
		m->dying = true;
	}
	pp_spin_unlock(&dbg->lock);
	if (reason != PP_DMA_FAULT_NONE)
		return _pp_dma_report(dev, addr, size, site, reason, true);

	ret = dbg->real.unmap_page(dev, addr, size, dir, attrs);
	pp_spin_lock(&dbg->lock);
	if (ret != 0) {
		m->dying = false;	/* a faulting unmap changes nothing */
	} else {
		dbg_remove(dbg, m);
		dbg->gone[dbg->gone_next] = (struct dbg_gone){
			.dma = addr, .size = size, .site = m->site };
		dbg->gone_next = (dbg->gone_next + 1) % DBG_GONE;
	}
	pp_spin_unlock(&dbg->lock);
	if (ret != 0)
		return ret;
	if (m->bounce != NULL && !(attrs & DMA_ATTR_SKIP_CPU_SYNC) &&
	    dir != DMA_TO_DEVICE) {
		memcpy(m->cpu, m->bounce, size);
		dma_count(dev, DMA_C_bytes_bounced, size);
	}
	dbg_free(m);
	return 0;
}

/* @addr already includes the sync's offset. */
static int
dbg_sync(struct device *dev, dma_addr_t addr, size_t size,
	 enum dma_data_direction dir, bool for_cpu)
{
	struct dma_dbg *dbg = dev->p->dbg;
	enum pp_dma_fault_reason reason = PP_DMA_FAULT_NONE;
	uint64_t bounced = 0;
	uintptr_t site = 0;
	struct dbg_map *m;
	size_t off;

	pp_spin_lock(&dbg->lock);
	m = dbg_find(dbg, addr);
	if (m == NULL) {
		reason = PP_DMA_FAULT_UNMAPPED;
		goto out;
	}
	site = m->site;
	off = addr - m->dma;
	if (size > m->size - off) {
		reason = PP_DMA_FAULT_RANGE;
		goto out;
	}
	/* As the kernel's dma-debug: a bidirectional mapping may be synced
	 * either way, any other only in its own direction. */
	if (m->dir != DMA_BIDIRECTIONAL && m->dir != dir) {
		reason = PP_DMA_FAULT_DIR;
		goto out;
	}
	if (for_cpu) {
		if (m->bounce != NULL && dir != DMA_TO_DEVICE) {
			memcpy(m->cpu + off, m->bounce + off, size);
			bounced = size;
		}
		own_set(m->owned, off, size, true);
	} else {
		if (m->bounce != NULL && dir != DMA_FROM_DEVICE) {
			memcpy(m->bounce + off, m->cpu + off, size);
			bounced = size;
		}
		/* After the copy out: the CPU's bytes are the device's now. */
		if (m->bounce != NULL && (dev->p->flags & PP_DMA_F_POISON) &&
		    dir != DMA_TO_DEVICE)
			memset(m->cpu + off, PP_DMA_POISON, size);
		own_set(m->owned, off, size, false);
	}
out:
	pp_spin_unlock(&dbg->lock);
	if (reason != PP_DMA_FAULT_NONE)
		return _pp_dma_report(dev, addr, size, site, reason, true);
	if (bounced != 0)
		dma_count(dev, DMA_C_bytes_bounced, bounced);
	if (for_cpu && dbg->real.sync_single_for_cpu != NULL)
		return dbg->real.sync_single_for_cpu(dev, addr, size, dir);
	if (!for_cpu && dbg->real.sync_single_for_device != NULL)
		return dbg->real.sync_single_for_device(dev, addr, size, dir);
	return 0;
}

static int
dbg_sync_for_cpu_op(struct device *dev, dma_addr_t addr, size_t size,
		    enum dma_data_direction dir)
{
	return dbg_sync(dev, addr, size, dir, true);
}

static int
dbg_sync_for_device_op(struct device *dev, dma_addr_t addr, size_t size,
		       enum dma_data_direction dir)
{
	return dbg_sync(dev, addr, size, dir, false);
}

static int
dbg_access_op(struct device *dev, dma_addr_t addr, void *buf, size_t len,
	      bool to_memory)
{
	struct dma_dbg *dbg = dev->p->dbg;
	enum pp_dma_fault_reason reason = PP_DMA_FAULT_NONE;
	uintptr_t site = 0;
	struct dbg_map *m;
	unsigned int i;
	size_t off;

	pp_spin_lock(&dbg->lock);
	m = dbg_find(dbg, addr);
	if (m == NULL) {
		reason = PP_DMA_FAULT_UNMAPPED;
		/* Use after unmap: name the mapping it was. */
		for (i = 0; i < DBG_GONE; i++)
			if (dbg->gone[i].size != 0 &&
			    addr >= dbg->gone[i].dma &&
			    addr - dbg->gone[i].dma < dbg->gone[i].size)
				site = dbg->gone[i].site;
		goto out;
	}
	site = m->site;
	off = addr - m->dma;
	if (len > m->size - off)
		reason = PP_DMA_FAULT_RANGE;
	else if (m->dir == (to_memory ? DMA_TO_DEVICE : DMA_FROM_DEVICE))
		reason = PP_DMA_FAULT_DIR;
	else if (to_memory && own_any(m->owned, off, len))
		reason = PP_DMA_FAULT_CPU_OWNED;
out:
	pp_spin_unlock(&dbg->lock);
	if (reason != PP_DMA_FAULT_NONE)
		return _pp_dma_report(dev, addr, len, site, reason, true);
	return dbg->real.access(dev, addr, buf, len, to_memory);
}

int
_pp_dma_dbg_init(struct device *dev)
{
	struct dma_dbg *dbg;

	dbg = _pp_zalloc_aligned(sizeof(*dbg), PP_CACHELINE_SIZE);
	if (dbg == NULL)
		return -ENOMEM;
	pp_spin_lock_init(&dbg->lock);
	/* Checks run inside the ops, so the dispatch layer's fast paths
	 * stay as they are on the devices that do not debug. */
	dbg->real = dev->p->ops;
	dev->p->ops.unmap_page = dbg_unmap_op;
	dev->p->ops.sync_single_for_cpu = dbg_sync_for_cpu_op;
	dev->p->ops.sync_single_for_device = dbg_sync_for_device_op;
	if (dev->p->ops.access != NULL)
		dev->p->ops.access = dbg_access_op;
	dev->p->dbg = dbg;
	return 0;
}

/* ------------------------------------------------------------------ */
/* Reports and destroy */

void
_pp_dma_site_str(uintptr_t site, char *buf, size_t len)
{
	const char *file, *slash;
	Dl_info info;

	if (site == 0) {
		snprintf(buf, len, "an unknown site");
		return;
	}
	if (dladdr((void *)site, &info) == 0 || info.dli_fname == NULL) {
		snprintf(buf, len, "%#lx", (unsigned long)site);
		return;
	}
	file = info.dli_fname;
	slash = strrchr(file, '/');
	if (slash != NULL)
		file = slash + 1;
	/* object+offset is what addr2line -e takes; the symbol, when the
	 * object exports one, is for the reader. */
	if (info.dli_sname != NULL && info.dli_saddr != NULL)
		snprintf(buf, len, "%#lx (%s+%#lx, %s+%#lx)",
			 (unsigned long)site, file,
			 (unsigned long)(site - (uintptr_t)info.dli_fbase),
			 info.dli_sname,
			 (unsigned long)(site - (uintptr_t)info.dli_saddr));
	else
		snprintf(buf, len, "%#lx (%s+%#lx)", (unsigned long)site,
			 file,
			 (unsigned long)(site - (uintptr_t)info.dli_fbase));
}

static const char *
dbg_dir_str(enum dma_data_direction dir)
{
	switch (dir) {
	case DMA_BIDIRECTIONAL:
		return "DMA_BIDIRECTIONAL";
	case DMA_TO_DEVICE:
		return "DMA_TO_DEVICE";
	case DMA_FROM_DEVICE:
		return "DMA_FROM_DEVICE";
	default:
		return "DMA_NONE";
	}
}

/* Context: nothing else uses @dev. */
void
_pp_dma_dbg_destroy(struct device *dev)
{
	struct dma_dbg *dbg = dev->p->dbg;
	unsigned long leaked = 0;
	char site[160];
	unsigned int b;

	if (dbg == NULL)
		return;
	for (b = 0; b < DBG_HASH; b++) {
		struct dbg_link *l, *next;

		for (l = dbg->hash[b]; l != NULL; l = next) {
			struct dbg_map *m = l->m;

			next = l->next;
			/* Each mapping once: at its first page's link. */
			if (l != &m->links[0])
				continue;
			if (!(dev->p->flags & PP_DMA_F_QUIET) &&
			    leaked < DBG_LEAKS_SHOWN) {
				_pp_dma_site_str(m->site, site, sizeof(site));
				fprintf(stderr,
					"pagepool: DMA-API debug: device %s "
					"destroyed with mapping %#llx size %zu "
					"%s still live, mapped at %s\n",
					dev->p->name, (unsigned long long)m->dma,
					m->size, dbg_dir_str(m->dir), site);
			}
			leaked++;
		}
	}
	if (leaked > DBG_LEAKS_SHOWN && !(dev->p->flags & PP_DMA_F_QUIET))
		fprintf(stderr,
			"pagepool: DMA-API debug: device %s: %lu more live "
			"mapping(s) not shown\n",
			dev->p->name, leaked - DBG_LEAKS_SHOWN);
	if (leaked != 0 && (dev->p->flags & PP_DMA_F_FATAL))
		abort();
	/* Unlink everything first (a mapping sits in several buckets),
	 * then free each once. */
	for (b = 0; b < DBG_HASH; b++) {
		struct dbg_link *l;

		while ((l = dbg->hash[b]) != NULL) {
			struct dbg_map *m = l->m;

			dbg_remove(dbg, m);
			dbg_free(m);
		}
	}
	_pp_free(dbg);
	dev->p->dbg = NULL;
}
