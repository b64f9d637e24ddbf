/* SPDX-License-Identifier: MIT */
/*
 * The emulation's system-call list is true (src/emu/syscalls.list, which libtimerfd(7)'s
 * SYSTEM CALLS section is made from): a program whose own seccomp filter allows what it
 * calls itself on the kernel's timerfd plus exactly the calls the list names, and answers
 * the timerfd calls with ENOSYS, uses the emulation as programs do (timers of three clocks,
 * relative and absolute, rearmed with a count waiting, read blocking and through poll, a
 * child's settime and gettime through the server's door, its directory removed by a
 * cleaner, the server killed and its twin taking over, every timer closed, every server
 * ended), the filter's default action KILL_PROCESS (any call not listed kills the program
 * or its server), then ERRNO(EPERM).
 * Usage: syscall-list-test [kill|eperm|nofilter]   (none: kill and eperm, each in a child of
 * its own; nofilter, under tests/enosys-launcher: the workload alone, to tell a bug from a
 * missing call)
 *        syscall-list-test --exec NAMES kill|eperm PROGRAM [ARGS...]
 *   installs the same filter with the calls named in the file NAMES (one a line) as the
 *   program's own, and executes PROGRAM under it (tests/timerfd-test-allowlist.sh: the
 *   whole suite, its own calls as strace -f saw them on the kernel's timerfd).
 * Exit 77 where no filter can be installed here (qemu-user, an unknown arch, valgrind or a
 * sanitizer, whose own calls the filter would refuse).
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/timerfd.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cleaner.h"
#include "dirs.h"
#include "seccomp-abi.h"
#include "slowness.h"
#include "syscall-numbers.h"

#ifndef PR_SET_CHILD_SUBREAPER
#define PR_SET_CHILD_SUBREAPER 36
#endif

#define NS_PER_MS 1000000LL
/* Timers armed at once: more than the server's queues first hold (src/emu/heap.c: 64). */
#define MANY 80

/* A sanitizer's runtime makes calls of its own (the filter would refuse them). */
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) || __has_feature(undefined_behavior_sanitizer)
#define SANITIZED 1
#endif
#endif

/* What this program calls itself, on the kernel's timerfd as on the emulation (its calls
 * seen with strace on the kernel backend; each C library's and arch's spelling). */
static const long program_calls[] = {
#define CALL(name) SYS_##name,
#ifdef SYS_read
	CALL(read)
#endif
#ifdef SYS_write
	CALL(write)
#endif
#ifdef SYS_close
	CALL(close)
#endif
#ifdef SYS_exit
	CALL(exit)
#endif
#ifdef SYS_exit_group
	CALL(exit_group)
#endif
#ifdef SYS_clock_gettime
	CALL(clock_gettime)
#endif
#ifdef SYS_clock_gettime64
	CALL(clock_gettime64)
#endif
#ifdef SYS_clock_nanosleep
	CALL(clock_nanosleep)
#endif
#ifdef SYS_clock_nanosleep_time64
	CALL(clock_nanosleep_time64)
#endif
#ifdef SYS_nanosleep
	CALL(nanosleep)
#endif
#ifdef SYS_poll
	CALL(poll)
#endif
#ifdef SYS_ppoll
	CALL(ppoll)
#endif
#ifdef SYS_ppoll_time64
	CALL(ppoll_time64)
#endif
#ifdef SYS_fstat
	CALL(fstat)
#endif
#ifdef SYS_fstat64
	CALL(fstat64)
#endif
#ifdef SYS_newfstatat
	CALL(newfstatat)
#endif
#ifdef SYS_fstatat64
	CALL(fstatat64)
#endif
#ifdef SYS_statx
	CALL(statx)
#endif
#ifdef SYS_clone
	CALL(clone)
#endif
#ifdef SYS_fork
	CALL(fork)
#endif
#ifdef SYS_wait4
	CALL(wait4)
#endif
#ifdef SYS_waitid
	CALL(waitid)
#endif
#ifdef SYS_kill
	CALL(kill)
#endif
#ifdef SYS_getpid
	CALL(getpid)
#endif
#ifdef SYS_gettid
	CALL(gettid)
#endif
#ifdef SYS_open
	CALL(open)
#endif
#ifdef SYS_openat
	CALL(openat)
#endif
#ifdef SYS_rt_sigprocmask
	CALL(rt_sigprocmask)
#endif
#ifdef SYS_rt_sigreturn
	CALL(rt_sigreturn)
#endif
#ifdef SYS_sigreturn
	CALL(sigreturn)
#endif
#ifdef SYS_restart_syscall
	CALL(restart_syscall)
#endif
#undef CALL
};

