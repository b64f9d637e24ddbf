/* SPDX-License-Identifier: MIT */
/*
 * A server's door: a datagram socket in its directory.  A process that holds a timer's
 * descriptor but not its family's memory (a child forked after the timer was made, a
 * process that dropped its privileges) passes the descriptor through it (SCM_RIGHTS) to
 * have the timer set or read: as on the kernel, holding the descriptor is what gives the
 * right, and nothing else does (DESIGN.md, "The trust boundary").
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <string.h>
#include <stdio.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/timerfd.h>
#include <sys/un.h>
#include <unistd.h>

#include "emu/door.h"
#include "emu/family.h"
#include "emu/sys.h"
#include "emu/timer.h"

/* How long a call waits for its server, in all: a server that does not answer fails it. */
#define DOOR_WAIT_MS 5000

/* --- a process of the program's ------------------------------------------------------ */

static void
close_pair(int sv[2])
{
	close(sv[0]);
	if (sv[1] >= 0)
		close(sv[1]);
}

/*
 * One request through the door at @path, sent with the descriptors @pass[0..@npass) and
 * the reply's socket: 1 with the reply in @rep (and a descriptor that came with it in
 * @got, else -1), or TFD_EMU_NOT_OURS, -ENOMEM, -EAGAIN.
 */
static long
exchange(const char *path, const int *pass, int npass, const struct tfd_door_req *req,
	 struct tfd_door_rep *rep, int *got, int recv_flags, int *budget_ms)
{
	union {
		char buf[CMSG_SPACE(2 * sizeof(int))];
		struct cmsghdr align;
	} ctl, rctl;
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	struct iovec iov = { .iov_base = (void *)req, .iov_len = sizeof(*req) };
	struct msghdr m = { .msg_name = &a, .msg_namelen = sizeof(a), .msg_iov = &iov,
			    .msg_iovlen = 1, .msg_control = ctl.buf,
			    .msg_controllen = CMSG_SPACE((size_t)(npass + 1) * sizeof(int)) };
	struct iovec riov = { .iov_base = rep, .iov_len = sizeof(*rep) };
	struct msghdr rm = { .msg_iov = &riov, .msg_iovlen = 1, .msg_control = rctl.buf,
			     .msg_controllen = sizeof(rctl.buf) };
	struct cmsghdr *c;
	struct pollfd p;
	int sv[2], all[2];
	ssize_t n;

	*got = -1;
	memcpy(a.sun_path, path, strnlen(path, sizeof(a.sun_path) - 1));
	/* No descriptor for the reply: -EMFILE (settime's ENOMEM: libtimerfd(7)). */
	if (socketpair(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0, sv) < 0)
		return errno == EMFILE || errno == ENFILE ? -EMFILE : -ENOMEM;
	memset(ctl.buf, 0, sizeof(ctl.buf));
	c = CMSG_FIRSTHDR(&m);
	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_RIGHTS;
	c->cmsg_len = CMSG_LEN((size_t)(npass + 1) * sizeof(int));
	for (int k = 0; k < npass; k++)
		all[k] = pass[k];
	all[npass] = sv[1];
	memcpy(CMSG_DATA(c), all, (size_t)(npass + 1) * sizeof(int));
	while ((n = sendmsg(sv[0], &m, MSG_DONTWAIT | MSG_NOSIGNAL)) < 0) {
		/* The door's queue is full: its server is busy; wait a little. */
		if ((errno == EAGAIN || errno == EINTR) && *budget_ms > 0) {
			poll(NULL, 0, 1);
			--*budget_ms;
			continue;
		}
		close_pair(sv);
		/* No server there (it ended: its timers are gone), or no door: not its timer. */
		return errno == EAGAIN ? -ENOMEM : TFD_EMU_NOT_OURS;
	}
	close(sv[1]);
	sv[1] = -1;
	p.fd = sv[0];
	p.events = POLLIN;
	for (;;) {
		int r = poll(&p, 1, *budget_ms > 0 ? 1 : 0);

		if (r > 0)
			break;
		if (r < 0 && errno != EINTR) {
			close_pair(sv);
			return -ENOMEM;
		}
		if (r == 0 && --*budget_ms <= 0) {
			close_pair(sv);
			return -ENOMEM; /* its server never answered: libtimerfd(7) */
		}
	}
	n = recvmsg(sv[0], &rm, MSG_DONTWAIT | recv_flags);
	close_pair(sv);
	/* Any descriptor that came: at most one is kept, the rest closed. */
	for (c = n >= 0 ? CMSG_FIRSTHDR(&rm) : NULL; c; c = CMSG_NXTHDR(&rm, c)) {
		if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS)
			continue;
		for (size_t j = 0; j < (c->cmsg_len - CMSG_LEN(0)) / sizeof(int); j++) {
			int fd;

			memcpy(&fd, CMSG_DATA(c) + j * sizeof(int), sizeof(int));
			if (*got < 0)
				*got = fd;
			else
				close(fd);
		}
	}
	/* A server that dropped the request (it could not read it) answers nothing: end-of-file. */
	if (n != (ssize_t)sizeof(*rep) || (rm.msg_flags & (MSG_CTRUNC | MSG_TRUNC))) {
		if (*got >= 0)
			close(*got);
		*got = -1;
		/* No number for the descriptor that came: the kernel closed it. */
		return n == (ssize_t)sizeof(*rep) && (rm.msg_flags & MSG_CTRUNC) ? -EMFILE :
										   TFD_EMU_NOT_OURS;
	}
	return 1;
}

