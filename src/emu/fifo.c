/* SPDX-License-Identifier: MIT */
/* An emulated timer's descriptor: a FIFO, made, recognised, opened and fed here and nowhere else. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include "emu/family.h"
#include "emu/fifo.h"
#include "emu/sys.h"
#include "emu/timer.h"

/*
 * The program holds read ends of the timer's FIFO, the server its write end
 * (DESIGN.md).  The FIFO holds the native-endian u64 count since the last
 * read, so a read() returns what a timerfd's does; the server replaces it as
 * expirations come.  A FIFO rather than an anonymous pipe: its name lets a
 * process open a new read end of it (create, settime's drain, the server's
 * read-out) with nothing but open(2), where there is no /proc.  Where there is,
 * a live timer's name goes, and a non-dumpable process's timers never have one
 * (DESIGN.md, "Names"): those are reopened through /proc/self/fd.
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

/* Slot @i's name in generation @gen, with its shard's secret (@nm: never in shared memory). */
static size_t
fifo_name(const struct tfd_names *nm, uint32_t i, uint32_t gen, char *buf)
{
	return name_with(nm->secret, i, gen, buf);
}

int
__tfd_fifo_path(const struct tfd_names *nm, uint32_t i, uint32_t gen, char *buf, size_t size)
{
	size_t d;

	if (!nm)
		return -ENOSYS;
	d = strnlen(nm->dir, sizeof(nm->dir));
	if (d == 0 || d + 1 + TFD_FIFO_NAME_MAX + 1 > size)
		return -ENAMETOOLONG;
	memcpy(buf, nm->dir, d);
	buf[d] = '/';
	fifo_name(nm, i, gen, buf + d + 1);
	return 0;
}

bool
__tfd_fifo_dev_of_a_shard(const struct tfd_shared *sh, uint64_t dev)
{
	for (int k = 0; k < TFD_SHARDS; k++) {
		const struct tfd_shard *srv = &sh->shards[k];

		if ((__atomic_load_n(&srv->fifo_dev[0], __ATOMIC_RELAXED) == (uint32_t)dev &&
		     __atomic_load_n(&srv->fifo_dev[1], __ATOMIC_RELAXED) == (uint32_t)(dev >> 32)) ||
		    (__atomic_load_n(&srv->pipe_dev[0], __ATOMIC_RELAXED) == (uint32_t)dev &&
		     __atomic_load_n(&srv->pipe_dev[1], __ATOMIC_RELAXED) == (uint32_t)(dev >> 32) && dev))
			return true;
	}
	return false;
}

long
__tfd_fifo_identify(int fd, uint64_t *dev, uint64_t *ino)
{
	struct stat st;

	/* Not open: EBADF; refused (a seccomp filter of the program's): its errno. */
	if (fstat(fd, &st) < 0)
		return errno == EBADF || errno == 0 ? -EBADF : -errno;
	if (!S_ISFIFO(st.st_mode))
		return 0;
	*dev = (uint64_t)st.st_dev;
	*ino = (uint64_t)st.st_ino;
	return 1;
}

/* Whether @fd is the FIFO @dev/@ino: every file the library opens by name is checked. */
static bool
is_fifo_at(int fd, uint64_t dev, uint64_t ino)
{
	struct stat st;

	return fstat(fd, &st) == 0 && S_ISFIFO(st.st_mode) && (uint64_t)st.st_ino == ino &&
	       (uint64_t)st.st_dev == dev;
}

/*
 * Slot @i's FIFO opened anew through @held, the caller's descriptor of it, where /proc is
 * mounted (a timer with no name: "Names"), with @mode, non-blocking: fd, or -1 (errno).
 * The number may have been closed and reused since the caller looked at it: what it leads
 * to is looked at first (stat(), no open), and what is opened is checked by the caller.
 */
