/* SPDX-License-Identifier: MIT */
/* timerfd syscall numbers of the mips o32 ABI: base 4000, and gettime comes before settime. */
#define TFD_NR_create 4321
#define TFD_NR_gettime 4322
#define TFD_NR_settime 4323
#define TFD_NR_gettime64 4410
#define TFD_NR_settime64 4411
