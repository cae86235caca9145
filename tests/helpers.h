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

#endif /* PAGEPOOL_TESTS_HELPERS_H */
