/* SPDX-License-Identifier: MIT */
/* An emulated timer's descriptor: a FIFO, made, recognised, opened and fed here and nowhere else. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include "emu/fifo.h"
#include "emu/sys.h"
#include "emu/timer.h"

/*
 * The program holds read ends of the timer's FIFO, the server its write end
 * (DESIGN.md).  The FIFO holds the native-endian u64 count since the last
 * read, so a read() returns what a timerfd's does; the server replaces it as
 * expirations come.  A FIFO rather than an anonymous pipe: its name lets a
 * process open a new read end of it (create, settime's drain, the server's
 * read-out) with nothing but open(2), where there is no /proc.
 */

/* "<i>-<gen>-<secret>": the secret makes the name unguessable (the directory is not listable). */
static size_t
name_with(const uint64_t secret[2], uint32_t i, uint32_t gen, char *buf)
{
	static const char hex[] = "0123456789abcdef";
	const uint32_t parts[2] = { i, gen };
	size_t n = 0;

	/* By hand: the server, a clone of the program, uses nothing of the C library's that may lock. */
	for (int p = 0; p < 2; p++) {
		for (int shift = 28; shift >= 0; shift -= 4)
			buf[n++] = hex[(parts[p] >> shift) & 15];
		buf[n++] = '-';
	}
	for (int w = 0; w < 2; w++)
		for (int shift = 60; shift >= 0; shift -= 4)
			buf[n++] = hex[(secret[w] >> shift) & 15];
	buf[n] = '\0';
	return n;
}

/* Slot @i's name: in its shard's directory, with that shard's secret. */
static size_t
fifo_name(struct tfd_shared *sh, uint32_t i, uint32_t gen, char *buf)
{
	return name_with(tfd_shard_of(sh, i)->secret, i, gen, buf);
}

void
__tfd_fifo_remove_dead(int dir, const uint64_t secret[2], struct tfd_shared *sh, uint32_t first,
		       uint32_t n)
{
	char name[TFD_FIFO_NAME_MAX + 1];

	for (uint32_t i = first; i < first + n; i++) {
		name_with(secret, i, sh->slots[i].gen, name);
		tfd_sys_unlinkat(dir, name, 0);
	}
}

int
__tfd_fifo_path(struct tfd_shared *sh, uint32_t i, uint32_t gen, char *buf, size_t size)
{
	const struct tfd_shard *srv = tfd_shard_of(sh, i);
	size_t d = strnlen(srv->dir, sizeof(srv->dir));

	if (d + 1 + TFD_FIFO_NAME_MAX + 1 > size)
		return -ENAMETOOLONG;
	memcpy(buf, srv->dir, d);
	buf[d] = '/';
	fifo_name(sh, i, gen, buf + d + 1);
	return 0;
}

/* Whether @dev is where a shard's server makes its FIFOs. */
static bool
fifo_dev_of_a_shard(const struct tfd_shared *sh, uint64_t dev)
{
	for (int k = 0; k < TFD_SHARDS; k++)
		if (__atomic_load_n(&sh->shards[k].fifo_dev[0], __ATOMIC_RELAXED) == (uint32_t)dev &&
		    __atomic_load_n(&sh->shards[k].fifo_dev[1], __ATOMIC_RELAXED) == (uint32_t)(dev >> 32))
			return true;
	return false;
}

long
__tfd_fifo_identify(struct tfd_shared *sh, int fd, uint64_t *dev, uint64_t *ino)
{
	struct stat st;

	/* Not open: EBADF; refused (a seccomp filter of the program's): its errno. */
	if (fstat(fd, &st) < 0)
		return errno == EBADF || errno == 0 ? -EBADF : -errno;
	if (!S_ISFIFO(st.st_mode) || !sh || !fifo_dev_of_a_shard(sh, (uint64_t)st.st_dev))
		return 0;
	*dev = (uint64_t)st.st_dev;
	*ino = (uint64_t)st.st_ino;
	return 1;
}

/* Whether @fd is the FIFO of slot @s: every file the library opens by name is checked. */
static bool
is_slot_fifo(int fd, const struct tfd_slot *s)
{
	struct stat st;

	return fstat(fd, &st) == 0 && S_ISFIFO(st.st_mode) && (uint64_t)st.st_ino == s->ino &&
	       (uint64_t)st.st_dev == s->dev;
}

/* A new read end of slot @i's FIFO, non-blocking, checked to be it: fd, or -errno. */
static int
open_checked(struct tfd_shared *sh, uint32_t i, int extra)
{
	char path[TFD_FIFO_PATH_MAX];
	struct tfd_slot *s = &sh->slots[i];
	int fd;

	if (__tfd_fifo_path(sh, i, s->gen, path, sizeof(path)) < 0)
		return -ENOSYS;
	/* Non-blocking: opening a FIFO for reading never waits, and neither do our reads. */
	fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | extra);
	if (fd < 0) {
		int err = errno;

		/* Out of descriptors or memory: the kernel's create would say the same. */
		if (err == EMFILE || err == ENFILE || err == ENOMEM)
			return -err;
		/* The name does not lead to it from here (chroot(), a mount namespace): libtimerfd(7). */
		return -ENOSYS;
	}
	/* A name can lead to another file (a mount namespace, a replaced directory): never hand it out. */
	if (!is_slot_fifo(fd, s)) {
		close(fd);
		return -ENOSYS;
	}
	return fd;
}

