/* SPDX-License-Identifier: MIT */
/*
 * Benchmarks: call overhead of our entry points against the C library's wrappers
 * (interleaved, medians), expiry latency of the emulation against the kernel, the cost of
 * arming with many emulated timers live, the timer server's CPU time and the memory per
 * emulated timer.  Prints a table and writes CSV (bench/results.csv by default).
 * Usage: timerfd-bench [--quick] [--non-dumpable] [--csv FILE] [--latency-data FILE] |
 *        --instruction-loops [N] | --pair-wall | --syscall-loop settime|expire-read|expire-unread
 * --non-dumpable: the whole run as a process that is not (PR_SET_DUMPABLE 0), whose emulated
 * creates get unnamed timers from the server (src/emu/DESIGN.md, "Names").
 */
#include "config.h"

#include <dlfcn.h>
#include <pthread.h>
#include <sched.h>
#include <errno.h>
#include <malloc.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/timerfd.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "emu/emu.h"
#include "emu/entry.h"
#include "emu/family.h"
#include "emu/timer.h"
#include "syscall-numbers.h"

typedef int (*create_fn)(clockid_t, int);
typedef int (*settime_fn)(int, int, const struct itimerspec *, struct itimerspec *);
typedef int (*gettime_fn)(int, struct itimerspec *);

static FILE *csv;

/*
 * The C library's function @name, for the time_t this program was built with:
 * with 64-bit time on a 32-bit ABI (_TIME_BITS=64) glibc's header calls
 * __timerfd_settime64 and so on, as ours does.
 */
static void *
libc_fn(void *libc, const char *name)
{
	void *f = NULL;

	if (!libc)
		return NULL;
	if (sizeof(time_t) == 8 && sizeof(long) == 4) {
		char time64_name[64];

		snprintf(time64_name, sizeof(time64_name), "__%s64", name);
		f = dlsym(libc, time64_name);
	}
	return f ? f : dlsym(libc, name);
}

