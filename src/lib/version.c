/* SPDX-License-Identifier: MIT */
/*
 * Copyright (c) 2026 The pagepool authors
 *
 * The loaded library's version, so a program can tell it from the headers
 * it was built with.
 */
#include <pagepool/version.h>

const char *
pp_version(void)
{
	return PAGEPOOL_VERSION;
}
