/* SPDX-License-Identifier: MIT */
/* timerfd syscall numbers of the x86_64 ABI (arch/x86/entry/syscalls/syscall_64.tbl). */
/* A 64-bit ABI: the plain calls already take a 64-bit time_t, there are no *_time64 calls. */
#define TFD_NR_create 283
#define TFD_NR_settime 286
#define TFD_NR_gettime 287
