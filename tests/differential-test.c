/* SPDX-License-Identifier: MIT */
/*
 * Description: random sequences of create/settime/gettime/read/poll run side by side against
 * the kernel's timerfd and the emulation; every return value and errno must be equal, every
 * time and count equal within a tolerance.  DIFF_SECONDS bounds the run (default 5),
 * DIFF_SEED replays one (printed at the start).
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#include "emu/emu.h"
#include "emu/entry.h"
#include "slowness.h"

#define NS_PER_MS 1000000LL
#define NS_PER_S 1000000000LL
/*
 * Timing slack between the two timers of a pair, armed, read and looked at a few
 * microseconds apart: this machine's (machine_tolerance()), never a bare constant that a
 * busy or emulated CPU misses.
 */
static int64_t tol;

static uint64_t rng;
static long step;

static uint32_t
rnd(uint32_t n)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (uint32_t)(rng % n);
}

static int64_t
now(clockid_t clock)
{
	struct timespec ts;

	clock_gettime(clock, &ts);
	return (int64_t)ts.tv_sec * NS_PER_S + ts.tv_nsec;
}

static int64_t
ns(const struct timespec *ts)
{
	return (int64_t)ts->tv_sec * NS_PER_S + ts->tv_nsec;
}

/*
 * 20 ms on an idle native machine, scaled as Check's timeouts are (tests/slowness.h:
 * qemu-user, valgrind), plus four times the worst lateness of 20 sleeps of 1 ms measured
 * now: the emulation's server wakes for an expiry as late as this process wakes here.
 */
static int64_t
machine_tolerance(void)
{
	int64_t worst = 0;

	for (int i = 0; i < 20; i++) {
		struct timespec ms = { 0, NS_PER_MS };
		int64_t start = now(CLOCK_MONOTONIC), late;

		nanosleep(&ms, NULL);
		late = now(CLOCK_MONOTONIC) - start - NS_PER_MS;
		worst = late > worst ? late : worst;
	}
	return 20 * NS_PER_MS * slowness() + 4 * worst;
}

static void
mismatch(const char *what, long k, int kerr, long e, int eerr)
{
	printf("MISMATCH at step %ld, %s: kernel %ld (%s), emulation %ld (%s)\n", step, what, k,
	       k < 0 ? strerror(kerr) : "ok", e, e < 0 ? strerror(eerr) : "ok");
	exit(1);
}

/* Kernel call result r (errno set) against emulation result er (-errno or value). */
static void
same_result(const char *what, long r, long er)
{
	int kerr = r < 0 ? errno : 0;

	if ((r < 0) != (er < 0) || (r < 0 && kerr != -er))
		mismatch(what, r, kerr, er < 0 ? -1 : er, er < 0 ? (int)-er : 0);
}

/* Two times left to expiry: equal within tol, or a whole interval apart near a period's end. */
static void
close_enough(const char *what, const struct itimerspec *k, const struct itimerspec *e)
{
	int64_t d = ns(&k->it_value) - ns(&e->it_value), iv = ns(&k->it_interval);

	if (ns(&k->it_interval) != ns(&e->it_interval))
		mismatch(what, (long)ns(&k->it_interval), 0, (long)ns(&e->it_interval), 0);
	if (d < 0)
		d = -d;
	if (iv && d > iv / 2)
		d = iv - d % iv;
	if (d > tol)
		mismatch(what, (long)ns(&k->it_value), 0, (long)ns(&e->it_value), 0);
}

struct pair {
	int k, e;
	clockid_t clock;
	int64_t deadline; /* CLOCK_MONOTONIC ns of the first expiry, 0 if disarmed */
	int64_t interval;
	uint64_t kticks, eticks;
};

