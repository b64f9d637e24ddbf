/* SPDX-License-Identifier: MIT */
/* Description: the syscall stub and table picked for an ABI compile, even with no C library for it. */
#include "syscall.h"

long tfd_call2(long a1, long a2);
long tfd_call4(long a1, long a2, long a3, long a4);

long
tfd_call2(long a1, long a2)
{
	return __tfd_syscall2(TFD_NR_create, a1, a2);
}

long
tfd_call4(long a1, long a2, long a3, long a4)
{
	return __tfd_syscall4(TFD_NR_create, a1, a2, a3, a4);
}