long
__tfd_fifo_open_reader(struct tfd_shared *sh, uint32_t i, int flags)
{
	int fd = open_checked(sh, i, (flags & TFD_CLOEXEC) ? O_CLOEXEC : 0);

	/* The program's file gets exactly its flags: O_NONBLOCK only if asked for. */
	if (fd >= 0 && !(flags & TFD_NONBLOCK) && fcntl(fd, F_SETFL, 0) < 0) {
		close(fd);
		return -ENOMEM;
	}
	return fd;
}

/* Reads what waits in @fd (non-blocking) and drops it: 0, or -errno. */
static int
empty(int fd)
{
	uint64_t buf[8];
	ssize_t n;

	while ((n = read(fd, buf, sizeof(buf))) > 0 || (n < 0 && errno == EINTR))
		;
	return n < 0 && errno != EAGAIN ? -errno : 0;
}

int
__tfd_fifo_drain(struct tfd_shared *sh, uint32_t i, int fd)
{
	int queued = 0, fl, h, err;

	if (ioctl(fd, FIONREAD, &queued) < 0)
		return -errno;
	if (queued == 0)
		return 0;
	/* Never block, and never touch the flags of the program's open file. */
	fl = fcntl(fd, F_GETFL);
	if (fl >= 0 && (fl & O_NONBLOCK))
		return empty(fd);
	h = open_checked(sh, i, O_CLOEXEC);
	if (h < 0)
		return h;
	err = empty(h);
	close(h);
	return err;
}

/* --- the server's side ------------------------------------------------------------- */

int
__tfd_fifo_make(struct tfd_shared *sh, int dir, uint32_t i, struct tfd_fifo_ends *e)
{
	char name[TFD_FIFO_NAME_MAX + 1];
	struct stat st;
	int err;

	fifo_name(sh, i, sh->slots[i].gen, name);
	/* Mode 0666 (the server's umask is 0): a process that dropped privileges opens it too. */
	if (tfd_sys_mknodat(dir, name, S_IFIFO | 0666) < 0)
		return -errno;
	/* A reader first: a FIFO opens for writing without blocking only once it has one. */
	e->r = tfd_sys_openat(dir, name, O_RDONLY | O_NONBLOCK | O_CLOEXEC, 0);
	e->w = e->r < 0 ? -1 : tfd_sys_openat(dir, name, O_WRONLY | O_NONBLOCK | O_CLOEXEC, 0);
	if (e->w < 0 || fstat(e->w, &st) < 0) {
		err = -errno;
		__tfd_fifo_unmake(sh, dir, i, e);
		return err;
	}
	e->dev = (uint64_t)st.st_dev;
	e->ino = (uint64_t)st.st_ino;
	/*
	 * One page, not sixteen, where the kernel allows it (Linux 2.6.35): a FIFO's buffer
	 * counts against its user's pipe-user-pages-soft, and a count is 8 bytes.
	 */
#ifdef F_SETPIPE_SZ
	tfd_sys_fcntl(e->w, F_SETPIPE_SZ, 4096);
#endif
	return 0;
}

void
__tfd_fifo_unmake(struct tfd_shared *sh, int dir, uint32_t i, struct tfd_fifo_ends *e)
{
	char name[TFD_FIFO_NAME_MAX + 1];

	fifo_name(sh, i, sh->slots[i].gen, name);
	tfd_sys_unlinkat(dir, name, 0);
	if (e->r >= 0)
		tfd_sys_close(e->r);
	if (e->w >= 0)
		tfd_sys_close(e->w); /* also takes it out of the epoll set */
	if (e->h >= 0)
		tfd_sys_close(e->h);
	e->r = e->w = e->h = -1;
}

/* Whether @w, a FIFO's write end, reports POLLERR: no reader is left. ppoll: every ABI has it. */
static bool
readers_gone(int w)
{
	struct pollfd p = { .fd = w, .events = 0 };
	long long zero[2] = { 0, 0 }; /* a zero timeout in the old and the time64 layouts */
#ifdef SYS_ppoll
	long n = syscall(SYS_ppoll, &p, 1, zero, NULL, 8);
#else
	long n = syscall(SYS_ppoll_time64, &p, 1, zero, NULL, 8);
#endif

	return n == 1 && (p.revents & POLLERR);
}

/*
 * Slot @i's FIFO opened non-blocking with @mode: through the server's directory @dir by
 * its name, or (@dir AT_FDCWD, a process of the program's) by its whole path.
 */
