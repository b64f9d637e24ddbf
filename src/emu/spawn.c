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

#include "emu/checked.h"
#include "emu/door.h"
#include "emu/family.h"
#include "emu/fifo.h"
#include "emu/process.h"
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

/* The server's own descriptor table: nothing of the program's; 0-2 harmless (/dev/null). */
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
	 * library's message to fd 2) must never land in a timer: the standard streams are
	 * /dev/null, or a pipe's read end (a write to it fails) where there is no /dev/null.
	 * No more than these three: where the hard limit is small (RLIMIT_NOFILE 12, and no
	 * CAP_SYS_RESOURCE to raise it), every descriptor is a timer's.
	 */
	if (tfd_sys_openat(AT_FDCWD, "/dev/null", O_RDWR, 0) != 0) {
		int p[2];

		if (syscall(SYS_pipe2, p, 0) == 0 && p[1] != 0)
			tfd_sys_close(p[1]);
	}
	for (int fd = 1; fd < 3; fd++)
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
 * None of the program's handlers (their code and data are the program's, copied), and none
 * blocked.  Every signal a process can be sent is ignored, as a kernel timer ignores them:
 * a container's init or a shutdown helper that ends "the other processes" with kill(-1,
 * SIGTERM) must not take the program's timers before the program handles its own SIGTERM
 * (the server ends by itself once the program's descriptors are closed).  What a fault
 * raises (SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGTRAP, SIGSYS) keeps its default: ignored, it
 * would run the faulting instruction again for ever.  SIGCHLD keeps its default too: the
 * server waits for its twin.  SIGPIPE ignored is also how a closed timer is found (a write
 * to a FIFO whose reader is gone fails with EPIPE).  SIGKILL and SIGSTOP cannot be ignored.
 */
static void
quiet_signals(void)
{
	struct sigaction sa;
	sigset_t none;

	memset(&sa, 0, sizeof(sa));
	for (int sig = 1; sig < NSIG; sig++) {
		/* musl locks for SIGABRT's disposition (a lock maybe copied held): it stays blocked. */
		if (sig == SIGABRT || sig == SIGKILL || sig == SIGSTOP)
			continue;
		switch (sig) {
		case SIGSEGV: case SIGBUS: case SIGILL: case SIGFPE: case SIGTRAP: case SIGSYS:
		case SIGCHLD:
			sa.sa_handler = SIG_DFL;
			break;
		default:
			sa.sa_handler = SIG_IGN;
			break;
		}
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

	/* Out of the program's session and process group: kill(0, sig) and its terminal miss it. */
	syscall(SYS_setsid);
	quiet_signals();
	own_table();
	syscall(SYS_umask, 0); /* the FIFOs' and directory's modes as given */
	syscall(SYS_chdir, "/");  /* no hold on the program's working directory */
	syscall(SYS_prctl, PR_SET_NAME, "libtimerfd", 0, 0, 0);
	/*
	 * Never easier to look into than the program (ptrace, /proc/PID/fd, /proc/PID/mem):
	 * the server holds every FIFO's write end, and the names of all of them.
	 */
	syscall(SYS_prctl, PR_SET_DUMPABLE, 0, 0, 0, 0);
	/* At its death, however it dies, the kernel marks server_tid (FUTEX_OWNER_DIED). */
	__tfd_robust_mark(&srv->server_tid);
	__tfd_server_main(sh, shard, start);
}

/*
 * Whether @path is a place for the server's directory: every directory on the way is owned
 * by root or by this user, and one that others may write to has the sticky bit (as /tmp),
 * so that nobody else can rename, replace or remove what we make there (ssh-agent and tmux
 * check theirs so); and every one lets anyone through (o+x), so that a process that drops
 * its privileges later still reaches the door (a private $TMPDIR, /tmp/user/0 of mode 0700
 * as pam_tmpdir makes, would not let it).
 */
static bool
trusted_base(const char *path)
{
	char buf[TFD_DIR_MAX];
	size_t n = strlen(path);
	uid_t me = geteuid();

	if (n >= sizeof(buf) || path[0] != '/')
		return false;
	memcpy(buf, path, n + 1);
	while (n > 0) {
		struct stat st;

		buf[n] = '\0';
		if (stat(buf, &st) < 0 || !S_ISDIR(st.st_mode) || !(st.st_mode & S_IXOTH))
			return false;
		if (st.st_uid != 0 && st.st_uid != me)
			return false;
		if ((st.st_mode & (S_IWGRP | S_IWOTH)) && !(st.st_mode & S_ISVTX))
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

		if (!bases[b] || bases[b][0] != '/' || !trusted_base(bases[b]))
			continue;
		n = snprintf(c, sizeof(start->candidates[0]), "%s/.libtimerfd-%016llx", bases[b],
			     (unsigned long long)r);
		if (n > 0 && (size_t)n + 1 + 32 + 1 + TFD_FIFO_NAME_MAX + 1 <= TFD_DIR_MAX)
			start->ncandidates++;
	}
}

static void
new_secret(uint64_t secret[2])
{
	if (syscall(SYS_getrandom, secret, 2 * sizeof(secret[0]), 0) == 2 * sizeof(secret[0]))
		return;
	/* No getrandom(): the clocks, the pid and an address; the directory's mode still hides it. */
	secret[0] ^= (uint64_t)__tfd_base_now(TFD_BASE_REALTIME) * 0x9e3779b97f4a7c15ULL;
	secret[1] ^= (uint64_t)__tfd_base_now(TFD_BASE_MONOTONIC) ^ (uint64_t)(uintptr_t)secret ^
		     ((uint64_t)getpid() << 40);
}

/* The server of shard @k runs: its names become this process's, its door everyone's it forks. */
static void
record_started(struct tfd_shared *sh, int k, const struct tfd_server_start *start)
{
	struct tfd_names nm;
	char door[TFD_DOOR_MAX];
	int c;

	/* From our own list: shared memory says which, never where. */
	if (!tfd_checked_choice(__atomic_load_n(&sh->shards[k].dir_choice, __ATOMIC_ACQUIRE),
				start->ncandidates, &c) ||
	    __tfd_names_for(start->candidates[c], start->secret, &nm) < 0)
		return;
	__tfd_names_set((uint32_t)k, &nm);
	if (__tfd_door_path(nm.dir, door, sizeof(door)))
		__tfd_door_remember(door, (uint64_t)__atomic_load_n(&sh->shards[k].fifo_dev[0], __ATOMIC_ACQUIRE) |
						  ((uint64_t)__atomic_load_n(&sh->shards[k].fifo_dev[1], __ATOMIC_ACQUIRE) << 32));
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
		const struct tfd_names *dead = __tfd_names((uint32_t)k);

		if (dead)
			start.dead = *dead;
		start.dead_high_water = __atomic_load_n(&srv->high_water, __ATOMIC_SEQ_CST);
	}
	choose_dirs(&start);
	new_secret(start.secret);
	start.creator = getpid();
	__atomic_store_n(&srv->server_err, 0, __ATOMIC_SEQ_CST);
	__atomic_store_n(&srv->server_tid, 0, __ATOMIC_SEQ_CST);
	__atomic_store_n(&srv->server, TFD_SERVER_STARTING, __ATOMIC_SEQ_CST);
	/*
	 * Twice: the server is the child of a child that exits at once, so init adopts it.
	 * The mapping is handed on to this clone alone: a fork() by another thread meanwhile
	 * gets it too (libtimerfd(7)).
	 */
	__tfd_shared_fork_policy(sh, true);
	pid = __tfd_clone_quiet();
	if (pid == 0) {
		if (__tfd_clone_quiet() == 0)
			server_process(sh, k, &start);
		syscall(SYS_exit_group, 0);
	}
	__tfd_shared_fork_policy(sh, false);
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
	} else {
		record_started(sh, k, &start);
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
			uint32_t first = (uint32_t)(srv - sh->shards) * TFD_SHARD_SLOTS, i;

			/* Bounded: an entry is a slot of this shard's range, or nothing. */
			if (!tfd_checked_slot(e, first, TFD_SHARD_SLOTS, &i))
				continue;
			__atomic_store_n(&sh->slots[i].state, TFD_SLOT_TAKEN, __ATOMIC_SEQ_CST);
			return i;
		}
	}
	return -1;
}