static int64_t
now_ns(clockid_t clock)
{
	struct timespec ts;

	clock_gettime(clock, &ts);
	return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static int
cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static double
percentile(double *v, size_t n, double p)
{
	qsort(v, n, sizeof(*v), cmp_double);
	return v[(size_t)(p * (double)(n - 1))];
}

static void
report(const char *section, const char *name, double ours, double ref, const char *unit)
{
	if (ref > 0)
		printf("  %-34s %10.1f %10.1f %s  ratio %.3f\n", name, ours, ref, unit, ours / ref);
	else
		printf("  %-34s %10.1f %s\n", name, ours, unit);
	fprintf(csv, "%s,%s,%.3f,%.3f,%s\n", section, name, ours, ref > 0 ? ref : 0.0, unit);
}

/* --- 1. call overhead, ours against the C library's, interleaved ----------------- */

#define ROUNDS 201
#define CALLS 2000

static double
time_settime(settime_fn f, int fd)
{
	struct itimerspec its = { .it_value = { 100, 0 } };
	int64_t t0 = now_ns(CLOCK_MONOTONIC);

	for (int i = 0; i < CALLS; i++)
		f(fd, 0, &its, NULL);
	return (double)(now_ns(CLOCK_MONOTONIC) - t0) / CALLS;
}

static double
time_gettime(gettime_fn f, int fd)
{
	struct itimerspec cur;
	int64_t t0 = now_ns(CLOCK_MONOTONIC);

	for (int i = 0; i < CALLS; i++)
		f(fd, &cur);
	return (double)(now_ns(CLOCK_MONOTONIC) - t0) / CALLS;
}

static double
time_create_close(create_fn f)
{
	int64_t t0 = now_ns(CLOCK_MONOTONIC);

	for (int i = 0; i < CALLS / 10; i++)
		close(f(CLOCK_MONOTONIC, TFD_CLOEXEC));
	return (double)(now_ns(CLOCK_MONOTONIC) - t0) / (CALLS / 10);
}

static void
bench_call_overhead(int rounds)
{
	void *libc = dlopen("libc.so.6", RTLD_NOW | RTLD_NOLOAD);
	create_fn c_create = (create_fn)libc_fn(libc, "timerfd_create");
	settime_fn c_settime = (settime_fn)libc_fn(libc, "timerfd_settime");
	gettime_fn c_gettime = (gettime_fn)libc_fn(libc, "timerfd_gettime");
	static double ours[3][ROUNDS], theirs[3][ROUNDS];
	int fd = timerfd_create(CLOCK_MONOTONIC, 0);

	if (!c_create || !c_settime || !c_gettime || fd < 0) {
		printf("call overhead: the C library's wrappers are not available\n");
		return;
	}
	for (int r = 0; r < rounds; r++) {
		/* Alternate which goes first, so neither always gets the warm cache. */
		if (r & 1) {
			ours[0][r] = time_settime(timerfd_settime, fd);
			theirs[0][r] = time_settime(c_settime, fd);
			ours[1][r] = time_gettime(timerfd_gettime, fd);
			theirs[1][r] = time_gettime(c_gettime, fd);
			ours[2][r] = time_create_close(timerfd_create);
			theirs[2][r] = time_create_close(c_create);
		} else {
			theirs[0][r] = time_settime(c_settime, fd);
			ours[0][r] = time_settime(timerfd_settime, fd);
			theirs[1][r] = time_gettime(c_gettime, fd);
			ours[1][r] = time_gettime(timerfd_gettime, fd);
			theirs[2][r] = time_create_close(c_create);
			ours[2][r] = time_create_close(timerfd_create);
		}
	}
	printf("1. call overhead (median ns per call over %d interleaved rounds)\n"
	       "  %-34s %10s %10s\n", rounds, "", "libtimerfd", "C library");
	report("overhead", "timerfd_settime", percentile(ours[0], (size_t)rounds, 0.5),
	       percentile(theirs[0], (size_t)rounds, 0.5), "ns");
	report("overhead", "timerfd_gettime", percentile(ours[1], (size_t)rounds, 0.5),
	       percentile(theirs[1], (size_t)rounds, 0.5), "ns");
	report("overhead", "timerfd_create+close", percentile(ours[2], (size_t)rounds, 0.5),
	       percentile(theirs[2], (size_t)rounds, 0.5), "ns");
	close(fd);
}

/* --- 3. the emulation ---------------------------------------------------------- */

/* Two threads that spin while the latency is measured: a loaded machine. */
static volatile int spinning;

static void *
spin(void *arg)
{
	(void)arg;
	while (spinning)
		;
	return NULL;
}

/* Latency of a 1 ms one-shot: from the expiry due time to the reader waking. */
static double
one_shot_latency(int fd, int emulated)
{
	struct itimerspec its = { .it_value = { 0, 1000000 } };
	uint64_t n;
	int64_t armed;

	armed = now_ns(CLOCK_MONOTONIC);
	if (emulated)
		__tfd_emu_settime_its(fd, 0, &its, NULL);
	else
		timerfd_settime(fd, 0, &its, NULL);
	if (read(fd, &n, sizeof(n)) != sizeof(n))
		return -1;
	return (double)(now_ns(CLOCK_MONOTONIC) - armed - 1000000) / 1000.0;
}

/* The machine a latency is measured on: idle; two CPU-bound threads; the same, the reader
 * SCHED_FIFO (become so after its family's server began: the server is raised to it). */
enum load { IDLE, LOADED, REALTIME };

static void
bench_latency(int runs, const char *data_path, enum load load)
{
	static const char *const section[] = { "latency", "latency-loaded", "latency-realtime" };
	static const char *const what[] = { "", ", two CPU-bound threads running",
					    ", two CPU-bound threads running, the reader SCHED_FIFO 10" };
	pthread_t spinners[2];
	struct sched_param fifo = { .sched_priority = 10 }, other = { .sched_priority = 0 };
	double *k = calloc((size_t)runs, sizeof(double)), *e = calloc((size_t)runs, sizeof(double));
	int kfd = timerfd_create(CLOCK_MONOTONIC, 0);
	int efd = (int)__tfd_emu_create(CLOCK_MONOTONIC, 0);
	FILE *data = data_path ? fopen(data_path, "w") : NULL;
	int err;

	/* The spinners first: a thread inherits its creator's policy. */
	spinning = load != IDLE;
	for (int t = 0; load != IDLE && t < 2; t++)
		pthread_create(&spinners[t], NULL, spin, NULL);
	if (load == REALTIME &&
	    (err = pthread_setschedparam(pthread_self(), SCHED_FIFO, &fifo)) != 0) {
		printf("3a. expiry latency%s: not measured (SCHED_FIFO: %s)\n", what[load],
		       strerror(err));
		runs = 0;
	}
	for (int i = 0; i < runs; i++) {
		/* Interleaved, so both see the same machine. */
		k[i] = one_shot_latency(kfd, 0);
		e[i] = one_shot_latency(efd, 1);
		if (data)
			fprintf(data, "%.3f %.3f\n", k[i], e[i]);
	}
	if (data)
		fclose(data);
	spinning = 0;
	for (int t = 0; load != IDLE && t < 2; t++)
		pthread_join(spinners[t], NULL);
	if (runs == 0)
		goto out;
	if (load == REALTIME)
		pthread_setschedparam(pthread_self(), SCHED_OTHER, &other);
	printf("3a. expiry latency of a 1 ms one-shot, %d runs (us late)%s\n"
	       "  %-34s %10s %10s\n", runs, what[load], "", "emulation", "kernel");
	report(section[load], "p50", percentile(e, (size_t)runs, 0.5),
	       percentile(k, (size_t)runs, 0.5), "us");
	report(section[load], "p99", percentile(e, (size_t)runs, 0.99),
	       percentile(k, (size_t)runs, 0.99), "us");
out:
	close(kfd);
	close(efd);
	free(k);
	free(e);
}

/* ns per arm+disarm of one emulated timer while @live others are armed. */
static double
arm_disarm_cost(int live, int reps)
{
	int *fds = calloc((size_t)live + 1, sizeof(int));
	struct itimerspec far = { .it_value = { 3600, 0 } }, zero = { 0 };
	int64_t t0, t;

	for (int i = 0; i <= live; i++) {
		fds[i] = (int)__tfd_emu_create(CLOCK_MONOTONIC, 0);
		if (fds[i] < 0) {
			for (int j = 0; j < i; j++)
				close(fds[j]);
			free(fds);
			return -1;
		}
		/* Spread deadlines so the heap has depth. */
		far.it_value.tv_nsec = (long)(i * 7919 % 1000000) * 1000;
		if (i < live)
			__tfd_emu_settime_its(fds[i], 0, &far, NULL);
	}
	t0 = now_ns(CLOCK_MONOTONIC);
	for (int r = 0; r < reps; r++) {
		far.it_value.tv_nsec = (long)(r * 104729 % 1000000) * 1000;
		__tfd_emu_settime_its(fds[live], 0, &far, NULL);
		__tfd_emu_settime_its(fds[live], 0, &zero, NULL);
	}
	t = now_ns(CLOCK_MONOTONIC) - t0;
	for (int i = 0; i <= live; i++)
		close(fds[i]);
	free(fds);
	return (double)t / reps;
}

static void
bench_scaling(int quick)
{
	static const int sizes[] = { 1, 100, 1000, 9000, 10000, 100000 };
	struct rlimit rl;
	double base = 0;

	getrlimit(RLIMIT_NOFILE, &rl);
	rl.rlim_cur = rl.rlim_max;
	setrlimit(RLIMIT_NOFILE, &rl);
	printf("3b. arm+disarm of one emulated timer with N others armed (ns, median of 5;\n"
	       "    ratio against N=100)\n");
	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		char name[64];
		double v[5];

		/* A descriptor per timer in the program's table (and one in the thread's own). */
		if ((rlim_t)(sizes[i] + 64) > rl.rlim_cur) {
			printf("  N=%-6d not measured: needs %d descriptors, RLIMIT_NOFILE is %llu\n",
			       sizes[i], sizes[i] + 64, (unsigned long long)rl.rlim_cur);
			fprintf(csv, "scaling,N=%d,0,0,not measured (RLIMIT_NOFILE)\n", sizes[i]);
			continue;
		}
		for (int r = 0; r < 5; r++)
			v[r] = arm_disarm_cost(sizes[i], quick ? 2000 : 20000);
		snprintf(name, sizeof(name), "N=%d", sizes[i]);
		if (sizes[i] == 100)
			base = percentile(v, 5, 0.5);
		report("scaling", name, percentile(v, 5, 0.5), sizes[i] > 100 ? base : 0, "ns");
	}
}

