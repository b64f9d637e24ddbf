/* SPDX-License-Identifier: MIT */
/*
 * i386 syscall stubs.  Number in eax, arguments in ebx, ecx, edx, esi; the
 * result comes back in eax as a value or -errno.
 *
 * The kernel is entered the way the C libraries enter it: by a call to the
 * vDSO's __kernel_vsyscall (sysenter or syscall where the CPU has them; on this
 * kind of VM about 70 times cheaper than int $0x80), whose address the kernel
 * passes in the auxiliary vector as AT_SYSINFO.  vsyscall.c reads it once at
 * load into __tfd_vsyscall, a variable of ours rather than a C library's TCB
 * slot (glibc's and musl's %gs:0x10), so that any C library will do.  Where the
 * vector has no AT_SYSINFO (qemu-user, valgrind) the variable keeps pointing at
 * a local "int $0x80; ret".  __kernel_vsyscall, like int $0x80, preserves every
 * register but eax.  (ebx may be the PIC register: GCC 5 and later handle the
 * "b" constraint in PIC code themselves.)
 */
#define TFD_SYSCALL_STUB "i386"

/* The kernel's entry point (vsyscall.c). */
extern void *__tfd_vsyscall __attribute__((visibility("hidden")));

static inline long
__tfd_syscall2(long n, long a1, long a2)
{
	long ret;

	__asm__ __volatile__("call *%[entry]"
			     : "=a"(ret)
			     : "a"(n), "b"(a1), "c"(a2), [entry] "m"(__tfd_vsyscall)
			     : "memory");
	return ret;
}

static inline long
__tfd_syscall4(long n, long a1, long a2, long a3, long a4)
{
	long ret;

	__asm__ __volatile__("call *%[entry]"
			     : "=a"(ret)
			     : "a"(n), "b"(a1), "c"(a2), "d"(a3), "S"(a4),
			       [entry] "m"(__tfd_vsyscall)
			     : "memory");
	return ret;
}