static int
reopen_held(const struct tfd_slot *s, int held, int mode)
{
	char path[32];
	struct stat st;

	snprintf(path, sizeof(path), "/proc/self/fd/%d", held);
	if (held < 0 || stat(path, &st) < 0)
		return -1;
	if (!S_ISFIFO(st.st_mode) || (uint64_t)st.st_ino != s->ino || (uint64_t)st.st_dev != s->dev) {
		errno = ENOENT;
		return -1;
	}
	return open(path, mode | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
}

/*
 * A new read end of slot @i's FIFO, non-blocking, checked to be it: fd, or -errno.  By its
 * name, or through @held (the caller's descriptor of it, -1: none) where it has none.
 */
static int
open_checked(struct tfd_shared *sh, uint32_t i, int extra, int held)
{
	char path[TFD_FIFO_PATH_MAX];
	struct tfd_slot *s = &sh->slots[i];
	int fd = -1;

	errno = ENOENT;
	/*
	 * Non-blocking: opening a FIFO for reading never waits, and neither do our reads.  No
	 * link followed: the directory is the server's own (0711, a secret name), checked
	 * before it was used; a link there would be no FIFO of ours.  The slot's word on
	 * whether it has a name is shared memory's: it only says which way is tried first.
	 */
	if (!__atomic_load_n(&s->unnamed, __ATOMIC_RELAXED) &&
	    __tfd_fifo_path(__tfd_names(i / TFD_SHARD_SLOTS), i, s->gen, path, sizeof(path)) == 0)
		fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_NOFOLLOW | extra);
	if (fd < 0 && held >= 0 && errno != EMFILE && errno != ENFILE)
		fd = reopen_held(s, held, O_RDONLY);
	if (fd < 0) {
		int err = errno;

		/* Out of descriptors or memory: the kernel's create would say the same. */
		if (err == EMFILE || err == ENFILE || err == ENOMEM)
			return -err;
		/* The name does not lead to it from here (chroot(), a mount namespace): libtimerfd(7). */
		return -ENOSYS;
	}
	/* A name can lead to another file (a mount namespace, a replaced directory): never hand it out. */
	if (!is_fifo_at(fd, s->dev, s->ino)) {
		close(fd);
		return -ENOSYS;
	}
	return fd;
}

long
__tfd_fifo_open_reader(struct tfd_shared *sh, uint32_t i, int flags)
{
	int fd = open_checked(sh, i, (flags & TFD_CLOEXEC) ? O_CLOEXEC : 0, -1);

	/* The program's file gets exactly its flags: O_NONBLOCK only if asked for. */
	if (fd >= 0 && !(flags & TFD_NONBLOCK) && fcntl(fd, F_SETFL, 0) < 0) {
		close(fd);
		return -ENOMEM;
	}
	return fd;
}

