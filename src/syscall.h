/* SPDX-License-Identifier: MIT */
/* The internal syscall layer: the ABI's timerfd numbers and its __tfd_syscallN() stubs. */
#ifndef TFD_SYSCALL_H
#define TFD_SYSCALL_H

#ifdef TFD_TEST_SYSCALLS
/* Unit tests put a simulated kernel in place of the real syscall layer. */
#include TFD_TEST_SYSCALLS
#else
#include "syscall-numbers.h"

/*
 * Each stub header defines __tfd_syscall2() and __tfd_syscall4(), returning
 * the result or -errno, and names itself in TFD_SYSCALL_STUB.  Picked from
 * the compiler's macros; configure --disable-asm-stubs sets
 * TFD_GENERIC_SYSCALL to force syscall(2).
 */
#if defined(TFD_GENERIC_SYSCALL)
#include "arch/generic/syscall.h"
#elif defined(__x86_64__)
#include "arch/x86_64/syscall.h"
#elif defined(__i386__)
#include "arch/i386/syscall.h"
#elif defined(__aarch64__) && defined(__LP64__)
#include "arch/aarch64/syscall.h"
#elif defined(__arm__) && defined(__ARM_EABI__)
#include "arch/arm/syscall.h"
#elif defined(__riscv)
#include "arch/riscv/syscall.h"
#elif defined(__powerpc__)
#include "arch/powerpc/syscall.h"
#elif defined(__s390x__)
#include "arch/s390x/syscall.h"
#elif defined(__mips__)
#include "arch/mips/syscall.h"
#else
#include "arch/generic/syscall.h"
#endif
#endif /* TFD_TEST_SYSCALLS */

#endif /* TFD_SYSCALL_H */
