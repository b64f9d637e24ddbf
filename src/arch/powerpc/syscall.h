/* SPDX-License-Identifier: MIT */
/*
 * powerpc and powerpc64 syscall stubs.  Number in r0, arguments in r3-r8.
 * The kernel signals an error by setting the summary-overflow bit of cr0,
 * with a positive errno in r3; we negate it ("bns+" skips that when all is
 * well).  The kernel may change r0, r4-r12, ctr, xer and cr0, cr1, cr5-cr7
 * (Documentation/arch/powerpc/syscall64-abi.rst; the same on 32-bit).
 */
#define TFD_SYSCALL_STUB "powerpc"

#define TFD_PPC_CLOBBERS \
	"memory", "cr0", "cr1", "cr5", "cr6", "cr7", "ctr", "xer", \
	"r9", "r10", "r11", "r12"

static inline long
__tfd_syscall2(long n, long a1, long a2)
{
	register long r0 __asm__("r0") = n;
	register long r3 __asm__("r3") = a1;
	register long r4 __asm__("r4") = a2;
	register long r5 __asm__("r5");
	register long r6 __asm__("r6");
	register long r7 __asm__("r7");
	register long r8 __asm__("r8");

	__asm__ __volatile__("sc\n\tbns+ 1f\n\tneg %1, %1\n1:"
			     : "+r"(r0), "+r"(r3), "+r"(r4), "=r"(r5), "=r"(r6), "=r"(r7), "=r"(r8)
			     :
			     : TFD_PPC_CLOBBERS);
	return r3;
}

static inline long
__tfd_syscall4(long n, long a1, long a2, long a3, long a4)
{
	register long r0 __asm__("r0") = n;
	register long r3 __asm__("r3") = a1;
	register long r4 __asm__("r4") = a2;
	register long r5 __asm__("r5") = a3;
	register long r6 __asm__("r6") = a4;
	register long r7 __asm__("r7");
	register long r8 __asm__("r8");

	__asm__ __volatile__("sc\n\tbns+ 1f\n\tneg %1, %1\n1:"
			     : "+r"(r0), "+r"(r3), "+r"(r4), "+r"(r5), "+r"(r6), "=r"(r7), "=r"(r8)
			     :
			     : TFD_PPC_CLOBBERS);
	return r3;
}
