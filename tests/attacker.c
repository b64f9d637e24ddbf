/* SPDX-License-Identifier: MIT */
/* A hostile process of the program's family (attacker.h): what it finds, it writes garbage into. */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "attacker.h"
#include "slowness.h"

uint64_t
attack_random(uint64_t *s)
{
	/* xorshift64*: reproducible from the seed the caller prints. */
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 0x2545f4914f6cdd1dULL;
}

/* Garbage over every writable shared mapping: random bytes at random places, 64 KiB a map. */
static void
fuzz_maps(uint64_t *seed, struct attack *a)
{
	FILE *f;
	char line[512];

	/* Under valgrind its own shared mappings are in the map too: garbage there is its end. */
	if (under_valgrind())
		return;
	f = fopen("/proc/self/maps", "r");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		unsigned long lo, hi;
		char perms[8];

		if (sscanf(line, "%lx-%lx %7s", &lo, &hi, perms) != 3 || strcmp(perms, "rw-s") != 0)
			continue;
		a->shared_maps++;
		for (int k = 0; k < 65536; k++) {
			unsigned char *p = (unsigned char *)lo + attack_random(seed) % (hi - lo);

			*p = (unsigned char)attack_random(seed);
			a->bytes_written++;
		}
	}
	fclose(f);
}

/* A datagram of garbage to the door @path, maybe with a descriptor of ours and a reply socket. */
static void
knock(uint64_t *seed, const char *path, struct attack *a)
{
	struct sockaddr_un addr = { .sun_family = AF_UNIX };
	unsigned char junk[96];
	union {
		char buf[CMSG_SPACE(2 * sizeof(int))];
		struct cmsghdr align;
	} ctl;
	struct iovec iov = { .iov_base = junk, .iov_len = 1 + attack_random(seed) % sizeof(junk) };
	struct msghdr m = { .msg_name = &addr, .msg_namelen = sizeof(addr), .msg_iov = &iov,
			    .msg_iovlen = 1 };
	int sv[2], p[2] = { -1, -1 };
	int64_t ret;

	if (strlen(path) >= sizeof(addr.sun_path) ||
	    socketpair(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0, sv) < 0)
		return;
	strcpy(addr.sun_path, path);
	for (size_t k = 0; k < sizeof(junk); k++)
		junk[k] = (unsigned char)attack_random(seed);
	/* Half the time a well-formed header, so that the server looks further. */
	if (attack_random(seed) & 1) {
		uint32_t magic = 0x74666431u, op = 1 + (uint32_t)(attack_random(seed) % 3);

		memcpy(junk, &magic, 4);
		memcpy(junk + 4, &op, 4);
		m.msg_iov->iov_len = 48; /* a request's size (src/emu/door.h) */
	}
	if ((attack_random(seed) & 1) && pipe(p) == 0) {
		int pass[2];

		memset(ctl.buf, 0, sizeof(ctl.buf));
		m.msg_control = ctl.buf;
		m.msg_controllen = sizeof(ctl.buf);
		struct cmsghdr *c = CMSG_FIRSTHDR(&m);

		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(sizeof(pass));
		pass[0] = p[0]; /* a pipe of its own, posing as a timer */
		pass[1] = sv[1];
		memcpy(CMSG_DATA(c), pass, sizeof(pass));
	}
	if (sendmsg(sv[0], &m, MSG_DONTWAIT | MSG_NOSIGNAL) >= 0) {
		struct pollfd pf = { .fd = sv[0], .events = POLLIN };

		a->doors_knocked++;
		close(sv[1]);
		sv[1] = -1;
		if (poll(&pf, 1, 20) == 1 && recv(sv[0], &ret, sizeof(ret), MSG_DONTWAIT) >= (ssize_t)sizeof(ret) &&
		    ret == 0)
			a->doors_served++;
	}
	close(sv[0]);
	if (sv[1] >= 0)
		close(sv[1]);
	if (p[0] >= 0) {
		close(p[0]);
		close(p[1]);
	}
}

/* What to do under a directory: whether to go into one (NULL: every one), and with each FIFO. */
struct walk {
	bool (*enter)(const char *dir, void *ctx);
	void (*fifo)(const char *path, const struct stat *st, void *ctx);
	void *ctx;
	struct attack *a;
};

/* Every FIFO under @dir, two levels (@depth 0, then 1), given to @w. */
static void
fifos_under(const char *dir, int depth, const struct walk *w)
{
	const struct dirent *e;
	DIR *d;

	if ((w->enter && !w->enter(dir, w->ctx)) || !(d = opendir(dir)))
		return;
	if (depth == 0)
		w->a->dirs_listed++;
	while ((e = readdir(d))) {
		char path[1024];
		struct stat st;

		if (e->d_name[0] == '.' && (!e->d_name[1] || (e->d_name[1] == '.' && !e->d_name[2])))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		if (lstat(path, &st) < 0)
			continue;
		if (S_ISDIR(st.st_mode) && depth == 0)
			fifos_under(path, 1, w);
		else if (S_ISFIFO(st.st_mode))
			w->fifo(path, &st, w->ctx);
	}
	closedir(d);
}

