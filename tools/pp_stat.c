/* SPDX-License-Identifier: MIT */
/*
 * Copyright (c) 2026 The pagepool authors
 *
 * pp-stat: the pools of a running process that set PAGEPOOL_STATS=1, read
 * from the file it publishes (/dev/shm/pagepool.<pid>, layout in
 * src/lib/stats_shm.h): the kernel's page-pool-get fields and
 * page-pool-stats-get counters, as a table refreshing like top, or as
 * JSON in the shape of the kernel's netlink replies (ynl --family netdev
 * --dump page-pool-get / page-pool-stats-get), so scripts written for the
 * kernel's can be adapted. A pool destroyed with pages in flight shows as
 * detached, and as stalled once that lasts longer than its
 * defer_warn_ms; the pools of a process that has exited are gone.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "lib/stats_shm.h"

static const char *const stat_names[PP_SHM_NR_STATS] = {
	"alloc-fast", "alloc-slow", "alloc-slow-high-order", "alloc-empty",
	"alloc-refill", "alloc-waive", "recycle-cached", "recycle-cache-full",
	"recycle-ring", "recycle-ring-full", "recycle-released-refcnt",
};
static const char *const stat_heads[PP_SHM_NR_STATS] = {
	"FAST", "SLOW", "SLOW_HO", "EMPTY", "REFILL", "WAIVE", "CACHED",
	"C_FULL", "RING", "R_FULL", "RELEASED",
};

static void
usage(FILE *f)
{
	fprintf(f,
		"Usage: pp-stat [options] PID\n"
		"The page_pools of process PID, which runs with PAGEPOOL_STATS=1.\n\n"
		"  -d, --delay MS        refresh period of the table (default 1000)\n"
		"  -n, --iterations N    stop after N tables (default: until the\n"
		"                        process exits)\n"
		"  -1, --once            one table, no screen clearing\n"
		"  -j, --json            one JSON object: both dumps below, by name\n"
		"      --dump NAME       the JSON list of page-pool-get or\n"
		"                        page-pool-stats-get alone\n"
		"  -h, --help            this text\n");
}

/* Is @pid the process that created the file? */
static bool
alive(long pid, uint64_t start_time)
{
	char path[64], buf[1024], *p;
	unsigned long long start = 0;
	FILE *f;
	size_t n;
	int field;

	if (kill((pid_t)pid, 0) != 0 && errno != EPERM)
		return false;
	if (start_time == 0)
		return true;
	snprintf(path, sizeof(path), "/proc/%ld/stat", pid);
	f = fopen(path, "r");
	if (f == NULL)
		return false;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	p = strrchr(buf, ')');
	for (field = 2; field < 22 && p != NULL; field++)
		p = strchr(p + 1, ' ');
	if (p != NULL)
		start = strtoull(p + 1, NULL, 10);
	return start == start_time;
}

/*
 * The file @name of @pid is not a live view this pp-stat reads: remove it
 * if its process is gone (left by a dead process of any version), and
 * say which. Returns the exit status, 1.
 */
static int
unusable_view(long pid, const char *name)
{
	if (kill((pid_t)pid, 0) != 0 && errno == ESRCH) {
		shm_unlink(name);
		fprintf(stderr, "pp-stat: process %ld has exited; "
			"its pools are gone\n", pid);
		return 1;
	}
	fprintf(stderr, "pp-stat: /dev/shm%s is not a pagepool live "
		"view of this version\n", name);
	return 1;
}

static uint64_t
boottime_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_BOOTTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* A copy of one slot, consistent unless the publisher kept rewriting it;
 * then the last try, whose counters are each whole and monotonic. */
