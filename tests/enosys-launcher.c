/* SPDX-License-Identifier: MIT */
/*
 * Description: runs a program in a simulated kernel without timerfd: a seccomp filter makes
 * every timerfd syscall fail with ENOSYS.  Where seccomp cannot be installed (qemu-user), it
 * says so and forces the emulation with LIBTIMERFD_BACKEND=emulation instead.
 * With --no-create-flags it simulates a kernel before 2.6.27 instead: timerfd_create with
 * nonzero flags fails with EINVAL (and the program fails if seccomp is unavailable).
 * With --no-unshare, unshare(2) also fails with EPERM, as in strict sandboxes.
 * With --no-namespaces, unshare(2) of any namespace but the mount one fails with EINVAL, as on
 * a kernel built without them (tinyconfig: make check-vm's guest without timerfd).
 * With --basic-abi it simulates a user-mode Linux emulator or library OS, which offers a basic
 * Linux ABI only: no /proc, and every system call outside an allowlist answers ENOSYS (x86_64,
 * i386, aarch64 and arm; elsewhere, or without the privilege to hide /proc, it says why and
 * exits 77).
 * Usage: enosys-launcher [--no-create-flags | --no-unshare | --no-namespaces | --basic-abi]
 *        PROGRAM [ARGS...]
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "seccomp-abi.h"
#include "syscall-numbers.h"

#define ENOSYS_FOR(nr)                                              \
	BPF_JUMP(TFD_BPF_JEQ_K, (nr), 0, 1),             \
		BPF_STMT(TFD_BPF_RET_K, TFD_SECCOMP_RET_ERRNO | ENOSYS)

#ifdef TFD_AUDIT_ARCH_SELF
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
#ifdef TFD_AUDIT_ARCH_SELF
	struct tfd_sock_filter filter[] = {
		BPF_STMT(TFD_BPF_LD_W_ABS, offsetof(struct tfd_seccomp_data, arch)),
		BPF_JUMP(TFD_BPF_JEQ_K, TFD_AUDIT_ARCH_SELF, 1, 0),
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

/*
 * The namespaces a kernel may be built without (CONFIG_NAMESPACES and its parts: tinyconfig
 * has none): their unshare(2) answers EINVAL there (create_new_namespaces() and the copy_*_ns()
 * stubs).  Mount namespaces are always built in.
 */
#define OPTIONAL_NAMESPACES                                                                 \
	(CLONE_NEWUTS | CLONE_NEWIPC | CLONE_NEWUSER | CLONE_NEWPID | CLONE_NEWNET | \
	 CLONE_NEWCGROUP | 0x00000080 /* CLONE_NEWTIME, unshare's only */)

/*
 * ENOSYS for timerfd; and unshare(2) with a flag of @unshare_mask answers @unshare_errno (a
 * strict sandbox's profile: every flag, EPERM; a kernel without namespaces: EINVAL).
 */
static int
install_filter(uint32_t unshare_mask, int unshare_errno)
{
#ifdef TFD_AUDIT_ARCH_SELF
	struct tfd_sock_filter filter[] = {
		BPF_STMT(TFD_BPF_LD_W_ABS, offsetof(struct tfd_seccomp_data, arch)),
		BPF_JUMP(TFD_BPF_JEQ_K, TFD_AUDIT_ARCH_SELF, 1, 0),
		BPF_STMT(TFD_BPF_RET_K, TFD_SECCOMP_RET_ALLOW),
		BPF_STMT(TFD_BPF_LD_W_ABS, offsetof(struct tfd_seccomp_data, nr)),
		ENOSYS_FOR(TFD_NR_create),
		ENOSYS_FOR(TFD_NR_settime),
		ENOSYS_FOR(TFD_NR_gettime),
#ifdef TFD_NR_settime64
		ENOSYS_FOR(TFD_NR_settime64),
		ENOSYS_FOR(TFD_NR_gettime64),
#endif
		BPF_JUMP(TFD_BPF_JEQ_K, SYS_unshare, 0, 3),
		/* The low 32 bits of the first argument: the int flags. */
		BPF_STMT(TFD_BPF_LD_W_ABS, offsetof(struct tfd_seccomp_data, args[0])),
		BPF_JUMP(TFD_BPF_JSET_K, unshare_mask, 0, 1),
		BPF_STMT(TFD_BPF_RET_K, TFD_SECCOMP_RET_ERRNO | (uint32_t)unshare_errno),
		BPF_STMT(TFD_BPF_RET_K, TFD_SECCOMP_RET_ALLOW),
	};
	return load_filter(filter, sizeof(filter) / sizeof(filter[0]));
#else
	(void)unshare_mask;
	(void)unshare_errno;
	return -ENOTSUP;
#endif
}

