/* SPDX-License-Identifier: MIT */
/*
 * RISC-V syscall stubs, for rv32 and rv64 alike.  Number in a7, arguments
 * in a0-a5; ecall returns the value or -errno in a0 and preserves every
 * other register.
 */
#define TFD_SYSCALL_STUB "riscv"

static inline long
__tfd_syscall2(long n, long a1, long a2)
{
	register long a7 __asm__("a7") = n;
	register long a0 __asm__("a0") = a1;
	register long a1r __asm__("a1") = a2;

	__asm__ __volatile__("ecall" : "+r"(a0) : "r"(a7), "r"(a1r) : "memory");
	return a0;
}

static inline long
__tfd_syscall4(long n, long a1, long a2, long a3, long a4)
{
	register long a7 __asm__("a7") = n;
	register long a0 __asm__("a0") = a1;
	register long a1r __asm__("a1") = a2;
	register long a2r __asm__("a2") = a3;
	register long a3r __asm__("a3") = a4;

	__asm__ __volatile__("ecall"
			     : "+r"(a0)
			     : "r"(a7), "r"(a1r), "r"(a2r), "r"(a3r)
			     : "memory");
	return a0;
}