static void
read_slot(const struct pp_shm_pool *s, struct pp_shm_pool *out)
{
	int tries;

	for (tries = 0; tries < 16; tries++) {
		/* A1: pairs with release W2 in the publisher's
		 * publish_slot(): the fields of the pass that ended with
		 * this count are visible. */
		uint32_t seq = __atomic_load_n(&s->seq, __ATOMIC_ACQUIRE);
		unsigned int k;

		out->state = __atomic_load_n(&s->state, __ATOMIC_RELAXED);
		out->id = __atomic_load_n(&s->id, __ATOMIC_RELAXED);
		out->nid = __atomic_load_n(&s->nid, __ATOMIC_RELAXED);
		out->order = __atomic_load_n(&s->order, __ATOMIC_RELAXED);
		out->ring_size = __atomic_load_n(&s->ring_size,
						 __ATOMIC_RELAXED);
		out->inflight = __atomic_load_n(&s->inflight, __ATOMIC_RELAXED);
		out->inflight_mem = __atomic_load_n(&s->inflight_mem,
						    __ATOMIC_RELAXED);
		out->detach_time = __atomic_load_n(&s->detach_time,
						   __ATOMIC_RELAXED);
		out->detach_ms = __atomic_load_n(&s->detach_ms,
						 __ATOMIC_RELAXED);
		out->defer_warn_ms = __atomic_load_n(&s->defer_warn_ms,
						     __ATOMIC_RELAXED);
		for (k = 0; k < PP_SHM_NR_STATS; k++)
			out->stats[k] = __atomic_load_n(&s->stats[k],
							__ATOMIC_RELAXED);
		/* F1: pairs with the publisher's release fence after W1: if
		 * any field load above saw a write of a later pass, the
		 * count below sees that pass's odd count. */
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		if (!(seq & 1) &&
		    __atomic_load_n(&s->seq, __ATOMIC_RELAXED) == seq)
			return;
	}
}

static bool
stalled(const struct pp_shm_pool *p, uint64_t now)
{
	return p->state == PP_SHM_DETACHED && p->inflight > 0 &&
	       now - p->detach_ms >= p->defer_warn_ms;
}

static const char *
state_name(const struct pp_shm_pool *p, uint64_t now)
{
	if (p->state != PP_SHM_DETACHED)
		return "live";
	return stalled(p, now) ? "STALLED" : "detached";
}

/* Snapshot the live slots into @out; returns how many. */
static unsigned int
snapshot(const struct pp_shm_header *h, struct pp_shm_pool *out)
{
	unsigned int i, n = 0;

	for (i = 0; i < PP_SHM_SLOTS; i++) {
		if (__atomic_load_n(&h->pool[i].state, __ATOMIC_RELAXED) ==
		    PP_SHM_FREE)
			continue;
		read_slot(&h->pool[i], &out[n]);
		if (out[n].state != PP_SHM_FREE)
			n++;
	}
	return n;
}

static void
print_table(const struct pp_shm_header *h, long pid, bool clear)
{
	static struct pp_shm_pool pools[PP_SHM_SLOTS];
	uint64_t now = boottime_ms(), upd;
	unsigned int n = snapshot(h, pools), i, k;

	upd = __atomic_load_n(&h->updated_ms, __ATOMIC_RELAXED);
	if (clear)
		fputs("\033[H\033[2J", stdout);
	printf("pagepool pid %ld: %u pools, updated %llu ms ago "
	       "(every %llu ms)%s\n\n",
	       pid, n, (unsigned long long)(upd && now > upd ? now - upd : 0),
	       (unsigned long long)h->period_ms,
	       __atomic_load_n(&h->dropped, __ATOMIC_RELAXED) ?
		       ", more pools than slots: not all shown" : "");
	printf("%5s %4s %5s %5s %-8s %8s %10s %8s", "ID", "NID", "ORDER",
	       "RING", "STATE", "INFLIGHT", "INFL_MEM", "DETACHED");
	for (k = 0; k < PP_SHM_NR_STATS; k++)
		printf(" %10s", stat_heads[k]);
	putchar('\n');
	for (i = 0; i < n; i++) {
		const struct pp_shm_pool *p = &pools[i];
		char det[24] = "-";

		if (p->state == PP_SHM_DETACHED)
			snprintf(det, sizeof(det), "%llus",
				 (unsigned long long)(now - p->detach_ms) /
					 1000);
		printf("%5u %4d %5u %5u %-8s %8lld %10llu %8s", p->id, p->nid,
		       p->order, p->ring_size, state_name(p, now),
		       (long long)p->inflight,
		       (unsigned long long)p->inflight_mem, det);
		for (k = 0; k < PP_SHM_NR_STATS; k++)
			printf(" %10llu", (unsigned long long)p->stats[k]);
		putchar('\n');
	}
	printf("\n%4s %8s %10s %10s  %s\n", "NODE", "REGIONS", "PAGES",
	       "FREE", "FREE BLOCKS BY ORDER (0..10)");
	for (i = 0; i < PP_SHM_NODES; i++) {
		const struct pp_shm_zone *z = &h->zone[i];

		if (__atomic_load_n(&z->nid, __ATOMIC_RELAXED) < 0)
			continue;
		printf("%4d %8u %10llu %10llu ", z->nid,
		       __atomic_load_n(&z->regions, __ATOMIC_RELAXED),
		       (unsigned long long)__atomic_load_n(&z->managed_pages,
							   __ATOMIC_RELAXED),
		       (unsigned long long)__atomic_load_n(&z->free_pages,
							   __ATOMIC_RELAXED));
		for (k = 0; k < PP_SHM_ORDERS; k++)
			printf(" %llu", (unsigned long long)__atomic_load_n(
						&z->nr_free[k], __ATOMIC_RELAXED));
		putchar('\n');
	}
	printf("bad pages (freed behind a pool): %llu\n",
	       (unsigned long long)__atomic_load_n(&h->bad_pages,
						   __ATOMIC_RELAXED));
	fflush(stdout);
}

