/* SPDX-License-Identifier: MIT */
/*
 * Copyright (c) 2026 The pagepool authors
 *
 * The loaded library reports the version the headers were generated with.
 */
#include <string.h>

#include <pagepool/pagepool.h>

#include "helpers.h"

int
main(void)
{
	char buf[32];

	CHECK(pp_version() != NULL);
	CHECK(strcmp(pp_version(), PAGEPOOL_VERSION) == 0);
	snprintf(buf, sizeof(buf), "%d.%d.%d", PAGEPOOL_VERSION_MAJOR,
		 PAGEPOOL_VERSION_MINOR, PAGEPOOL_VERSION_PATCH);
	CHECK(strcmp(buf, PAGEPOOL_VERSION) == 0);
	return T_EXIT_PASS;
}
