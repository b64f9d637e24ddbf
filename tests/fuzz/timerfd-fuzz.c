/* SPDX-License-Identifier: MIT */
/*
 * Description: the fuzz target.  Each input is a program of up to 64 API calls (create,
 * settime, gettime, read, poll, close, dup, a short sleep) with arbitrary arguments: unknown
 * clocks and flags, out-of-range and huge times, NULL and unreadable pointers, closed,
 * reused, negative and foreign descriptors.  The public API serves it with whichever
 * backend LIBTIMERFD_BACKEND selects (kernel or emulation).  It aborts (a finding) on a
 * crash or sanitizer report, on a result the API cannot give (a count of 0, a time out of
 * range), and on an errno other than the kernel's: each call on a live timer, a negative
 * or foreign descriptor is made again, raw, on a kernel timerfd kept in the same state.
 * FUZZ_NO_REFERENCE=1 turns that comparison off (under qemu-user, whose translation of
 * the calls is not a kernel).  Built by libFuzzer (make fuzz) or by replay.c.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#include "syscall-numbers.h"

#define N_SLOTS 8
#define MAX_OPS 64
#define NS_PER_S 1000000000LL

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct input {
	const uint8_t *p;
	size_t n;
};

/* A timer of the program: its descriptor and the kernel timerfd that mirrors it. */
struct slot {
	int fd, mirror;  /* -1 when empty */
	int stale;       /* a number the slot held and closed (maybe reused since), or -1 */
};

static struct slot slots[N_SLOTS];
static bool compare_with_kernel, tracing;

/* FUZZ_TRACE=1 prints each call, to read what an input does. */
#define trace(...) (tracing ? (void)fprintf(stderr, __VA_ARGS__) : (void)0)
static void *no_access_page, *read_only_page;
static int dev_null = -1;

/*
 * The emulated timers (by device and inode: dup()s share them) from which a read under
 * 8 bytes took part of a count: the rest stays readable alone (libtimerfd(7)), so a later
 * read of 8 may return fewer bytes.
 */
static struct stat partly_read[MAX_OPS];
static int n_partly_read;

static bool
is_partly_read(const struct stat *st)
{
	for (int i = 0; i < n_partly_read; i++)
		if (partly_read[i].st_dev == st->st_dev && partly_read[i].st_ino == st->st_ino)
			return true;
	return false;
}

static uint8_t
u8(struct input *in)
{
	if (in->n == 0)
		return 0;
	in->n--;
	return *in->p++;
}

static uint64_t
u64(struct input *in, int bytes)
{
	uint64_t v = 0;

	for (int i = 0; i < bytes; i++)
		v |= (uint64_t)u8(in) << (8 * i);
	return v;
}

/* Reports what went wrong and aborts: libFuzzer keeps the input as a crash. */
static void __attribute__((format(printf, 1, 2), noreturn))
finding(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "timerfd-fuzz: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	abort();
}

/* The library's result and the kernel's (raw syscall, -1 with errno) must agree. */
static void
same_answer(const char *call, long lib, int lib_errno, long kernel, int kernel_errno)
{
	if ((lib < 0) != (kernel < 0) || (lib < 0 && lib_errno != kernel_errno))
		finding("%s: library errno %d, kernel errno %d (0: success)", call,
			lib < 0 ? lib_errno : 0, kernel < 0 ? kernel_errno : 0);
}

/* Closes the slot's descriptors (its number is kept as stale when @keep_stale). */
static void
empty_slot(struct slot *s, bool keep_stale)
{
	int stale = keep_stale ? s->fd : -1;

	if (s->fd >= 0)
		close(s->fd);
	if (s->mirror >= 0)
		close(s->mirror);
	*s = (struct slot){ -1, -1, stale };
}

/* Puts a new descriptor and its mirror in @s, or, if @fd failed, closes the mirror. */
static void
fill_slot(struct slot *s, long fd, long mirror)
{
	if (fd < 0) {
		if (mirror >= 0)
			close((int)mirror);
		return;
	}
	empty_slot(s, false);
	*s = (struct slot){ (int)fd, (int)mirror, -1 };
}

