/* SPDX-License-Identifier: MIT */
/* How the timer server is made, found and ended, and how a create gets a FIFO from it. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "emu/fifo.h"
#include "emu/server.h"
#include "emu/sys.h"
#include "emu/timer.h"

/* How long a create waits for the server to start or to make a FIFO before it gives up. */
#define START_WAIT_NS 5000000000LL
/* Each wait's slice: the server's death is looked for between them. */
#define WAIT_SLICE_NS 20000000LL
#ifndef __WALL
#define __WALL 0x40000000
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

bool
__tfd_server_alive(const struct tfd_shard *srv)
{
	uint32_t state = __atomic_load_n(&srv->server, __ATOMIC_SEQ_CST);

	/* A server killed (SIGKILL, the OOM killer) is marked by the kernel: robust list. */
	return state != TFD_SERVER_NONE &&
	       !(__atomic_load_n(&srv->server_tid, __ATOMIC_SEQ_CST) & TFD_OWNER_DIED);
}

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
 * A child of ours with no exit signal: the program gets no SIGCHLD for it and its
 * wait(-1) never reaps it (only __WCLONE/__WALL waits see such a child).  Not the C
 * library's fork(): that would run the program's pthread_atfork() handlers.  SPARC
 * returns the parent's pid to both sides of a raw clone: there the C library's _Fork()
 * (no handlers), whose child has the usual SIGCHLD.
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
clone_quiet(void)
{
#if defined(TFD_TSAN)
	return fork();
#elif defined(__sparc__) && defined(HAVE__FORK)
	return _Fork();
#elif defined(__sparc__)
	return fork();
#else
	pid_t pid = raw_clone(0); /* flags 0: exit signal 0 */

	/* qemu-user takes a fork-like clone only with SIGCHLD: then one SIGCHLD it is. */
	if (pid < 0 && errno == EINVAL)
		pid = raw_clone(SIGCHLD);
	return pid;
#endif
}

/*
 * A resource limit through the kernel (prlimit64, every ABI): a C library's setrlimit() may
 * apply it to every thread it knows of (musl's __synccall), threads the server does not have.
 */
struct tfd_rlimit64 {
	uint64_t cur, max;
};

static int
limit_get(int resource, struct tfd_rlimit64 *rl)
{
	return (int)syscall(SYS_prlimit64, 0, resource, NULL, rl);
}

static int
limit_set(int resource, const struct tfd_rlimit64 *rl)
{
	return (int)syscall(SYS_prlimit64, 0, resource, rl, NULL);
}

/* The server's own descriptor table: nothing of the program's; 0-9 harmless (/dev/null). */
static void
own_table(void)
{
	struct tfd_rlimit64 rl;

#ifdef SYS_close_range
	if (syscall(SYS_close_range, 0U, ~0U, 0U) < 0)
#endif
	{
		long max = limit_get(RLIMIT_NOFILE, &rl) == 0 && rl.cur < (1u << 20) ? (long)rl.cur
										 : 65536;

		for (long fd = 0; fd < max; fd++)
			tfd_sys_close((int)fd);
	}
	/*
	 * Anything that writes to a fixed number (the dynamic loader's debug output, a C
	 * library's message to fd 2) must never land in a timer: 0-9 are /dev/null, or
	 * a pipe's read end (a write to it fails) where there is no /dev/null.
	 */
	if (tfd_sys_openat(AT_FDCWD, "/dev/null", O_RDWR, 0) != 0) {
		int p[2];

		if (syscall(SYS_pipe2, p, 0) == 0 && p[1] != 0)
			tfd_sys_close(p[1]);
	}
	for (int fd = 1; fd < 10; fd++)
		tfd_sys_fcntl(0, F_DUPFD, fd);
	/*
	 * As many timers as the limits allow: the server holds one write end each.  And
	 * its memory is not bound by a limit the program had set when it was started.
	 */
	rl.cur = rl.max = 1u << 20; /* the kernel's default nr_open: privileged only */
	if (limit_set(RLIMIT_NOFILE, &rl) < 0 && limit_get(RLIMIT_NOFILE, &rl) == 0 &&
	    rl.cur < rl.max) {
		rl.cur = rl.max;
		limit_set(RLIMIT_NOFILE, &rl);
	}
	if (limit_get(RLIMIT_AS, &rl) == 0 && rl.cur < rl.max) {
		rl.cur = rl.max;
		limit_set(RLIMIT_AS, &rl);
	}
}

