/* SPDX-License-Identifier: MIT */
/* timerfd syscall numbers of the ARM EABI (arch/arm/tools/syscall.tbl); OABI is not supported. */
#define TFD_NR_create 350
#define TFD_NR_settime 353
#define TFD_NR_gettime 354
#define TFD_NR_gettime64 410
#define TFD_NR_settime64 411
