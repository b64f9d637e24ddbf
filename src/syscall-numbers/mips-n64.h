/* SPDX-License-Identifier: MIT */
/* timerfd syscall numbers of the mips n64 ABI: base 5000, and gettime comes before settime. */
/* A 64-bit ABI: the plain calls already take a 64-bit time_t, there are no *_time64 calls. */
#define TFD_NR_create 5280
#define TFD_NR_gettime 5281
#define TFD_NR_settime 5282
