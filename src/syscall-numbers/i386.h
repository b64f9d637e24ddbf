/* SPDX-License-Identifier: MIT */
/* timerfd syscall numbers of the i386 ABI (arch/x86/entry/syscalls/syscall_32.tbl). */
#define TFD_NR_create 322
#define TFD_NR_settime 325
#define TFD_NR_gettime 326
#define TFD_NR_gettime64 410
#define TFD_NR_settime64 411
