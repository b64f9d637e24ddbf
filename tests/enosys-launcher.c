/* SPDX-License-Identifier: MIT */
/*
 * Description: runs a program in a simulated kernel without timerfd: a seccomp filter makes
 * every timerfd syscall fail with ENOSYS.  Where seccomp cannot be installed (qemu-user), it
 * says so and forces the emulation with LIBTIMERFD_BACKEND=emulation instead.
 * With --no-create-flags it simulates a kernel before 2.6.27 instead: timerfd_create with
 * nonzero flags fails with EINVAL (and the program fails if seccomp is unavailable).
 * With --no-unshare, unshare(2) also fails with EPERM, as in strict sandboxes.
 * With --basic-abi it simulates a user-mode Linux emulator or library OS, which offers a basic
 * Linux ABI only: no /proc, and every system call outside an allowlist answers ENOSYS (x86_64
 * only; elsewhere, or without the privilege to hide /proc, it says why and exits 77).
 * Usage: enosys-launcher [--no-create-flags | --no-unshare | --basic-abi] PROGRAM [ARGS...]
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
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

/*
 * The basic Linux ABI (--basic-abi): what a user-mode Linux emulator or a library OS offers,
 * as an allowlist of x86_64 system calls (its numbers only: one arch, so one table).
 */
#if defined(__x86_64__) && !defined(__ILP32__)
#define BASIC_ABI_ARCH TFD_AUDIT_ARCH_X86_64
/* The youngest calls of the list, for C library headers older than them (syscall_64.tbl). */
#ifndef SYS_close_range
#define SYS_close_range 436
#endif
#ifndef SYS_faccessat2
#define SYS_faccessat2 439
#endif
#ifndef SYS_epoll_pwait2
#define SYS_epoll_pwait2 441
#endif

/*
 * Allowed whatever their arguments: files, sockets, processes, signals, memory, epoll and
 * futex; exit and the signal return, and the clock calls the vDSO may fall back to.  clone,
 * prctl, fcntl and pipe2 are allowed too, with their arguments checked (basic_abi_build()).
 * Not here, so ENOSYS: the timerfd calls, clone3, unshare, eventfd, signalfd, timer_create...
 */
