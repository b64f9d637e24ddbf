/* SPDX-License-Identifier: MIT */
/*
 * s390x syscall stubs.  Number in r1 (svc 0 takes it from there), arguments
 * in r2-r6; the value or -errno comes back in r2, every other register is
 * preserved.
 */
#define TFD_SYSCALL_STUB "s390x"

static inline long
__tfd_syscall2(long n, long a1, long a2)
{
	register long r1 __asm__("r1") = n;
	register long r2 __asm__("r2") = a1;
	register long r3 __asm__("r3") = a2;

	__asm__ __volatile__("svc 0" : "+r"(r2) : "r"(r1), "r"(r3) : "memory");
	return r2;
}

static inline long
__tfd_syscall4(long n, long a1, long a2, long a3, long a4)
{
	register long r1 __asm__("r1") = n;
	register long r2 __asm__("r2") = a1;
	register long r3 __asm__("r3") = a2;
	register long r4 __asm__("r4") = a3;
	register long r5 __asm__("r5") = a4;

	__asm__ __volatile__("svc 0"
			     : "+r"(r2)
			     : "r"(r1), "r"(r3), "r"(r4), "r"(r5)
			     : "memory");
	return r2;
}
