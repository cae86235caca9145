/* SPDX-License-Identifier: MIT */
/*
 * Copyright (c) 2026 The pagepool authors
 *
 * libFuzzer harness for the DMA layer and the IOMMU model: each input is a
 * sequence of maps, unmaps, syncs and device reads and writes on an IOMMU
 * model with a small IOVA space (so it runs out, and reuses addresses after
 * its quarantine) and on the identity device, with valid and invalid
 * arguments, followed by unbind and a fresh device. A reference list of
 * the live mappings predicts every outcome: a call inside a live mapping in
 * an allowed direction succeeds and moves exactly the bytes asked, anything
 * else on the IOMMU is a fault that changes no memory and no mapping, a bad
 * argument is -EINVAL and not a fault, and after unbind map is ENODEV and
 * everything else a fault. The device counters (maps, unmaps, faults, live
 * mappings, unbind_live_mappings) must agree with the reference after
 * every call. Live mappings never share an IOVA page, and keep the offset
 * of their virtual address in the page.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pagepool/dma.h>

#define ARENA		(64 * 1024)
#define MAX_MAPS	64
#define IOVA_PAGES	32

struct mapping {
	dma_addr_t dma;
	unsigned char *va;
	size_t size;
	enum dma_data_direction dir;
};

struct ref_dev {
	struct device *dev;
	bool iommu;
	bool unbound;
	struct mapping maps[MAX_MAPS];
	int nmaps;
	uint64_t nmapped, nunmapped, nfaults;
};

static unsigned char arena[ARENA] __attribute__((aligned(4096)));
static unsigned char shadow[ARENA];
static struct ref_dev devs[2];

static void
fail(const char *why)
{
	fprintf(stderr, "dma_fuzz: %s\n", why);
	__builtin_trap();
}

static struct device *
make_dev(bool iommu)
{
	struct device *dev;

	if (iommu) {
		PP_OPTS(pp_iommu_opts, o, .flags = PP_DMA_F_QUIET,
			.iova_size = IOVA_PAGES * PP_IOMMU_PAGE_SIZE);

		dev = pp_iommu_create(&o);
	} else {
		PP_OPTS(pp_dma_dev_opts, o, .flags = PP_DMA_F_QUIET);

		dev = pp_dma_identity_create(&o);
	}
	if (dev == NULL)
		fail("device create");
	return dev;
}

static void
check_stats(struct ref_dev *d)
{
	struct pp_dma_stats st = { .sz = sizeof(st) };

	if (pp_dma_dev_get_stats(d->dev, &st) != 0)
		fail("get_stats");
	if (st.maps != d->nmapped || st.unmaps != d->nunmapped ||
	    st.faults != d->nfaults ||
	    st.live_mappings != (uint64_t)d->nmaps ||
	    (st.unbound != 0) != d->unbound)
		fail("device counters disagree with the reference");
	if (memcmp(arena, shadow, sizeof(arena)) != 0)
		fail("memory changed behind the reference");
}

/* The live mapping covering [addr, addr + len), or NULL. */
static struct mapping *
covering(struct ref_dev *d, dma_addr_t addr, size_t len)
{
	int i;

	for (i = 0; i < d->nmaps; i++) {
		struct mapping *m = &d->maps[i];

		if (addr >= m->dma && len <= m->size &&
		    addr - m->dma <= m->size - len)
			return m;
	}
	return NULL;
}

static void
expect(struct ref_dev *d, int ret, bool ok)
{
	if (ok) {
		if (ret != 0)
			fail("a valid call failed");
		return;
	}
	if (ret != -EFAULT)
		fail("an invalid call was not a fault");
	d->nfaults++;
}