static const unsigned int basic_abi_calls[] = {
	SYS_read, SYS_write, SYS_open, SYS_close, SYS_stat, SYS_fstat, SYS_lstat, SYS_poll,
	SYS_lseek, SYS_mmap, SYS_mprotect, SYS_munmap, SYS_brk, SYS_rt_sigaction,
	SYS_rt_sigprocmask, SYS_ioctl, SYS_pread64, SYS_pwrite64, SYS_readv, SYS_writev,
	SYS_access, SYS_pipe, SYS_select, SYS_sched_yield, SYS_mremap, SYS_msync, SYS_madvise,
	SYS_dup, SYS_dup2, SYS_pause, SYS_nanosleep, SYS_getitimer, SYS_alarm, SYS_setitimer,
	SYS_getpid, SYS_sendfile, SYS_socket, SYS_connect, SYS_accept, SYS_sendto, SYS_recvfrom,
	SYS_sendmsg, SYS_recvmsg, SYS_shutdown, SYS_bind, SYS_listen, SYS_getsockname,
	SYS_getpeername, SYS_socketpair, SYS_setsockopt, SYS_getsockopt, SYS_fork, SYS_vfork,
	SYS_execve, SYS_wait4, SYS_kill, SYS_uname, SYS_flock, SYS_fsync, SYS_fdatasync,
	SYS_truncate, SYS_ftruncate, SYS_getcwd, SYS_chdir, SYS_fchdir, SYS_rename, SYS_mkdir,
	SYS_rmdir, SYS_creat, SYS_link, SYS_unlink, SYS_symlink, SYS_readlink, SYS_chmod,
	SYS_fchmod, SYS_chown, SYS_fchown, SYS_lchown, SYS_umask, SYS_gettimeofday,
	SYS_getrlimit, SYS_getrusage, SYS_sysinfo, SYS_times, SYS_getuid, SYS_getgid,
	SYS_setuid, SYS_setgid, SYS_geteuid, SYS_getegid, SYS_setpgid, SYS_getppid, SYS_getpgrp,
	SYS_setsid, SYS_setreuid, SYS_setregid, SYS_getgroups, SYS_setgroups, SYS_setresuid,
	SYS_getresuid, SYS_setresgid, SYS_getresgid, SYS_getpgid, SYS_getsid, SYS_rt_sigpending,
	SYS_rt_sigsuspend, SYS_sigaltstack, SYS_utime, SYS_mknod, SYS_statfs, SYS_fstatfs,
	SYS_getpriority, SYS_setpriority, SYS_sched_setparam, SYS_sched_getparam,
	SYS_sched_setscheduler, SYS_sched_getscheduler, SYS_sched_get_priority_max,
	SYS_sched_get_priority_min, SYS_arch_prctl, SYS_setrlimit, SYS_chroot, SYS_sync,
	SYS_mount, SYS_gettid, SYS_tkill, SYS_futex, SYS_sched_setaffinity,
	SYS_sched_getaffinity, SYS_epoll_create, SYS_getdents, SYS_set_tid_address,
	SYS_fadvise64, SYS_clock_settime, SYS_clock_getres, SYS_clock_nanosleep, SYS_epoll_wait,
	SYS_epoll_ctl, SYS_tgkill, SYS_utimes, SYS_openat, SYS_mkdirat, SYS_mknodat,
	SYS_fchownat, SYS_futimesat, SYS_newfstatat, SYS_unlinkat, SYS_renameat, SYS_linkat,
	SYS_symlinkat, SYS_readlinkat, SYS_fchmodat, SYS_faccessat, SYS_pselect6, SYS_ppoll,
	SYS_set_robust_list, SYS_get_robust_list, SYS_utimensat, SYS_epoll_pwait, SYS_accept4,
	SYS_epoll_create1, SYS_dup3, SYS_preadv, SYS_pwritev, SYS_recvmmsg, SYS_prlimit64,
	SYS_sendmmsg, SYS_renameat2, SYS_getrandom, SYS_preadv2, SYS_pwritev2, SYS_close_range,
	SYS_faccessat2, SYS_epoll_pwait2, SYS_exit, SYS_exit_group, SYS_rt_sigreturn,
	SYS_restart_syscall, SYS_clock_gettime,
};

/*
 * The clone(2) flags allowed, less the exit signal (CSIGNAL): what fork() and pthread_create()
 * of glibc and musl ask for, nothing else (clone3 answers ENOSYS, and glibc then retries with
 * clone).  Seen with strace on glibc 2.36 and musl 1.2.3.
 */
#define BASIC_ABI_THREAD_FLAGS                                                          \
	(CLONE_VM | CLONE_FS | CLONE_FILES | CLONE_SIGHAND | CLONE_THREAD | CLONE_SYSVSEM | \
	 CLONE_SETTLS | CLONE_PARENT_SETTID | CLONE_CHILD_CLEARTID)
static const unsigned int basic_abi_clone_flags[] = {
	CLONE_CHILD_SETTID | CLONE_CHILD_CLEARTID, /* glibc's fork() (arch_fork()) */
	0, /* musl's fork() where there is no SYS_fork: clone(SIGCHLD) */
	BASIC_ABI_THREAD_FLAGS, /* glibc's pthread_create() (create_thread()) */
	BASIC_ABI_THREAD_FLAGS | CLONE_DETACHED, /* musl's pthread_create() */
};

#define NELEM(a) (sizeof(a) / sizeof((a)[0]))
#define RET_ALLOW TFD_SECCOMP_RET_ALLOW
#define RET_ERRNO(e) (TFD_SECCOMP_RET_ERRNO | (e))
/* The low 32 bits of argument @i (little-endian), all a filter checks. */
#define ARG_LOW(i) (offsetof(struct tfd_seccomp_data, args) + 8 * (i))