/* The FIFO @path opened for writing, and a forged count written. */
static void
forge_fifo(const char *path, const struct stat *st, void *ctx)
{
	struct attack *a = ctx;
	int fd = open(path, O_WRONLY | O_NONBLOCK | O_CLOEXEC);
	uint64_t forged = 0x4141414141414141ULL;

	(void)st;
	if (fd >= 0) {
		a->fifos_opened++;
		if (write(fd, &forged, sizeof(forged)) == sizeof(forged))
			a->forged++;
		close(fd);
	}
}

/* Every FIFO under @dir (two levels) opened for writing, and a forged count written. */
static void
forge_under(const char *dir, struct attack *a)
{
	const struct walk w = { .enter = NULL, .fifo = forge_fifo, .ctx = a, .a = a };

	fifos_under(dir, 0, &w);
}

/* A knock at the door of every subdirectory of @dir it can list. */
static void
knock_under(uint64_t *seed, const char *dir, struct attack *a)
{
	DIR *d = opendir(dir);
	struct dirent *e;

	if (!d)
		return;
	while ((e = readdir(d))) {
		char path[1024];

		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%.700s/%.200s/door", dir, e->d_name);
		knock(seed, path, a);
	}
	closedir(d);
}

/* Every directory named like the library's in the usual places, to @fn with its lstat(). */
static void
each_library_dir(void (*fn)(const char *path, const struct stat *st, void *ctx), void *ctx)
{
	const char *bases[] = { getenv("TMPDIR"), "/dev/shm", "/tmp", "/var/tmp" };

	for (size_t b = 0; b < sizeof(bases) / sizeof(bases[0]); b++) {
		DIR *d = bases[b] ? opendir(bases[b]) : NULL;
		const struct dirent *e;

		if (!d)
			continue;
		while ((e = readdir(d))) {
			char path[1024];
			struct stat st;

			if (strncmp(e->d_name, ".libtimerfd-", 12) != 0)
				continue;
			snprintf(path, sizeof(path), "%s/%s", bases[b], e->d_name);
			if (lstat(path, &st) == 0)
				fn(path, &st, ctx);
		}
		closedir(d);
	}
}

/* What one round of attack_round() carries from directory to directory. */
struct round {
	uint64_t *seed;
	bool by_name;
	struct attack *a;
};

static void
attack_dir(const char *path, const struct stat *st, void *ctx)
{
	struct round *r = ctx;
	char door[1100];

	r->a->dirs++;
	/* Another user's: its own are its own business. */
	if (r->by_name && st->st_uid != geteuid())
		forge_under(path, r->a);
	snprintf(door, sizeof(door), "%s/door", path);
	knock(r->seed, door, r->a);
	/* The doors beside the FIFOs, where it can list the way to them. */
	knock_under(r->seed, path, r->a);
}

void
attack_round(uint64_t *seed, bool by_name, struct attack *a)
{
	struct round r = { .seed = seed, .by_name = by_name, .a = a };

	fuzz_maps(seed, a);
	each_library_dir(attack_dir, &r);
}

/* --- an attacker of the program's own user: the library's files are its own ------------- */

/* The count it forges: far more than any timer counts. */
#define FORGED 0x4141414141414141ULL

/* The directories one round chmod-ed, with their old modes, put back at the round's end. */
#define OPENED_UP_MAX 16
struct opened_up {
	int n;
	char path[OPENED_UP_MAX][1024];
	mode_t mode[OPENED_UP_MAX];
};

void
held_init(struct held *h)
{
	memset(h, 0, sizeof(*h));
	/* A write end it holds outlives the FIFO's readers: EPIPE then, not its end. */
	signal(SIGPIPE, SIG_IGN);
}

void
held_aim(struct held *h, const char *dir)
{
	struct stat st;

	h->ntargets = 0;
	if (dir[0] && strlen(dir) < sizeof(h->targets[0]) && lstat(dir, &st) == 0 &&
	    S_ISDIR(st.st_mode) && st.st_uid == geteuid())
		strcpy(h->targets[h->ntargets++], dir);
}

/*
 * @path, a directory of its own user, made listable where its mode says not (its owner may
 * chmod it), the old mode recorded in @up: whether it is such a directory, now listable.
 */
static bool
open_up(const char *path, struct opened_up *up, struct attack *a)
{
	struct stat st;

	if (lstat(path, &st) < 0 || !S_ISDIR(st.st_mode) || st.st_uid != geteuid())
		return false;
	if ((st.st_mode & 0700) == 0700)
		return true;
	if (up->n == OPENED_UP_MAX || strlen(path) >= sizeof(up->path[0]) ||
	    chmod(path, (st.st_mode & 07777) | 0700) < 0)
		return false;
	strcpy(up->path[up->n], path);
	up->mode[up->n++] = st.st_mode & 07777;
	a->dirs_opened_up++;
	return true;
}

