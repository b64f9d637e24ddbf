/* SPDX-License-Identifier: MIT */
/* timerfd syscall numbers of 31-bit s390 (arch/s390/kernel/syscalls/syscall.tbl). */
#define TFD_NR_create 319
#define TFD_NR_settime 320
#define TFD_NR_gettime 321
#define TFD_NR_gettime64 410
#define TFD_NR_settime64 411
