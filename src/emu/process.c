/* SPDX-License-Identifier: MIT */
/* Making the server's processes: quiet clones, the twin's clone, the robust death mark. */
#include "config.h"

#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "emu/emu.h"
#include "emu/process.h"

#ifndef CLONE_UNTRACED
#define CLONE_UNTRACED 0x00800000
#endif

/* The kernel's robust futex list ABI (include/uapi/linux/futex.h). */
struct robust_list {
	struct robust_list *next;
};
struct robust_list_head {
	struct robust_list list;
	long futex_offset;
	struct robust_list *list_op_pending;
};

/*
 * ThreadSanitizer's runtime, which the server's code calls into in a sanitizer build, is
 * made consistent in a child only by its own fork() interceptor (a raw clone may copy its
 * locks held by another thread): there, the C library's fork().
 */
#if defined(__SANITIZE_THREAD__)
#define TFD_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define TFD_TSAN 1
#endif
#endif

/*
 * Not the C library's fork(): that would run the program's pthread_atfork() handlers.
 * SPARC returns the parent's pid to both sides of a raw clone: there the C library's
 * _Fork() (no handlers), whose child has the usual SIGCHLD and shares nothing.
 */
#if !defined(TFD_TSAN) && !defined(__sparc__)
static pid_t
raw_clone(long flags)
{
#if defined(__s390__)
	return (pid_t)syscall(SYS_clone, 0L, flags, 0L, 0L, 0L); /* (stack, flags, ...) */
#else
	return (pid_t)syscall(SYS_clone, flags, 0L, 0L, 0L, 0L);
#endif
}
#endif

static pid_t
clone_with(long flags, bool *shared)
{
	*shared = false;
#if defined(TFD_TSAN)
	(void)flags;
	return fork();
#elif defined(__sparc__) && defined(HAVE__FORK)
	(void)flags;
	return _Fork();
#elif defined(__sparc__)
	(void)flags;
	return fork();
#else
	/*
	 * Exit signal 0, untraced, @flags; then less, where the kernel or a filter refuses
	 * (qemu-user takes a fork-like clone only with SIGCHLD and no other flag; a syscall
	 * allowlist only the C library's own sets): a traced server is better than none.
	 */
	const long tries[] = { CLONE_UNTRACED | flags, flags, 0, SIGCHLD };
	size_t k = 0;

	/* valgrind: a fork-like clone at once (__tfd_under_valgrind()). */
	if (__tfd_under_valgrind())
		k = 2;
	for (; k < sizeof(tries) / sizeof(tries[0]); k++) {
		pid_t pid = raw_clone(tries[k]);

		if (pid >= 0) {
			*shared = (tries[k] & CLONE_FILES) != 0;
			return pid;
		}
		if (errno == EAGAIN || errno == ENOMEM)
			return -1;
	}
	return -1;
#endif
}

bool
__tfd_under_valgrind(void)
{
	const char *preload = getenv("LD_PRELOAD");

	return preload && strstr(preload, "vgpreload");
}

pid_t
__tfd_clone_quiet(void)
{
	bool shared;

	return clone_with(0, &shared);
}

pid_t
__tfd_clone_twin(bool *shared)
{
	return clone_with(CLONE_FILES, shared);
}

void
__tfd_robust_watch(uint32_t *word)
{
	static struct robust_list_head head;
	static struct robust_list entry;

	entry.next = &head.list;
	head.list.next = &entry;
	head.futex_offset = (long)((char *)word - (char *)&entry);
	head.list_op_pending = NULL; /* no lock being taken or let go */
	syscall(SYS_set_robust_list, &head, sizeof(head));
}

void
__tfd_robust_mark(uint32_t *word)
{
	__tfd_robust_watch(word);
	__atomic_store_n(word, (uint32_t)syscall(SYS_gettid), __ATOMIC_SEQ_CST);
}

/* The kernel's sched_setscheduler(2) ABI: policies, and the flag a policy may carry. */
#define TFD_SCHED_OTHER 0
#define TFD_SCHED_FIFO 1
#define TFD_SCHED_RR 2
#define TFD_SCHED_RESET_ON_FORK 0x40000000

int
__tfd_rt_priority(pid_t pid)
{
	int param = 0; /* struct sched_param: its one field */
	long policy = syscall(SYS_sched_getscheduler, pid);

	if (policy < 0)
		return 0;
	policy &= ~(long)TFD_SCHED_RESET_ON_FORK;
	if (policy != TFD_SCHED_FIFO && policy != TFD_SCHED_RR)
		return 0;
	if (syscall(SYS_sched_getparam, pid, &param) < 0 || param < 1 || param > TFD_RT_PRIO_MAX)
		return 0;
	return param;
}

int
__tfd_rt_priority_arming(const struct tfd_spec *spec, pid_t pid)
{
	return spec->value.sec || spec->value.nsec ? __tfd_rt_priority(pid) : 0;
}

bool
__tfd_rt_become(int prio)
{
	int param = prio; /* struct sched_param: its one field */

	if (prio < 0 || prio > TFD_RT_PRIO_MAX)
		return false;
	return syscall(SYS_sched_setscheduler, 0, prio > 0 ? TFD_SCHED_FIFO : TFD_SCHED_OTHER, &param) == 0;
}
