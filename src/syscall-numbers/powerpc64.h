/* SPDX-License-Identifier: MIT */
/* timerfd syscall numbers of powerpc64, big- and little-endian alike. */
/* A 64-bit ABI: the plain calls already take a 64-bit time_t, there are no *_time64 calls. */
#define TFD_NR_create 306
#define TFD_NR_settime 311
#define TFD_NR_gettime 312