/* Everything src/emu/syscalls.list names that this arch has, in each of its spellings. */
static const long listed_calls[] = {
#include "syscall-list.h" /* made from src/emu/syscalls.list */
};

/* The timerfd calls: ENOSYS, as a kernel without them or a sandbox answers. */
static const long timerfd_calls[] = {
	TFD_NR_create, TFD_NR_settime, TFD_NR_gettime,
#ifdef TFD_NR_settime64
	TFD_NR_settime64, TFD_NR_gettime64,
#endif
};

#define NCALLS(a) (sizeof(a) / sizeof((a)[0]))
/* A program's own calls at most (--exec): more than any arch has. */
#define OWN_MAX 1024
#define FILTER_MAX (4 + 2 * (OWN_MAX + NCALLS(listed_calls) + NCALLS(timerfd_calls)) + 1)

static int
fail(const char *what, int line)
{
	char msg[256];
	int n = snprintf(msg, sizeof(msg), "syscall-list-test:%d: %s (errno %d)\n", line, what, errno);

	if (write(2, msg, (size_t)n) < 0)
		_exit(2);
	_exit(1);
}
#define CHECK(cond) ((cond) ? (void)0 : (void)fail(#cond, __LINE__))

#ifdef TFD_AUDIT_ARCH_SELF
static void
put(struct tfd_sock_filter *f, size_t *n, uint16_t code, uint32_t k, uint8_t jt, uint8_t jf)
{
	f[*n].code = code;
	f[*n].jt = jt;
	f[*n].jf = jf;
	f[*n].k = k;
	(*n)++;
}

/*
 * The program's filter: its own @nown calls @own and the list allowed, timerfd ENOSYS, else
 * @deflt.
 */
static int
install_filter(const long *own, size_t nown, uint32_t deflt)
{
	static struct tfd_sock_filter f[FILTER_MAX];
	struct tfd_sock_fprog prog;
	size_t n = 0;

	put(f, &n, TFD_BPF_LD_W_ABS, offsetof(struct tfd_seccomp_data, arch), 0, 0);
	put(f, &n, TFD_BPF_JEQ_K, TFD_AUDIT_ARCH_SELF, 1, 0);
	put(f, &n, TFD_BPF_RET_K, deflt, 0, 0);
	put(f, &n, TFD_BPF_LD_W_ABS, offsetof(struct tfd_seccomp_data, nr), 0, 0);
	for (size_t i = 0; i < NCALLS(timerfd_calls); i++) {
		put(f, &n, TFD_BPF_JEQ_K, (uint32_t)timerfd_calls[i], 0, 1);
		put(f, &n, TFD_BPF_RET_K, TFD_SECCOMP_RET_ERRNO | ENOSYS, 0, 0);
	}
	for (size_t i = 0; i < nown && i < OWN_MAX; i++) {
		put(f, &n, TFD_BPF_JEQ_K, (uint32_t)own[i], 0, 1);
		put(f, &n, TFD_BPF_RET_K, TFD_SECCOMP_RET_ALLOW, 0, 0);
	}
	for (size_t i = 0; i < NCALLS(listed_calls); i++) {
		put(f, &n, TFD_BPF_JEQ_K, (uint32_t)listed_calls[i], 0, 1);
		put(f, &n, TFD_BPF_RET_K, TFD_SECCOMP_RET_ALLOW, 0, 0);
	}
	put(f, &n, TFD_BPF_RET_K, deflt, 0, 0);
	prog.len = (unsigned short)n;
	prog.filter = f;
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		return -errno;
	return prctl(PR_SET_SECCOMP, TFD_SECCOMP_MODE_FILTER, &prog) < 0 ? -errno : 0;
}
#endif

