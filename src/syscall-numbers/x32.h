/* SPDX-License-Identifier: MIT */
/* timerfd syscall numbers of the x32 ABI: the x86_64 numbers with __X32_SYSCALL_BIT set. */
/* Its time_t is 64-bit and the plain calls take it: there are no *_time64 calls. */
#define TFD_NR_create (0x40000000 + 283)
#define TFD_NR_settime (0x40000000 + 286)
#define TFD_NR_gettime (0x40000000 + 287)
