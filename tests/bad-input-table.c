/* SPDX-License-Identifier: MIT */
/*
 * Every bad input we know of, each with the errno the kernel gives it (Linux 6.x; the order
 * of the checks is in KERNEL-SEMANTICS: settime reads the value first, then checks flags and
 * values, and only then looks the descriptor up; gettime looks the descriptor up first).
 * Rows with err 0 are unusual inputs the kernel accepts: a backend must not refuse them.
 * Negative descriptors appear only where EBADF is the answer: valgrind answers EBADF for them
 * itself, before the kernel's earlier checks (make check-valgrind runs this table too).
 * case-bad-input.c runs the table against whichever backend serves the suite, so the kernel
 * run checks the table itself and the emulated runs check the emulation against it.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <sys/timerfd.h>

#include "bad-input-table.h"

/* The largest time_t (32 or 64 bits): seconds that overflow when added to now. */
#define TIME_T_MAX ((time_t)(((uint64_t)1 << (sizeof(time_t) * 8 - 1)) - 1))
#define ONE_S { .it_value = { 1, 0 } }

/* One shorthand per call; fields a row leaves out are 0: PTR_OK, FD_TIMER, no flags. */
#define CREATE(what_, clock_, flags_, err_) \
	{ .what = (what_), .op = BAD_CREATE, .clock = (clock_), .flags = (flags_), .err = (err_) }
#define SETTIME(what_, fd_, flags_, ptr_, old_, err_, ...)                                  \
	{ .what = (what_), .op = BAD_SETTIME, .fd = (fd_), .flags = (flags_), .ptr = (ptr_), \
	  .old = (old_), .err = (err_), .value = __VA_ARGS__ }
#define GETTIME(what_, fd_, ptr_, err_) \
	{ .what = (what_), .op = BAD_GETTIME, .fd = (fd_), .ptr = (ptr_), .err = (err_) }
/* An emulated timer is a pipe: a read shorter than 8 bytes takes what fits (libtimerfd(7)). */
#define SHORT_READ "a pipe's read takes what fits"
#define READ(what_, fd_, ptr_, len_, err_) \
	{ .what = (what_), .op = BAD_READ, .fd = (fd_), .ptr = (ptr_), .len = (len_), .err = (err_) }