static clockid_t
pick_clock(struct input *in)
{
	static const clockid_t clocks[] = { CLOCK_REALTIME, CLOCK_MONOTONIC, CLOCK_BOOTTIME,
					    CLOCK_REALTIME_ALARM, CLOCK_BOOTTIME_ALARM };
	uint8_t b = u8(in);

	return b < 200 ? clocks[b % 5] : (clockid_t)(int32_t)u64(in, 4);
}

static int
pick_create_flags(struct input *in)
{
	uint8_t b = u8(in);

	return b < 200 ? (b & 1 ? TFD_NONBLOCK : 0) | (b & 2 ? TFD_CLOEXEC : 0)
		       : (int)(int32_t)u64(in, 4);
}

static int
pick_settime_flags(struct input *in)
{
	uint8_t b = u8(in);

	return b < 200 ? (b & 1 ? TFD_TIMER_ABSTIME : 0) | (b & 2 ? TFD_TIMER_CANCEL_ON_SET : 0)
		       : (int)(int32_t)u64(in, 4);
}

static time_t
pick_sec(struct input *in)
{
	const time_t max = (time_t)(((uint64_t)1 << (sizeof(time_t) * 8 - 1)) - 1);
	struct timespec now;

	switch (u8(in) % 8) {
	case 0: return 0;
	case 1: return 1;
	case 2: return -1;
	case 3: return max;
	case 4: clock_gettime(CLOCK_MONOTONIC, &now); return now.tv_sec;
	case 5: clock_gettime(CLOCK_REALTIME, &now); return now.tv_sec + (time_t)(u8(in) % 3) - 1;
	case 6: return (time_t)u64(in, sizeof(time_t));
	default: return (time_t)(u8(in) % 4);
	}
}

static long
pick_nsec(struct input *in)
{
	switch (u8(in) % 8) {
	case 0: return 0;
	case 1: return 1;
	case 2: return 999999999;
	case 3: return 1000000000;
	case 4: return -1;
	case 5: return (long)(u64(in, 4) % 2000000); /* up to 2 ms */
	case 6: return (long)u64(in, sizeof(long));
	default: return 100000;
	}
}

/* A descriptor argument: a slot's (live or stale), or one that is bad in some way. */
struct fd_arg {
	int fd;
	bool has_mirror;  /* the same call can be made on the kernel: on @mirror */
	int mirror;
	bool ours;        /* a descriptor of a slot, live or stale, safe to read */
};

static struct fd_arg
pick_fd(struct input *in)
{
	uint8_t b = u8(in);
	struct slot *s = &slots[b % N_SLOTS];

	switch ((b / N_SLOTS) % 6) {
	case 0:
	case 1:
	case 2:
		if (s->fd >= 0)
			return (struct fd_arg){ s->fd, s->mirror >= 0, s->mirror, true };
		/* A closed number, perhaps reused since by another slot or a mirror. */
		return (struct fd_arg){ s->stale, false, -1, s->stale >= 0 };
	case 3:
		return (struct fd_arg){ -1, true, -1, false };
	case 4:
		return (struct fd_arg){ INT_MAX, true, INT_MAX, false };
	default:
		return (struct fd_arg){ dev_null, true, dev_null, false };
	}
}

static void *
pick_ptr(struct input *in, void *ok)
{
	switch (u8(in) % 8) {
	case 0: return NULL;
	case 1: return no_access_page;
	case 2: return read_only_page;
	default: return ok;
	}
}

static void
check_its(const char *call, const struct itimerspec *its)
{
	if (its->it_value.tv_sec < 0 || its->it_value.tv_nsec < 0 || its->it_value.tv_nsec >= NS_PER_S ||
	    its->it_interval.tv_sec < 0 || its->it_interval.tv_nsec < 0 ||
	    its->it_interval.tv_nsec >= NS_PER_S)
		finding("%s: impossible time %lld.%09ld interval %lld.%09ld", call,
			(long long)its->it_value.tv_sec, (long)its->it_value.tv_nsec,
			(long long)its->it_interval.tv_sec, (long)its->it_interval.tv_nsec);
}