/* The timer server's CPU time so far, in ns (its process CPU clock), or -1. */
static int64_t
server_cpu_ns(void)
{
	struct tfd_shared *sh = __tfd_shared();
	clockid_t clk;
	pid_t pid;

	if (!sh)
		return -1;
	pid = (pid_t)(__atomic_load_n(&sh->shards[0].server_tid, __ATOMIC_SEQ_CST) & 0x3fffffff);
	if (pid <= 0 || clock_getcpuclockid(pid, &clk) != 0)
		return -1;
	return now_ns(clk);
}

/* @ntimers periodic 10 ms timers for @seconds: the timer server's CPU time, in ns per
 * expiration.  With @read, the program reads each timer as it becomes readable (epoll). */
static int64_t last_expirations;

static double
thread_cpu_per_expiration(int ntimers, int seconds, int read_them, int aligned)
{
	int *fds = calloc((size_t)ntimers, sizeof(int)), ep = epoll_create1(EPOLL_CLOEXEC);
	struct itimerspec its = { .it_value = { 0, 10000000 }, .it_interval = { 0, 10000000 } };
	int64_t cpu0, end, expirations = 0, base = now_ns(CLOCK_MONOTONIC) + 100000000;
	uint64_t n;

	for (int i = 0; i < ntimers; i++) {
		struct epoll_event ev = { .events = EPOLLIN, .data.u32 = (uint32_t)i };
		/* Aligned: ten deadlines a period, 100 timers each (one wake-up serves 100). */
		int64_t first = base + (int64_t)(i % 10) * 1000000;

		fds[i] = (int)__tfd_emu_create(CLOCK_MONOTONIC, TFD_NONBLOCK);
		epoll_ctl(ep, EPOLL_CTL_ADD, fds[i], &ev);
		its.it_value.tv_sec = aligned ? first / 1000000000 : 0;
		its.it_value.tv_nsec = aligned ? first % 1000000000 : 1000000 + (long)(i % 10) * 1000000;
		__tfd_emu_settime_its(fds[i], aligned ? TFD_TIMER_ABSTIME : 0, &its, NULL);
	}
	cpu0 = server_cpu_ns();
	end = now_ns(CLOCK_MONOTONIC) + (int64_t)seconds * 1000000000LL;
	while (now_ns(CLOCK_MONOTONIC) < end) {
		struct epoll_event ev[64];
		int k;

		if (!read_them) {
			struct timespec rest = { 0, 50000000 };

			nanosleep(&rest, NULL);
			continue;
		}
		k = epoll_wait(ep, ev, 64, 10);
		for (int i = 0; i < k; i++)
			if (read(fds[ev[i].data.u32], &n, sizeof(n)) == sizeof(n))
				expirations += (int64_t)n;
	}
	cpu0 = server_cpu_ns() - cpu0;
	for (int i = 0; i < ntimers; i++) {
		if (!read_them && read(fds[i], &n, sizeof(n)) == sizeof(n))
			expirations += (int64_t)n;
		close(fds[i]);
	}
	close(ep);
	free(fds);
	last_expirations = expirations;
	return expirations ? (double)cpu0 / (double)expirations : 0;
}

