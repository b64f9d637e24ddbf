/* SPDX-License-Identifier: MIT */
/* How slow a test run may be (tests/slowness.h). */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "slowness.h"

bool
under_qemu(void)
{
	const char *runner = getenv("TEST_RUNNER");

	return runner != NULL && strstr(runner, "qemu") != NULL;
}

bool
under_valgrind(void)
{
	const char *preload = getenv("LD_PRELOAD");

	return preload != NULL && strstr(preload, "vgpreload") != NULL;
}

int
slowness(void)
{
	const char *multiplier = getenv("CK_TIMEOUT_MULTIPLIER"), *wrapper = getenv("TEST_WRAPPER");
	int m = multiplier ? atoi(multiplier) : 0;

	if ((under_qemu() || under_valgrind() || (wrapper && *wrapper)) && m < 10)
		m = 10;
	return m > 1 ? m : 1;
}
