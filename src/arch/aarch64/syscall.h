/* SPDX-License-Identifier: MIT */
/*
 * aarch64 syscall stubs.  Number in x8, arguments in x0-x5; svc 0 returns
 * the value or -errno in x0 and preserves every other register.
 */
#define TFD_SYSCALL_STUB "aarch64"

static inline long
__tfd_syscall2(long n, long a1, long a2)
{
	register long x8 __asm__("x8") = n;
	register long x0 __asm__("x0") = a1;
	register long x1 __asm__("x1") = a2;

	__asm__ __volatile__("svc 0" : "+r"(x0) : "r"(x8), "r"(x1) : "memory");
	return x0;
}

static inline long
__tfd_syscall4(long n, long a1, long a2, long a3, long a4)
{
	register long x8 __asm__("x8") = n;
	register long x0 __asm__("x0") = a1;
	register long x1 __asm__("x1") = a2;
	register long x2 __asm__("x2") = a3;
	register long x3 __asm__("x3") = a4;

	__asm__ __volatile__("svc 0"
			     : "+r"(x0)
			     : "r"(x8), "r"(x1), "r"(x2), "r"(x3)
			     : "memory");
	return x0;
}
