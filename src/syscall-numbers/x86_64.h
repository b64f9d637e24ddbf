/* SPDX-License-Identifier: MIT */
/* timerfd syscall numbers of the x86_64 ABI (arch/x86/entry/syscalls/syscall_64.tbl). */
#define TFD_NR_create 283
#define TFD_NR_settime 286
#define TFD_NR_gettime 287
