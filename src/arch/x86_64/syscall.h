/* SPDX-License-Identifier: MIT */
/*
 * x86_64 (and x32) syscall stubs.  Number in rax, arguments in rdi, rsi, rdx,
 * r10; the result comes back in rax as a value or -errno.  The syscall
 * instruction overwrites rcx (return address) and r11 (saved rflags) and
 * preserves every other register, so a caller's arguments are still in place
 * after it (the entry points tail-call their slow paths with them).
 *
 * Macros rather than functions taking long: each argument reaches its register
 * in its own type.  An int (fd, flags, clockid) goes in as the 32 bits the
 * caller already has, with no sign extension: the kernel's syscall wrappers
 * (SYSCALL_DEFINEn's __se_sys_*) truncate every int argument themselves, which
 * is why the C library's x86-64 wrappers do not extend them either.  Pointers
 * are cast to long by the callers (free on x86_64; on x32 the zero extension
 * the kernel expects).  r10 is declared 64-bit and given the argument
 * zero-extended: on x32 GCC then copies the caller's rcx into it as the
 * x86_64 wrappers do, instead of a 32-bit move plus a spare copy of rcx.
 */
#define TFD_SYSCALL_STUB "x86_64"

#define __tfd_syscall2(n, a1, a2)                                                  \
	__extension__({                                                            \
		long __ret;                                                        \
		__asm__ __volatile__("syscall"                                     \
				     : "=a"(__ret)                                 \
				     : "a"((long)(n)), "D"(a1), "S"(a2)            \
				     : "rcx", "r11", "memory");                    \
		__ret;                                                             \
	})

#define __tfd_syscall4(n, a1, a2, a3, a4)                                          \
	__extension__({                                                            \
		register unsigned long long __r10 __asm__("r10") =                 \
			(unsigned long)(a4);                                       \
		long __ret;                                                        \
		__asm__ __volatile__("syscall"                                     \
				     : "=a"(__ret)                                 \
				     : "a"((long)(n)), "D"(a1), "S"(a2), "d"(a3),  \
				       "r"(__r10)                                  \
				     : "rcx", "r11", "memory");                    \
		__ret;                                                             \
	})
