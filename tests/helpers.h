/* SPDX-License-Identifier: MIT */
/* Small helpers shared by the test cases: time arithmetic, reads, fds. */
#ifndef TFD_TEST_HELPERS_H
#define TFD_TEST_HELPERS_H

#include <stdbool.h>
#include <stdint.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "slowness.h"

#define NS_PER_MS 1000000LL
#define NS_PER_S 1000000000LL

/* Assert that @call fails with -1 and errno @err. */
#define ck_assert_fails_with(call, err)                                     \
	do {                                                                \
		errno = 0;                                                  \
		ck_assert_int_eq((call), -1);                               \
		ck_assert_msg(errno == (err), "%s: errno %d (%s), want %d (%s)", \
			      #call, errno, strerror(errno), (err), strerror(err)); \
	} while (0)

/* Asserts in a child of in_child(): says which line failed and exits 1. */
#define child_assert(cond)                                                                \
	do {                                                                              \
		if (!(cond)) {                                                            \
			fprintf(stderr, "%s:%d: child: %s\n", __FILE__, __LINE__, #cond); \
			_exit(1);                                                         \
		}                                                                         \
	} while (0)
/* Runs @fn in a child process of its own (which may close every descriptor, or hang: it
 * gets 20 s, scaled) and asserts that it exited with 0. */
void in_child(void (*fn)(void));
/* Runs @fn in a child process of its own (20 s, scaled, then SIGALRM) and gives its wait status. */
int child_status(void (*fn)(void));
/* in_child(), where @fn exits with 77 when the machine lacks what it needs: a skip, with @skip_reason. */
void in_child_or_skip(void (*fn)(void), const char *skip_reason);
/* In a child of in_child(), as root: no supplementary groups, then @uid as its uid and gid, for good. */
void become_user(uid_t uid);
/*
 * Whether root can do become_user(@uid) here (tried in a child): false, with the call and its
 * error in @why, where the platform refuses one (a user-mode Linux emulator refused setgroups).
 */
bool root_can_become(uid_t uid, char *why, size_t size);
/* Descriptors open in this process, as a test harness counts them. */
int open_fds(void);

/* Current time of a clock in nanoseconds. */
int64_t now_ns(clockid_t clock);
/* A timespec as nanoseconds, and back. */
int64_t ts_ns(const struct timespec *ts);
struct timespec ns_ts(int64_t ns);
/* An itimerspec from a value and an interval in nanoseconds. */
struct itimerspec its_ns(int64_t value, int64_t interval);
/* Sleep on CLOCK_MONOTONIC, resuming after signals. */
void sleep_ns(int64_t ns);
/* read() 8 bytes from fd: 0 with *ticks set, or -errno. */
int read_ticks(int fd, uint64_t *ticks);
/* poll() for POLLIN on @fd, resumed after signals: 1 readable, 0 not within @ms. */
int readable_within(int fd, int ms);
/*
 * Bounds of what must happen "soon" come from the machine, never a bare constant that an
 * emulated or busy CPU misses: scaled by slowness() (tests/slowness.h).  What must not
 * happen is waited for unscaled: a slower machine only makes such a check easier to pass.
 */
int64_t scaled_ns(int64_t ns);
int scaled_ms(int ms);
/* Whether @fd becomes readable within @ms scaled (readable_within() for what must not). */
bool becomes_readable(int fd, int ms);
/*
 * A count read from @fd once it is readable (within @ms scaled): 0 with *ticks set, or
 * -errno.  On the emulation a non-blocking read right after poll() can find the FIFO
 * empty while the server adds a new count to the waiting one (libtimerfd(7)): it waits
 * and reads again then.  On the kernel, exactly one poll and one read.
 */
int read_ready_ticks(int fd, uint64_t *ticks, int ms);
/* In a child that must never outlive the case: alarm() in @seconds scaled. */
void child_alarm(unsigned seconds);
/*
 * The machine's own wake-ups, measured beside a latency it bounds: a relay is a child
 * process that answers each round 1 ms later, as the emulation's server delivers an
 * expiration after a settime: a FUTEX_WAKE across processes (the settime's poke; a user-mode
 * Linux emulator delivered those up to 50 ms late), a wake-up at an instant in another
 * process, then one in the reader (a pipe). relay_lateness_ns() is how long after that 1 ms
 * its answer was readable, in one round.
 */
struct relay {
	uint32_t *word; /* MAP_SHARED: the round, bumped and woken */
	int from;
	pid_t pid;
};
void relay_start(struct relay *r);
int64_t relay_lateness_ns(struct relay *r);
void relay_stop(struct relay *r);
/* The greatest lateness of @rounds rounds of a relay of its own: the machine's, now. */
int64_t wakeup_lateness_ns(int rounds);
/* Put fd in non-blocking mode: 0 or -errno. */
int set_nonblock(int fd);
/* A descriptor number that is certainly not open. */
int closed_fd(void);
/* Whether the timer @fd is served by the emulation (the kernel's fdinfo of a timerfd has its clockid). */
bool timer_is_emulated(int fd);
/* The sanitizer the suite was built with: "address", "thread", or NULL. */
const char *sanitizer(void);
/*
 * Says that the running case does not apply here, and why.  Check has no skipped state, so
 * the case then ends as passed; count-results.sh counts these lines as skipped cases.
 */
void case_skipped(const char *what_and_why);
/*
 * Says why the running case @name cannot make a PID namespace here (qemu-user, the basic
 * ABI, no CAP_SYS_ADMIN, a kernel without them), if it cannot: true then.
 */
bool skipped_without_pid_namespaces(const char *name);
/* A CLOCK_MONOTONIC timerfd firing every @ns from now. */
int periodic_timer(int64_t ns, int flags);
/* A timerfd that is armed and already expired (one-shot, 1 ns), for @clock. */
int expired_timer(clockid_t clock, int flags);

/* Whether /proc is there (the emulation finds a received timer's server through it). */
bool proc_is_mounted(void);

#endif /* TFD_TEST_HELPERS_H */
