/* SPDX-License-Identifier: MIT */
/* Declarations shared by the library's sources and never installed. */
#ifndef TFD_INTERNAL_H
#define TFD_INTERNAL_H

/* Everything is hidden (-fvisibility=hidden) but the public entry points. */
#define TFD_EXPORT __attribute__((visibility("default")))

#include <errno.h>

/*
 * An entry point's slow half, tail-called with the kernel's answer and the
 * entry point's own arguments.  On i386 the first three arguments travel in
 * registers (regparm: eax, edx, ecx), so that the tail call needs no more
 * stack than the entry point got: GCC then makes it a jump and the fast path
 * keeps no frame for it.  The kernel's answer comes first, then the entry
 * point's arguments: of the orders tried, the one with which both GCC's x86_64
 * and i386 code keep nothing on the success path.
 */
#ifdef __i386__
#define TFD_SLOW_HALF __attribute__((noinline, cold, regparm(3)))
#else
#define TFD_SLOW_HALF __attribute__((noinline, cold))
#endif

/* Whether a syscall's result is -errno: the kernel's error range is [-4095, -1] (IS_ERR_VALUE()). */
static inline int
__tfd_is_err(long r)
{
	return __builtin_expect((unsigned long)r > -4096UL, 0);
}

/*
 * Turn a -errno result into -1 with errno set; pass any other result
 * through.  Inline: on the fast path it is one compare.
 */
static inline long
__tfd_ret(long r)
{
	if (__tfd_is_err(r)) {
		errno = (int)-r;
		return -1;
	}
	return r;
}

#endif /* TFD_INTERNAL_H */