static void
bench_thread_cpu(int ntimers, int seconds)
{
	static const char *const names[4] = { "never read, spread deadlines", "read (epoll), spread deadlines",
					      "never read, aligned deadlines",
					      "read (epoll), aligned deadlines" };

	printf("3c. timer server CPU per expiration, %d periodic 10 ms timers for %d s (ns)\n"
	       "    (spread: every timer its own deadline, a wake-up each; aligned: 100 a wake-up)\n",
	       ntimers, seconds);
	for (int v = 0; v < 4; v++) {
		double ns = thread_cpu_per_expiration(ntimers, seconds, v % 2, v / 2);

		printf("  %-34s %10.1f ns\n", names[v], ns);
		fprintf(csv, "thread-cpu,%s,%.1f,0,ns\n", names[v], ns);
	}
}

/* An emulated settime against the kernel's, interleaved: ns per call, medians of @rounds. */
static void
bench_emulated_settime(int rounds)
{
	double *e = calloc((size_t)rounds, sizeof(double)), *k = calloc((size_t)rounds, sizeof(double));
	double *p = calloc((size_t)rounds, sizeof(double));
	int efd = (int)__tfd_emu_create(CLOCK_MONOTONIC, 0), kfd = timerfd_create(CLOCK_MONOTONIC, 0);
	struct itimerspec far = { .it_value = { 3600, 0 } };

	for (int r = 0; r < rounds; r++) {
		int64_t t0 = now_ns(CLOCK_MONOTONIC);

		/* What a program pays: the kernel refuses the pipe first, then the emulation. */
		for (int i = 0; i < 1000; i++)
			timerfd_settime(efd, 0, &far, NULL);
		p[r] = (double)(now_ns(CLOCK_MONOTONIC) - t0) / 1000;
		t0 = now_ns(CLOCK_MONOTONIC);
		for (int i = 0; i < 1000; i++)
			__tfd_emu_settime_its(efd, 0, &far, NULL);
		e[r] = (double)(now_ns(CLOCK_MONOTONIC) - t0) / 1000;
		t0 = now_ns(CLOCK_MONOTONIC);
		/* The raw call on a kernel timer. */
		for (int i = 0; i < 1000; i++)
			syscall(TFD_NR_settime_its, kfd, 0, &far, NULL);
		k[r] = (double)(now_ns(CLOCK_MONOTONIC) - t0) / 1000;
	}
	printf("3e. settime of an armed timer, emulation against the kernel (ns per call)\n");
	report("emulated-settime", "settime (timerfd_settime)", percentile(p, (size_t)rounds, 0.5),
	       percentile(k, (size_t)rounds, 0.5), "ns");
	report("emulated-settime", "settime (the emulation alone)",
	       percentile(e, (size_t)rounds, 0.5), percentile(k, (size_t)rounds, 0.5), "ns");
	close(efd);
	close(kfd);
	free(p);
	free(e);
	free(k);
}

