/* SPDX-License-Identifier: MIT */
/* Chooses the backend: the kernel's timerfd, or the emulation after ENOSYS or by LIBTIMERFD_BACKEND. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "emu/emu.h"

/*
 * LIBTIMERFD_BACKEND=kernel never emulates, =emulation always does, unset
 * or =auto emulates after the kernel's first ENOSYS.  Read with
 * secure_getenv(), so a setuid program ignores it.
 */
static int forced = -1; /* -1 not read yet, else an enum tfd_backend (UNDECIDED = auto) */
static int decided = TFD_BACKEND_UNDECIDED;

static int
forced_backend(void)
{
	int f = __atomic_load_n(&forced, __ATOMIC_ACQUIRE);
	const char *env;

	if (f >= 0)
		return f;
#ifdef HAVE_SECURE_GETENV
	env = secure_getenv("LIBTIMERFD_BACKEND");
#else
	env = getenv("LIBTIMERFD_BACKEND");
#endif
	if (env && strcmp(env, "kernel") == 0)
		f = TFD_BACKEND_KERNEL;
	else if (env && strcmp(env, "emulation") == 0)
		f = TFD_BACKEND_EMULATION;
	else
		f = TFD_BACKEND_UNDECIDED;
	__atomic_store_n(&forced, f, __ATOMIC_RELEASE);
	return f;
}

enum tfd_backend
__tfd_backend(void)
{
	int f = forced_backend();

	if (f != TFD_BACKEND_UNDECIDED)
		return (enum tfd_backend)f;
	return (enum tfd_backend)__atomic_load_n(&decided, __ATOMIC_ACQUIRE);
}

int
__tfd_backend_switch_to_emulation(void)
{
	if (forced_backend() == TFD_BACKEND_KERNEL)
		return 0;
	/* Once switched, never back: a process keeps one backend for new timers. */
	__atomic_store_n(&decided, TFD_BACKEND_EMULATION, __ATOMIC_RELEASE);
	return 1;
}
