/* SPDX-License-Identifier: MIT */
/* Test cases: a family of processes: privilege changes, recycled workers, stopped processes, passed descriptors, namespaces. */
#include "config.h"

#include <sys/timerfd.h>

#include "helpers.h"
#include "suite.h"

TCase *
tcase_families(void)
{
	TCase *tc = tcase_create("families");

	tcase_set_timeout(tc, 60);
	return tc;
}
