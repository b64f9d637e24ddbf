/* SPDX-License-Identifier: MIT */
/*
 * Description: a program that dlopen()s the library, arms a timer and dlclose()s it goes on
 * running (the timer thread's code stays mapped: the library is linked -z nodelete).
 * Usage: dlclose-test PATH-TO-libtimerfd.so; LIBTIMERFD_BACKEND picks the backend.
 */
#include "config.h"

#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

typedef int (*create_fn)(int, int);
typedef int (*settime_fn)(int, int, const struct itimerspec *, struct itimerspec *);

int
main(int argc, char **argv)
{
	struct itimerspec its = { { 0, 1000000 }, { 0, 1000000 } };
	struct timespec pause = { 0, 100000000 };
	void *lib;
	create_fn create;
	settime_fn settime;
	uint64_t ticks;
	int fd;

	if (argc != 2) {
		fprintf(stderr, "usage: %s LIBRARY\n", argv[0]);
		return 2;
	}
	lib = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
	if (!lib) {
		fprintf(stderr, "dlopen: %s\n", dlerror());
		return 1;
	}
	create = (create_fn)(uintptr_t)dlsym(lib, "timerfd_create");
	settime = (settime_fn)(uintptr_t)dlsym(lib, "timerfd_settime");
	if (!create || !settime)
		return 1;
	fd = create(CLOCK_MONOTONIC, 0);
	if (fd < 0 || settime(fd, 0, &its, NULL) != 0 || read(fd, &ticks, 8) != 8) {
		perror("timer");
		return 1;
	}
	dlclose(lib);
	/* The timer keeps firing after dlclose(), as a kernel timer would. */
	nanosleep(&pause, NULL);
	if (read(fd, &ticks, 8) != 8 || ticks < 10) {
		fprintf(stderr, "after dlclose: %llu expirations in 100 ms\n", (unsigned long long)ticks);
		return 1;
	}
	printf("dlclose-test: %llu expirations in 100 ms after dlclose()\n", (unsigned long long)ticks);
	return 0;
}