const struct bad_input bad_inputs[] = {
	/* timerfd_create: flags, then the clock, then CAP_WAKE_ALARM (case-alarm-clocks.c). */
	CREATE("clock -1", -1, 0, EINVAL),
	CREATE("clock 12345", 12345, 0, EINVAL),
	CREATE("clock INT_MAX", INT_MAX, 0, EINVAL),
	CREATE("clock INT_MIN", INT_MIN, 0, EINVAL),
	CREATE("CLOCK_PROCESS_CPUTIME_ID", CLOCK_PROCESS_CPUTIME_ID, 0, EINVAL),
	CREATE("CLOCK_THREAD_CPUTIME_ID", CLOCK_THREAD_CPUTIME_ID, 0, EINVAL),
	CREATE("CLOCK_MONOTONIC_RAW", CLOCK_MONOTONIC_RAW, 0, EINVAL),
	CREATE("CLOCK_REALTIME_COARSE", CLOCK_REALTIME_COARSE, 0, EINVAL),
	CREATE("CLOCK_MONOTONIC_COARSE", CLOCK_MONOTONIC_COARSE, 0, EINVAL),
	CREATE("CLOCK_TAI", CLOCK_TAI, 0, EINVAL),
	CREATE("a process CPU clock id (clock_getcpuclockid)", -6, 0, EINVAL),
	CREATE("flag 1", CLOCK_MONOTONIC, 1, EINVAL),
	CREATE("flag O_APPEND", CLOCK_MONOTONIC, O_APPEND, EINVAL),
	CREATE("flag O_RDWR", CLOCK_MONOTONIC, O_RDWR, EINVAL),
	CREATE("flag INT_MIN", CLOCK_MONOTONIC, INT_MIN, EINVAL),
	CREATE("flags -1", CLOCK_MONOTONIC, -1, EINVAL),
	CREATE("TFD_CLOEXEC | O_EXCL", CLOCK_MONOTONIC, TFD_CLOEXEC | O_EXCL, EINVAL),
	CREATE("settime's TFD_TIMER_ABSTIME as a create flag", CLOCK_MONOTONIC, TFD_TIMER_ABSTIME,
	       EINVAL),
	CREATE("bad clock and bad flags", -1, 1, EINVAL),

	/* timerfd_settime: the new value is read first, whatever else is wrong. */
	SETTIME("NULL new value", FD_TIMER, 0, PTR_NULL, PTR_OK, EFAULT, ONE_S),
	SETTIME("unreadable new value", FD_TIMER, 0, PTR_NO_ACCESS, PTR_OK, EFAULT, ONE_S),
	SETTIME("NULL new value, bad flags, closed fd", FD_CLOSED, 4, PTR_NULL, PTR_OK, EFAULT,
		ONE_S),
	SETTIME("NULL new value, closed fd", FD_CLOSED, 0, PTR_NULL, PTR_OK, EFAULT, ONE_S),
	/* Then the flags and both timespecs, even when the value disarms. */
	SETTIME("flag 4", FD_TIMER, 4, PTR_OK, PTR_OK, EINVAL, ONE_S),
	SETTIME("flag 8", FD_TIMER, 8, PTR_OK, PTR_OK, EINVAL, ONE_S),
	SETTIME("flag INT_MIN", FD_TIMER, INT_MIN, PTR_OK, PTR_OK, EINVAL, ONE_S),
	SETTIME("flags -1", FD_TIMER, -1, PTR_OK, PTR_OK, EINVAL, ONE_S),
	SETTIME("TFD_TIMER_ABSTIME | 0x100", FD_TIMER, TFD_TIMER_ABSTIME | 0x100, PTR_OK, PTR_OK,
		EINVAL, ONE_S),
	SETTIME("create's TFD_NONBLOCK as a settime flag", FD_TIMER, TFD_NONBLOCK, PTR_OK, PTR_OK,
		EINVAL, ONE_S),
	SETTIME("value nsec 1e9", FD_TIMER, 0, PTR_OK, PTR_OK, EINVAL,
		{ .it_value = { 0, 1000000000 } }),
	SETTIME("value nsec -1", FD_TIMER, 0, PTR_OK, PTR_OK, EINVAL, { .it_value = { 1, -1 } }),
	SETTIME("value nsec LONG_MAX", FD_TIMER, 0, PTR_OK, PTR_OK, EINVAL,
		{ .it_value = { 1, LONG_MAX } }),
	SETTIME("value nsec LONG_MIN", FD_TIMER, 0, PTR_OK, PTR_OK, EINVAL,
		{ .it_value = { 1, LONG_MIN } }),
	SETTIME("value sec -1", FD_TIMER, 0, PTR_OK, PTR_OK, EINVAL, { .it_value = { -1, 0 } }),
	SETTIME("absolute value sec -1", FD_TIMER, TFD_TIMER_ABSTIME, PTR_OK, PTR_OK, EINVAL,
		{ .it_value = { -1, 0 } }),
	SETTIME("interval nsec 1e9", FD_TIMER, 0, PTR_OK, PTR_OK, EINVAL,
		{ .it_value = { 1, 0 }, .it_interval = { 0, 1000000000 } }),
	SETTIME("interval nsec -1", FD_TIMER, 0, PTR_OK, PTR_OK, EINVAL,
		{ .it_value = { 1, 0 }, .it_interval = { 0, -1 } }),
	SETTIME("interval sec -1", FD_TIMER, 0, PTR_OK, PTR_OK, EINVAL,
		{ .it_value = { 1, 0 }, .it_interval = { -1, 0 } }),
	SETTIME("bad interval with a disarming value", FD_TIMER, 0, PTR_OK, PTR_OK, EINVAL,
		{ .it_interval = { 0, 1000000000 } }),
	SETTIME("bad value on a closed fd", FD_CLOSED, 0, PTR_OK, PTR_OK, EINVAL,
		{ .it_value = { -1, 0 } }),
	SETTIME("bad flags on a closed fd", FD_CLOSED, 4, PTR_OK, PTR_OK, EINVAL, ONE_S),
	SETTIME("bad interval on a closed fd", FD_CLOSED, 0, PTR_OK, PTR_OK, EINVAL,
		{ .it_value = { 1, 0 }, .it_interval = { 0, -1 } }),
	/* Then the descriptor. */
	SETTIME("closed fd", FD_CLOSED, 0, PTR_OK, PTR_OK, EBADF, ONE_S),
	SETTIME("fd -1", FD_MINUS_ONE, 0, PTR_OK, PTR_OK, EBADF, ONE_S),
	SETTIME("fd INT_MAX", FD_INT_MAX, 0, PTR_OK, PTR_OK, EBADF, ONE_S),
	SETTIME("/dev/null", FD_DEV_NULL, 0, PTR_OK, PTR_OK, EINVAL, ONE_S),
	SETTIME("a pipe", FD_PIPE, 0, PTR_OK, PTR_OK, EINVAL, ONE_S),
	SETTIME("an eventfd", FD_EVENTFD, 0, PTR_OK, PTR_OK, EINVAL, ONE_S),
	{ .what = "closed fd, unwritable old value", .op = BAD_SETTIME, .fd = FD_CLOSED,
	  .ptr = PTR_OK, .old = PTR_READ_ONLY, .err = EBADF, .value = ONE_S, .qemu_err = EFAULT,
	  .qemu_differs = "qemu copies the old value out even when the call failed" },
	/* The old value is written last, after the timer has changed. */
	SETTIME("unwritable old value", FD_TIMER, 0, PTR_OK, PTR_READ_ONLY, EFAULT, ONE_S),
	SETTIME("inaccessible old value", FD_TIMER, 0, PTR_OK, PTR_NO_ACCESS, EFAULT, ONE_S),
	SETTIME("read-only new value (only read)", FD_TIMER, 0, PTR_READ_ONLY, PTR_NULL, 0,
		ONE_S),
	/* Accepted: huge values saturate (the kernel clamps to KTIME_MAX) instead of wrapping. */
	SETTIME("relative value of TIME_T_MAX seconds", FD_TIMER, 0, PTR_OK, PTR_OK, 0,
		{ .it_value = { TIME_T_MAX, 999999999 } }),
	SETTIME("absolute value of TIME_T_MAX seconds", FD_TIMER, TFD_TIMER_ABSTIME, PTR_OK,
		PTR_OK, 0, { .it_value = { TIME_T_MAX, 999999999 } }),
	SETTIME("absolute realtime TIME_T_MAX, cancel on set", FD_REALTIME_TIMER,
		TFD_TIMER_ABSTIME | TFD_TIMER_CANCEL_ON_SET, PTR_OK, PTR_OK, 0,
		{ .it_value = { TIME_T_MAX, 0 } }),
	SETTIME("interval of TIME_T_MAX seconds", FD_TIMER, 0, PTR_OK, PTR_OK, 0,
		{ .it_value = { 0, 1 }, .it_interval = { TIME_T_MAX, 999999999 } }),
	SETTIME("1 ns interval", FD_TIMER, 0, PTR_OK, PTR_OK, 0,
		{ .it_value = { 0, 1 }, .it_interval = { 0, 1 } }),
	SETTIME("cancel on set without TFD_TIMER_ABSTIME", FD_TIMER, TFD_TIMER_CANCEL_ON_SET,
		PTR_OK, PTR_OK, 0, ONE_S),
	SETTIME("cancel on set on a monotonic clock", FD_TIMER,
		TFD_TIMER_ABSTIME | TFD_TIMER_CANCEL_ON_SET, PTR_OK, PTR_OK, 0, ONE_S),
	SETTIME("no old value wanted", FD_TIMER, 0, PTR_OK, PTR_NULL, 0, ONE_S),

	/* timerfd_gettime: the descriptor first, then the pointer. */
	{ .what = "NULL value", .op = BAD_GETTIME, .fd = FD_TIMER, .ptr = PTR_NULL, .err = EFAULT,
	  .qemu_err = 0,
	  .qemu_differs = "qemu makes the call into a buffer of its own and skips a NULL copy-out" },
	GETTIME("read-only value", FD_TIMER, PTR_READ_ONLY, EFAULT),
	GETTIME("inaccessible value", FD_TIMER, PTR_NO_ACCESS, EFAULT),
	GETTIME("closed fd, NULL value", FD_CLOSED, PTR_NULL, EBADF),
	GETTIME("/dev/null, NULL value", FD_DEV_NULL, PTR_NULL, EINVAL),
	GETTIME("closed fd", FD_CLOSED, PTR_OK, EBADF),
	GETTIME("fd -1", FD_MINUS_ONE, PTR_OK, EBADF),
	GETTIME("fd INT_MAX", FD_INT_MAX, PTR_OK, EBADF),
	GETTIME("/dev/null", FD_DEV_NULL, PTR_OK, EINVAL),
	GETTIME("a pipe", FD_PIPE, PTR_OK, EINVAL),
	GETTIME("an eventfd", FD_EVENTFD, PTR_OK, EINVAL),

	/* read(2) on a timer: the length first, then the count, then the buffer. */
	{ .what = "0 bytes", .op = BAD_READ, .fd = FD_EXPIRED_TIMER, .ptr = PTR_OK, .len = 0,
	  .err = EINVAL, .emulation_err = 0, .emulation_differs = SHORT_READ },
	{ .what = "1 byte", .op = BAD_READ, .fd = FD_EXPIRED_TIMER, .ptr = PTR_OK, .len = 1,
	  .err = EINVAL, .emulation_err = 0, .emulation_differs = SHORT_READ },
	{ .what = "7 bytes", .op = BAD_READ, .fd = FD_EXPIRED_TIMER, .ptr = PTR_OK, .len = 7,
	  .err = EINVAL, .emulation_err = 0, .emulation_differs = SHORT_READ },
	{ .what = "7 bytes, nothing expired", .op = BAD_READ, .fd = FD_TIMER, .ptr = PTR_OK,
	  .len = 7, .err = EINVAL, .emulation_err = EAGAIN, .emulation_differs = SHORT_READ },
	READ("nothing expired, non-blocking", FD_TIMER, PTR_OK, 8, EAGAIN),
	{ .what = "NULL buffer, nothing expired", .op = BAD_READ, .fd = FD_TIMER, .ptr = PTR_NULL,
	  .len = 8, .err = EAGAIN, .qemu_err = EFAULT,
	  .qemu_differs = "qemu checks read's buffer before it makes the call" },
	READ("NULL buffer", FD_EXPIRED_TIMER, PTR_NULL, 8, EFAULT),
	READ("read-only buffer", FD_EXPIRED_TIMER, PTR_READ_ONLY, 8, EFAULT),
	READ("closed fd", FD_CLOSED, PTR_OK, 8, EBADF),
	READ("more than 8 bytes", FD_EXPIRED_TIMER, PTR_OK, 64, 0),

	/* write(2) on a timer. */
	{ .what = "write 8 bytes", .op = BAD_WRITE, .fd = FD_TIMER, .ptr = PTR_OK, .len = 8,
	  .err = EINVAL, .emulation_err = EBADF,
	  .emulation_differs = "the program holds the pipe's read end only" },
};

const size_t n_bad_inputs = sizeof(bad_inputs) / sizeof(bad_inputs[0]);
