/* SPDX-License-Identifier: MIT */
/* Description: compile-time proof that our syscall table for the compiler's ABI equals the kernel headers'. */
#include <asm/unistd.h>

#include "syscall-numbers.h"

#ifdef TFD_NR_FROM_SYSTEM_HEADERS
#error "no table of ours for this ABI: it falls back to the system headers"
#endif

#define SAME(ours, kernels) _Static_assert((ours) == (kernels), #ours " != " #kernels)

SAME(TFD_NR_create, __NR_timerfd_create);
/* riscv32 has only the time64 calls. */
#ifdef __NR_timerfd_settime
SAME(TFD_NR_settime, __NR_timerfd_settime);
SAME(TFD_NR_gettime, __NR_timerfd_gettime);
#elif defined(TFD_NR_settime) || defined(TFD_NR_gettime)
#error "our table has 32-bit time calls that this ABI lacks"
#endif
/* The time64 calls exist exactly on the 32-bit ABIs. */
#ifdef __NR_timerfd_settime64
SAME(TFD_NR_settime64, __NR_timerfd_settime64);
SAME(TFD_NR_gettime64, __NR_timerfd_gettime64);
#elif defined(TFD_NR_settime64) || defined(TFD_NR_gettime64)
#error "our table has time64 calls that this ABI lacks"
#endif

int tfd_syscall_numbers_match;