/* Loops for bench/syscalls.sh, which counts their system calls with strace. */
static int
run_syscall_loop(const char *what)
{
	struct itimerspec far = { .it_value = { 3600, 0 } };

	if (strcmp(what, "settime") == 0) {
		int fd = (int)__tfd_emu_create(CLOCK_MONOTONIC, 0);

		for (int i = 0; i < 10000; i++)
			timerfd_settime(fd, 0, &far, NULL);
		printf("10000 settime\n");
		return 0;
	}
	if (strcmp(what, "gettime") == 0) {
		int fd = (int)__tfd_emu_create(CLOCK_MONOTONIC, 0);
		struct itimerspec cur;

		timerfd_settime(fd, 0, &far, NULL);
		for (int i = 0; i < 10000; i++)
			timerfd_gettime(fd, &cur);
		printf("10000 gettime\n");
		return 0;
	}
	/* "expire-read" or "expire-unread": 1,000 timers for 2 s; prints the expirations. */
	{
		/* The server's pid first, for bench/syscalls.sh to attach to. */
		int fd = (int)__tfd_emu_create(CLOCK_MONOTONIC, 0);
		struct tfd_shared *sh = __tfd_shared();

		printf("server %d\n", sh ? (int)(sh->shards[0].server_tid & 0x3fffffff) : 0);
		fflush(stdout);
		close(fd);
		sleep(1);
	}
	printf("%.0f ns per expiration\n",
	       thread_cpu_per_expiration(1000, 2, strcmp(what, "expire-read") == 0, 0));
	printf("%lld expirations\n", (long long)last_expirations);
	return 0;
}

static void
bench_memory(int ntimers)
{
#ifdef HAVE_MALLINFO2
	struct mallinfo2 before = mallinfo2(), after;
	int *fds = calloc((size_t)ntimers, sizeof(int));

	for (int i = 0; i < ntimers; i++)
		fds[i] = (int)__tfd_emu_create(CLOCK_MONOTONIC, 0);
	after = mallinfo2();
	printf("3d. memory per emulated timer (heap of this process: none; plus a shared slot of\n"
	       "    %zu bytes, one descriptor in the program's table and one in the server's, a FIFO)\n",
	       sizeof(struct tfd_slot));
	report("memory", "heap bytes per timer",
	       (double)(after.uordblks - before.uordblks) / ntimers, 0, "bytes");
	for (int i = 0; i < ntimers; i++)
		close(fds[i]);
	free(fds);
#else
	(void)ntimers;
	printf("3d. memory per emulated timer: not measured (this C library has no mallinfo2())\n");
#endif
}

