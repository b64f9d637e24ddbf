/* SPDX-License-Identifier: MIT */
/*
 * x86_64 (and x32) syscall stubs.  Number in rax, arguments in rdi, rsi, rdx,
 * r10; the result comes back in rax as a value or -errno.  The syscall
 * instruction overwrites rcx (return address) and r11 (saved rflags).
 */
#define TFD_SYSCALL_STUB "x86_64"

static inline long
__tfd_syscall2(long n, long a1, long a2)
{
	long ret;

	__asm__ __volatile__("syscall"
			     : "=a"(ret)
			     : "a"(n), "D"(a1), "S"(a2)
			     : "rcx", "r11", "memory");
	return ret;
}

static inline long
__tfd_syscall4(long n, long a1, long a2, long a3, long a4)
{
	register long r10 __asm__("r10") = a4;
	long ret;

	__asm__ __volatile__("syscall"
			     : "=a"(ret)
			     : "a"(n), "D"(a1), "S"(a2), "d"(a3), "r"(r10)
			     : "rcx", "r11", "memory");
	return ret;
}