static void
do_map(struct ref_dev *d, uint32_t off, uint32_t len,
       enum dma_data_direction dir,
       unsigned long attrs)
{
	struct mapping *m;
	dma_addr_t a;
	int i;

	off %= ARENA;
	len = 1 + len % (ARENA - off);
	errno = 0;
	a = pp_dma_map(d->dev, arena + off, len, dir, attrs);
	if (d->unbound) {
		if (a != DMA_MAPPING_ERROR || errno != ENODEV)
			fail("map after unbind did not fail with ENODEV");
		return;
	}
	if (a == DMA_MAPPING_ERROR) {
		/* Only the IOMMU's small IOVA space runs out. */
		if (!d->iommu || errno != ENOMEM)
			fail("map failed");
		return;
	}
	if (d->nmaps == MAX_MAPS) {
		if (pp_dma_unmap(d->dev, a, len, dir, attrs) != 0)
			fail("unmap of a fresh mapping");
		d->nmapped++;
		d->nunmapped++;
		return;
	}
	if (d->iommu) {
		uint64_t first = a >> PP_IOMMU_PAGE_SHIFT;
		uint64_t last = (a + len - 1) >> PP_IOMMU_PAGE_SHIFT;

		if ((a & (PP_IOMMU_PAGE_SIZE - 1)) !=
		    ((uintptr_t)(arena + off) & (PP_IOMMU_PAGE_SIZE - 1)))
			fail("IOVA lost the offset in the page");
		for (i = 0; i < d->nmaps; i++) {
			m = &d->maps[i];
			if (first <= (m->dma + m->size - 1) >> PP_IOMMU_PAGE_SHIFT &&
			    m->dma >> PP_IOMMU_PAGE_SHIFT <= last)
				fail("two live mappings share an IOVA page");
		}
	} else if (a != (dma_addr_t)(uintptr_t)(arena + off)) {
		fail("identity address is not the virtual address");
	}
	d->maps[d->nmaps++] = (struct mapping){ a, arena + off, len,
						(enum dma_data_direction)dir };
	d->nmapped++;
}

