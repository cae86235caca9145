/* SPDX-License-Identifier: MIT */
/*
 * Copyright (c) 2026 The pagepool authors
 *
 * Memory back to the system: the resident set size of the process
 * (/proc/self/statm) at each step of a page_pool's life on the default
 * source - before, with SIZE allocated and touched, after the pool is
 * destroyed and the thread cache drained, one second after that, and after
 * pp_mem_purge() - with the time destroy+drain and the purge took.
 *
 * Usage: bench_mem_purge [-s MIB] [-d DECAY_MS]
 * The decay is set on the default source (pp_mem_source_set_dirty_decay_ms);
 * -1 keeps everything until the purge.
 */
#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include <pagepool/page.h>
#include <pagepool/page_pool.h>

#include "cli.h"

#define PROG "bench_mem_purge"

static uint64_t
now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

static unsigned long
rss_kb(void)
{
	unsigned long size = 0, res = 0;
	FILE *f = fopen("/proc/self/statm", "r");

	if (f == NULL || fscanf(f, "%lu %lu", &size, &res) != 2) {
		fprintf(stderr, PROG ": cannot read /proc/self/statm\n");
		exit(1);
	}
	fclose(f);
	return res * ((unsigned long)sysconf(_SC_PAGESIZE) / 1024);
}

static void
usage(FILE *f)
{
	fprintf(f,
		"Usage: " PROG " [-s MIB] [-d DECAY_MS]\n"
		"RSS of a page_pool's life on the default source.\n"
		"  -s, --size MIB       memory the pool allocates and touches, "
		"4..65536 (default 1024)\n"
		"  -d, --decay MS       dirty decay of the default source, "
		"-1..%ld (default 0)\n"
		"  -h, --help           this text\n",
		PP_DECAY_MS_MAX);
}

int
main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "size", required_argument, NULL, 's' },
		{ "decay", required_argument, NULL, 'd' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct page_pool_params pp = {
		.order = 0,
		.pool_size = 1024,
		.nid = NUMA_NO_NODE,
	};
	unsigned long mib = 1024, base, full, freed, later, purged;
	struct pp_mem_source *def;
	struct page_pool *pool;
	struct page **pages;
	uint64_t t0, t_free, t_purge;
	size_t i, n, len;
	long decay = 0, got;
	int c;

	while ((c = getopt_long(argc, argv, "s:d:h", longopts, NULL)) != -1) {
		switch (c) {
		case 's':
			mib = pp_tool_parse_num(PROG, "--size", optarg, 4,
						65536);
			break;
		case 'd':
			/* -1 (never) is the one negative value: the shared
			 * parser refuses signs. */
			if (strcmp(optarg, "-1") == 0) {
				decay = -1;
			} else if (optarg[0] == '-') {
				fprintf(stderr,
					PROG ": --decay: '%s' is not -1 or a "
					"number in 0..%ld\n",
					optarg, PP_DECAY_MS_MAX);
				return 2;
			} else {
				decay = (long)pp_tool_parse_num(
					PROG, "--decay", optarg, 0,
					PP_DECAY_MS_MAX);
			}
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind != argc) {
		usage(stderr);
		return 2;
	}

	def = pp_mem_source_default();
	if (def == NULL || pp_mem_source_set_dirty_decay_ms(def, decay) != 0) {
		fprintf(stderr, PROG ": cannot set up the default source\n");
		return 1;
	}
	n = (size_t)mib << (20 - PAGE_SHIFT);
	len = n * sizeof(*pages);
	/* Mapped, so freeing it returns it at once (a heap block might stay
	 * resident and be counted against the allocator). */
	pages = mmap(NULL, len, PROT_READ | PROT_WRITE,
		     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (pages == MAP_FAILED) {
		perror(PROG ": mmap");
		return 1;
	}
	munmap(pages, len);
	base = rss_kb();

	pages = mmap(NULL, len, PROT_READ | PROT_WRITE,
		     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	pool = page_pool_create(&pp);
	if (pages == MAP_FAILED || pool == NULL) {
		fprintf(stderr, PROG ": cannot create the pool\n");
		return 1;
	}
	for (i = 0; i < n; i++) {
		pages[i] = page_pool_alloc_pages(pool, GFP_KERNEL);
		if (pages[i] == NULL) {
			fprintf(stderr, PROG ": out of memory after %zu pages\n",
				i);
			return 1;
		}
		memset(page_address(pages[i]), 0xa5, PAGE_SIZE);
	}
	full = rss_kb();
	t0 = now_ns();
	for (i = 0; i < n; i++)
		page_pool_put_full_page(pool, pages[i], false);
	page_pool_destroy(pool);
	pp_thread_cache_drain();
	t_free = now_ns() - t0;
	munmap(pages, len);
	freed = rss_kb();
	sleep(1);
	later = rss_kb();
	t0 = now_ns();
	got = pp_mem_purge(NULL);
	t_purge = now_ns() - t0;
	purged = rss_kb();

	printf("pool of %lu MiB, dirty_decay_ms %ld\n", mib, decay);
	printf("  RSS before:                    %8lu kB\n", base);
	printf("  RSS allocated and touched:     %8lu kB\n", full);
	printf("  RSS after destroy + drain:     %8lu kB  (%.1f ms)\n", freed,
	       t_free / 1e6);
	printf("  RSS 1 s later:                 %8lu kB\n", later);
	printf("  RSS after pp_mem_purge():      %8lu kB  (%ld kB returned, "
	       "%.1f ms)\n",
	       purged, got / 1024, t_purge / 1e6);
	return 0;
}