/*
 * The basic Linux ABI (--basic-abi): what a user-mode Linux emulator or a library OS offers,
 * as an allowlist of this arch's system calls (tests/basic-abi.list).  The arches whose
 * clone(2) takes its flags first and that the tests know a seccomp arch value for.
 */
#if defined(TFD_AUDIT_ARCH_SELF) && \
	((defined(__x86_64__) && !defined(__ILP32__)) || defined(__i386__) || defined(__aarch64__) || defined(__arm__))
#define BASIC_ABI_ARCH TFD_AUDIT_ARCH_SELF

/*
 * Allowed whatever their arguments: every call of tests/basic-abi.list this arch has.  clone,
 * prctl, fcntl and pipe2 are allowed too, with their arguments checked (basic_abi_build()).
 */
static const unsigned int basic_abi_calls[] = {
#include "basic-abi-calls.h" /* made from tests/basic-abi.list */
	/* Where there is no getdents (the generic ABI: aarch64), its 64-bit form is the one. */
#if !defined(SYS_getdents) && defined(SYS_getdents64)
	SYS_getdents64,
#endif
	/* arm's own call that its C libraries set the thread pointer with. */
#ifdef __ARM_NR_set_tls
	__ARM_NR_set_tls,
#endif
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
#ifndef SYS_vfork
	CLONE_VM | CLONE_VFORK, /* vfork() where there is no vfork system call (aarch64) */
#endif
};

#define NELEM(a) (sizeof(a) / sizeof((a)[0]))
#define RET_ALLOW TFD_SECCOMP_RET_ALLOW
#define RET_ERRNO(e) (TFD_SECCOMP_RET_ERRNO | (e))
/* The low 32 bits of argument @i (little-endian), all a filter checks. */
#define ARG_LOW(i) (offsetof(struct tfd_seccomp_data, args) + 8 * (i))

/* EINVAL checks: fcntl's (and fcntl64's), pipe2's; prctl's two values, one more. */
#ifdef SYS_fcntl64
#define BASIC_ABI_REFUSALS 4
#else
#define BASIC_ABI_REFUSALS 3
#endif
/* x86_64's x32 calls (bit 30 of the number): two instructions more. */
#if defined(__x86_64__)
#define BASIC_ABI_X32 2
#else
#define BASIC_ABI_X32 0
#endif
/*
 * The filter's length: the arch check, clone's, the EINVAL checks, the emulator's answers
 * (ioctl's, 5; read's, 7), the list, the end.
 */
#define BASIC_ABI_LEN \
	(4 + BASIC_ABI_X32 + (5 + NELEM(basic_abi_clone_flags)) + BASIC_ABI_REFUSALS * 5 + 1 + \
	 5 + 7 + 2 * NELEM(basic_abi_calls) + 1)
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

/* System call @nr: EINVAL where argument @arg is one of @values[@n], else ALLOW (as above). */
static void
refuse_values(struct basic_abi_filter *b, uint32_t nr, int arg, const uint32_t *values, size_t n)
{
	put(b, TFD_BPF_JEQ_K, nr, 0, (uint8_t)(n + 3));
	put(b, TFD_BPF_LD_W_ABS, ARG_LOW(arg), 0, 0);
	for (size_t i = 0; i < n; i++)
		put(b, TFD_BPF_JEQ_K, values[i], (uint8_t)(n - 1 - i), i + 1 == n ? 1 : 0);
	put(b, TFD_BPF_RET_K, RET_ERRNO(EINVAL), 0, 0);
	put(b, TFD_BPF_RET_K, RET_ALLOW, 0, 0);
}

/*
 * System call @nr: @err where argument @arg is NULL (both halves 0), else ALLOW.  Falls
 * through to the next check for any other call.
 */
static void
refuse_null(struct basic_abi_filter *b, uint32_t nr, int arg, int err)
{
	put(b, TFD_BPF_JEQ_K, nr, 0, 6);
	put(b, TFD_BPF_LD_W_ABS, ARG_LOW(arg), 0, 0);
	put(b, TFD_BPF_JEQ_K, 0, 0, 3);
	put(b, TFD_BPF_LD_W_ABS, ARG_LOW(arg) + 4, 0, 0);
	put(b, TFD_BPF_JEQ_K, 0, 0, 1);
	put(b, TFD_BPF_RET_K, RET_ERRNO((uint32_t)err), 0, 0);
	put(b, TFD_BPF_RET_K, RET_ALLOW, 0, 0);
}

