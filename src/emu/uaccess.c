/* SPDX-License-Identifier: MIT */
/* Copies to and from the caller's memory that fail with -EFAULT on a bad pointer instead of crashing. */
#include "config.h"

#include <errno.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#include "emu/uaccess.h"

/*
 * The kernel's copy_from_user()/copy_to_user() give EFAULT for memory the
 * process may not touch.  process_vm_readv/writev on ourselves do the same
 * checks; where they are missing or forbidden (some sandboxes), fall back
 * to a plain copy, which a bad pointer crashes, as the C library's would.
 */
static int process_vm_missing;

static long
copy(void *dst, const void *src, size_t n, int to_user)
{
	struct iovec local = { to_user ? (void *)src : dst, n };
	struct iovec remote = { to_user ? dst : (void *)src, n };
	ssize_t r;

	if (!dst || !src)
		return -EFAULT;
	if (!__atomic_load_n(&process_vm_missing, __ATOMIC_RELAXED)) {
		r = to_user ? process_vm_writev(getpid(), &local, 1, &remote, 1, 0)
			    : process_vm_readv(getpid(), &local, 1, &remote, 1, 0);
		if (r == (ssize_t)n)
			return 0;
		if (r >= 0 || errno == EFAULT)
			return -EFAULT;
		__atomic_store_n(&process_vm_missing, 1, __ATOMIC_RELAXED);
	}
	memcpy(dst, src, n);
	return 0;
}

long
__tfd_copy_from_user(void *dst, const void *user_src, size_t n)
{
	return copy(dst, user_src, n, 0);
}

long
__tfd_copy_to_user(void *user_dst, const void *src, size_t n)
{
	return copy(user_dst, src, n, 1);
}