/* A line on the standard output (write(2): no stdio buffer under the filter). */
static void
say(const char *what)
{
	char msg[256];
	int n = snprintf(msg, sizeof(msg), "syscall-list-test: %s\n", what);

	CHECK(write(1, msg, (size_t)n) == n);
}

static int64_t
now_ns(clockid_t clock)
{
	struct timespec ts;

	clock_gettime(clock, &ts);
	return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static struct itimerspec
its_ns(int64_t value, int64_t interval)
{
	struct itimerspec its = { { (time_t)(interval / 1000000000), (long)(interval % 1000000000) },
				  { (time_t)(value / 1000000000), (long)(value % 1000000000) } };

	return its;
}

static void
sleep_ms(int ms)
{
	struct timespec ts = { 0, ms * NS_PER_MS };

	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

/* A count read from @fd once it is readable (poll: up to 2 s, times slowness). */
#define count_of(fd) count_at((fd), __LINE__)
static uint64_t
count_at(int fd, int line)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	uint64_t ticks = 0;

	if (poll(&p, 1, 2000 * slowness()) != 1 || !(p.revents & POLLIN))
		fail("no count within 2 s", line);
	if (read(fd, &ticks, sizeof(ticks)) != (ssize_t)sizeof(ticks))
		fail("a read of a count failed", line);
	return ticks;
}

/* The first child of @pid (its main thread's), through /proc; 0 if none is known. */
static pid_t
child_of(pid_t pid)
{
	char path[64], buf[256];
	ssize_t len;
	int fd;

	snprintf(path, sizeof(path), "/proc/%ld/task/%ld/children", (long)pid, (long)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	len = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (len <= 0)
		return 0;
	buf[len] = '\0';
	return (pid_t)atol(buf);
}

/* The server of this process: its only child here (this process is a subreaper). */
static pid_t
server_child(void)
{
	return child_of(getpid());
}

/* A child of the program: a settime and a gettime on its parent's timer, through the door. */
static void
child_use(int fd)
{
	struct itimerspec its = its_ns(5 * NS_PER_MS, 5 * NS_PER_MS), cur;

	CHECK(timerfd_settime(fd, 0, &its, NULL) == 0);
	CHECK(timerfd_gettime(fd, &cur) == 0 && cur.it_interval.tv_nsec == 5 * NS_PER_MS);
	CHECK(count_of(fd) >= 1);
	_exit(0);
}

/* The workload's step, told where it hung (its watchdog, SIGALRM). */
static const char *volatile step = "the first timers";

static void
hung(int sig)
{
	static const char head[] = "syscall-list-test: hung at: ";
	const char *at = step;

	(void)sig;
	if (write(2, head, sizeof(head) - 1) < 0 || write(2, at, strlen(at)) < 0 || write(2, "\n", 1) < 0)
		_exit(3);
	_exit(3);
}

static void
workload(void)
{
	struct itimerspec its, cur;
	int periodic, absolute, rearmed, alarm_timer, status, many[MANY];
	char dir[4096];
	int64_t deadline;
	struct stat st;
	pid_t pid, server;

	periodic = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
	absolute = timerfd_create(CLOCK_REALTIME, 0);
	rearmed = timerfd_create(CLOCK_BOOTTIME, TFD_NONBLOCK);
	CHECK(periodic >= 0 && absolute >= 0 && rearmed >= 0);
	/* The emulation's: the filter refused the kernel's. */
	CHECK(fstat(periodic, &st) == 0 && S_ISFIFO(st.st_mode));

	its = its_ns(5 * NS_PER_MS, 5 * NS_PER_MS);
	CHECK(timerfd_settime(periodic, 0, &its, NULL) == 0);
	its = its_ns(now_ns(CLOCK_REALTIME) + 20 * NS_PER_MS, 0);
	CHECK(timerfd_settime(absolute, TFD_TIMER_ABSTIME, &its, NULL) == 0);
	CHECK(timerfd_gettime(periodic, &cur) == 0 && cur.it_interval.tv_nsec == 5 * NS_PER_MS);
	CHECK(count_of(absolute) == 1);
	CHECK(count_of(periodic) >= 1);

	step = "a rearm with a count waiting";
	/* A rearm with a count waiting drops it (the drain). */
	its = its_ns(NS_PER_MS, 0);
	CHECK(timerfd_settime(rearmed, 0, &its, NULL) == 0);
	sleep_ms(20);
	its = its_ns(10000 * NS_PER_MS, 0);
	CHECK(timerfd_settime(rearmed, 0, &its, NULL) == 0);
	{
		uint64_t ticks;

		CHECK(read(rearmed, &ticks, sizeof(ticks)) < 0 && errno == EAGAIN);
	}

	step = "a child's calls through the door";
	/* Another process's calls on the timer: through the server's door. */
	pid = fork();
	CHECK(pid >= 0);
	if (pid == 0)
		child_use(periodic);
	CHECK(waitpid(pid, &status, 0) == pid && WIFEXITED(status) && WEXITSTATUS(status) == 0);

	step = "the directory removed by a cleaner";
	/*
	 * A cleaner removes the server's directory (found through /proc): it is made again, a
	 * create works at once, a rearm with a count waiting empties the FIFO.
	 */
	if (library_dir_of(periodic, dir, sizeof(dir)) && remove_tree(dir)) {
		int again = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK);

		its = its_ns(NS_PER_MS, 0);
		CHECK(again >= 0 && timerfd_settime(again, 0, &its, NULL) == 0 && count_of(again) == 1);
		CHECK(timerfd_settime(rearmed, 0, &its, NULL) == 0);
		sleep_ms(20);
		its = its_ns(10000 * NS_PER_MS, 0);
		CHECK(timerfd_settime(rearmed, 0, &its, NULL) == 0);
		close(again);
		say("the directory removed: made again");
	}

	step = "the server killed, its twin serving";
	/* The server killed: its twin serves on (where /proc tells which child it is). */
	server = server_child();
	if (server > 0) {
		int64_t start;
		uint64_t total = 0;

		CHECK(kill(server, SIGKILL) == 0 && waitpid(server, &status, 0) == server);
		start = now_ns(CLOCK_MONOTONIC);
		while (now_ns(CLOCK_MONOTONIC) - start < 100 * NS_PER_MS)
			total += count_of(periodic);
		CHECK(total >= 1);
		say("the server killed: its twin served on");
	} else {
		say("no server found through /proc/self/task/TID/children: no kill tried");
	}

	step = "an alarm clock's timer";
	/* An alarm clock's timer: made where CAP_WAKE_ALARM is held, else EPERM, as the kernel. */
	alarm_timer = timerfd_create(CLOCK_BOOTTIME_ALARM, TFD_NONBLOCK);
	CHECK(alarm_timer >= 0 || errno == EPERM);
	if (alarm_timer >= 0) {
		its = its_ns(NS_PER_MS, 0);
		CHECK(timerfd_settime(alarm_timer, 0, &its, NULL) == 0 && count_of(alarm_timer) == 1);
		close(alarm_timer);
	}
	step = "more timers than the queues first hold";
	/* More armed timers than the server's queues first hold (they grow). */
	for (int k = 0; k < MANY; k++) {
		many[k] = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK);
		its = its_ns((int64_t)(k + 1) * 1000 * NS_PER_MS, 0);
		CHECK(many[k] >= 0 && timerfd_settime(many[k], 0, &its, NULL) == 0);
	}
	for (int k = 0; k < MANY; k++)
		close(many[k]);

	step = "server and twin killed at once";
	/* Server and twin killed at once: the next create's server removes what they left. */
	server = server_child();
	if (server > 0) {
		pid_t twin = child_of(server);

		CHECK(kill(server, SIGKILL) == 0);
		if (twin > 0)
			CHECK(kill(twin, SIGKILL) == 0);
		close(periodic);
		close(absolute);
		close(rearmed);
		/*
		 * Both dead before the create (a kill is done when the process is reaped): a create
		 * made while they die takes a spare of theirs, which nobody serves (libtimerfd(7)).
		 */
		CHECK(waitpid(server, &status, __WALL) == server);
		if (twin > 0)
			CHECK(waitpid(twin, &status, __WALL) == twin);
		periodic = timerfd_create(CLOCK_MONOTONIC, 0);
		its = its_ns(NS_PER_MS, 0);
		CHECK(periodic >= 0 && timerfd_settime(periodic, 0, &its, NULL) == 0);
		CHECK(count_of(periodic) == 1);
		say(twin > 0 ? "server and twin killed: a new server serves" :
			       "the server killed (no twin found): a new server serves");
		close(periodic);
	} else {
		close(periodic);
		close(absolute);
		close(rearmed);
	}

	step = "every server ending";
	/* Every timer closed: every server ends (its children: reaped here, 10 s at most). */
	deadline = now_ns(CLOCK_MONOTONIC) + 10000 * NS_PER_MS * slowness();
	for (;;) {
		pid = waitpid(-1, &status, WNOHANG);
		if (pid < 0 && errno == ECHILD)
			break;
		CHECK(now_ns(CLOCK_MONOTONIC) < deadline);
		if (pid == 0)
			sleep_ms(10);
	}
	_exit(0);
}

