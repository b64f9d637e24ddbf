/* SPDX-License-Identifier: MIT */
/*
 * Description: checks the environment of enosys-launcher --basic-abi from inside it: a call
 * outside the allowlist answers ENOSYS (so do i386's and x32's), /proc/self is not there,
 * fork(), vfork() and pthread_create() of this C library work and other clone flags do not,
 * and the refused arguments give EINVAL.  Run by basic-abi-launcher-test.sh; on the arches
 * the launcher makes the basic ABI for, x86_64, i386, aarch64 and arm (elsewhere: skipped,
 * exit 77).
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdint.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/epoll.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#if (defined(__x86_64__) && !defined(__ILP32__)) || defined(__i386__) || defined(__aarch64__) || \
	defined(__arm__)
#if defined(__x86_64__)
/* For C library headers older than these calls (the kernel's syscall_64.tbl). */
#ifndef SYS_statx
#define SYS_statx 332
#endif
#ifndef SYS_clone3
#define SYS_clone3 435
#endif
#endif

static int failures;

static void
report(int ok, const char *what, long ret, int err)
{
	if (ok)
		printf("ok: %s\n", what);
	else
		printf("FAIL: %s: got %ld (%s)\n", what, ret, ret < 0 ? strerror(err) : "no error");
	failures += !ok;
}

/* @ret and errno of a call that must fail with @want. */
static void
expect_errno(const char *what, long ret, int want)
{
	int err = errno;

	report(ret == -1 && err == want, what, ret, err);
}

/*
 * A refused call's arguments are bad ones where they can be: if the filter let it through,
 * the kernel would answer something else (EBADF, EINVAL, EFAULT...) and do nothing.
 */
/*
 * musl on 32-bit arches names the calls with a 32-bit time_t NAME32, and its struct
 * timespec is the time64 calls' (clock_gettime64's).
 */
#if !defined(SYS_timerfd_settime) && defined(SYS_timerfd_settime32)
#define SYS_timerfd_settime SYS_timerfd_settime32
#define SYS_timerfd_gettime SYS_timerfd_gettime32
#endif
#if !defined(SYS_clock_gettime) && defined(SYS_clock_gettime64)
#define SYS_clock_gettime SYS_clock_gettime64
#define SYS_clock_getres SYS_clock_getres_time64
#endif

static void
check_refused_calls(void)
{
	static const struct {
		const char *name;
		long nr, a0, a1, a2;
	} calls[] = {
		{ "timerfd_create", SYS_timerfd_create, -1, 0, 0 },
		{ "timerfd_settime", SYS_timerfd_settime, -1, 0, 0 },
		{ "timerfd_gettime", SYS_timerfd_gettime, -1, 0, 0 },
		{ "timer_create", SYS_timer_create, -1, 0, 0 },
		{ "unshare", SYS_unshare, -1, 0, 0 },
#ifdef SYS_clone3
		{ "clone3", SYS_clone3, 0, 0, 0 },
#endif
		{ "eventfd2", SYS_eventfd2, 0, -1, 0 },
		{ "signalfd4", SYS_signalfd4, -1, 0, 0 },
		{ "memfd_create", SYS_memfd_create, 0, 0, 0 },
		{ "process_vm_readv", SYS_process_vm_readv, 0, 0, 0 },
#ifdef SYS_getdents /* else getdents64 is the only one, and allowed */
		{ "getdents64", SYS_getdents64, -1, 0, 0 },
#endif
#ifdef SYS_statx
		{ "statx", SYS_statx, -1, 0, 0 },
#endif
#if defined(__x86_64__)
		/* x32's getpid: an x86_64 process may make x32 calls (bit 30 set). */
		{ "x32 getpid", 0x40000000 | SYS_getpid, 0, 0, 0 },
#endif
	};
	char what[64];

	for (size_t i = 0; i < sizeof(calls) / sizeof(calls[0]); i++) {
		long ret;

		snprintf(what, sizeof(what), "%s answers ENOSYS", calls[i].name);
		errno = 0;
		ret = syscall(calls[i].nr, calls[i].a0, calls[i].a1, calls[i].a2, 0L, 0L, 0L);
		expect_errno(what, ret, ENOSYS);
	}
}

/*
 * i386's getpid through int $0x80: ENOSYS from the filter (its arch is not x86_64).  In a
 * child, as a kernel without ia32 emulation answers int $0x80 with SIGSEGV.
 */
