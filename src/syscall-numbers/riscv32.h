/* SPDX-License-Identifier: MIT */
/* timerfd syscall numbers of riscv32, which was born y2038-clean: only the time64 calls exist. */
#define TFD_NR_create 85
#define TFD_NR_gettime64 410
#define TFD_NR_settime64 411