/* One request through the door at @path: the reply's value, or TFD_EMU_NOT_OURS, -EAGAIN. */
static long
call_one(const char *path, int fd, const struct tfd_door_req *req, struct tfd_spec *out,
	 int *budget_ms)
{
	struct tfd_door_rep rep;
	int got;
	long r = exchange(path, &fd, 1, req, &rep, &got, 0, budget_ms);

	if (got >= 0)
		close(got); /* a SETTIME or GETTIME answer carries none */
	if (r != 1)
		return r == -EMFILE ? -ENOMEM : r;
	if (rep.ret == 0 && out)
		*out = rep.value;
	return (long)rep.ret;
}

long
__tfd_door_make(const char *path, int flags, const uint32_t key[4], int *fd)
{
	struct tfd_door_req req = { .magic = TFD_DOOR_MAGIC, .op = TFD_DOOR_MAKE, .flags = flags };
	struct tfd_door_rep rep;
	int budget_ms = DOOR_WAIT_MS, got;
	long r = exchange(path, NULL, 0, &req, &rep, &got, (flags & TFD_CLOEXEC) ? MSG_CMSG_CLOEXEC : 0,
			  &budget_ms);

	/*
	 * Whoever is bound at the path got the reply's socket; only the server knows the key
	 * (it is in the memory it shares with this process alone).  Anything else is no
	 * answer: -ENOMEM, never a descriptor of somebody else's.
	 */
	if (r == 1 && memcmp(rep.key, key, sizeof(rep.key)) != 0)
		r = -ENOMEM;
	else if (r == 1)
		r = rep.ret >= 0 && got < 0 ? -ENOMEM : (long)rep.ret;
	else if (r == TFD_EMU_NOT_OURS)
		r = -ENOMEM;
	/* -EMFILE as it came: this process's table is too full for the exchange. */
	if (r < 0 && got >= 0)
		close(got);
	*fd = r < 0 ? -1 : got;
	return r;
}

bool
__tfd_door_path(const char *dir, char *path, size_t size)
{
	size_t n = strnlen(dir, TFD_DIR_MAX);

	if (n + 1 + sizeof(TFD_DOOR_NAME) > size)
		return false;
	memcpy(path, dir, n);
	path[n] = '/';
	memcpy(path + n + 1, TFD_DOOR_NAME, sizeof(TFD_DOOR_NAME));
	return true;
}

/*
 * The door of the server that made the FIFO @fd, found through /proc where there is one:
 * "<dir>/<secret>/<name>" has its door at "<dir>/<secret>/door".  Used only if the door is
 * a socket of the FIFO's owner, in a directory of his: the descriptor is then given to a
 * server of the user who made it, who can open that FIFO anyway; never to anybody else's.
 */
static bool
door_of(int fd, char path[TFD_DOOR_MAX])
{
	char link[32], target[TFD_DIR_MAX + TFD_DIR_MAX];
	struct stat fifo, sock, parent;
	ssize_t n;

	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	n = readlink(link, target, sizeof(target) - 1);
	if (n <= 0 || fstat(fd, &fifo) < 0)
		return false;
	target[n] = '\0';
	{
		char *slash = strrchr(target, '/');

		if (!slash || slash == target)
			return false;
		*slash = '\0';
	}
	if (!strstr(target, "/.libtimerfd-") || stat(target, &parent) < 0 ||
	    parent.st_uid != fifo.st_uid || !__tfd_door_path(target, path, TFD_DOOR_MAX))
		return false;
	return lstat(path, &sock) == 0 && S_ISSOCK(sock.st_mode) && sock.st_uid == fifo.st_uid;
}

bool
__tfd_door_may_serve(uint64_t dev)
{
	char path[TFD_DOOR_MAX];

	return __tfd_door_nth(dev, 0, path) || access("/proc/self/fd", X_OK) == 0;
}

long
__tfd_door_call(int fd, uint64_t dev, const struct tfd_door_req *req, struct tfd_spec *out)
{
	char path[TFD_DOOR_MAX];
	int budget_ms = DOOR_WAIT_MS;
	bool found = door_of(fd, path);

	/* The door /proc names first, then the doors this process knows, newest first. */
	for (unsigned n = 0; found || __tfd_door_nth(dev, n, path); n += found ? 0 : 1, found = false) {
		long r;

		/* -EAGAIN: the timer's own process was changing it; once more, a little later. */
		while ((r = call_one(path, fd, req, out, &budget_ms)) == -EAGAIN && budget_ms > 0) {
			poll(NULL, 0, 1);
			budget_ms--;
		}
		if (r == -EAGAIN)
			return -ENOMEM;
		if (r != TFD_EMU_NOT_OURS)
			return r;
	}
	return TFD_EMU_NOT_OURS;
}

