/* SPDX-License-Identifier: MIT */
/* The one place where an internal -errno result becomes -1 and errno. */
#include "config.h"

#include <errno.h>

#include "internal.h"

long
__tfd_ret(long r)
{
	/* The kernel's error range is [-4095, -1]; see IS_ERR_VALUE(). */
	if ((unsigned long)r > -4096UL) {
		errno = (int)-r;
		return -1;
	}
	return r;
}