/* The default page allocator, per node. */
static void
json_allocator(const struct pp_shm_header *h)
{
	unsigned int i, k, n = 0;

	printf("{\"bad-pages\": %llu, \"zones\": [",
	       (unsigned long long)__atomic_load_n(&h->bad_pages,
						   __ATOMIC_RELAXED));
	for (i = 0; i < PP_SHM_NODES; i++) {
		const struct pp_shm_zone *z = &h->zone[i];

		if (__atomic_load_n(&z->nid, __ATOMIC_RELAXED) < 0)
			continue;
		printf("%s{\"nid\": %d, \"regions\": %u, "
		       "\"managed-pages\": %llu, \"free-pages\": %llu, "
		       "\"free-blocks\": [",
		       n++ ? ", " : "", z->nid,
		       __atomic_load_n(&z->regions, __ATOMIC_RELAXED),
		       (unsigned long long)__atomic_load_n(&z->managed_pages,
							   __ATOMIC_RELAXED),
		       (unsigned long long)__atomic_load_n(&z->free_pages,
							   __ATOMIC_RELAXED));
		for (k = 0; k < PP_SHM_ORDERS; k++)
			printf("%s%llu", k ? ", " : "",
			       (unsigned long long)__atomic_load_n(
				       &z->nr_free[k], __ATOMIC_RELAXED));
		printf("]}");
	}
	printf("]}");
}

/* The kernel's page-pool-get reply: no netdev in userspace, so ifindex
 * and napi-id are absent, as the kernel leaves them out for a pool
 * without one; detach-time only once detached. */
static void
json_get(const struct pp_shm_pool *pools, unsigned int n)
{
	unsigned int i;

	putchar('[');
	for (i = 0; i < n; i++) {
		const struct pp_shm_pool *p = &pools[i];

		printf("%s{\"id\": %u, \"inflight\": %lld, "
		       "\"inflight-mem\": %llu",
		       i ? ", " : "", p->id, (long long)p->inflight,
		       (unsigned long long)p->inflight_mem);
		if (p->state == PP_SHM_DETACHED)
			printf(", \"detach-time\": %llu",
			       (unsigned long long)p->detach_time);
		putchar('}');
	}
	putchar(']');
}

static void
json_stats(const struct pp_shm_pool *pools, unsigned int n)
{
	unsigned int i, k;

	putchar('[');
	for (i = 0; i < n; i++) {
		printf("%s{\"info\": {\"id\": %u}", i ? ", " : "",
		       pools[i].id);
		for (k = 0; k < PP_SHM_NR_STATS; k++)
			printf(", \"%s\": %llu", stat_names[k],
			       (unsigned long long)pools[i].stats[k]);
		putchar('}');
	}
	putchar(']');
}

/* pagepool's own view of each pool, beside the kernel-shaped lists. */
static void
json_pagepool(const struct pp_shm_pool *pools, unsigned int n)
{
	uint64_t now = boottime_ms();
	unsigned int i;

	putchar('[');
	for (i = 0; i < n; i++) {
		const struct pp_shm_pool *p = &pools[i];

		printf("%s{\"id\": %u, \"state\": \"%s\", \"nid\": %d, "
		       "\"order\": %u, \"ring-size\": %u",
		       i ? ", " : "", p->id,
		       p->state == PP_SHM_DETACHED ?
			       (stalled(p, now) ? "stalled" : "detached") :
			       "live",
		       p->nid, p->order, p->ring_size);
		if (p->state == PP_SHM_DETACHED)
			printf(", \"detached-ms\": %llu",
			       (unsigned long long)(now - p->detach_ms));
		putchar('}');
	}
	putchar(']');
}