/* The filter's length: the arch check, clone's, the three EINVAL checks, the list, the end. */
#define BASIC_ABI_LEN \
	(6 + (5 + NELEM(basic_abi_clone_flags)) + 3 * 5 + 2 * NELEM(basic_abi_calls) + 1)
struct basic_abi_filter {
	struct tfd_sock_filter insn[BASIC_ABI_LEN];
	size_t len;
};

/* Appends an instruction; past the room it only counts, so that the caller sees it. */
static void
put(struct basic_abi_filter *b, uint16_t code, uint32_t k, uint8_t jt, uint8_t jf)
{
	if (b->len < BASIC_ABI_LEN)
		b->insn[b->len] = (struct tfd_sock_filter)BPF_JUMP(code, k, jt, jf);
	b->len++;
}

/*
 * Builds the filter: every jump a short one (jt and jf are 8 bits), each check ending in its
 * own return.
 */
/*
 * System call @nr: EINVAL where the low 32 bits of argument @arg match @value (@test: JEQ
 * for equal, JSET for any bit of it), else ALLOW.  Falls through to the next check for
 * any other call.
 */
static void
refuse_value(struct basic_abi_filter *b, uint32_t nr, int arg, uint16_t test, uint32_t value)
{
	put(b, TFD_BPF_JEQ_K, nr, 0, 4);
	put(b, TFD_BPF_LD_W_ABS, ARG_LOW(arg), 0, 0);
	put(b, test, value, 0, 1);
	put(b, TFD_BPF_RET_K, RET_ERRNO(EINVAL), 0, 0);
	put(b, TFD_BPF_RET_K, RET_ALLOW, 0, 0);
}

static void
basic_abi_build(struct basic_abi_filter *b)
{
	size_t nclone = NELEM(basic_abi_clone_flags);

	/* Another arch's calls (i386's int 0x80) and x32's (bit 30 of the number): ENOSYS. */
	put(b, TFD_BPF_LD_W_ABS, offsetof(struct tfd_seccomp_data, arch), 0, 0);
	put(b, TFD_BPF_JEQ_K, BASIC_ABI_ARCH, 1, 0);
	put(b, TFD_BPF_RET_K, RET_ERRNO(ENOSYS), 0, 0);
	put(b, TFD_BPF_LD_W_ABS, offsetof(struct tfd_seccomp_data, nr), 0, 0);
	put(b, TFD_BPF_JSET_K, 0x40000000, 0, 1);
	put(b, TFD_BPF_RET_K, RET_ERRNO(ENOSYS), 0, 0);

	/* clone: (flags & ~CSIGNAL) one of basic_abi_clone_flags, else ENOSYS. */
	put(b, TFD_BPF_JEQ_K, SYS_clone, 0, (uint8_t)(nclone + 4));
	put(b, TFD_BPF_LD_W_ABS, ARG_LOW(0), 0, 0);
	put(b, TFD_BPF_AND_K, ~(uint32_t)0xff, 0, 0);
	for (size_t i = 0; i < nclone; i++)
		put(b, TFD_BPF_JEQ_K, basic_abi_clone_flags[i], (uint8_t)(nclone - i), 0);
	put(b, TFD_BPF_RET_K, RET_ERRNO(ENOSYS), 0, 0);
	put(b, TFD_BPF_RET_K, RET_ALLOW, 0, 0);
	/*
	 * Not assumed to work there, refused as a kernel refuses a value it does not know
	 * (EINVAL): prctl's PR_SET_TIMERSLACK, fcntl's F_SETPIPE_SZ, pipe2's O_DIRECT.
	 */
	refuse_value(b, SYS_prctl, 0, TFD_BPF_JEQ_K, PR_SET_TIMERSLACK);
	refuse_value(b, SYS_fcntl, 1, TFD_BPF_JEQ_K, F_SETPIPE_SZ);
	refuse_value(b, SYS_pipe2, 1, TFD_BPF_JSET_K, O_DIRECT);

	/* The rest: one short jump past its ALLOW for each call of the list. */
	for (size_t i = 0; i < NELEM(basic_abi_calls); i++) {
		put(b, TFD_BPF_JEQ_K, basic_abi_calls[i], 0, 1);
		put(b, TFD_BPF_RET_K, RET_ALLOW, 0, 0);
	}
	put(b, TFD_BPF_RET_K, RET_ERRNO(ENOSYS), 0, 0);
}