static void
drain_and_compare(struct pair *p)
{
	struct itimerspec cur;
	uint64_t n;
	int64_t t = now(CLOCK_MONOTONIC);

	if (p->k < 0)
		return;
	/*
	 * A gettime on both first: it forwards each timer (the kernel's hrtimer_forward(), the
	 * emulation's own delivery where its server is late), so the counts read are what
	 * the clock says, even on a machine too loaded to schedule the server in time.
	 */
	timerfd_gettime(p->k, &cur);
	__tfd_emu_gettime_its(p->e, &cur);
	if (read(p->k, &n, sizeof(n)) == sizeof(n))
		p->kticks += n;
	if (read(p->e, &n, sizeof(n)) == sizeof(n))
		p->eticks += n;
	if (p->deadline && t > p->deadline + tol) {
		int64_t slack = 1 + (p->interval ? tol / p->interval + 1 : 0);

		if (p->kticks == 0 || p->eticks == 0 ||
		    (int64_t)(p->kticks - p->eticks) > slack || (int64_t)(p->eticks - p->kticks) > slack)
			mismatch("expiration count", (long)p->kticks, 0, (long)p->eticks, 0);
	} else if (!p->deadline || t < p->deadline - tol) {
		if (p->kticks != p->eticks) {
			printf("deadline in %lld ns, interval %lld ns\n",
			       (long long)(p->deadline ? p->deadline - t : -1), (long long)p->interval);
			mismatch("expiration count (none due)", (long)p->kticks, 0, (long)p->eticks, 0);
		}
	}
}

static void
op_create(struct pair *p)
{
	static const clockid_t clocks[] = { CLOCK_REALTIME, CLOCK_MONOTONIC, CLOCK_BOOTTIME,
					    CLOCK_REALTIME_ALARM, 99, -1 };
	static const int flags[] = { 0, TFD_CLOEXEC, TFD_NONBLOCK, TFD_CLOEXEC | TFD_NONBLOCK, 1 };
	clockid_t c = clocks[rnd(6)];
	int f = flags[rnd(5)];
	long k = timerfd_create(c, f), e = __tfd_emu_create(c, f);

	same_result("create", k, e);
	if (k < 0)
		return;
	if (p->k >= 0) {
		close(p->k);
		close(p->e);
	}
	fcntl((int)k, F_SETFL, O_NONBLOCK);
	fcntl((int)e, F_SETFL, O_NONBLOCK);
	*p = (struct pair){ .k = (int)k, .e = (int)e, .clock = c };
}

/* A random duration in ns: zero, tiny, a few ms, seconds. */
static int64_t
random_ns(void)
{
	static const int64_t choices[] = { 0, 1, 15 * NS_PER_MS, 40 * NS_PER_MS, 2 * NS_PER_S };

	return choices[rnd(5)] + (rnd(2) ? rnd(5 * NS_PER_MS) : 0);
}

static struct timespec
to_ts(int64_t v)
{
	return (struct timespec){ .tv_sec = v / NS_PER_S, .tv_nsec = v % NS_PER_S };
}

/* Now and then, a value the kernel must refuse. */
static void
maybe_corrupt(struct timespec *ts)
{
	switch (rnd(12)) {
	case 0: ts->tv_nsec = NS_PER_S; break;
	case 1: ts->tv_nsec = -1; break;
	case 2: ts->tv_sec = -1; break;
	}
}

