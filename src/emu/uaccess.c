/* SPDX-License-Identifier: MIT */
/* Copies to and from the caller's memory that fail with -EFAULT on a bad pointer instead of crashing. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#include "emu/timer.h"
#include "emu/uaccess.h"

/*
 * The kernel's copy_from_user()/copy_to_user() give EFAULT for memory the
 * process may not touch.  process_vm_readv/writev on ourselves do the same
 * checks.  Where they are missing or forbidden (qemu-user, some sandboxes),
 * let the kernel try the memory through a pipe made for the purpose:
 * write() from the source proves it readable, read() into the destination
 * proves it writable.  The pipe lives only for the call: a descriptor kept
 * in the program's table could be closed and its number reused by the
 * program.  Without even a pipe (no descriptor left), a plain copy remains,
 * which a bad pointer crashes.
 */
static int process_vm_missing;

/* 0 if the kernel could read @src (to_user = 0) or write @dst (to_user = 1), else -EFAULT. */
static long
probe_with_pipe(void *dst, const void *src, size_t n, int to_user)
{
	char scratch[64] = { 0 }; /* written to the pipe when probing a destination */
	int p[2];
	long r = 0;

	if (n > sizeof(scratch) || pipe2(p, O_CLOEXEC | O_NONBLOCK) < 0)
		return 0;
	if (write(p[1], to_user ? scratch : src, n) < 0)
		r = errno == EFAULT ? -EFAULT : 0;
	if (r == 0 && read(p[0], to_user ? dst : scratch, n) < 0)
		r = errno == EFAULT ? -EFAULT : 0;
	close(p[0]);
	close(p[1]);
	return r;
}

static long
checked_copy(void *dst, const void *src, size_t n, int to_user)
{
	struct iovec local = { to_user ? (void *)src : dst, n };
	struct iovec remote = { to_user ? dst : (void *)src, n };

	if (!dst || !src)
		return -EFAULT;
	if (!__atomic_load_n(&process_vm_missing, __ATOMIC_RELAXED)) {
		pid_t self = __tfd_emu_pid(); /* kept: getpid() is a system call */
		ssize_t r = to_user ? process_vm_writev(self, &local, 1, &remote, 1, 0)
			    : process_vm_readv(self, &local, 1, &remote, 1, 0);
		if (r == (ssize_t)n) {
			/*
			 * Proven accessible; copy once more in plain sight, so that
			 * memory checkers such as valgrind, which take these calls
			 * for another process's business, see the bytes defined.
			 */
			memcpy(dst, src, n);
			return 0;
		}
		if (r >= 0 || errno == EFAULT)
			return -EFAULT;
		__atomic_store_n(&process_vm_missing, 1, __ATOMIC_RELAXED);
	}
	if (probe_with_pipe(dst, src, n, to_user) < 0)
		return -EFAULT;
	memcpy(dst, src, n);
	return 0;
}

/*
 * Leaves errno as it found it, as every internal function does (the calls above may fail on
 * the way to a success: process_vm_readv() missing, ENOSYS where the kernel was built
 * without CONFIG_CROSS_MEMORY_ATTACH): the time64 fallback copies outside the emulation.
 */
static long
copy(void *dst, const void *src, size_t n, int to_user)
{
	int saved_errno = errno;
	long r = checked_copy(dst, src, n, to_user);

	errno = saved_errno;
	return r;
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