/* --- 3f-3h: what the emulation's process model costs, against the kernel ------------ */

/* ns a fresh process (no emulated timer yet in its family) takes for its first create. */
static double
first_create_ns(int emulated)
{
	int p[2];
	double ns = -1;
	pid_t pid;

	if (pipe(p) < 0)
		return -1;
	pid = fork();
	if (pid == 0) {
		int64_t t0 = now_ns(CLOCK_MONOTONIC);
		int fd = emulated ? (int)__tfd_emu_create(CLOCK_MONOTONIC, 0)
				  : timerfd_create(CLOCK_MONOTONIC, 0);
		double d = fd >= 0 ? (double)(now_ns(CLOCK_MONOTONIC) - t0) : -1;

		if (write(p[1], &d, sizeof(d)) != sizeof(d))
			_exit(1);
		_exit(0);
	}
	if (pid > 0 && read(p[0], &ns, sizeof(ns)) != sizeof(ns))
		ns = -1;
	if (pid > 0)
		waitpid(pid, NULL, 0);
	close(p[0]);
	close(p[1]);
	return ns;
}

/* Before any emulated timer of this process: each sample is a family's first create. */
static void
bench_first_create(int rounds)
{
	double *e = calloc((size_t)rounds, sizeof(double)), *k = calloc((size_t)rounds, sizeof(double));

	for (int r = 0; r < rounds; r++) {
		e[r] = first_create_ns(1);
		k[r] = first_create_ns(0);
	}
	printf("3f. a process's first timerfd_create (us, median of %d, interleaved; the\n"
	       "    emulation's starts the timer server)\n", rounds);
	report("first-create", "first create", percentile(e, (size_t)rounds, 0.5) / 1000,
	       percentile(k, (size_t)rounds, 0.5) / 1000, "us");
	free(e);
	free(k);
}

/* @n timers, emulated or the kernel's, armed far away: their descriptors, or NULL. */
static int *
make_timers(int n, int emulated)
{
	struct itimerspec far = { .it_value = { 3600, 0 } };
	int *fds = calloc((size_t)n, sizeof(int));

	for (int i = 0; fds && i < n; i++) {
		fds[i] = emulated ? (int)__tfd_emu_create(CLOCK_MONOTONIC, 0)
				  : timerfd_create(CLOCK_MONOTONIC, 0);
		if (fds[i] < 0) {
			while (i--)
				close(fds[i]);
			free(fds);
			return NULL;
		}
		if (emulated)
			__tfd_emu_settime_its(fds[i], 0, &far, NULL);
		else
			timerfd_settime(fds[i], 0, &far, NULL);
	}
	return fds;
}

static void
close_timers(int *fds, int n)
{
	for (int i = 0; fds && i < n; i++)
		close(fds[i]);
	free(fds);
}

/* ns per create+close with @live timers of the same backend live. */
static double
create_close_with_live(int live, int emulated, int reps)
{
	int *fds = make_timers(live, emulated);
	int64_t t0;
	double ns;

	if (!fds)
		return -1;
	t0 = now_ns(CLOCK_MONOTONIC);
	for (int r = 0; r < reps; r++)
		close(emulated ? (int)__tfd_emu_create(CLOCK_MONOTONIC, 0)
			       : timerfd_create(CLOCK_MONOTONIC, 0));
	ns = (double)(now_ns(CLOCK_MONOTONIC) - t0) / reps;
	close_timers(fds, live);
	return ns;
}

/* ns per fork() (to the child's exit, reaped) with @live timers of one backend. */
static double
fork_with_live(int live, int emulated, int reps)
{
	int *fds = make_timers(live, emulated);
	double *v = calloc((size_t)reps, sizeof(double)), ns;

	if (!fds || !v) {
		free(v);
		close_timers(fds, live);
		return -1;
	}
	for (int r = 0; r < reps; r++) {
		int64_t t0 = now_ns(CLOCK_MONOTONIC);
		pid_t pid = fork();

		if (pid == 0)
			_exit(0);
		waitpid(pid, NULL, 0);
		v[r] = (double)(now_ns(CLOCK_MONOTONIC) - t0);
	}
	ns = percentile(v, (size_t)reps, 0.5);
	free(v);
	close_timers(fds, live);
	return ns;
}