/* --- the server ---------------------------------------------------------------------- */

int
__tfd_door_open(int dir_fd)
{
	struct sockaddr_un a = { .sun_family = AF_UNIX, .sun_path = TFD_DOOR_NAME };
	int one = 1, d = socket(AF_UNIX, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);

	if (d < 0)
		return -errno;
	/* The sender's pid comes with each request (for CAP_WAKE_ALARM, as the kernel checks it). */
	setsockopt(d, SOL_SOCKET, SO_PASSCRED, &one, sizeof(one));
	/* Bound by a name relative to the directory: its path may be longer than sun_path. */
	if (syscall(SYS_fchdir, dir_fd) < 0 ||
	    bind(d, (struct sockaddr *)&a, sizeof(a)) < 0) {
		int err = -errno;

		syscall(SYS_chdir, "/");
		tfd_sys_close(d);
		return err;
	}
	syscall(SYS_chdir, "/");
	__tfd_door_own(d);
	tfd_sys_fcntl(d, F_SETFL, O_NONBLOCK | O_ASYNC);
	return d;
}

void
__tfd_door_own(int door)
{
	/* A request raises SIGIO in the server, which wakes its loop (server.c). */
	if (door >= 0)
		tfd_sys_fcntl(door, F_SETOWN, (long)syscall(SYS_getpid));
}

void
__tfd_door_close(int door, const char *dir)
{
	char path[TFD_DIR_MAX + sizeof(TFD_DOOR_NAME) + 1];

	if (door >= 0)
		tfd_sys_close(door);
	if (__tfd_door_path(dir, path, sizeof(path)))
		tfd_sys_unlinkat(AT_FDCWD, path, 0);
}

int
__tfd_door_receive(int door, struct tfd_door_req *req, int *timer, int *reply, pid_t *pid)
{
	for (;;) {
		union {
			char buf[CMSG_SPACE(2 * sizeof(int)) + CMSG_SPACE(sizeof(struct ucred))];
			struct cmsghdr align;
		} ctl;
		struct iovec iov = { .iov_base = req, .iov_len = sizeof(*req) };
		struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = ctl.buf,
				    .msg_controllen = sizeof(ctl.buf) };
		int fds[2] = { -1, -1 }, nfds = 0;
		bool cred = false;
		ssize_t n = recvmsg(door, &m, MSG_DONTWAIT | MSG_CMSG_CLOEXEC);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return 0;
		/* Everything that came is checked: any number of descriptors, any length. */
		for (struct cmsghdr *c = CMSG_FIRSTHDR(&m); c; c = CMSG_NXTHDR(&m, c)) {
			if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS) {
				size_t k = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);

				for (size_t j = 0; j < k; j++) {
					int fd;

					memcpy(&fd, CMSG_DATA(c) + j * sizeof(int), sizeof(int));
					if (nfds < 2)
						fds[nfds] = fd;
					else
						tfd_sys_close(fd);
					nfds++;
				}
			} else if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_CREDENTIALS &&
				   c->cmsg_len >= CMSG_LEN(sizeof(struct ucred))) {
				struct ucred u;

				memcpy(&u, CMSG_DATA(c), sizeof(u));
				*pid = u.pid;
				cred = true;
			}
		}
		if (n == (ssize_t)sizeof(*req) && req->magic == TFD_DOOR_MAGIC && cred &&
		    !(m.msg_flags & (MSG_CTRUNC | MSG_TRUNC)) &&
		    nfds == (req->op == TFD_DOOR_MAKE ? 1 : 2)) {
			*timer = nfds == 2 ? fds[0] : -1;
			*reply = fds[nfds - 1];
			return 1;
		}
		for (int j = 0; j < nfds && j < 2; j++)
			tfd_sys_close(fds[j]);
	}
}

void
__tfd_door_answer_make(int reply, long ret, const uint32_t key[4], int fd)
{
	union {
		char buf[CMSG_SPACE(sizeof(int))];
		struct cmsghdr align;
	} ctl;
	struct tfd_door_rep rep = { .ret = ret };
	struct iovec iov = { .iov_base = &rep, .iov_len = sizeof(rep) };
	struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1 };

	memcpy(rep.key, key, sizeof(rep.key));
	if (ret >= 0) {
		struct cmsghdr *c;

		memset(ctl.buf, 0, sizeof(ctl.buf));
		m.msg_control = ctl.buf;
		m.msg_controllen = sizeof(ctl.buf);
		c = CMSG_FIRSTHDR(&m);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(c), &fd, sizeof(int));
	}
	/* Never waits: a sender that stopped reading loses its answer (its create fails). */
	sendmsg(reply, &m, MSG_DONTWAIT | MSG_NOSIGNAL);
	tfd_sys_close(reply);
}

void
__tfd_door_answer(int reply, long ret, const struct tfd_spec *value)
{
	struct tfd_door_rep rep = { .ret = ret, .value = *value };

	/* Never waits: a sender that stopped reading loses its answer (its call fails). */
	send(reply, &rep, sizeof(rep), MSG_DONTWAIT | MSG_NOSIGNAL);
	tfd_sys_close(reply);
}
