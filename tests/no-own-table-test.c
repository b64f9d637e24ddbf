/* SPDX-License-Identifier: MIT */
/*
 * Description: where the kernel has no timerfd and unshare(2) is refused, the emulation cannot
 * keep its descriptors out of the program's table: timerfd_create() fails with ENOSYS, as the
 * kernel did, and leaves no descriptor behind.  Run by no-own-table-test.sh under a filter.
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/timerfd.h>

static int
open_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	int n = 0;

	while (d && readdir(d))
		n++;
	if (d)
		closedir(d);
	return n;
}

int
main(void)
{
	int before = open_fds();

	for (int i = 0; i < 3; i++) {
		errno = 0;
		int fd = timerfd_create(CLOCK_MONOTONIC, 0);

		if (fd != -1 || errno != ENOSYS) {
			printf("timerfd_create: %d (%s), want -1 (ENOSYS)\n", fd, strerror(errno));
			return 1;
		}
	}
	if (open_fds() != before) {
		printf("descriptors: %d before, %d after\n", before, open_fds());
		return 1;
	}
	printf("timerfd_create: ENOSYS, no descriptor left\n");
	return 0;
}