static void
bench_process_model(int quick)
{
	struct rlimit rl;
	int live = 10000;

	getrlimit(RLIMIT_NOFILE, &rl);
	rl.rlim_cur = rl.rlim_max;
	setrlimit(RLIMIT_NOFILE, &rl);
	if ((rlim_t)live + 200 > rl.rlim_cur) {
		printf("3g/3h. not measured: %d timers need more descriptors than RLIMIT_NOFILE %llu\n",
		       live, (unsigned long long)rl.rlim_cur);
		return;
	}
	printf("3g. create+close with %d timers live (ns; each backend with its own)\n", live);
	report("create-10000", "create+close", create_close_with_live(live, 1, quick ? 200 : 2000),
	       create_close_with_live(live, 0, quick ? 200 : 2000), "ns");
	printf("3h. fork() to the child's exit with %d timers (us, median of %d)\n", live,
	       quick ? 5 : 21);
	report("fork-10000", "fork+exit+wait", fork_with_live(live, 1, quick ? 5 : 21) / 1000,
	       fork_with_live(live, 0, quick ? 5 : 21) / 1000, "us");
}

/* --- 2. instructions per call, counted by callgrind (make bench-instructions) ------- */

/* Calls per loop: 10000 under callgrind; fewer where a debugger single-steps them. */
static int COUNTED_CALLS = 10000;

/* Each loop in its own function, so that callgrind's inclusive count per function is per op. */
__attribute__((noinline)) static void
count_ours_settime(int fd)
{
	struct itimerspec its = { .it_value = { 100, 0 } };

	for (int i = 0; i < COUNTED_CALLS; i++)
		timerfd_settime(fd, 0, &its, NULL);
}

__attribute__((noinline)) static void
count_libc_settime(settime_fn f, int fd)
{
	struct itimerspec its = { .it_value = { 100, 0 } };

	for (int i = 0; i < COUNTED_CALLS; i++)
		f(fd, 0, &its, NULL);
}

__attribute__((noinline)) static void
count_ours_gettime(int fd)
{
	struct itimerspec cur;

	for (int i = 0; i < COUNTED_CALLS; i++)
		timerfd_gettime(fd, &cur);
}

__attribute__((noinline)) static void
count_libc_gettime(gettime_fn f, int fd)
{
	struct itimerspec cur;

	for (int i = 0; i < COUNTED_CALLS; i++)
		f(fd, &cur);
}

/* A settime and a gettime, the pair a program re-arming a timer makes. */
__attribute__((noinline)) static void
count_ours_pair(int fd)
{
	struct itimerspec its = { .it_value = { 100, 0 } }, cur;

	for (int i = 0; i < COUNTED_CALLS; i++) {
		timerfd_settime(fd, 0, &its, NULL);
		timerfd_gettime(fd, &cur);
	}
}

__attribute__((noinline)) static void
count_libc_pair(settime_fn s, gettime_fn g, int fd)
{
	struct itimerspec its = { .it_value = { 100, 0 } }, cur;

	for (int i = 0; i < COUNTED_CALLS; i++) {
		s(fd, 0, &its, NULL);
		g(fd, &cur);
	}
}

static int
run_instruction_loops(int calls)
{
	void *libc = dlopen("libc.so.6", RTLD_NOW | RTLD_NOLOAD);
	settime_fn c_settime = (settime_fn)libc_fn(libc, "timerfd_settime");
	gettime_fn c_gettime = (gettime_fn)libc_fn(libc, "timerfd_gettime");
	struct itimerspec cur;
	int fd = timerfd_create(CLOCK_MONOTONIC, 0);

	if (!c_settime || !c_gettime || fd < 0 || calls <= 0)
		return 1;
	COUNTED_CALLS = calls;
	/* Once each first: the probes of the time64 calls are not what is counted. */
	timerfd_gettime(fd, &cur);
	c_gettime(fd, &cur);
	count_ours_settime(fd);
	count_libc_settime(c_settime, fd);
	count_ours_gettime(fd);
	count_libc_gettime(c_gettime, fd);
	count_ours_pair(fd);
	count_libc_pair(c_settime, c_gettime, fd);
	printf("%d calls of each made (time_t of %zu bits)\n", COUNTED_CALLS, sizeof(time_t) * 8);
	return 0;
}

