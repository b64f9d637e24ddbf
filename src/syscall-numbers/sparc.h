/* SPDX-License-Identifier: MIT */
/* timerfd syscall numbers of 32-bit sparc (arch/sparc/kernel/syscalls/syscall.tbl). */
#define TFD_NR_create 312
#define TFD_NR_settime 315
#define TFD_NR_gettime 316
#define TFD_NR_gettime64 410
#define TFD_NR_settime64 411
