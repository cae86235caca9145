/* SPDX-License-Identifier: MIT */
/*
 * Copyright (c) 2026 The pagepool authors
 *
 * Number and module-parameter parsing for the tools' options (see cli.h).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

unsigned long long
pp_tool_parse_num(const char *prog, const char *opt, const char *arg,
		  unsigned long long min, unsigned long long max)
{
	unsigned long long v;
	char *end;

	errno = 0;
	v = strtoull(arg, &end, 0);
	if (errno != 0 || end == arg || *end != '\0' || arg[0] == '-' ||
	    arg[0] == '+' || v < min || v > max) {
		fprintf(stderr, "%s: %s: '%s' is not a number in %llu..%llu\n",
			prog, opt, arg, min, max);
		exit(2);
	}
	return v;
}

const char *
pp_tool_param_value(const char *arg, const char *key)
{
	size_t n = strlen(key);

	if (strncmp(arg, key, n) != 0 || arg[n] != '=')
		return NULL;
	return arg + n + 1;
}