static void
check_i386_call(void)
{
#if defined(__x86_64__)
	pid_t pid = fork();
	int status;

	if (pid == 0) {
		long ret = 20; /* __NR_getpid on i386 */

		__asm__ volatile("int $0x80" : "+a"(ret) : : "memory");
		_exit(ret == -ENOSYS ? 0 : 1);
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid) {
		report(0, "i386 getpid (int $0x80) answers ENOSYS", -1, errno);
		return;
	}
	if (WIFSIGNALED(status))
		printf("ok: i386 getpid (int $0x80) not checked: killed by signal %d (no ia32 "
		       "emulation in this kernel)\n", WTERMSIG(status));
	else
		report(WIFEXITED(status) && WEXITSTATUS(status) == 0,
		       "i386 getpid (int $0x80) answers ENOSYS", 0, 0);
#endif
}

static void
check_no_proc(void)
{
	errno = 0;
	expect_errno("open(/proc/self/fd) fails with ENOENT",
		     open("/proc/self/fd", O_RDONLY | O_DIRECTORY | O_CLOEXEC), ENOENT);
	errno = 0;
	expect_errno("open(/proc/thread-self/fd) fails with ENOENT",
		     open("/proc/thread-self/fd", O_RDONLY | O_DIRECTORY | O_CLOEXEC), ENOENT);
}

static void *
thread_main(void *arg)
{
	int *fds = arg;

	if (fds)
		(void)!write(fds[1], "t", 1);
	return (void *)42;
}

/*
 * A child that exits with 7, made by fork() (@how 0), vfork() (1) or clone(SIGCHLD) (2): musl's
 * fork() where there is no fork system call.
 */
static void
check_child(const char *what, int how)
{
	int status = 0;
	pid_t pid;

	if (how == 0)
		pid = fork();
	else if (how == 1)
		pid = vfork();
	else
		pid = (pid_t)syscall(SYS_clone, SIGCHLD, 0L, 0L, 0L, 0L);

	if (pid == 0)
		_exit(7);
	if (pid < 0 || waitpid(pid, &status, 0) != pid) {
		report(0, what, -1, errno);
		return;
	}
	report(WIFEXITED(status) && WEXITSTATUS(status) == 7, what, pid, 0);
}

/* clone flags outside the allowed sets: ENOSYS.  A fork if the filter let them through. */
static void
check_refused_clone(const char *what, unsigned long flags)
{
	long ret;
	int err;

	errno = 0;
	ret = syscall(SYS_clone, flags | SIGCHLD, 0L, 0L, 0L, 0L);
	err = errno;
	if (ret == 0)
		_exit(0);
	if (ret > 0)
		waitpid((pid_t)ret, NULL, 0);
	report(ret == -1 && err == ENOSYS, what, ret, err);
}

static void
check_processes_and_threads(void)
{
	pthread_attr_t attr;
	pthread_t t;
	void *res = NULL;
	int fds[2], err;
	char c;

	check_child("fork() works", 0);
	check_child("vfork() works", 1);
	check_child("clone(SIGCHLD) works", 2);

	err = pthread_create(&t, NULL, thread_main, NULL);
	if (err == 0)
		err = pthread_join(t, &res);
	report(err == 0 && res == (void *)42, "pthread_create() and pthread_join() work",
	       err ? -1 : 0, err);

	/* A detached thread, which writes to a pipe. */
	err = pipe(fds) < 0 ? errno : 0;
	if (err == 0) {
		pthread_attr_init(&attr);
		pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
		err = pthread_create(&t, &attr, thread_main, fds);
		pthread_attr_destroy(&attr);
		if (err == 0 && read(fds[0], &c, 1) != 1)
			err = errno;
		close(fds[0]);
		close(fds[1]);
	}
	report(err == 0, "a detached thread works", err ? -1 : 0, err);

	check_refused_clone("clone(CLONE_NEWNS | SIGCHLD) answers ENOSYS", CLONE_NEWNS);
	check_refused_clone("clone(CLONE_UNTRACED | SIGCHLD) answers ENOSYS", CLONE_UNTRACED);
	check_refused_clone("clone(CLONE_PARENT_SETTID | SIGCHLD) answers ENOSYS",
			    CLONE_PARENT_SETTID);
}

/* Not seen as NULL by the compiler's checks. */
static void *volatile null_buffer;