/* Wall time per settime + gettime pair, ours and the C library's, interleaved (make bench). */
static double
time_pair(settime_fn s, gettime_fn g, int fd)
{
	struct itimerspec its = { .it_value = { 100, 0 } }, cur;
	int64_t t0 = now_ns(CLOCK_MONOTONIC);

	for (int i = 0; i < CALLS; i++) {
		s(fd, 0, &its, NULL);
		g(fd, &cur);
	}
	return (double)(now_ns(CLOCK_MONOTONIC) - t0) / CALLS;
}

static int
run_pair_wall(int rounds)
{
	void *libc = dlopen("libc.so.6", RTLD_NOW | RTLD_NOLOAD);
	settime_fn c_settime = (settime_fn)libc_fn(libc, "timerfd_settime");
	gettime_fn c_gettime = (gettime_fn)libc_fn(libc, "timerfd_gettime");
	static double ours[ROUNDS], theirs[ROUNDS];
	int fd = timerfd_create(CLOCK_MONOTONIC, 0);

	if (!c_settime || !c_gettime || fd < 0 || rounds > ROUNDS)
		return 1;
	for (int r = 0; r < rounds; r++) {
		if (r & 1) {
			ours[r] = time_pair(timerfd_settime, timerfd_gettime, fd);
			theirs[r] = time_pair(c_settime, c_gettime, fd);
		} else {
			theirs[r] = time_pair(c_settime, c_gettime, fd);
			ours[r] = time_pair(timerfd_settime, timerfd_gettime, fd);
		}
	}
	printf("  %-34s %10.1f %10.1f ns  ratio %.3f\n", "settime+gettime pair",
	       percentile(ours, (size_t)rounds, 0.5), percentile(theirs, (size_t)rounds, 0.5),
	       percentile(ours, (size_t)rounds, 0.5) / percentile(theirs, (size_t)rounds, 0.5));
	return 0;
}

int
main(int argc, char **argv)
{
	const char *csv_path = "bench/results.csv", *latency_path = NULL;
	int quick = 0;

	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--quick") == 0)
			quick = 1;
		else if (strcmp(argv[i], "--csv") == 0 && i + 1 < argc)
			csv_path = argv[++i];
		else if (strcmp(argv[i], "--latency-data") == 0 && i + 1 < argc)
			latency_path = argv[++i];
		else if (strcmp(argv[i], "--instruction-loops") == 0)
			return run_instruction_loops(i + 1 < argc ? atoi(argv[i + 1]) : 10000);
		else if (strcmp(argv[i], "--non-dumpable") == 0 && prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) != 0)
			return 1;
		else if (strcmp(argv[i], "--non-dumpable") == 0)
			continue;
		else if (strcmp(argv[i], "--pair-wall") == 0)
			return run_pair_wall(quick ? 21 : ROUNDS);
		else if (strcmp(argv[i], "--syscall-loop") == 0 && i + 1 < argc)
			return run_syscall_loop(argv[i + 1]);
		else {
			printf("Usage: %s [--quick] [--non-dumpable] [--csv FILE] [--latency-data FILE]\n",
			       argv[0]);
			return strcmp(argv[i], "--help") == 0 ? 0 : 2;
		}
	}
	/* The public calls use the kernel; the emulation is called directly, side by side. */
	setenv("LIBTIMERFD_BACKEND", "kernel", 1);
	csv = fopen(csv_path, "w");
	if (!csv) {
		perror(csv_path);
		return 1;
	}
	fprintf(csv, "section,measure,libtimerfd_or_emulation,reference,unit\n");
	bench_call_overhead(quick ? 21 : ROUNDS);
	/* Before any emulated timer of this process: each sample is a family's first. */
	bench_first_create(quick ? 5 : 21);
	/* First of the emulation's: no freed timers yet for new ones to reuse. */
	bench_memory(1000);
	bench_latency(quick ? 100 : 1000, latency_path, IDLE);
	bench_latency(quick ? 100 : 1000, NULL, LOADED);
	bench_latency(quick ? 100 : 1000, NULL, REALTIME);
	bench_process_model(quick);
	bench_scaling(quick);
	bench_emulated_settime(quick ? 11 : 51);
	bench_thread_cpu(1000, quick ? 1 : 2);
	fclose(csv);
	printf("CSV written to %s\n", csv_path);
	return 0;
}