void
__tfd_fifo_unname_taken(struct tfd_shared *sh, uint32_t i)
{
	char path[TFD_FIFO_PATH_MAX];
	struct tfd_slot *s = &sh->slots[i];

	/* By this process's own record of the names; EACCES (it changed its user): the server's. */
	if (__tfd_fifo_path(__tfd_names(i / TFD_SHARD_SLOTS), i, s->gen, path, sizeof(path)) == 0 &&
	    (unlink(path) == 0 || errno == ENOENT))
		__atomic_store_n(&s->unnamed, true, __ATOMIC_RELAXED);
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
__tfd_fifo_drain(struct tfd_shared *sh, uint32_t i, int held)
{
	int h, err;

	/*
	 * Through a read end of our own, never the program's descriptor: its number may be
	 * closed and reused meanwhile (by another thread), and its O_NONBLOCK cleared.
	 */
	h = open_checked(sh, i, O_CLOEXEC, held);
	if (h < 0)
		return h;
	err = empty(h);
	close(h);
	return err;
}

/* --- the server's side ------------------------------------------------------------- */

int
__tfd_fifo_make(const struct tfd_names *nm, int dir, uint32_t i, struct tfd_fifo_ends *e)
{
	char name[TFD_FIFO_NAME_MAX + 1];
	struct stat st;
	int err;

	fifo_name(nm, i, e->gen, name);
	/* Mode 0666 (the server's umask is 0): a process that dropped privileges opens it too. */
	if (tfd_sys_mknodat(dir, name, S_IFIFO | 0666) < 0)
		return -errno;
	/*
	 * A reader first: a FIFO opens for writing without blocking only once it has one.  No
	 * link followed, and a FIFO or nothing (the name could be replaced in between).
	 */
	e->r = tfd_sys_openat(dir, name, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOFOLLOW | O_NOCTTY, 0);
	e->w = e->r < 0 ? -1 :
			  tfd_sys_openat(dir, name, O_WRONLY | O_NONBLOCK | O_CLOEXEC | O_NOFOLLOW | O_NOCTTY, 0);
	if (e->w < 0) {
		err = -errno;
		__tfd_fifo_unmake(nm, dir, i, e);
		return err;
	}
	/* Both ends of the one FIFO made here. */
	if (fstat(e->r, &st) < 0 || !S_ISFIFO(st.st_mode) || !is_fifo_at(e->w, (uint64_t)st.st_dev, (uint64_t)st.st_ino)) {
		__tfd_fifo_unmake(nm, dir, i, e);
		return -ENOENT;
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
__tfd_fifo_unname(const struct tfd_names *nm, int dir, uint32_t i, struct tfd_fifo_ends *e)
{
	char name[TFD_FIFO_NAME_MAX + 1];

	fifo_name(nm, i, e->gen, name);
	tfd_sys_unlinkat(dir, name, 0);
	e->unnamed = true;
}

void
__tfd_fifo_unmake(const struct tfd_names *nm, int dir, uint32_t i, struct tfd_fifo_ends *e)
{
	/* A name gone already is not looked for again. */
	if (!e->unnamed) {
		char name[TFD_FIFO_NAME_MAX + 1];

		fifo_name(nm, i, e->gen, name);
		tfd_sys_unlinkat(dir, name, 0);
	}
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
 * Slot @i's FIFO opened non-blocking with @mode, never through a link: through the
 * server's directory @dir by its name, or (@dir AT_FDCWD, a process of the program's) by
 * its whole path.
 */
static int
open_by_name(const struct tfd_names *nm, int dir, uint32_t i, uint32_t gen, int mode,
	     char name[TFD_FIFO_PATH_MAX])
{
	if (dir != AT_FDCWD)
		fifo_name(nm, i, gen, name);
	else if (__tfd_fifo_path(nm, i, gen, name, TFD_FIFO_PATH_MAX) < 0)
		return -1;
	return tfd_sys_openat(dir, name, mode | O_NONBLOCK | O_CLOEXEC | O_NOCTTY | O_NOFOLLOW, 0);
}

/* The read end kept while counts pile up, opened by name (checked) if there is none. */
static void
keep_reader(const struct tfd_names *nm, int dir, uint32_t i, struct tfd_fifo_ends *e)
{
	char name[TFD_FIFO_PATH_MAX];

	if (e->h >= 0)
		return;
	e->h = e->unnamed ? -1 : open_by_name(nm, dir, i, e->gen, O_RDONLY, name);
	/*
	 * No name ("Names"), or the name gone (a cleaner removed the directory): a read end of
	 * the same FIFO through the server's own write end, where /proc is mounted (checked
	 * like any other).
	 */
	if (e->h < 0 && e->w >= 0) {
		snprintf(name, TFD_FIFO_PATH_MAX, "/proc/self/fd/%d", e->w);
		e->h = tfd_sys_openat(AT_FDCWD, name, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY, 0);
	}
	if (e->h >= 0 && !is_fifo_at(e->h, e->dev, e->ino)) {
		tfd_sys_close(e->h);
		e->h = -1;
	}
}

int
__tfd_fifo_empty(const struct tfd_names *nm, int dir, uint32_t i, struct tfd_fifo_ends *e)
{
	uint64_t rest[8];

	keep_reader(nm, dir, i, e);
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

/* Stores the progress, writes the count; the progress goes back if the write fails. */
static int
commit_and_put(struct tfd_fifo_ends *e, uint64_t count, struct tfd_flight *f)
{
	struct tfd_timer_state before;
	int err;

	if (f->fwd) {
		before = *f->fwd;
		*f->fwd = f->next;
		__atomic_thread_fence(__ATOMIC_SEQ_CST);
	}
	err = put(e, count);
	if (err && f->fwd)
		*f->fwd = before;
	__atomic_store_n(&f->slot, 0, __ATOMIC_RELEASE);
	return err;
}

int
__tfd_fifo_add(struct tfd_shared *sh, const struct tfd_names *nm, int dir, uint32_t i,
	       struct tfd_fifo_ends *e, uint64_t n, struct tfd_flight *f)
{
	uint64_t buf[8] = { 0 }, count = 0;
	int queued = 0, err;
	ssize_t got, total = 0;
	bool first = true;

	__atomic_store_n(&sh->slots[i].maybe_counted, true, __ATOMIC_RELAXED);
	memset(f->taken, 0, sizeof(f->taken));
	__atomic_store_n(&f->slot, i + 1, __ATOMIC_RELEASE);
	/* Nothing waits: one write is the whole delivery. */
	if (tfd_sys_ioctl(e->w, FIONREAD, &queued) == 0 && queued == 0)
		return commit_and_put(e, n, f);
	/*
	 * Something waits: take it out (the program may read it meanwhile: then it has it,
	 * and we add to nothing), then put the sum in.  The read end for that is kept while
	 * counts pile up unread and let go of within a second, because while it is open a
	 * close by the program leaves a reader behind.  Never a reader for a FIFO the
	 * program has closed: it would bring the timer back.
	 */
	if (e->h < 0 && readers_gone(e->w)) {
		__atomic_store_n(&f->slot, 0, __ATOMIC_RELEASE);
		return -EPIPE;
	}
	keep_reader(nm, dir, i, e);
	/*
	 * Nothing is written over what could not be taken out: bytes after bytes would make
	 * every later read a wrong count.  The caller keeps the expirations and tries again.
	 */
	if (e->h < 0) {
		__atomic_store_n(&f->slot, 0, __ATOMIC_RELEASE);
		return -EAGAIN;
	}
	/* The first read goes where the twin sees it (one count, unless a write raced a read). */
	while ((got = tfd_sys_read(e->h, first ? (void *)f->taken : (void *)buf, sizeof(buf))) > 0) {
		const uint64_t *w = first ? f->taken : buf;

		first = false;
		total += got;
		/* Whole counts are added up. */
		if (got % (ssize_t)sizeof(count) == 0)
			for (ssize_t k = 0; k < got / (ssize_t)sizeof(count); k++)
				count = count + w[k] < count ? UINT64_MAX : count + w[k];
	}
	if (got < 0 && errno != EAGAIN) {
		__atomic_store_n(&f->slot, 0, __ATOMIC_RELEASE);
		return -EAGAIN;
	}
	/*
	 * What a read shorter than 8 bytes left of a count is dropped (libtimerfd(7)): the
	 * rest of that count went to the program; the new expirations read as a whole one.
	 */
	if (total % (ssize_t)sizeof(count) != 0)
		count = 0;
	err = commit_and_put(e, count + n < count ? UINT64_MAX : count + n, f);
	/* 1: added to a count that waited unread (the server may then bring it up less often). */
	return err == 0 && total > 0 ? 1 : err;
}

int
__tfd_fifo_catch_up(struct tfd_shared *sh, uint32_t i, int held, uint64_t n)
{
	char path[TFD_FIFO_PATH_MAX];
	const struct tfd_names *nm = __tfd_names(i / TFD_SHARD_SLOTS);
	struct tfd_slot *s = &sh->slots[i];
	struct tfd_fifo_ends e = { .r = -1, .w = -1, .h = -1, .gen = s->gen, .dev = s->dev,
				   .ino = s->ino };
	/* The program's own flight: the caller stores its timer's progress, after. */
	struct tfd_flight f = { .fwd = NULL };
	int err;

	/* A momentary write end: a FIFO with a reader opens for writing without waiting. */
	e.w = __atomic_load_n(&s->unnamed, __ATOMIC_RELAXED) ? -1 :
							   open_by_name(nm, AT_FDCWD, i, e.gen, O_WRONLY, path);
	if (e.w < 0)
		e.w = reopen_held(s, held, O_WRONLY);
	if (e.w < 0)
		return -errno;
	if (!is_fifo_at(e.w, e.dev, e.ino)) {
		tfd_sys_close(e.w);
		return -ENOSYS;
	}
	err = __tfd_fifo_add(sh, nm, AT_FDCWD, i, &e, n, &f);
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

int
__tfd_fifo_check_ends(const struct tfd_names *nm, int dir, uint32_t i, struct tfd_fifo_ends *e)
{
	char name[TFD_FIFO_PATH_MAX];

	/* A number that is no longer this FIFO (another process's table, a half-made end) is forgotten. */
	if (e->r >= 0 && !is_fifo_at(e->r, e->dev, e->ino))
		e->r = -1;
	if (e->h >= 0 && !is_fifo_at(e->h, e->dev, e->ino))
		e->h = -1;
	if (e->w >= 0 && is_fifo_at(e->w, e->dev, e->ino))
		return 0;
	/* Opened for writing without waiting only while it has a reader: ENXIO once it has none. */
	e->w = open_by_name(nm, dir, i, e->gen, O_WRONLY, name);
	if (e->w < 0)
		return -errno;
	if (!is_fifo_at(e->w, e->dev, e->ino)) {
		tfd_sys_close(e->w);
		e->w = -1;
		return -ENOENT;
	}
	return 1;
}