/* The server looks at once (its loop's futex word moves). */
static void
wake(struct tfd_shard *srv)
{
	__atomic_fetch_add(&srv->wake_seq, 1, __ATOMIC_SEQ_CST);
	tfd_sys_futex_wake(&srv->wake_seq, 1);
}

/*
 * Shard @k's server running and its names known here: 0; 1 if one was started just now
 * (look again); or -errno.
 */
static int
shard_served(struct tfd_shared *sh, int k)
{
	struct tfd_shard *srv = &sh->shards[k];

	/* A dead server's spares have no writer: a new server first (it drops them). */
	if (!__tfd_server_alive(srv) &&
	    __atomic_load_n(&srv->server, __ATOMIC_SEQ_CST) != TFD_SERVER_CLOSING) {
		int r = spawn(sh, k);

		return r < 0 ? r : 1;
	}
	/*
	 * Started by another thread, which records its names once it runs (record_started()):
	 * its spawn lock is held until then.
	 */
	if (!__tfd_names((uint32_t)k)) {
		if (pthread_mutex_lock(&srv->spawn_lock) == EOWNERDEAD)
			pthread_mutex_consistent(&srv->spawn_lock);
		pthread_mutex_unlock(&srv->spawn_lock);
		if (!__tfd_names((uint32_t)k))
			return -ENOSYS;
	}
	return 0;
}