static void
op_settime(struct pair *p)
{
	static const int flags[] = { 0, 0, TFD_TIMER_ABSTIME,
				     TFD_TIMER_ABSTIME | TFD_TIMER_CANCEL_ON_SET, 4 };
	struct itimerspec its, kold, eold;
	int f = flags[rnd(5)];
	int64_t value, interval, base = 0;
	int use_old = rnd(2), fd_kind = rnd(20);
	long k, e;

	value = random_ns();
	interval = rnd(2) ? random_ns() : 0;
	/* Periods under 5 ms would make the counts too noisy to compare. */
	if (interval && interval < 5 * NS_PER_MS)
		interval += 5 * NS_PER_MS;
	if ((f & TFD_TIMER_ABSTIME) && value && p->k >= 0)
		base = now(p->clock == CLOCK_REALTIME_ALARM ? CLOCK_REALTIME : p->clock);
	its.it_value = to_ts(value ? base + value : 0);
	its.it_interval = to_ts(interval);
	maybe_corrupt(&its.it_value);
	maybe_corrupt(&its.it_interval);
	drain_and_compare(p);
	if (p->k < 0 || fd_kind == 0) { /* a descriptor that is not open */
		int bad = open("/dev/null", O_RDONLY);
		const struct itimerspec *v = rnd(8) ? &its : NULL;

		close(bad);
		k = timerfd_settime(bad, f, v, NULL);
		e = __tfd_emu_settime_its(bad, f, v, NULL);
		same_result("settime on a closed fd", k, e);
		return;
	}
	if (getenv("DIFF_VERBOSE"))
		printf("step %ld: settime clock %d flags %d value %lld.%09ld interval %lld.%09ld\n", step,
		       (int)p->clock, f, (long long)its.it_value.tv_sec, (long)its.it_value.tv_nsec,
		       (long long)its.it_interval.tv_sec, (long)its.it_interval.tv_nsec);
	k = timerfd_settime(p->k, f, &its, use_old ? &kold : NULL);
	e = __tfd_emu_settime_its(p->e, f, &its, use_old ? &eold : NULL);
	same_result("settime", k, e);
	if (k == 0 && use_old)
		close_enough("settime old value", &kold, &eold);
	if (k == 0) {
		p->kticks = p->eticks = 0;
		p->interval = interval;
		p->deadline = value ? now(CLOCK_MONOTONIC) + (value) : 0;
	}
}

static void
op_gettime(struct pair *p)
{
	struct itimerspec k_cur, e_cur;
	int null = rnd(10) == 0;
	long k, e;

	if (p->k < 0)
		return;
	k = timerfd_gettime(p->k, null ? NULL : &k_cur);
	e = __tfd_emu_gettime_its(p->e, null ? NULL : &e_cur);
	same_result("gettime", k, e);
	if (k == 0)
		close_enough("gettime", &k_cur, &e_cur);
}

static void
op_poll(struct pair *p)
{
	struct pollfd pfd[2] = { { .fd = p->k, .events = POLLIN }, { .fd = p->e, .events = POLLIN } };
	int64_t t = now(CLOCK_MONOTONIC);

	if (p->k < 0 || poll(pfd, 2, 0) < 0)
		return;
	/*
	 * Readiness may differ near an expiry, and after reads that found the
	 * emulation's delivery still on its way (the counts read differ).
	 */
	if (p->deadline && p->kticks == p->eticks &&
	    (t < p->deadline - tol || (!p->interval && t > p->deadline + tol)) &&
	    pfd[0].revents != pfd[1].revents)
		mismatch("poll readiness", pfd[0].revents, 0, pfd[1].revents, 0);
}

int
main(void)
{
	const char *env = getenv("DIFF_SECONDS");
	int64_t seconds = env ? atoll(env) : 5, end;
	struct pair p = { .k = -1, .e = -1 };

	/* Public calls use the kernel; the emulation is called directly. */
	setenv("LIBTIMERFD_BACKEND", "kernel", 1);
	env = getenv("DIFF_SEED");
	rng = env ? strtoull(env, NULL, 0) : (uint64_t)now(CLOCK_REALTIME) | 1;
	tol = machine_tolerance();
	printf("differential test: seed %" PRIu64 ", %" PRId64 " s, timing tolerance %" PRId64 " us\n",
	       rng, seconds, tol / 1000);
	end = now(CLOCK_MONOTONIC) + seconds * NS_PER_S;
	for (step = 0; now(CLOCK_MONOTONIC) < end; step++) {
		uint32_t op = rnd(10);

		if (getenv("DIFF_VERBOSE"))
			printf("step %ld: op %u at %lld\n", step, op, (long long)now(CLOCK_MONOTONIC));
		switch (op) {
		case 0: op_create(&p); break;
		case 1: case 2: case 3: op_settime(&p); break;
		case 4: case 5: op_gettime(&p); break;
		case 6: op_poll(&p); break;
		case 7: drain_and_compare(&p); break;
		default: {
			struct timespec ts = { 0, (long)rnd(15) * NS_PER_MS };

			nanosleep(&ts, NULL);
		}
		}
	}
	printf("%ld steps, no mismatch\n", step);
	return 0;
}