/*
 * None of the program's handlers (their code and data are the program's, copied), every
 * signal's default action, and none blocked: a SIGTERM sent to it (systemd stopping the
 * service, kill -1) ends it as it would any process.  SIGPIPE is ignored: a write to a
 * FIFO whose reader is gone fails with EPIPE, which is how a closed timer is found.
 */
static void
default_signals(void)
{
	struct sigaction sa;
	sigset_t none;

	memset(&sa, 0, sizeof(sa));
	for (int sig = 1; sig < NSIG; sig++) {
		/* musl locks for SIGABRT's disposition (a lock maybe copied held): it stays blocked. */
		if (sig == SIGABRT)
			continue;
		sa.sa_handler = sig == SIGPIPE ? SIG_IGN : SIG_DFL;
		sigaction(sig, &sa, NULL);
	}
	sigemptyset(&none);
	sigaddset(&none, SIGABRT);
	sigprocmask(SIG_SETMASK, &none, NULL);
}

/* The server process: its own session, table and robust mark, then the main loop. */
static void __attribute__((noreturn))
server_process(struct tfd_shared *sh, int shard, const struct tfd_server_start *start)
{
	struct tfd_shard *srv = &sh->shards[shard];
	static struct robust_list_head head;
	static struct robust_list entry;
	pid_t tid;

	/* Out of the program's session and process group: kill(0, sig) and its terminal miss it. */
	syscall(SYS_setsid);
	default_signals();
	own_table();
	syscall(SYS_umask, 0); /* the FIFOs' and directory's modes as given */
	syscall(SYS_chdir, "/");  /* no hold on the program's working directory */
	syscall(SYS_prctl, PR_SET_NAME, "libtimerfd", 0, 0, 0);
	/* At its death, however it dies, the kernel marks server_tid (FUTEX_OWNER_DIED). */
	tid = (pid_t)syscall(SYS_gettid);
	entry.next = &head.list;
	head.list.next = &entry;
	head.futex_offset = (long)((char *)&srv->server_tid - (char *)&entry);
	head.list_op_pending = NULL; /* no lock being taken or let go */
	syscall(SYS_set_robust_list, &head, sizeof(head));
	__atomic_store_n(&srv->server_tid, (uint32_t)tid, __ATOMIC_SEQ_CST);
	__tfd_server_main(sh, shard, start);
}

/*
 * Whether every directory of @path lets anyone through (o+x): a process that drops its
 * privileges later must still reach the FIFOs (a private $TMPDIR, /tmp/user/0 of mode 0700
 * as pam_tmpdir makes, would not let it).
 */
static bool
searchable_by_all(const char *path)
{
	char buf[sizeof(((struct tfd_shard *)0)->dir)];
	size_t n = strlen(path);

	if (n >= sizeof(buf))
		return false;
	memcpy(buf, path, n + 1);
	while (n > 0) {
		struct stat st;

		buf[n] = '\0';
		if (stat(buf, &st) < 0 || !S_ISDIR(st.st_mode) || !(st.st_mode & S_IXOTH))
			return false;
		while (n > 0 && buf[n - 1] != '/')
			n--;
		while (n > 1 && buf[n - 1] == '/')
			n--;
		if (n == 1)
			break;
	}
	return true;
}

/*
 * Whether this process called unshare(CLONE_NEWPID) and has not forked since: the server's
 * clone would then be the init of the new namespace, and end it as it exits (the kernel's
 * timerfd_create() makes no process).  Known through /proc only; without it, not known.
 */
static bool
pid_namespace_pending(void)
{
	struct stat st;
	char b[64];

	/* The link exists (Linux 4.12) but leads nowhere until the namespace's first process. */
	return lstat("/proc/self/ns/pid_for_children", &st) == 0 &&
	       readlink("/proc/self/ns/pid_for_children", b, sizeof(b)) < 0 && errno == ENOENT;
}