static void
op_create(struct input *in)
{
	struct slot *s = &slots[u8(in) % N_SLOTS];
	clockid_t clock = pick_clock(in);
	int flags = pick_create_flags(in), e;
	long fd, k;

	fd = timerfd_create(clock, flags);
	e = errno;
	trace("slot %d = timerfd_create(%d, %#x) = %ld (%s)\n", (int)(s - slots), (int)clock, flags, fd,
	      strerror(fd < 0 ? e : 0));
	/* The mirror never blocks a read, whatever the program's descriptor does. */
	k = syscall(TFD_NR_create, clock, flags | (fd >= 0 ? TFD_NONBLOCK : 0));
	if (compare_with_kernel)
		same_answer("timerfd_create", fd, e, k, errno);
	fill_slot(s, fd, k);
}

static void
op_settime(struct input *in)
{
	struct fd_arg fd = pick_fd(in);
	int flags = pick_settime_flags(in), e;
	struct itimerspec value, old, kold = { 0 };
	const struct itimerspec *vp;
	struct itimerspec *op, *kop;
	long r, k;

	/* One statement each: the order the input is consumed in must not be the compiler's. */
	value.it_value.tv_sec = pick_sec(in);
	value.it_value.tv_nsec = pick_nsec(in);
	value.it_interval.tv_sec = pick_sec(in);
	value.it_interval.tv_nsec = pick_nsec(in);
	vp = pick_ptr(in, &value);
	op = pick_ptr(in, &old);
	kop = op == &old ? &kold : op;
	if (u8(in) % 2)
		value.it_interval = (struct timespec){ 0, 0 };
	r = timerfd_settime(fd.fd, flags, vp, op);
	e = errno;
	trace("timerfd_settime(%d, %#x, %lld.%09ld/%lld.%09ld) = %ld (%s)\n", fd.fd, flags,
	      (long long)value.it_value.tv_sec, (long)value.it_value.tv_nsec,
	      (long long)value.it_interval.tv_sec, (long)value.it_interval.tv_nsec, r,
	      strerror(r < 0 ? e : 0));
	if (r == 0 && op == &old)
		check_its("timerfd_settime", &old);
	if (!fd.has_mirror)
		return;
	k = syscall(TFD_NR_settime_its, fd.mirror, flags, vp, kop);
	if (compare_with_kernel)
		same_answer("timerfd_settime", r, e, k, errno);
}

static void
op_gettime(struct input *in)
{
	struct fd_arg fd = pick_fd(in);
	struct itimerspec cur, kcur = { 0 };
	struct itimerspec *p = pick_ptr(in, &cur), *kp = p == &cur ? &kcur : p;
	long r = timerfd_gettime(fd.fd, p), k;
	int e = errno;

	trace("timerfd_gettime(%d) = %ld (%s)\n", fd.fd, r, strerror(r < 0 ? e : 0));
	if (r == 0 && p == &cur)
		check_its("timerfd_gettime", &cur);
	if (!fd.has_mirror)
		return;
	k = syscall(TFD_NR_gettime_its, fd.mirror, kp);
	if (compare_with_kernel)
		same_answer("timerfd_gettime", r, e, k, errno);
}

/* Whether LIBTIMERFD_BACKEND chose the emulation. */
static bool
emulated(void)
{
	const char *b = getenv("LIBTIMERFD_BACKEND");

	return b && strcmp(b, "emulation") == 0;
}

