/* SPDX-License-Identifier: MIT */
/*
 * Copyright (c) 2026 The pagepool authors
 *
 * Shared by the test programs: exit codes the runner understands and a
 * CHECK() that names the failing expression and line. One program per
 * feature; each exits T_EXIT_PASS, T_EXIT_FAIL or T_EXIT_SKIP.
 */
#ifndef PAGEPOOL_TESTS_HELPERS_H
#define PAGEPOOL_TESTS_HELPERS_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define T_EXIT_PASS 0
#define T_EXIT_FAIL 1
#define T_EXIT_SKIP 77

#define CHECK(cond)                                                          \
	do {                                                                 \
		if (!(cond)) {                                               \
			fprintf(stderr, "%s:%d: CHECK failed: %s\n",         \
				__FILE__, __LINE__, #cond);                  \
			exit(T_EXIT_FAIL);                                   \
		}                                                            \
	} while (0)

#define CHECK_EQ(a, b)                                                       \
	do {                                                                 \
		long long __a = (long long)(a), __b = (long long)(b);        \
		if (__a != __b) {                                            \
			fprintf(stderr,                                      \
				"%s:%d: CHECK failed: %s == %s (%lld != %lld)\n", \
				__FILE__, __LINE__, #a, #b, __a, __b);       \
			exit(T_EXIT_FAIL);                                   \
		}                                                            \
	} while (0)

/*
 * Sanitizer builds run several times slower; stress tests scale their
 * iteration counts by this so every build finishes in its time budget.
 */
#if defined(__SANITIZE_THREAD__) || defined(__SANITIZE_ADDRESS__)
#define T_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer) || __has_feature(address_sanitizer)
#define T_SANITIZED 1
#endif
#endif
#ifndef T_SANITIZED
#define T_SANITIZED 0
#endif

static inline long
t_scale(long normal)
{
	return T_SANITIZED ? normal / 10 : normal;
}

/*
 * Capture what the library prints on stderr between t_capture_start() and
 * t_capture_expect(), which restores stderr and fails the test unless the
 * captured text contains @want. One capture at a time, single-threaded.
 */
static FILE *t_capture_file;
static int t_capture_saved_fd = -1;

static inline void
t_capture_start(void)
{
	t_capture_file = tmpfile();
	CHECK(t_capture_file != NULL);
	fflush(stderr);
	t_capture_saved_fd = dup(2);
	CHECK(t_capture_saved_fd >= 0);
	CHECK(dup2(fileno(t_capture_file), 2) == 2);
}

static inline void
t_capture_expect(const char *want)
{
	char buf[4096];
	size_t len;

	fflush(stderr);
	CHECK(dup2(t_capture_saved_fd, 2) == 2);
	close(t_capture_saved_fd);
	t_capture_saved_fd = -1;
	rewind(t_capture_file);
	len = fread(buf, 1, sizeof(buf) - 1, t_capture_file);
	buf[len] = '\0';
	fclose(t_capture_file);
	t_capture_file = NULL;
	if (strstr(buf, want) == NULL) {
		fprintf(stderr, "want \"%s\" in \"%s\"\n", want, buf);
		CHECK(0);
	}
}

#endif /* PAGEPOOL_TESTS_HELPERS_H */