static void
basic_abi_build(struct basic_abi_filter *b)
{
	size_t nclone = NELEM(basic_abi_clone_flags);

	/* Another arch's calls (i386's int 0x80 on x86_64, arm's on arm64): ENOSYS. */
	put(b, TFD_BPF_LD_W_ABS, offsetof(struct tfd_seccomp_data, arch), 0, 0);
	put(b, TFD_BPF_JEQ_K, BASIC_ABI_ARCH, 1, 0);
	put(b, TFD_BPF_RET_K, RET_ERRNO(ENOSYS), 0, 0);
	put(b, TFD_BPF_LD_W_ABS, offsetof(struct tfd_seccomp_data, nr), 0, 0);
#if defined(__x86_64__)
	/* x32's calls (bit 30 of the number), which an x86_64 process may make: ENOSYS. */
	put(b, TFD_BPF_JSET_K, 0x40000000, 0, 1);
	put(b, TFD_BPF_RET_K, RET_ERRNO(ENOSYS), 0, 0);
#endif

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
	 * (EINVAL): prctl's PR_SET_TIMERSLACK and PR_SET_SECCOMP, fcntl's F_SETPIPE_SZ, pipe2's
	 * O_DIRECT.
	 */
	/* And no filter of the program's own (PR_SET_SECCOMP): what a user-mode Linux answered. */
	refuse_values(b, SYS_prctl, 0, (const uint32_t[]){ PR_SET_TIMERSLACK, PR_SET_SECCOMP }, 2);
	refuse_value(b, SYS_fcntl, 1, TFD_BPF_JEQ_K, F_SETPIPE_SZ);
#ifdef SYS_fcntl64
	refuse_value(b, SYS_fcntl64, 1, TFD_BPF_JEQ_K, F_SETPIPE_SZ);
#endif
	refuse_value(b, SYS_pipe2, 1, TFD_BPF_JSET_K, O_DIRECT);
	/*
	 * Two answers a user-mode Linux emulator gave where Linux answers otherwise (both seen
	 * under one): EINVAL, not ENOTTY, for an ioctl it does not know (TFD_IOC_SET_TICKS on
	 * an emulated timer, a FIFO); EFAULT for read()'s NULL buffer before it looks for data
	 * (Linux answers EAGAIN on an empty non-blocking pipe first).
	 */
	refuse_value(b, SYS_ioctl, 1, TFD_BPF_JEQ_K, (uint32_t)_IOW('T', 0, uint64_t));
	refuse_null(b, SYS_read, 1, EFAULT);

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
#endif /* BASIC_ABI_ARCH */

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
	       "allowed (clone, prctl, fcntl, pipe2, ioctl, read checked), every other one answers ENOSYS\n",
	       NELEM(basic_abi_calls) + 1 + BASIC_ABI_REFUSALS);
	fflush(stdout);
	execvp(argv[0], argv);
	perror(argv[0]);
	return 127;
#else
	(void)argv;
	printf("enosys-launcher: the basic ABI is made for x86_64, i386, aarch64 and arm, and this "
	       "is none of them\n");
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
	if (argc > 2 && (strcmp(argv[1], "--no-unshare") == 0 || strcmp(argv[1], "--no-namespaces") == 0)) {
		bool none = strcmp(argv[1], "--no-namespaces") == 0;

		err = none ? install_filter(OPTIONAL_NAMESPACES, EINVAL) : install_filter(~0U, EPERM);
		if (err) {
			printf("enosys-launcher: no seccomp filter: %s\n", strerror(-err));
			return 77;
		}
		printf("enosys-launcher: seccomp filter installed: timerfd syscalls answer ENOSYS, %s\n",
		       none ? "unshare EINVAL for every namespace but the mount one" : "unshare EPERM");
		fflush(stdout);
		execvp(argv[2], argv + 2);
		perror(argv[2]);
		return 127;
	}
	if (argc > 2 && strcmp(argv[1], "--basic-abi") == 0)
		return run_basic_abi(argv + 2);
	if (argc < 2) {
		fprintf(stderr, "usage: %s [--no-create-flags | --no-unshare | --no-namespaces | "
			"--basic-abi] PROGRAM [ARGS...]\n", argv[0]);
		return 2;
	}
	err = install_filter(0, 0);
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