/* The workload under the filter whose default is @deflt, in a child: 0, or 1 after saying why. */
static int
run(const char *name, uint32_t deflt)
{
	pid_t pid;
	int status;

	fflush(NULL);
	pid = fork();
	if (pid < 0)
		return 1;
	if (pid == 0) {
		int err;

		/* The server, orphaned at its start, and a twin that took over become its children. */
		CHECK(prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0);
		/*
		 * A hang fails the run and says where (SIGALRM: made before the filter, whose list
		 * then need not name its calls).
		 */
		signal(SIGALRM, hung);
		alarm(120 * (unsigned)slowness());
		err = deflt ? install_filter(program_calls, NCALLS(program_calls), deflt) : 0;
		if (err < 0) {
			errno = -err;
			fail("the filter could not be installed", __LINE__);
		}
		workload();
	}
	if (waitpid(pid, &status, 0) != pid)
		return 1;
	if (WIFSIGNALED(status)) {
		printf("syscall-list-test: %s: the program was killed by signal %d%s\n", name,
		       WTERMSIG(status),
		       WTERMSIG(status) == SIGSYS ? ": it made a call that src/emu/syscalls.list does not name "
						    "(strace -f shows which)" : "");
		return 1;
	}
	if (WIFEXITED(status) && WEXITSTATUS(status) == 3) {
		printf("syscall-list-test: %s: the program hung (no end within 120 s; where: above)\n", name);
		return 1;
	}
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		printf("syscall-list-test: %s: the program failed (exit status %d): a call of the server's "
		       "or of the library's may be missing from src/emu/syscalls.list\n", name,
		       WIFEXITED(status) ? WEXITSTATUS(status) : -1);
		return 1;
	}
	printf("syscall-list-test: %s: the emulation worked under the listed calls alone\n", name);
	return 0;
}