static bool
dev_may(enum dma_data_direction mdir, bool write)
{
	return mdir == DMA_BIDIRECTIONAL ||
	       mdir == (write ? DMA_FROM_DEVICE : DMA_TO_DEVICE);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t i;
	int k;

	for (k = 0; k < 2; k++) {
		memset(&devs[k], 0, sizeof(devs[k]));
		devs[k].iommu = k == 0;
		devs[k].dev = make_dev(k == 0);
	}
	for (i = 0; i < ARENA; i++)
		arena[i] = shadow[i] = (unsigned char)(i * 7);
	for (i = 0; i + 4 < size; i += 5) {
		uint8_t op = data[i];
		uint32_t a1 = (uint32_t)data[i + 1] << 8 | data[i + 2];
		uint32_t a2 = (uint32_t)data[i + 3] << 8 | data[i + 4];
		/* The identity device sees only valid calls: it has no table
		 * and would do whatever a wrong address says. */
		struct ref_dev *d = &devs[(op & 0x80) ? 1 : 0];
		enum dma_data_direction dir =
			(enum dma_data_direction)((a2 >> 14) % 3);
		struct mapping *m = d->nmaps ? &d->maps[a1 % d->nmaps] : NULL;
		bool bad = d->iommu && (op & 0x40);
		size_t off, len;
		int ret;

		switch (op % 8) {
		case 0:
		case 1:
			do_map(d, a1 * 3, a2 & 0x1fff, dir,
			       op & 8 ? DMA_ATTR_SKIP_CPU_SYNC : 0);
			break;
		case 2:	/* unmap: as mapped, or not quite */
			if (m == NULL) {
				if (d->unbound)
					expect(d, pp_dma_unmap(d->dev, 0x1000, 1,
							       DMA_TO_DEVICE, 0),
					       false);
				break;
			}
			if (bad && (a2 & 1)) {
				/* Another size or direction: a fault, and
				 * the mapping stays. */
				expect(d, pp_dma_unmap(d->dev, m->dma,
						       m->size + 1 + a2 % 7,
						       m->dir, 0), false);
				break;
			}
			if (bad) {
				expect(d, pp_dma_unmap(d->dev, m->dma,
						       m->size,
						       (enum dma_data_direction)(
							       (m->dir + 1) % 3),
						       0),
				       false);
				break;
			}
			ret = pp_dma_unmap(d->dev, m->dma, m->size, m->dir,
					   DMA_ATTR_SKIP_CPU_SYNC);
			expect(d, ret, !d->unbound);
			if (!d->unbound) {
				d->nunmapped++;
				*m = d->maps[--d->nmaps];
			}
			break;
		case 3:	/* unmap of an address no mapping starts at */
			if (!d->iommu && !d->unbound)
				break;
			{
				dma_addr_t a = (m ? m->dma : 0x100000000ULL) +
					       1 + a2 % 5000;
				bool starts = false;

				for (k = 0; k < d->nmaps; k++)
					starts |= d->maps[k].dma == a;
				if (starts)
					break;
				expect(d, pp_dma_unmap(d->dev, a, 1,
						       DMA_BIDIRECTIONAL, 0),
				       false);
			}
			break;
		case 4:	/* sync a range, inside or (IOMMU) around one */
		case 5: {
			struct mapping *c;
			dma_addr_t a;
			bool ok;

			if (m == NULL)
				break;
			off = a2 % (m->size + (bad ? 64 : 0));
			len = off < m->size ? a1 % (m->size - off + 1) : 1;
			if (bad && (a1 & 1))
				len += 1 + a1 % 32;
			/* Size 0 checks only the address, which the model
			 * does by IOVA page: keep that to valid calls. */
			if (bad && len == 0)
				len = 1;
			if (!bad && m->dir != DMA_BIDIRECTIONAL)
				dir = m->dir;
			a = m->dma;
			c = covering(d, a + off, len ? len : 1);
			ok = !d->unbound && c != NULL &&
			     (c->dir == DMA_BIDIRECTIONAL || c->dir == dir);
			if (!bad && !ok && !d->unbound)
				break;
			ret = op % 8 == 4
				? pp_dma_sync_for_device(d->dev, a, off, len,
							 dir)
				: pp_dma_sync_for_cpu(d->dev, a, off, len, dir);
			expect(d, ret, ok);
			break;
		}
		case 6:	/* the device writes */
		case 7: {	/* or reads */
			unsigned char buf[512];
			bool write = op % 8 == 6, ok;
			struct mapping *c;
			dma_addr_t a;

			if (m == NULL)
				break;
			off = a2 % (m->size + (bad ? 64 : 0));
			len = 1 + a1 % sizeof(buf);
			if (!bad && off + len > m->size) {
				if (off >= m->size)
					break;
				len = m->size - off;
			}
			a = m->dma + off;
			c = covering(d, a, len);
			ok = !d->unbound && c != NULL && dev_may(c->dir, write);
			if (!bad && !ok && !d->unbound)
				break;
			memset(buf, (int)(op ^ a1), sizeof(buf));
			if (write) {
				ret = pp_dma_dev_write(d->dev, a, buf, len);
				if (ok && ret == 0)
					memcpy(shadow + (c->va - arena) +
						       (a - c->dma),
					       buf, len);
			} else {
				ret = pp_dma_dev_read(d->dev, a, buf, len);
				if (ok && ret == 0 &&
				    memcmp(buf, c->va + (a - c->dma), len) != 0)
					fail("device read other bytes");
			}
			expect(d, ret, ok);
			break;
		}
		}
		/* Bad arguments: refused, not faults. */
		if ((op & 0x38) == 0x38) {
			if (pp_dma_map(d->dev, arena, 0, DMA_TO_DEVICE, 0) !=
				    DMA_MAPPING_ERROR ||
			    pp_dma_map(d->dev, arena, 1, DMA_NONE, 0) !=
				    DMA_MAPPING_ERROR ||
			    pp_dma_map(d->dev, arena, 1, DMA_TO_DEVICE,
				       1UL << 20) != DMA_MAPPING_ERROR ||
			    pp_dma_sync_for_cpu(d->dev, 0x1000, 0, 1,
						DMA_NONE) != -EINVAL)
				fail("bad arguments accepted");
		}
		/* Unbind, then start over with a fresh device. */
		if (op == 0xff || op == 0x7f) {
			if (!d->unbound) {
				struct pp_dma_stats st = { .sz = sizeof(st) };

				if (pp_dma_dev_unbind(d->dev) != 0)
					fail("unbind");
				d->unbound = true;
				pp_dma_dev_get_stats(d->dev, &st);
				if (st.unbind_live_mappings != (uint64_t)d->nmaps)
					fail("unbind_live_mappings is not the live count");
			} else {
				if (pp_dma_dev_unbind(d->dev) != -EALREADY)
					fail("second unbind");
				pp_dma_dev_destroy(d->dev);
				memset(d, 0, sizeof(*d));
				d->iommu = d == &devs[0];
				d->dev = make_dev(d->iommu);
			}
		}
		check_stats(d);
	}
	for (k = 0; k < 2; k++) {
		struct ref_dev *d = &devs[k];

		while (!d->unbound && d->nmaps > 0) {
			struct mapping *m = &d->maps[--d->nmaps];

			if (pp_dma_unmap(d->dev, m->dma, m->size, m->dir,
					 DMA_ATTR_SKIP_CPU_SYNC) != 0)
				fail("final unmap");
			d->nunmapped++;
		}
		check_stats(d);
		pp_dma_dev_destroy(d->dev);
	}
	return 0;
}
