/* SPDX-License-Identifier: MIT */
/* The clocks the emulation keeps deadlines on, and this process's pid (kept across fork). */
#include "config.h"

#include <pthread.h>
#include <time.h>
#include <unistd.h>

#include "emu/timer.h"

static const clockid_t base_clock[TFD_NBASES] = { CLOCK_MONOTONIC, CLOCK_BOOTTIME,
						  CLOCK_REALTIME };
static pid_t own_pid; /* getpid(), kept: the kernel would be asked on every call */

int64_t
__tfd_base_now(enum tfd_base base)
{
	struct timespec ts;

	clock_gettime(base_clock[base], &ts);
	return (int64_t)ts.tv_sec * TFD_NS_PER_S + ts.tv_nsec;
}

int64_t
__tfd_realtime_offset(void)
{
	return __tfd_base_now(TFD_BASE_REALTIME) - __tfd_base_now(TFD_BASE_MONOTONIC);
}

int64_t
__tfd_server_due(enum tfd_base base, int64_t at)
{
	int64_t mono, now, due, check;

	if (base == TFD_BASE_MONOTONIC)
		return at;
	mono = __tfd_base_now(TFD_BASE_MONOTONIC);
	now = __tfd_base_now(base);
	/* Saturating: the deadline may be KTIME_MAX. */
	due = at <= now ? mono : tfd_add_saturating(mono, at - now);
	check = mono + TFD_CLOCK_CHECK_NS;
	return due < check ? due : check;
}

pid_t
__tfd_emu_pid(void)
{
	return own_pid;
}

static void
after_fork_child(void)
{
	own_pid = getpid();
}

/*
 * At load, not at the first call: that may come from a signal handler (pthread_once() is
 * not safe there) or from a program's own pthread_atfork() prepare handler, inside fork(),
 * where musl holds the lock that pthread_atfork() takes.
 */
__attribute__((constructor)) static void
init_at_load(void)
{
	own_pid = getpid();
	pthread_atfork(NULL, NULL, after_fork_child);
}
