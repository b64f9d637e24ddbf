/* SPDX-License-Identifier: MIT */
/* timerfd syscall numbers of the 64-bit asm-generic ABIs: aarch64, riscv64, loongarch64. */
/* A 64-bit ABI: the plain calls already take a 64-bit time_t, there are no *_time64 calls. */
#define TFD_NR_create 85
#define TFD_NR_settime 86
#define TFD_NR_gettime 87
