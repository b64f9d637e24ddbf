/* SPDX-License-Identifier: MIT */
/* timerfd syscall numbers of sparc64 (arch/sparc/kernel/syscalls/syscall.tbl). */
/* A 64-bit ABI: the plain calls already take a 64-bit time_t, there are no *_time64 calls. */
#define TFD_NR_create 312
#define TFD_NR_settime 315
#define TFD_NR_gettime 316
