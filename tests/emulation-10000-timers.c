/* SPDX-License-Identifier: MIT */
/*
 * Description: 10,000 emulated timers armed at once all fire once each and are read.
 * Each holds two descriptors (the program's and the library's own); where RLIMIT_NOFILE
 * cannot reach that, as many as fit run, and the output says so.
 */
#include "config.h"

#include <errno.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#include "slowness.h"

#define NTIMERS 10000
/* Each emulated timer holds two descriptors: the program's and the library's own. */
#define NEEDED_FDS (2 * NTIMERS + 64)

int
main(void)
{
	static int fds[NTIMERS];
	static struct pollfd pfds[NTIMERS];
	struct rlimit rl;
	int fired = 0, ntimers = NTIMERS, room = 10 * slowness();

	setenv("LIBTIMERFD_BACKEND", "emulation", 1);
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < NEEDED_FDS) {
		rl.rlim_cur = NEEDED_FDS;
		if (rl.rlim_max < NEEDED_FDS)
			rl.rlim_max = NEEDED_FDS; /* allowed with CAP_SYS_RESOURCE */
		if (setrlimit(RLIMIT_NOFILE, &rl) != 0) {
			getrlimit(RLIMIT_NOFILE, &rl);
			rl.rlim_cur = rl.rlim_max;
			setrlimit(RLIMIT_NOFILE, &rl);
			ntimers = (int)((rl.rlim_cur - 64) / 2);
			printf("NOTE: %d timers need %d descriptors, RLIMIT_NOFILE allows %llu: "
			       "running %d timers\n", NTIMERS, NEEDED_FDS,
			       (unsigned long long)rl.rlim_cur, ntimers);
		}
	}
	for (int i = 0; i < ntimers; i++) {
		/* Deadlines spread over 50-150 ms, so the queue holds them in many orders. */
		struct itimerspec its = { .it_value = { 0, 50000000 + (i * 7919 % 100000) * 1000L } };

		fds[i] = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK);
		if (fds[i] < 0 || timerfd_settime(fds[i], 0, &its, NULL) != 0) {
			printf("FAIL: timer %d: %s\n", i, strerror(errno));
			return 1;
		}
		pfds[i] = (struct pollfd){ .fd = fds[i], .events = POLLIN };
	}
	/* All are due within 150 ms; ten seconds (room) is room for a slow, shared machine,
	 * scaled where the machine is slower still (an emulator, valgrind). */
	for (time_t start = time(NULL); fired < ntimers && time(NULL) - start < room;) {
		if (poll(pfds, (nfds_t)ntimers, 1000) < 0)
			return 1;
		for (int i = 0; i < ntimers; i++) {
			uint64_t ticks;

			if (pfds[i].fd >= 0 && (pfds[i].revents & POLLIN) &&
			    read(fds[i], &ticks, sizeof(ticks)) == sizeof(ticks)) {
				if (ticks != 1) {
					printf("FAIL: timer %d read %llu expirations, want 1\n", i,
					       (unsigned long long)ticks);
					return 1;
				}
				pfds[i].fd = -1;
				fired++;
			}
		}
	}
	printf("%d of %d timers fired once each\n", fired, ntimers);
	for (int i = 0; i < ntimers; i++)
		close(fds[i]);
	return fired == ntimers ? 0 : 1;
}
