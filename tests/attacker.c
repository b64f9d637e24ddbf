/* SPDX-License-Identifier: MIT */
/* A hostile process of the program's family (attacker.h): what it finds, it writes garbage into. */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
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

/* Every FIFO under @dir (two levels) opened for writing, and a forged count written. */
static void
forge_under(uint64_t *seed, const char *dir, int depth, struct attack *a)
{
	DIR *d = opendir(dir);
	struct dirent *e;

	if (!d)
		return;
	if (depth == 0)
		a->dirs_listed++;
	while ((e = readdir(d))) {
		char path[1024];
		struct stat st;

		if (e->d_name[0] == '.' && (!e->d_name[1] || (e->d_name[1] == '.' && !e->d_name[2])))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		if (lstat(path, &st) < 0)
			continue;
		if (S_ISDIR(st.st_mode) && depth == 0) {
			forge_under(seed, path, 1, a);
		} else if (S_ISFIFO(st.st_mode)) {
			int fd = open(path, O_WRONLY | O_NONBLOCK | O_CLOEXEC);
			uint64_t forged = 0x4141414141414141ULL;

			if (fd >= 0) {
				a->fifos_opened++;
				if (write(fd, &forged, sizeof(forged)) == sizeof(forged))
					a->forged++;
				close(fd);
			}
		}
	}
	closedir(d);
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

void
attack_round(uint64_t *seed, bool by_name, struct attack *a)
{
	const char *bases[] = { getenv("TMPDIR"), "/dev/shm", "/tmp", "/var/tmp" };

	fuzz_maps(seed, a);
	for (size_t b = 0; b < sizeof(bases) / sizeof(bases[0]); b++) {
		DIR *d = bases[b] ? opendir(bases[b]) : NULL;
		struct dirent *e;

		if (!d)
			continue;
		while ((e = readdir(d))) {
			char path[1024];
			struct stat st;

			if (strncmp(e->d_name, ".libtimerfd-", 12) != 0)
				continue;
			a->dirs++;
			snprintf(path, sizeof(path), "%s/%s", bases[b], e->d_name);
			/* Another user's: its own are its own business. */
			if (by_name && lstat(path, &st) == 0 && st.st_uid != geteuid())
				forge_under(seed, path, 0, a);
			snprintf(path, sizeof(path), "%s/%s/door", bases[b], e->d_name);
			knock(seed, path, a);
			/* The doors beside the FIFOs, where it can list the way to them. */
			snprintf(path, sizeof(path), "%s/%s", bases[b], e->d_name);
			knock_under(seed, path, a);
		}
		closedir(d);
	}
}
