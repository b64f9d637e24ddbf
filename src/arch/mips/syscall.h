/* SPDX-License-Identifier: MIT */
/*
 * mips syscall stubs for o32, n32 and n64.  Number in v0 ($2), arguments in
 * a0-a3 ($4-$7).  On return v0 holds the value, and a3 ($7) is nonzero on
 * error, with a positive errno in v0.  The number is loaded by the
 * instruction right before "syscall" because kernels before 2.6.36 restart
 * an interrupted call by stepping back over that one instruction.  The
 * kernel may change at, v1, the temporaries, t8, t9, hi and lo.
 */
#define TFD_SYSCALL_STUB "mips"

#if _MIPS_SIM == _ABIO32
#define TFD_MIPS_LOAD_NR "addu $2, $0, %2\n\tsyscall"
#else
#define TFD_MIPS_LOAD_NR "daddu $2, $0, %2\n\tsyscall"
#endif
/* $8-$15 are temporaries in o32, and a4-a7 plus temporaries (unused here) in n32/n64. */
#define TFD_MIPS_CLOBBERS \
	"$1", "$3", "$8", "$9", "$10", "$11", "$12", "$13", "$14", "$15", \
	"$24", "$25", "hi", "lo", "memory"

static inline long
__tfd_syscall2(long n, long a1, long a2)
{
	register long r2 __asm__("$2");
	register long r4 __asm__("$4") = a1;
	register long r5 __asm__("$5") = a2;
	register long r7 __asm__("$7");

	__asm__ __volatile__(TFD_MIPS_LOAD_NR
			     : "=&r"(r2), "=r"(r7)
			     : "ir"(n), "r"(r4), "r"(r5)
			     : TFD_MIPS_CLOBBERS);
	return r7 && r2 > 0 ? -r2 : r2;
}

static inline long
__tfd_syscall4(long n, long a1, long a2, long a3, long a4)
{
	register long r2 __asm__("$2");
	register long r4 __asm__("$4") = a1;
	register long r5 __asm__("$5") = a2;
	register long r6 __asm__("$6") = a3;
	register long r7 __asm__("$7") = a4;

	__asm__ __volatile__(TFD_MIPS_LOAD_NR
			     : "=&r"(r2), "+r"(r7)
			     : "ir"(n), "r"(r4), "r"(r5), "r"(r6)
			     : TFD_MIPS_CLOBBERS);
	return r7 && r2 > 0 ? -r2 : r2;
}