/*
 * The FIFO @path opened with @flags, non-blocking: fd, or -1.  One of its own user's whose
 * mode refuses it is chmod-ed for the open, and back.
 */
static int
open_own(const char *path, const struct stat *st, int flags)
{
	int fd = open(path, flags | O_NONBLOCK | O_CLOEXEC | O_NOFOLLOW);

	if (fd < 0 && errno == EACCES && st->st_uid == geteuid() &&
	    chmod(path, (st->st_mode & 07777) | ((flags & O_ACCMODE) == O_WRONLY ? 0200 : 0400)) == 0) {
		fd = open(path, flags | O_NONBLOCK | O_CLOEXEC | O_NOFOLLOW);
		chmod(path, st->st_mode & 07777);
	}
	return fd;
}

/* Whether @h holds an end of the FIFO @st, for writing (@writer) or for reading. */
static bool
holds(const struct held *h, const struct stat *st, bool writer)
{
	for (int k = 0; k < h->n; k++)
		if (h->writer[k] == writer && h->dev[k] == (uint64_t)st->st_dev &&
		    h->ino[k] == (uint64_t)st->st_ino)
			return true;
	return false;
}

/* @fd, an end of the FIFO @st, kept open in @h while there is room, else closed. */
static void
hold(struct held *h, int fd, bool writer, const struct stat *st, struct attack *a)
{
	if (h->n == HELD_MAX) {
		close(fd);
		return;
	}
	h->fd[h->n] = fd;
	h->writer[h->n] = writer;
	h->dev[h->n] = (uint64_t)st->st_dev;
	h->ino[h->n++] = (uint64_t)st->st_ino;
	if (h->n > a->held)
		a->held = h->n;
}

/* What waits in the read end @fd, read away: every count it had not forged is stolen. */
static void
steal(int fd, struct attack *a)
{
	uint64_t buf[8];
	ssize_t n;

	while ((n = read(fd, buf, sizeof(buf))) > 0) {
		a->bytes_read += n;
		for (ssize_t k = 0; k < n / (ssize_t)sizeof(buf[0]); k++)
			if (buf[k] != FORGED)
				a->stolen++;
	}
}

/* The FIFO @path: a forged count written into it and what waits read, each end kept if new. */
static void
take_fifo(const char *path, const struct stat *st, struct attack *a, struct held *h)
{
	uint64_t forged = FORGED;
	int fd;

	/* An end already held: the held ones are written and read after the walk. */
	if (!holds(h, st, true) && (fd = open_own(path, st, O_WRONLY)) >= 0) {
		a->fifos_opened++;
		if (write(fd, &forged, sizeof(forged)) == (ssize_t)sizeof(forged))
			a->forged++;
		hold(h, fd, true, st, a);
	}
	if (!holds(h, st, false) && (fd = open_own(path, st, O_RDONLY)) >= 0) {
		a->fifos_read++;
		steal(fd, a);
		hold(h, fd, false, st, a);
	}
}

/* What taking FIFOs needs: the modes changed, the counters, the ends held. */
struct taking {
	struct opened_up *up;
	struct attack *a;
	struct held *h;
};

static bool
enter_own(const char *dir, void *ctx)
{
	struct taking *t = ctx;

	return open_up(dir, t->up, t->a);
}

static void
take_one(const char *path, const struct stat *st, void *ctx)
{
	struct taking *t = ctx;

	take_fifo(path, st, t->a, t->h);
}

/* Every FIFO under the directory @dir of its own user (two levels), taken. */
static void
take_under(const char *dir, struct opened_up *up, struct attack *a, struct held *h)
{
	struct taking t = { .up = up, .a = a, .h = h };
	const struct walk w = { .enter = enter_own, .fifo = take_one, .ctx = &t, .a = a };

	fifos_under(dir, 0, &w);
}

void
attack_own_files(struct attack *a, struct held *h)
{
	static struct opened_up up; /* 16 KiB: off the stack */
	struct pollfd pf[HELD_MAX];
	uint64_t forged = FORGED;
	int n = 0;

	up.n = 0;
	for (int t = 0; t < h->ntargets; t++)
		take_under(h->targets[t], &up, a, h);
	/* The modes put back, the innermost first (the way to it needs the outer one's). */
	while (up.n > 0) {
		up.n--;
		chmod(up.path[up.n], up.mode[up.n]);
	}
	/* Every held end, again: a spare held since before it became a timer is now that timer. */
	for (int k = 0; k < h->n; k++) {
		if (h->writer[k]) {
			if (write(h->fd[k], &forged, sizeof(forged)) == (ssize_t)sizeof(forged))
				a->forged++;
		} else {
			pf[n].fd = h->fd[k];
			pf[n++].events = POLLIN;
		}
	}
	/* A count the server delivers, raced for with the program. */
	if (n > 0 && poll(pf, (nfds_t)n, 1) >= 0)
		for (int k = 0; k < n; k++)
			steal(pf[k].fd, a);
}

void
held_release(struct held *h)
{
	for (int k = 0; k < h->n; k++)
		close(h->fd[k]);
	h->n = 0;
}