long
__tfd_server_take_unnamed(struct tfd_shared *sh, int flags, int *fd)
{
	int64_t deadline = __tfd_base_now(TFD_BASE_MONOTONIC) + START_WAIT_NS;

	for (int k = 0; k < TFD_SHARDS;) {
		struct tfd_shard *srv = &sh->shards[k];
		char door[TFD_DOOR_MAX];
		uint32_t key[4], i;
		struct stat st;
		long r = shard_served(sh, k);

		if (r == 1 && __tfd_base_now(TFD_BASE_MONOTONIC) < deadline)
			continue;
		if (r != 0)
			return r < 0 ? r : -ENOMEM;
		/* This server makes none (no /proc, a twin with a copy of its table): a spare. */
		if (!__atomic_load_n(&srv->names_go, __ATOMIC_ACQUIRE))
			return -ENOSYS;
		/* The door by this process's own record of the names, never by shared memory's. */
		if (!__tfd_door_path(__tfd_names((uint32_t)k)->dir, door, sizeof(door)))
			return -ENOSYS;
		memcpy(key, srv->door_key, sizeof(key));
		/* Spares are no use to it now: the server gives them up (their descriptors). */
		if (!__atomic_load_n(&srv->want_unnamed, __ATOMIC_ACQUIRE))
			__atomic_store_n(&srv->want_unnamed, 1, __ATOMIC_RELEASE);
		r = __tfd_door_make(door, flags, key, fd);
		/* Its table or range is full (its answer is EXFULL): the next server, as for spares. */
		if (r == -EXFULL && k + 1 < TFD_SHARDS) {
			k++;
			continue;
		}
		/* Not for us (another process's pid namespace sees another pid): a spare, then. */
		if (r == -EPERM)
			return -ENOSYS;
		if (r < 0)
			return r == -EXFULL ? -ENFILE : r;
		/*
		 * Its slot, and the pipe it holds, as the server made them (the key said the answer
		 * is the server's; this process checks what it got all the same).
		 */
		if (!tfd_checked_slot((uint32_t)r + 1, (uint32_t)k * TFD_SHARD_SLOTS, TFD_SHARD_SLOTS, &i) ||
		    fstat(*fd, &st) < 0 || !S_ISFIFO(st.st_mode) ||
		    __atomic_load_n(&sh->slots[i].state, __ATOMIC_ACQUIRE) != TFD_SLOT_TAKEN ||
		    sh->slots[i].ino != (uint64_t)st.st_ino || sh->slots[i].dev != (uint64_t)st.st_dev) {
			close(*fd);
			*fd = -1;
			return -ENOMEM;
		}
		/* Where the pipes are, for identify; and the door for them, for what this process forks. */
		if (__atomic_exchange_n(&srv->pipe_dev[0], (uint32_t)st.st_dev, __ATOMIC_RELAXED) !=
			    (uint32_t)st.st_dev ||
		    __atomic_exchange_n(&srv->pipe_dev[1], (uint32_t)((uint64_t)st.st_dev >> 32),
					__ATOMIC_RELAXED) != (uint32_t)((uint64_t)st.st_dev >> 32))
			__tfd_door_remember(door, (uint64_t)st.st_dev);
		return i;
	}
	return -ENFILE;
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
		int r = shard_served(sh, k);

		if (r == 1)
			continue;
		if (r < 0)
			return r;
		/* Dumpable again (or another thread's create): spares wanted. */
		if (__atomic_load_n(&srv->want_unnamed, __ATOMIC_ACQUIRE)) {
			__atomic_store_n(&srv->want_unnamed, 0, __ATOMIC_RELEASE);
			wake(srv);
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
		wake(srv);
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