/* A read that cannot block: of a slot's descriptor, non-blocking or readable. */
static void
op_read(struct input *in)
{
	struct fd_arg fd = pick_fd(in);
	size_t len = u8(in) % 4 ? 8 : u8(in) % 17;
	uint64_t buf[3];
	void *p = u8(in) % 8 ? (void *)buf : pick_ptr(in, buf);
	struct pollfd pfd = { .fd = fd.fd, .events = POLLIN };
	int fl;
	ssize_t n;
	struct stat st;

	if (!fd.ours)
		return;
	fl = fcntl(fd.fd, F_GETFL);
	if (fl < 0 || (!(fl & O_NONBLOCK) && (poll(&pfd, 1, 0) != 1 || !(pfd.revents & POLLIN))))
		return;
	n = read(fd.fd, p, len);
	trace("read(%d, %zu) = %ld\n", fd.fd, len, (long)n);
	/* An emulated timer is a pipe: a read under 8 bytes takes what fits (libtimerfd(7)). */
	if (emulated() && n >= 0 && fstat(fd.fd, &st) == 0) {
		bool rest_waits = is_partly_read(&st);

		if (len < 8) {
			if ((size_t)n != len && !(rest_waits && n > 0 && (size_t)n < len))
				finding("read(%zu) gave %ld bytes", len, (long)n);
			if (n > 0 && !rest_waits && n_partly_read < MAX_OPS)
				partly_read[n_partly_read++] = st;
			return;
		}
		/* The rest of a count partly read, alone. */
		if (rest_waits && n > 0 && n < 8)
			return;
	}
	if (n >= 0 && p == buf && (n != 8 || buf[0] == 0))
		finding("read gave %ld bytes, count %llu", (long)n, (unsigned long long)buf[0]);
	if (n < 0 && errno != EAGAIN && errno != EINVAL && errno != EFAULT && errno != EBADF &&
	    errno != ECANCELED && errno != EINTR)
		finding("read: %s", strerror(errno));
}

static void
op_poll(void)
{
	struct pollfd pfd[N_SLOTS];
	int n;

	for (int i = 0; i < N_SLOTS; i++)
		pfd[i] = (struct pollfd){ .fd = slots[i].fd, .events = POLLIN };
	/* libFuzzer's -timeout raises SIGALRM every second: a poll it interrupts is no finding. */
	while ((n = poll(pfd, N_SLOTS, 0)) < 0 && errno == EINTR)
		;
	if (n < 0)
		finding("poll: %s", strerror(errno));
}

static void
op_close(struct input *in)
{
	struct slot *s = &slots[u8(in) % N_SLOTS];

	if (s->fd < 0)
		return;
	trace("close(%d)\n", s->fd);
	empty_slot(s, true);
}

static void
op_dup(struct input *in)
{
	struct slot *from = &slots[u8(in) % N_SLOTS], *to = &slots[u8(in) % N_SLOTS];
	int fd, mirror;

	if (from->fd < 0 || from == to)
		return;
	fd = dup(from->fd);
	mirror = from->mirror >= 0 ? dup(from->mirror) : -1;
	trace("slot %d = dup(%d) = %d\n", (int)(to - slots), from->fd, fd);
	fill_slot(to, fd, mirror);
}

static void
op_sleep(struct input *in)
{
	struct timespec ts = { 0, (long)(u8(in) % 5) * 250000 }; /* up to 1 ms */

	nanosleep(&ts, NULL);
}

static void
setup(void)
{
	size_t size = (size_t)sysconf(_SC_PAGESIZE);
	const char *no_ref = getenv("FUZZ_NO_REFERENCE");

	compare_with_kernel = !(no_ref && *no_ref && strcmp(no_ref, "0") != 0);
	tracing = getenv("FUZZ_TRACE") != NULL;
	no_access_page = mmap(NULL, size, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	read_only_page = mmap(NULL, size, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	dev_null = open("/dev/null", O_RDWR | O_CLOEXEC);
	if (no_access_page == MAP_FAILED || read_only_page == MAP_FAILED || dev_null < 0)
		finding("setup: %s", strerror(errno));
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct input in = { data, size };
	static bool ready;

	if (!ready) {
		setup();
		ready = true;
	}
	for (int i = 0; i < N_SLOTS; i++)
		slots[i] = (struct slot){ -1, -1, -1 };
	n_partly_read = 0;
	for (int ops = 0; in.n > 0 && ops < MAX_OPS; ops++) {
		switch (u8(&in) % 8) {
		case 0: op_create(&in); break;
		case 1: op_settime(&in); break;
		case 2: op_gettime(&in); break;
		case 3: op_read(&in); break;
		case 4: op_poll(); break;
		case 5: op_close(&in); break;
		case 6: op_dup(&in); break;
		default: op_sleep(&in); break;
		}
	}
	for (int i = 0; i < N_SLOTS; i++)
		empty_slot(&slots[i], false);
	return 0;
}