#ifdef TFD_AUDIT_ARCH_SELF
/* Every call this arch's <sys/syscall.h> names, by name (--exec NAMES). */
static const struct {
	const char *name;
	long nr;
} named_calls[] = {
#include "syscall-names.h" /* made by make from <sys/syscall.h> */
};

/*
 * --exec NAMES MODE PROGRAM [ARGS...]: the calls named in NAMES as the program's own, MODE's
 * default (kill or eperm); PROGRAM executed under the filter.  Returns only on failure.
 */
static int
exec_under_filter(char **argv)
{
	static long own[OWN_MAX];
	size_t nown = 0;
	char name[64];
	FILE *names = fopen(argv[0], "r");
	uint32_t deflt;
	int err;

	if (strcmp(argv[1], "kill") == 0)
		deflt = TFD_SECCOMP_RET_KILL_PROCESS;
	else if (strcmp(argv[1], "eperm") == 0)
		deflt = TFD_SECCOMP_RET_ERRNO | EPERM;
	else
		return 2;
	if (!names) {
		perror(argv[0]);
		return 2;
	}
	while (fscanf(names, "%63s", name) == 1) {
		size_t i = 0;

		while (i < NCALLS(named_calls) && strcmp(named_calls[i].name, name) != 0)
			i++;
		if (i == NCALLS(named_calls)) {
			/* Not this arch's, or younger than its headers: refused, as it would be. */
			fprintf(stderr, "syscall-list-test: %s: no such call in <sys/syscall.h>\n", name);
			continue;
		}
		if (nown == OWN_MAX) {
			fprintf(stderr, "syscall-list-test: more than %d calls in %s\n", OWN_MAX, argv[0]);
			return 2;
		}
		own[nown++] = named_calls[i].nr;
	}
	fclose(names);
	err = install_filter(own, nown, deflt);
	if (err < 0) {
		errno = -err;
		perror("syscall-list-test: the filter");
		return 1;
	}
	execvp(argv[2], argv + 2);
	perror(argv[2]);
	return 127;
}
#endif

