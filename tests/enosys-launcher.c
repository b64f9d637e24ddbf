/* SPDX-License-Identifier: MIT */
/*
 * Description: runs a program in a simulated kernel without timerfd: a seccomp filter makes
 * every timerfd syscall fail with ENOSYS.  Where seccomp cannot be installed (qemu-user), it
 * says so and forces the emulation with LIBTIMERFD_BACKEND=emulation instead.
 * With --no-create-flags it simulates a kernel before 2.6.27 instead: timerfd_create with
 * nonzero flags fails with EINVAL (and the program fails if seccomp is unavailable).
 * With --no-unshare, unshare(2) also fails with EPERM, as in strict sandboxes.
 * Usage: enosys-launcher [--no-create-flags | --no-unshare] PROGRAM [ARGS...]
 */
#include "config.h"

#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "seccomp-abi.h"
#include "syscall-numbers.h"

#if defined(__x86_64__) && defined(__ILP32__)
#define AUDIT_ARCH_SELF TFD_AUDIT_ARCH_X86_64 /* x32 shares it; its numbers carry bit 30 */
#elif defined(__x86_64__)
#define AUDIT_ARCH_SELF TFD_AUDIT_ARCH_X86_64
#elif defined(__i386__)
#define AUDIT_ARCH_SELF TFD_AUDIT_ARCH_I386
#elif defined(__aarch64__)
#define AUDIT_ARCH_SELF TFD_AUDIT_ARCH_AARCH64
#elif defined(__arm__)
#define AUDIT_ARCH_SELF TFD_AUDIT_ARCH_ARM
#endif

#define ENOSYS_FOR(nr)                                              \
	BPF_JUMP(TFD_BPF_JEQ_K, (nr), 0, 1),             \
		BPF_STMT(TFD_BPF_RET_K, TFD_SECCOMP_RET_ERRNO | ENOSYS)

#ifdef AUDIT_ARCH_SELF
/* Installs a seccomp filter for this process and what it execs: 0 or -errno. */
static int
load_filter(struct tfd_sock_filter *filter, size_t len)
{
	struct tfd_sock_fprog prog = { .len = (unsigned short)len, .filter = filter };

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		return -errno;
	if (prctl(PR_SET_SECCOMP, TFD_SECCOMP_MODE_FILTER, &prog) < 0)
		return -errno;
	return 0;
}
#endif

/* Before 2.6.27, timerfd_create took no flags: nonzero ones gave EINVAL. */
static int
install_old_kernel_filter(void)
{
#ifdef AUDIT_ARCH_SELF
	struct tfd_sock_filter filter[] = {
		BPF_STMT(TFD_BPF_LD_W_ABS, offsetof(struct tfd_seccomp_data, arch)),
		BPF_JUMP(TFD_BPF_JEQ_K, AUDIT_ARCH_SELF, 1, 0),
		BPF_STMT(TFD_BPF_RET_K, TFD_SECCOMP_RET_ALLOW),
		BPF_STMT(TFD_BPF_LD_W_ABS, offsetof(struct tfd_seccomp_data, nr)),
		BPF_JUMP(TFD_BPF_JEQ_K, TFD_NR_create, 0, 3),
		/* The low 32 bits of the second argument: the int flags. */
		BPF_STMT(TFD_BPF_LD_W_ABS, offsetof(struct tfd_seccomp_data, args[1])),
		BPF_JUMP(TFD_BPF_JEQ_K, 0, 1, 0),
		BPF_STMT(TFD_BPF_RET_K, TFD_SECCOMP_RET_ERRNO | EINVAL),
		BPF_STMT(TFD_BPF_RET_K, TFD_SECCOMP_RET_ALLOW),
	};
	return load_filter(filter, sizeof(filter) / sizeof(filter[0]));
#else
	return -ENOTSUP;
#endif
}

/* ENOSYS for timerfd; with @no_unshare, EPERM for unshare(2) too (a strict sandbox's profile). */
static int
install_filter(int no_unshare)
{
#ifdef AUDIT_ARCH_SELF
	struct tfd_sock_filter filter[] = {
		BPF_STMT(TFD_BPF_LD_W_ABS, offsetof(struct tfd_seccomp_data, arch)),
		BPF_JUMP(TFD_BPF_JEQ_K, AUDIT_ARCH_SELF, 1, 0),
		BPF_STMT(TFD_BPF_RET_K, TFD_SECCOMP_RET_ALLOW),
		BPF_STMT(TFD_BPF_LD_W_ABS, offsetof(struct tfd_seccomp_data, nr)),
		ENOSYS_FOR(TFD_NR_create),
		ENOSYS_FOR(TFD_NR_settime),
		ENOSYS_FOR(TFD_NR_gettime),
#ifdef TFD_NR_settime64
		ENOSYS_FOR(TFD_NR_settime64),
		ENOSYS_FOR(TFD_NR_gettime64),
#endif
		BPF_JUMP(TFD_BPF_JEQ_K, SYS_unshare, 0, 1),
		BPF_STMT(TFD_BPF_RET_K, no_unshare ? TFD_SECCOMP_RET_ERRNO | EPERM : TFD_SECCOMP_RET_ALLOW),
		BPF_STMT(TFD_BPF_RET_K, TFD_SECCOMP_RET_ALLOW),
	};
	return load_filter(filter, sizeof(filter) / sizeof(filter[0]));
#else
	(void)no_unshare;
	return -ENOTSUP;
#endif
}

int
main(int argc, char **argv)
{
	int err;

	if (argc > 2 && strcmp(argv[1], "--no-create-flags") == 0) {
		err = install_old_kernel_filter();
		if (err) {
			printf("enosys-launcher: no seccomp filter: %s\n", strerror(-err));
			return 77;
		}
		printf("enosys-launcher: seccomp filter installed: timerfd_create refuses flags\n");
		fflush(stdout);
		execvp(argv[2], argv + 2);
		perror(argv[2]);
		return 127;
	}
	if (argc > 2 && strcmp(argv[1], "--no-unshare") == 0) {
		err = install_filter(1);
		if (err) {
			printf("enosys-launcher: no seccomp filter: %s\n", strerror(-err));
			return 77;
		}
		printf("enosys-launcher: seccomp filter installed: timerfd syscalls answer ENOSYS, "
		       "unshare EPERM\n");
		fflush(stdout);
		execvp(argv[2], argv + 2);
		perror(argv[2]);
		return 127;
	}
	if (argc < 2) {
		fprintf(stderr, "usage: %s [--no-create-flags | --no-unshare] PROGRAM [ARGS...]\n",
			argv[0]);
		return 2;
	}
	err = install_filter(0);
	if (err == 0) {
		printf("enosys-launcher: seccomp filter installed: timerfd syscalls answer ENOSYS\n");
	} else {
		printf("enosys-launcher: no seccomp filter (%s): forcing LIBTIMERFD_BACKEND=emulation\n",
		       strerror(-err));
		setenv("LIBTIMERFD_BACKEND", "emulation", 1);
	}
	fflush(stdout);
	execvp(argv[1], argv + 1);
	perror(argv[1]);
	return 127;
}
