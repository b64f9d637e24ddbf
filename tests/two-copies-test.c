/* SPDX-License-Identifier: MIT */
/*
 * Description: a program linked with libtimerfd that also has libtimerfd-preload.so
 * preloaded holds two emulations.  Where /proc is mounted, the linked copy sets and reads a
 * timer made by the preloaded one through that timer's server's door, as it would one
 * received from another process; without /proc the door is unknown to it and it answers
 * EINVAL, as the kernel does for a descriptor that is not a timerfd (libtimerfd(7)).
 * Usage: two-copies-test VERSION (the C library's version of timerfd_create, e.g.
 * GLIBC_2.8), run with the preload library preloaded.
 */
#include "config.h"

#include <dlfcn.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/timerfd.h>
#include <unistd.h>

typedef int (*create_fn)(clockid_t, int);

#ifndef HAVE_DLVSYM
int
main(void)
{
	printf("SKIP: no dlvsym() in this C library, and no versioned symbols to look up\n");
	return 77;
}
#else
int
main(int argc, char **argv)
{
	struct itimerspec its = { .it_value = { 1, 0 } }, cur;
	create_fn other_create;
	int fd, mine, r;

	if (argc != 2) {
		fprintf(stderr, "usage: %s VERSION\n", argv[0]);
		return 2;
	}
	/* The C library's name and version: the preloaded copy answers to it first. */
	other_create = (create_fn)(uintptr_t)dlvsym(RTLD_DEFAULT, "timerfd_create", argv[1]);
	if (!other_create) {
		printf("no timerfd_create@%s\n", argv[1]);
		return 1;
	}
	fd = other_create(CLOCK_MONOTONIC, 0);
	mine = timerfd_create(CLOCK_MONOTONIC, 0);
	if (fd < 0 || mine < 0) {
		perror("timerfd_create");
		return 1;
	}
	/* The linked copy serves its own timers... */
	if (timerfd_settime(mine, 0, &its, NULL) != 0 || timerfd_gettime(mine, &cur) != 0) {
		perror("own timer");
		return 1;
	}
	/* ... and the other copy's through its door, found through /proc (else EINVAL). */
	errno = 0;
	r = timerfd_settime(fd, 0, &its, NULL);
	if (access("/proc/self/fd", X_OK) != 0) {
		if (r != -1 || errno != EINVAL) {
			printf("the other copy's timer without /proc: settime %d (%s), want -1 (EINVAL)\n",
			       r, strerror(errno));
			return 1;
		}
		printf("two copies, no /proc: the linked one answers EINVAL for the preloaded one's timer\n");
		return 0;
	}
	if (r != 0 || timerfd_gettime(fd, &cur) != 0 || cur.it_value.tv_sec != 0 ||
	    cur.it_value.tv_nsec < 500000000) {
		printf("the other copy's timer: settime %d (%s), or its gettime: want it set to 1 s\n",
		       r, strerror(errno));
		return 1;
	}
	printf("two copies: the linked one sets and reads the preloaded one's timer through its door\n");
	return 0;
}
#endif
