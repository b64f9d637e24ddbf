/* SPDX-License-Identifier: MIT */
/* Declarations shared by the library's sources and never installed. */
#ifndef TFD_INTERNAL_H
#define TFD_INTERNAL_H

/* Everything is hidden (-fvisibility=hidden) but the public entry points. */
#define TFD_EXPORT __attribute__((visibility("default")))

#include <errno.h>

/*
 * Turn a -errno result into -1 with errno set; pass any other result
 * through.  Inline: on the fast path it is one compare.  The kernel's
 * error range is [-4095, -1]; see IS_ERR_VALUE().
 */
static inline long
__tfd_ret(long r)
{
	if (__builtin_expect((unsigned long)r > -4096UL, 0)) {
		errno = (int)-r;
		return -1;
	}
	return r;
}

#endif /* TFD_INTERNAL_H */
