/* SPDX-License-Identifier: MIT */
/* timerfd syscall numbers of s390x (arch/s390/kernel/syscalls/syscall.tbl). */
/* A 64-bit ABI: the plain calls already take a 64-bit time_t, there are no *_time64 calls. */
#define TFD_NR_create 319
#define TFD_NR_settime 320
#define TFD_NR_gettime 321