/* Where the directory may go: $TMPDIR (not for setuid programs), then the usual places. */
static void
choose_dirs(struct tfd_server_start *start)
{
	const char *bases[4] = { NULL, "/dev/shm", "/tmp", "/var/tmp" };
	uint64_t r = 0;

#ifdef HAVE_SECURE_GETENV
	bases[0] = secure_getenv("TMPDIR");
#endif
	if (syscall(SYS_getrandom, &r, sizeof(r), 0) != sizeof(r))
		r = (uint64_t)__tfd_base_now(TFD_BASE_MONOTONIC) ^ ((uint64_t)getpid() << 32);
	start->ncandidates = 0;
	for (int b = 0; b < 4; b++) {
		char *c = start->candidates[start->ncandidates];
		int n;

		if (!bases[b] || bases[b][0] != '/' || !searchable_by_all(bases[b]))
			continue;
		n = snprintf(c, sizeof(start->candidates[0]), "%s/.libtimerfd-%016llx", bases[b],
			     (unsigned long long)r);
		if (n > 0 && (size_t)n < sizeof(start->candidates[0]) - TFD_FIFO_NAME_MAX - 2)
			start->ncandidates++;
	}
}

static void
new_secret(struct tfd_shard *srv)
{
	if (syscall(SYS_getrandom, srv->secret, sizeof(srv->secret), 0) == sizeof(srv->secret))
		return;
	/* No getrandom(): the clocks, the pid and an address; the directory's mode still hides it. */
	srv->secret[0] ^= (uint64_t)__tfd_base_now(TFD_BASE_REALTIME) * 0x9e3779b97f4a7c15ULL;
	srv->secret[1] ^= (uint64_t)__tfd_base_now(TFD_BASE_MONOTONIC) ^ (uint64_t)(uintptr_t)srv ^
			  ((uint64_t)getpid() << 40);
}

/* Waits for @word to move from @seq, for one slice at most. */
static void
wait_slice(uint32_t *word, uint32_t seq)
{
	tfd_sys_futex_wait(word, seq, WAIT_SLICE_NS);
}

/* Starts shard @k's server if none runs: 0, or -errno (the state is the family's: one starts it). */
static int
spawn(struct tfd_shared *sh, int k)
{
	struct tfd_shard *srv = &sh->shards[k];
	struct tfd_server_start start = { .ncandidates = 0 }; /* the clone reads its copy */
	int64_t deadline;
	pid_t pid;
	int err = 0;

	if (pthread_mutex_lock(&srv->spawn_lock) == EOWNERDEAD)
		pthread_mutex_consistent(&srv->spawn_lock);
	if (__tfd_server_alive(srv) ||
	    __atomic_load_n(&srv->server, __ATOMIC_SEQ_CST) == TFD_SERVER_CLOSING)
		goto out;
	if (pid_namespace_pending()) {
		err = -ENOSYS; /* libtimerfd(7) */
		goto out;
	}
	/* A server that died (killed) left its directory: the new one removes it. */
	start.dead_before = __atomic_load_n(&srv->server, __ATOMIC_SEQ_CST) != TFD_SERVER_NONE;
	if (start.dead_before) {
		memcpy(start.dead_dir, srv->dir, sizeof(srv->dir));
		memcpy(start.dead_secret, srv->secret, sizeof(srv->secret));
		start.dead_high_water = __atomic_load_n(&srv->high_water, __ATOMIC_SEQ_CST);
	}
	choose_dirs(&start);
	new_secret(srv);
	__atomic_store_n(&srv->server_err, 0, __ATOMIC_SEQ_CST);
	__atomic_store_n(&srv->server_tid, 0, __ATOMIC_SEQ_CST);
	__atomic_store_n(&srv->server, TFD_SERVER_STARTING, __ATOMIC_SEQ_CST);
	/* Twice: the server is the child of a child that exits at once, so init adopts it. */
	pid = clone_quiet();
	if (pid == 0) {
		if (clone_quiet() == 0)
			server_process(sh, k, &start);
		syscall(SYS_exit_group, 0);
	}
	if (pid < 0) {
		__atomic_store_n(&srv->server, TFD_SERVER_NONE, __ATOMIC_SEQ_CST);
		err = -ENOMEM; /* the kernel's create says so when it cannot allocate */
		goto out;
	}
	while (syscall(SYS_wait4, pid, NULL, __WALL, NULL) < 0 && errno == EINTR)
		;
	deadline = __tfd_base_now(TFD_BASE_MONOTONIC) + START_WAIT_NS;
	while (__atomic_load_n(&srv->server, __ATOMIC_SEQ_CST) == TFD_SERVER_STARTING &&
	       __tfd_base_now(TFD_BASE_MONOTONIC) < deadline)
		wait_slice(&srv->spare_seq, __atomic_load_n(&srv->spare_seq, __ATOMIC_SEQ_CST));
	if (__atomic_load_n(&srv->server, __ATOMIC_SEQ_CST) == TFD_SERVER_NONE) {
		/* No directory for the FIFOs anywhere (ENOSYS: libtimerfd(7)), or no memory. */
		err = __atomic_load_n(&srv->server_err, __ATOMIC_SEQ_CST) == ENOSYS ? -ENOSYS : -ENOMEM;
	} else if (__atomic_load_n(&srv->server, __ATOMIC_SEQ_CST) == TFD_SERVER_STARTING) {
		__atomic_store_n(&srv->server, TFD_SERVER_NONE, __ATOMIC_SEQ_CST);
		err = -ENOMEM;
	}
out:
	pthread_mutex_unlock(&srv->spawn_lock);
	return err;
}