static int
open_by_name(struct tfd_shared *sh, int dir, uint32_t i, int mode,
	     char name[TFD_FIFO_PATH_MAX])
{
	if (dir != AT_FDCWD)
		fifo_name(sh, i, sh->slots[i].gen, name);
	else if (__tfd_fifo_path(sh, i, sh->slots[i].gen, name, TFD_FIFO_PATH_MAX) < 0)
		return -1;
	return tfd_sys_openat(dir, name, mode | O_NONBLOCK | O_CLOEXEC | O_NOCTTY, 0);
}

/* The read end kept while counts pile up, opened by name (checked) if there is none. */
static void
keep_reader(struct tfd_shared *sh, int dir, uint32_t i, struct tfd_fifo_ends *e)
{
	char name[TFD_FIFO_PATH_MAX];

	if (e->h >= 0)
		return;
	e->h = open_by_name(sh, dir, i, O_RDONLY, name);
	if (e->h >= 0 && !is_slot_fifo(e->h, &sh->slots[i])) {
		tfd_sys_close(e->h);
		e->h = -1;
	}
}

int
__tfd_fifo_empty(struct tfd_shared *sh, int dir, uint32_t i, struct tfd_fifo_ends *e)
{
	uint64_t rest[8];

	keep_reader(sh, dir, i, e);
	if (e->h < 0)
		return -EMFILE;
	while (tfd_sys_read(e->h, rest, sizeof(rest)) > 0)
		;
	return 0;
}

/* Writes the count @n into an empty FIFO: 0, -EPIPE once nobody reads, -EAGAIN if not written. */
static int
put(struct tfd_fifo_ends *e, uint64_t n)
{
	if (tfd_sys_write(e->w, &n, sizeof(n)) == sizeof(n))
		return 0;
	return errno == EPIPE ? -EPIPE : -EAGAIN;
}

int
__tfd_fifo_add(struct tfd_shared *sh, int dir, uint32_t i, struct tfd_fifo_ends *e, uint64_t n)
{
	uint64_t buf[8], count = 0;
	int queued = 0, err;
	ssize_t got, total = 0;

	__atomic_store_n(&sh->slots[i].maybe_counted, true, __ATOMIC_RELAXED);
	/* Nothing waits: one write is the whole delivery. */
	if (tfd_sys_ioctl(e->w, FIONREAD, &queued) == 0 && queued == 0)
		return put(e, n);
	/*
	 * Something waits: take it out (the program may read it meanwhile: then it has it,
	 * and we add to nothing), then put the sum in.  The read end for that is kept while
	 * counts pile up unread and let go of within a second, because while it is open a
	 * close by the program leaves a reader behind.  Never a reader for a FIFO the
	 * program has closed: it would bring the timer back.
	 */
	if (e->h < 0 && readers_gone(e->w))
		return -EPIPE;
	keep_reader(sh, dir, i, e);
	/*
	 * Nothing is written over what could not be taken out: bytes after bytes would make
	 * every later read a wrong count.  The caller keeps the expirations and tries again.
	 */
	if (e->h < 0)
		return -EAGAIN;
	while ((got = tfd_sys_read(e->h, buf, sizeof(buf))) > 0) {
		total += got;
		/* Whole counts are added up (one, unless a write raced a read). */
		if (got % (ssize_t)sizeof(count) == 0)
			for (ssize_t k = 0; k < got / (ssize_t)sizeof(count); k++)
				count = count + buf[k] < count ? UINT64_MAX : count + buf[k];
	}
	if (got < 0 && errno != EAGAIN)
		return -EAGAIN;
	/*
	 * What a read shorter than 8 bytes left of a count is dropped (libtimerfd(7)): the
	 * rest of that count went to the program; the new expirations read as a whole one.
	 */
	if (total % (ssize_t)sizeof(count) != 0)
		count = 0;
	err = put(e, count + n < count ? UINT64_MAX : count + n);
	/* 1: added to a count that waited unread (the server may then bring it up less often). */
	return err == 0 && total > 0 ? 1 : err;
}

int
__tfd_fifo_catch_up(struct tfd_shared *sh, uint32_t i, uint64_t n)
{
	char path[TFD_FIFO_PATH_MAX];
	struct tfd_fifo_ends e = { .r = -1, .w = -1, .h = -1 };
	int err;

	/* A momentary write end: a FIFO with a reader opens for writing without waiting. */
	e.w = open_by_name(sh, AT_FDCWD, i, O_WRONLY, path);
	if (e.w < 0)
		return -errno;
	if (!is_slot_fifo(e.w, &sh->slots[i])) {
		tfd_sys_close(e.w);
		return -ENOSYS;
	}
	err = __tfd_fifo_add(sh, AT_FDCWD, i, &e, n);
	tfd_sys_close(e.w);
	__tfd_fifo_let_go(&e);
	return err < 0 ? err : 0;
}

void
__tfd_fifo_let_go(struct tfd_fifo_ends *e)
{
	if (e->h >= 0)
		tfd_sys_close(e->h);
	e->h = -1;
}

bool
__tfd_fifo_closed(const struct tfd_fifo_ends *e)
{
	return readers_gone(e->w);
}
