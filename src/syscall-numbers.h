/* SPDX-License-Identifier: MIT */
/* Picks the table of timerfd syscall numbers for the target ABI. */
#ifndef TFD_SYSCALL_NUMBERS_H
#define TFD_SYSCALL_NUMBERS_H

/*
 * Chosen from the compiler's predefined macros rather than by configure, so
 * that CC='gcc -m32', -mx32 or -mabi=n32 gets the right ABI.  Order matters
 * where one ABI's macros are a subset of another's (x32 defines __x86_64__).
 */
#if defined(__x86_64__) && defined(__ILP32__)
#include "syscall-numbers/x32.h"
#elif defined(__x86_64__)
#include "syscall-numbers/x86_64.h"
#elif defined(__i386__)
#include "syscall-numbers/i386.h"
#elif defined(__aarch64__) && defined(__LP64__)
#include "syscall-numbers/asm-generic64.h"
#elif defined(__arm__) && defined(__ARM_EABI__)
#include "syscall-numbers/arm.h"
#elif defined(__riscv) && __riscv_xlen == 64
#include "syscall-numbers/asm-generic64.h"
#elif defined(__riscv) && __riscv_xlen == 32
#include "syscall-numbers/riscv32.h"
#elif defined(__loongarch__) && __loongarch_grlen == 64
#include "syscall-numbers/asm-generic64.h"
#elif defined(__powerpc64__)
#include "syscall-numbers/powerpc64.h"
#elif defined(__powerpc__)
#include "syscall-numbers/powerpc.h"
#elif defined(__s390x__)
#include "syscall-numbers/s390x.h"
#elif defined(__s390__)
#include "syscall-numbers/s390.h"
#elif defined(__mips__) && _MIPS_SIM == _ABIO32
#include "syscall-numbers/mips-o32.h"
#elif defined(__mips__) && _MIPS_SIM == _ABIN32
#include "syscall-numbers/mips-n32.h"
#elif defined(__mips__) && _MIPS_SIM == _ABI64
#include "syscall-numbers/mips-n64.h"
#elif defined(__sparc__) && defined(__arch64__)
#include "syscall-numbers/sparc64.h"
#elif defined(__sparc__)
#include "syscall-numbers/sparc.h"
#elif defined(__m68k__)
#include "syscall-numbers/m68k.h"
#else
#include "syscall-numbers/generic.h"
#endif

/*
 * The calls that take the including program's struct itimerspec, for code that
 * makes them raw (the tests' kernel mirrors, the benchmark): the time64 ones
 * where time_t is 64-bit on a 32-bit ABI (musl, or _TIME_BITS=64).
 */
#ifdef TFD_NR_settime64
#define TFD_NR_settime_its (sizeof(time_t) == 8 ? TFD_NR_settime64 : TFD_NR_settime)
#define TFD_NR_gettime_its (sizeof(time_t) == 8 ? TFD_NR_gettime64 : TFD_NR_gettime)
#else
#define TFD_NR_settime_its TFD_NR_settime
#define TFD_NR_gettime_its TFD_NR_gettime
#endif

#endif /* TFD_SYSCALL_NUMBERS_H */