int
main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "delay", required_argument, NULL, 'd' },
		{ "iterations", required_argument, NULL, 'n' },
		{ "once", no_argument, NULL, '1' },
		{ "json", no_argument, NULL, 'j' },
		{ "dump", required_argument, NULL, 'D' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	static struct pp_shm_pool pools[PP_SHM_SLOTS];
	unsigned long long delay_ms = 1000, iters = 0, i;
	const char *dump = NULL;
	bool json = false, once = false;
	const struct pp_shm_header *h;
	char name[64];
	struct stat sb;
	long pid;
	int c, fd;

	while ((c = getopt_long(argc, argv, "d:n:1jh", opts, NULL)) != -1) {
		switch (c) {
		case 'd':
			delay_ms = pp_tool_parse_num("pp-stat", "--delay",
						     optarg, 10, 3600000);
			break;
		case 'n':
			iters = pp_tool_parse_num("pp-stat", "--iterations",
						  optarg, 1, 1ULL << 32);
			break;
		case '1':
			once = true;
			break;
		case 'j':
			json = true;
			break;
		case 'D':
			if (strcmp(optarg, "page-pool-get") != 0 &&
			    strcmp(optarg, "page-pool-stats-get") != 0) {
				fprintf(stderr, "pp-stat: --dump takes "
					"page-pool-get or page-pool-stats-get\n");
				return 2;
			}
			dump = optarg;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind != argc - 1) {
		usage(stderr);
		return 2;
	}
	pid = (long)pp_tool_parse_num("pp-stat", "PID", argv[optind], 1,
				      4194304);

	snprintf(name, sizeof(name), PP_SHM_NAME_FMT, pid);
	fd = shm_open(name, O_RDONLY, 0);
	if (fd < 0) {
		fprintf(stderr, "pp-stat: no pools published by pid %ld (not "
			"running, or not started with PAGEPOOL_STATS=1)\n",
			pid);
		return 1;
	}
	if (fstat(fd, &sb) != 0 || (size_t)sb.st_size < sizeof(*h)) {
		close(fd);
		return unusable_view(pid, name);
	}
	h = mmap(NULL, sizeof(*h), PROT_READ, MAP_SHARED, fd, 0);
	close(fd);
	if (h == MAP_FAILED) {
		perror("pp-stat: mmap");
		return 1;
	}
	/* Acquire: pairs with the publisher's release store of magic. */
	if (__atomic_load_n(&h->magic, __ATOMIC_ACQUIRE) != PP_SHM_MAGIC ||
	    h->version != PP_SHM_VERSION ||
	    h->slot_size != sizeof(struct pp_shm_pool) ||
	    h->nslots != PP_SHM_SLOTS || h->pid != pid) {
		return unusable_view(pid, name);
	}
	if (!alive(pid, h->start_time)) {
		/* Killed before its exit handler ran: the file is the dead
		 * process's, and nobody else will remove it. */
		shm_unlink(name);
		fprintf(stderr, "pp-stat: process %ld has exited; its pools "
			"are gone\n", pid);
		return 1;
	}

	if (json || dump != NULL) {
		unsigned int n = snapshot(h, pools);

		if (dump != NULL && strcmp(dump, "page-pool-get") == 0) {
			json_get(pools, n);
		} else if (dump != NULL) {
			json_stats(pools, n);
		} else {
			printf("{\"pid\": %ld, \"page-pool-get\": ", pid);
			json_get(pools, n);
			printf(", \"page-pool-stats-get\": ");
			json_stats(pools, n);
			printf(", \"pagepool\": ");
			json_pagepool(pools, n);
			printf(", \"allocator\": ");
			json_allocator(h);
			putchar('}');
		}
		putchar('\n');
		return 0;
	}

	if (once)
		iters = 1;
	for (i = 0; iters == 0 || i < iters; i++) {
		struct timespec ts = { (time_t)(delay_ms / 1000),
				       (long)(delay_ms % 1000) * 1000000 };

		if (i > 0)
			nanosleep(&ts, NULL);
		if (!alive(pid, h->start_time)) {
			printf("process %ld has exited; its pools are gone\n",
			       pid);
			return 0;
		}
		print_table(h, pid, !once && isatty(STDOUT_FILENO));
	}
	return 0;
}
