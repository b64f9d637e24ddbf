/* SPDX-License-Identifier: MIT */
/*
 * i386 syscall stubs.  Number in eax, arguments in ebx, ecx, edx, esi; the
 * result comes back in eax as a value or -errno.  int $0x80 preserves every
 * other register.  (ebx may be the PIC register: GCC 5 and later handle the
 * "b" constraint in PIC code themselves.)
 */
#define TFD_SYSCALL_STUB "i386"

static inline long
__tfd_syscall2(long n, long a1, long a2)
{
	long ret;

	__asm__ __volatile__("int $0x80"
			     : "=a"(ret)
			     : "a"(n), "b"(a1), "c"(a2)
			     : "memory");
	return ret;
}

static inline long
__tfd_syscall4(long n, long a1, long a2, long a3, long a4)
{
	long ret;

	__asm__ __volatile__("int $0x80"
			     : "=a"(ret)
			     : "a"(n), "b"(a1), "c"(a2), "d"(a3), "S"(a4)
			     : "memory");
	return ret;
}
