/* SPDX-License-Identifier: MIT */
/* timerfd_create(): a new timer descriptor from the kernel, or from the emulation after ENOSYS. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include "emu/emu.h"
#include "internal.h"
#include "syscall.h"

/*
 * Kernels before 2.6.27 take no flags (EINVAL) but create fine without:
 * then apply them by hand.  Costs one more call on the error path only.
 */
static long
create_without_flags(clockid_t clockid, int flags)
{
	long fd = __tfd_syscall2(TFD_NR_create, clockid, 0);

	/* Its own error: EMFILE when out of descriptors, as a kernel with flags answers. */
	if (fd < 0)
		return fd;
	if (((flags & TFD_CLOEXEC) && fcntl((int)fd, F_SETFD, FD_CLOEXEC) < 0) ||
	    ((flags & TFD_NONBLOCK) && fcntl((int)fd, F_SETFL, O_NONBLOCK) < 0)) {
		long err = -errno;

		close((int)fd);
		return err;
	}
	return fd;
}

TFD_EXPORT int
timerfd_create(clockid_t clockid, int flags)
{
	long r;

	/*
	 * The kernel answers EINVAL to unknown flags; we check too because
	 * syscall translators such as qemu-user drop unknown bits instead.
	 */
	if (flags & ~(TFD_CLOEXEC | TFD_NONBLOCK))
		return (int)__tfd_ret(-EINVAL);
	if (__tfd_backend() == TFD_BACKEND_EMULATION)
		return (int)__tfd_ret(__tfd_emu_create(clockid, flags));
	r = __tfd_syscall2(TFD_NR_create, clockid, flags);
	if (r == -ENOSYS && __tfd_backend_switch_to_emulation())
		r = __tfd_emu_create(clockid, flags);
	else if (r == -EINVAL && flags)
		r = create_without_flags(clockid, flags);
	return (int)__tfd_ret(r);
}