/* What a create answers when the server could not make a FIFO (its errno). */
static long
create_errno(int32_t err)
{
	if (err == ENOSYS)
		return -ENOSYS;
	/* Out of descriptors in the server's table: the system's limit, as far as the program sees. */
	if (err == EMFILE || err == ENFILE)
		return -ENFILE;
	return -ENOMEM;
}

/* A READY slot taken from shard @srv's spares (TAKEN now): its index, or -1 if it had none. */
static long
take_from(struct tfd_shared *sh, struct tfd_shard *srv)
{
	for (int k = 0; k < TFD_SPARES; k++) {
		uint32_t e = __atomic_load_n(&srv->spares[k], __ATOMIC_SEQ_CST);

		if (e && __atomic_compare_exchange_n(&srv->spares[k], &e, 0, false, __ATOMIC_SEQ_CST,
						     __ATOMIC_SEQ_CST)) {
			__atomic_store_n(&sh->slots[e - 1].state, TFD_SLOT_TAKEN, __ATOMIC_SEQ_CST);
			return e - 1;
		}
	}
	return -1;
}

long
__tfd_server_take_spare(struct tfd_shared *sh)
{
	int64_t deadline = __tfd_base_now(TFD_BASE_MONOTONIC) + START_WAIT_NS;
	int failures = 0, k = 0;

	for (;;) {
		struct tfd_shard *srv = &sh->shards[k];
		uint32_t seq = __atomic_load_n(&srv->spare_seq, __ATOMIC_SEQ_CST);
		int32_t err;
		long i;

		/* A dead server's spares have no writer: a new server first (it drops them). */
		if (!__tfd_server_alive(srv) &&
		    __atomic_load_n(&srv->server, __ATOMIC_SEQ_CST) != TFD_SERVER_CLOSING) {
			int r = spawn(sh, k);

			if (r < 0)
				return r;
			continue;
		}
		i = take_from(sh, srv);
		if (i >= 0)
			return i;
		err = __atomic_load_n(&srv->server_err, __ATOMIC_SEQ_CST);
		/*
		 * Its descriptor table or its range of slots is full: the next shard's server,
		 * started if need be.  Every create tries the first shards first: they serve
		 * again once timers close.
		 */
		if (tfd_shard_full(err) && k + 1 < TFD_SHARDS) {
			k++;
			continue;
		}
		/* The server could not make one: once more after it looked for closed timers. */
		if (err && failures++)
			return create_errno(err);
		if (__tfd_base_now(TFD_BASE_MONOTONIC) > deadline)
			return -ENOMEM;
		__atomic_fetch_add(&srv->wake_seq, 1, __ATOMIC_SEQ_CST);
		tfd_sys_futex_wake(&srv->wake_seq, 1);
		wait_slice(&srv->spare_seq, seq);
	}
}

int
__tfd_server_drain(struct tfd_shared *sh, uint32_t i)
{
	struct tfd_slot *s = &sh->slots[i];
	int64_t deadline = __tfd_base_now(TFD_BASE_MONOTONIC) + START_WAIT_NS;

	__atomic_store_n(&s->drain_req, 1, __ATOMIC_SEQ_CST);
	__tfd_server_poke(sh, i, INT64_MIN);
	while (__atomic_load_n(&s->drain_req, __ATOMIC_SEQ_CST)) {
		/* Bounded: a server that died, or never answers, fails the rearm (nothing changed). */
		if (!__tfd_server_alive(tfd_shard_of(sh, i)) ||
		    __tfd_base_now(TFD_BASE_MONOTONIC) > deadline) {
			__atomic_store_n(&s->drain_req, 0, __ATOMIC_SEQ_CST);
			return -ENOMEM;
		}
		wait_slice(&s->drain_req, 1);
	}
	/* Done, unless the server could not open a read end either (its table is full). */
	return s->maybe_counted ? -ENOMEM : 0;
}
