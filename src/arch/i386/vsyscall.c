/* SPDX-License-Identifier: MIT */
/* i386: where the syscall stubs enter the kernel (syscall.h): the vDSO's entry, else int $0x80. */
#include "config.h"

#if defined(__i386__) && !defined(TFD_GENERIC_SYSCALL)
#ifdef HAVE_SYS_AUXV_H
#include <sys/auxv.h>
#endif

#include "syscall.h"

#ifndef AT_SYSINFO
#define AT_SYSINFO 32 /* the kernel's value, where the C library's headers lack it */
#endif

/* The fallback entry: the same contract as __kernel_vsyscall (eax in and out, all else kept). */
void __tfd_int80(void) __attribute__((visibility("hidden")));
__asm__(".text\n"
	".globl __tfd_int80\n"
	".hidden __tfd_int80\n"
	".type __tfd_int80, @function\n"
	"__tfd_int80:\n"
	"\tint $0x80\n"
	"\tret\n"
	".size __tfd_int80, .-__tfd_int80\n");

void *__tfd_vsyscall = (void *)__tfd_int80;

/*
 * Once, at load, before any thread of the program's could call: a call made
 * even earlier (another library's constructor) takes int $0x80, which is only
 * slower.  The kernel gives 32-bit processes AT_SYSINFO on every x86 kernel
 * with a vDSO; getauxval is the only portable reader (glibc 2.16, musl).
 */
__attribute__((constructor)) static void
find_kernel_vsyscall(void)
{
#ifdef HAVE_GETAUXVAL
	unsigned long entry = getauxval(AT_SYSINFO);

	if (entry)
		__tfd_vsyscall = (void *)entry;
#endif
}
#else
/* Other arches: their stubs enter the kernel inline (src/arch/<arch>/syscall.h). */
typedef int tfd_vsyscall_unused;
#endif