int
main(int argc, char **argv)
{
	const char *only = argc > 1 ? argv[1] : NULL;
	int failed = 0;

#ifndef TFD_AUDIT_ARCH_SELF
	(void)only;
	(void)failed;
	puts("syscall-list-test: skipped: the tests know no seccomp arch value for this architecture");
	return 77;
#else
	if (under_qemu() || under_valgrind()) {
		puts("syscall-list-test: skipped: qemu-user and valgrind cannot run a program's seccomp "
		     "filter (their own calls would meet it)");
		return 77;
	}
#if defined(SANITIZED)
	puts("syscall-list-test: skipped: a sanitizer's own calls would meet the filter");
	return 77;
#endif
	/* The same with no filter of the program's (timerfd on the kernel, where it has it). */
	if (only && strcmp(only, "nofilter") == 0)
		return run("no filter", 0);
	/* A kernel without CONFIG_SECCOMP answers EINVAL (a small embedded one, say). */
	if (prctl(PR_GET_SECCOMP, 0, 0, 0, 0) < 0) {
		printf("syscall-list-test: skipped: this kernel has no seccomp (PR_GET_SECCOMP: %s)\n",
		       strerror(errno));
		return 77;
	}
	if (only && strcmp(only, "--exec") == 0)
		return argc > 4 ? exec_under_filter(argv + 2) : 2;
	if (!only || strcmp(only, "kill") == 0)
		failed |= run("default KILL_PROCESS", TFD_SECCOMP_RET_KILL_PROCESS);
	if (!only || strcmp(only, "eperm") == 0)
		failed |= run("default ERRNO(EPERM)", TFD_SECCOMP_RET_ERRNO | EPERM);
	return failed;
#endif
}
