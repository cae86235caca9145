/* SPDX-License-Identifier: MIT */
/*
 * Copyright (c) 2026 The pagepool authors
 *
 * Command-line helpers shared by the tools and benchmarks, so every one of
 * them refuses bad numbers the same way: a message naming the program, the
 * option and the accepted range, and exit status 2.
 */
#ifndef PAGEPOOL_TOOLS_CLI_H
#define PAGEPOOL_TOOLS_CLI_H

/*
 * Parse @arg (decimal, 0x hex or 0 octal) as a number in [@min, @max] for
 * option @opt of program @prog; exit(2) with a message otherwise. Signs
 * are refused: every option here is a count or a mask.
 */
unsigned long long pp_tool_parse_num(const char *prog, const char *opt,
				     const char *arg, unsigned long long min,
				     unsigned long long max);

/*
 * Module-style parameters ("loops=1000000", as insmod and modprobe take
 * them): the value part of @arg if it reads "@key=...", else NULL.
 */
const char *pp_tool_param_value(const char *arg, const char *key);

#endif /* PAGEPOOL_TOOLS_CLI_H */
