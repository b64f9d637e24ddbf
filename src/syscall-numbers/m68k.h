/* SPDX-License-Identifier: MIT */
/* timerfd syscall numbers of m68k (arch/m68k/kernel/syscalls/syscall.tbl). */
#define TFD_NR_create 318
#define TFD_NR_settime 321
#define TFD_NR_gettime 322
#define TFD_NR_gettime64 410
#define TFD_NR_settime64 411
