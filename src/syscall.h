/* SPDX-License-Identifier: MIT */
/* Picks the syscall stub and the timerfd syscall numbers for the target ABI. */
#ifndef TFD_SYSCALL_H
#define TFD_SYSCALL_H

/*
 * Chosen from the compiler's predefined macros rather than by configure, so
 * that CC='gcc -m32' or an x32 compiler gets the right ABI.  Order matters:
 * x32 also defines __x86_64__.
 */
#if defined(__x86_64__) && defined(__ILP32__)
#include "syscall-numbers/x32.h"
#elif defined(__x86_64__)
#include "syscall-numbers/x86_64.h"
#else
#include "syscall-numbers/generic.h"
#endif

/* TFD_GENERIC_SYSCALL comes from configure --disable-asm-stubs. */
#if defined(TFD_GENERIC_SYSCALL)
#include "arch/generic/syscall.h"
#elif defined(__x86_64__)
#include "arch/x86_64/syscall.h"
#else
#include "arch/generic/syscall.h"
#endif

#endif /* TFD_SYSCALL_H */
