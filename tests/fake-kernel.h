/* SPDX-License-Identifier: MIT */
/* A simulated 32-bit kernel's syscall layer, substituted for src/syscall.h's by TFD_TEST_SYSCALLS. */
#ifndef TFD_FAKE_KERNEL_H
#define TFD_FAKE_KERNEL_H

/* The numbers only have to differ from each other. */
#define TFD_NR_create 1
#define TFD_NR_settime 2
#define TFD_NR_gettime 3
#define TFD_NR_settime64 4
#define TFD_NR_gettime64 5
#define FAKE_NR_MAX 6

long __tfd_syscall2(long n, long a1, long a2);
long __tfd_syscall4(long n, long a1, long a2, long a3, long a4);

#endif /* TFD_FAKE_KERNEL_H */