static void
check_refused_arguments(void)
{
	int fds[2], more[2];
	long ret;

	if (pipe(fds) < 0) {
		report(0, "pipe() works", -1, errno);
		return;
	}
	errno = 0;
	expect_errno("fcntl(F_SETPIPE_SZ) fails with EINVAL", fcntl(fds[0], F_SETPIPE_SZ, 65536),
		     EINVAL);
	ret = fcntl(fds[0], F_GETPIPE_SZ);
	report(ret > 0, "fcntl(F_GETPIPE_SZ) works", ret, errno);
	ret = fcntl(fds[0], F_GETFL);
	report(ret >= 0, "fcntl(F_GETFL) works", ret, errno);
	/* Two answers of a user-mode Linux emulator's, where Linux gives ENOTTY and EAGAIN. */
	errno = 0;
	expect_errno("ioctl(TFD_IOC_SET_TICKS) on a pipe fails with EINVAL",
		     ioctl(fds[0], _IOW('T', 0, uint64_t), &(uint64_t){ 1 }), EINVAL);
	ret = ioctl(fds[0], FIONREAD, &(int){ 0 });
	report(ret == 0, "ioctl(FIONREAD) on a pipe works", ret, errno);
	ret = fcntl(fds[0], F_SETFL, O_NONBLOCK);
	report(ret == 0, "fcntl(F_SETFL, O_NONBLOCK) works", ret, errno);
	errno = 0;
	expect_errno("read() of an empty pipe into NULL fails with EFAULT",
		     read(fds[0], null_buffer, 8), EFAULT);
	errno = 0;
	expect_errno("read() of an empty pipe fails with EAGAIN", read(fds[0], &(char[8]){ 0 }, 8),
		     EAGAIN);
	close(fds[0]);
	close(fds[1]);

	errno = 0;
	expect_errno("pipe2(O_DIRECT) fails with EINVAL", pipe2(more, O_DIRECT), EINVAL);
	ret = pipe2(more, O_CLOEXEC | O_NONBLOCK);
	report(ret == 0, "pipe2(O_CLOEXEC | O_NONBLOCK) works", ret, errno);
	if (ret == 0) {
		close(more[0]);
		close(more[1]);
	}

	errno = 0;
	expect_errno("prctl(PR_SET_TIMERSLACK) fails with EINVAL",
		     prctl(PR_SET_TIMERSLACK, 1000UL, 0UL, 0UL, 0UL), EINVAL);
	ret = prctl(PR_GET_TIMERSLACK, 0UL, 0UL, 0UL, 0UL);
	report(ret >= 0, "prctl(PR_GET_TIMERSLACK) works", ret, errno);
	errno = 0;
	expect_errno("prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER) fails with EINVAL",
		     prctl(PR_SET_SECCOMP, 2UL, NULL, 0UL, 0UL), EINVAL);
	ret = prctl(PR_GET_SECCOMP, 0UL, 0UL, 0UL, 0UL);
	report(ret >= 0, "prctl(PR_GET_SECCOMP) works", ret, errno);
}

/* A few allowed calls, made as system calls (not through the vDSO). */
static void
check_allowed_calls(void)
{
	struct timespec ts;
	long ret;

	ret = syscall(SYS_clock_gettime, CLOCK_MONOTONIC, &ts);
	report(ret == 0, "clock_gettime (the system call) works", ret, errno);
	ret = syscall(SYS_clock_getres, CLOCK_MONOTONIC, &ts);
	report(ret == 0, "clock_getres (the system call) works", ret, errno);
	ret = syscall(SYS_getpid);
	report(ret == getpid(), "getpid works", ret, errno);
	ret = syscall(SYS_epoll_create1, EPOLL_CLOEXEC);
	report(ret >= 0, "epoll_create1 works", ret, errno);
	if (ret >= 0)
		close((int)ret);
}

int
main(void)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	check_refused_calls();
	check_i386_call();
	check_no_proc();
	check_processes_and_threads();
	check_refused_arguments();
	check_allowed_calls();
	printf("basic ABI: %s\n", failures ? "some checks failed" : "every check passed");
	return failures ? 1 : 0;
}
#else
int
main(void)
{
	printf("SKIP: enosys-launcher --basic-abi is for x86_64, i386, aarch64 and arm only\n");
	return 77;
}
#endif
