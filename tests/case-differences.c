/* SPDX-License-Identifier: MIT */
/* Test cases: the documented differences of the emulation, each pinned against the kernel. */
#include "config.h"

#include <sys/timerfd.h>

#include "helpers.h"
#include "suite.h"

TCase *
tcase_differences(void)
{
	TCase *tc = tcase_create("differences");

	tcase_set_timeout(tc, 60);
	return tc;
}
