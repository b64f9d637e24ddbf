/* SPDX-License-Identifier: MIT */
/*
 * Description: on i386 the syscall stubs enter the kernel through the vDSO entry the kernel
 * gave in AT_SYSINFO (as the C library does), or through int $0x80 where there is none
 * (qemu-user, valgrind); and calls made that way work.  Elsewhere: skipped (exit 77).
 */
#include "config.h"

#include <stdio.h>
#include <sys/timerfd.h>
#include <unistd.h>
#ifdef HAVE_SYS_AUXV_H
#include <sys/auxv.h>
#endif

#include "syscall.h"

#if defined(__i386__) && !defined(TFD_GENERIC_SYSCALL)
void __tfd_int80(void);

int
main(void)
{
	unsigned long sysinfo = 0;
	struct itimerspec its = { .it_value = { 100, 0 } }, cur;
	int fd;

#if defined(HAVE_GETAUXVAL) && defined(AT_SYSINFO)
	sysinfo = getauxval(AT_SYSINFO);
#endif
	if (sysinfo && __tfd_vsyscall != (void *)sysinfo) {
		printf("FAIL: the stubs enter at %p, the kernel's vDSO entry is %#lx\n",
		       __tfd_vsyscall, sysinfo);
		return 1;
	}
	if (!sysinfo && __tfd_vsyscall != (void *)__tfd_int80) {
		printf("FAIL: no AT_SYSINFO, yet the stubs enter at %p, not int $0x80\n",
		       __tfd_vsyscall);
		return 1;
	}
	printf("ok: the stubs enter the kernel through %s\n",
	       sysinfo ? "the vDSO's __kernel_vsyscall (AT_SYSINFO)" : "int $0x80 (no AT_SYSINFO)");
	fd = timerfd_create(CLOCK_MONOTONIC, 0);
	if (fd < 0 || timerfd_settime(fd, 0, &its, NULL) != 0 || timerfd_gettime(fd, &cur) != 0 ||
	    cur.it_value.tv_sec < 99 || cur.it_value.tv_sec > 100) {
		printf("FAIL: a timer made and read through that entry\n");
		return 1;
	}
	close(fd);
	printf("ok: create, settime and gettime through it\n");
	return 0;
}
#else
int
main(void)
{
	printf("SKIP: only i386 enters the kernel through a vDSO entry point (AT_SYSINFO)\n");
	return 77;
}
#endif
