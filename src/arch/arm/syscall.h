/* SPDX-License-Identifier: MIT */
/*
 * ARM EABI syscall stubs.  Number in r7, arguments in r0-r3; svc 0 returns
 * the value or -errno in r0 and preserves every other register.
 *
 * In Thumb code r7 is the frame pointer and GCC may refuse it as an asm
 * operand, so there the number travels in any register and r7 is saved
 * around the call (the same sequence as musl's).
 */
#define TFD_SYSCALL_STUB "arm"

#ifdef __thumb__
#define TFD_ARM_SYSCALL(...)                                                        \
	do {                                                                        \
		long saved_r7;                                                      \
		__asm__ __volatile__("mov %1, r7\n\tmov r7, %2\n\tsvc 0\n\tmov r7, %1" \
				     : "+r"(r0), "=&r"(saved_r7)                    \
				     : "r"(nr), __VA_ARGS__                        \
				     : "memory");                                  \
		return r0;                                                          \
	} while (0)
#define TFD_ARM_R7
#else
#define TFD_ARM_SYSCALL(...)                                                        \
	do {                                                                        \
		__asm__ __volatile__("svc 0" : "+r"(r0) : "r"(nr), __VA_ARGS__ : "memory"); \
		return r0;                                                          \
	} while (0)
#define TFD_ARM_R7 __asm__("r7")
#endif

static inline long
__tfd_syscall2(long n, long a1, long a2)
{
	register long nr TFD_ARM_R7 = n;
	register long r0 __asm__("r0") = a1;
	register long r1 __asm__("r1") = a2;

	TFD_ARM_SYSCALL("r"(r1));
}

static inline long
__tfd_syscall4(long n, long a1, long a2, long a3, long a4)
{
	register long nr TFD_ARM_R7 = n;
	register long r0 __asm__("r0") = a1;
	register long r1 __asm__("r1") = a2;
	register long r2 __asm__("r2") = a3;
	register long r3 __asm__("r3") = a4;

	TFD_ARM_SYSCALL("r"(r1), "r"(r2), "r"(r3));
}