/*
 * A mount namespace of its own where /proc is an empty read-only tmpfs: no /proc/self, no
 * /proc/thread-self.  0, or -1 with @why set.
 */
static int
hide_proc(const char **why)
{
	if (unshare(CLONE_NEWNS) < 0) {
		*why = "unshare(CLONE_NEWNS)";
		return -1;
	}
	/* Private first: the tmpfs must not propagate to the mount namespace we came from. */
	if (mount("none", "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0) {
		*why = "mount(/, MS_REC | MS_PRIVATE)";
		return -1;
	}
	if (mount("none", "/proc", "tmpfs", MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC,
		  "mode=0555") < 0) {
		*why = "mount(tmpfs, /proc, MS_RDONLY)";
		return -1;
	}
	/* Never pretend: the program must find no /proc/self. */
	if (access("/proc/self", F_OK) == 0 || errno != ENOENT) {
		*why = "/proc/self still there after the mount";
		errno = EEXIST;
		return -1;
	}
	return 0;
}
#endif /* x86_64 */

/*
 * AddressSanitizer's runtime reads /proc/self/maps, and LeakSanitizer's stops the threads
 * through /proc and ptrace: a program of a build with it cannot run in the basic ABI, and this
 * launcher is of the same build.
 */
#if defined(__SANITIZE_ADDRESS__)
#define BASIC_ABI_SANITIZER "AddressSanitizer"
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define BASIC_ABI_SANITIZER "AddressSanitizer"
#endif
#endif

/* --basic-abi: hides /proc, installs the allowlist, execs @argv; 77 where it cannot. */
static int
run_basic_abi(char **argv)
{
#ifdef BASIC_ABI_ARCH
	static struct basic_abi_filter filter;
	const char *why;
	int err;

#ifdef BASIC_ABI_SANITIZER
	printf("enosys-launcher: a build with %s: its runtime needs /proc, which the basic ABI "
	       "hides\n", BASIC_ABI_SANITIZER);
	return 77;
#endif
	basic_abi_build(&filter);
	if (filter.len != BASIC_ABI_LEN || filter.len > TFD_BPF_MAXINSNS) {
		printf("enosys-launcher: the basic ABI's filter has %zu instructions, not %zu\n",
		       filter.len, (size_t)BASIC_ABI_LEN);
		return 1;
	}
	if (hide_proc(&why) < 0) {
		printf("enosys-launcher: cannot hide /proc for the basic ABI: %s: %s%s\n", why,
		       strerror(errno), errno == EPERM ? " (it needs CAP_SYS_ADMIN)" : "");
		return 77;
	}
	err = load_filter(filter.insn, filter.len);
	if (err) {
		printf("enosys-launcher: no seccomp filter for the basic ABI: %s\n",
		       strerror(-err));
		return 77;
	}
	printf("enosys-launcher: basic Linux ABI installed: /proc hidden, %zu system calls "
	       "allowed (clone, prctl, fcntl, pipe2 checked), every other one answers ENOSYS\n",
	       NELEM(basic_abi_calls) + 4);
	fflush(stdout);
	execvp(argv[0], argv);
	perror(argv[0]);
	return 127;
#else
	(void)argv;
	printf("enosys-launcher: the basic ABI's allowlist is of x86_64's system calls, and this "
	       "is not native x86_64\n");
	return 77;
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
	if (argc > 2 && strcmp(argv[1], "--basic-abi") == 0)
		return run_basic_abi(argv + 2);
	if (argc < 2) {
		fprintf(stderr, "usage: %s [--no-create-flags | --no-unshare | --basic-abi] "
			"PROGRAM [ARGS...]\n", argv[0]);
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
