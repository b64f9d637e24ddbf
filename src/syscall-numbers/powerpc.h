/* SPDX-License-Identifier: MIT */
/* timerfd syscall numbers of 32-bit powerpc (arch/powerpc/kernel/syscalls/syscall.tbl). */
#define TFD_NR_create 306
#define TFD_NR_settime 311
#define TFD_NR_gettime 312
#define TFD_NR_gettime64 410
#define TFD_NR_settime64 411
