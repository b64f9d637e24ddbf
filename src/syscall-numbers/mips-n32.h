/* SPDX-License-Identifier: MIT */
/* timerfd syscall numbers of the mips n32 ABI: base 6000, and gettime comes before settime. */
#define TFD_NR_create 6284
#define TFD_NR_gettime 6285
#define TFD_NR_settime 6286
#define TFD_NR_gettime64 6410
#define TFD_NR_settime64 6411
