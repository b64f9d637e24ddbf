/* SPDX-License-Identifier: MIT */
/* Example: one epoll loop driving several periodic timers at once. */
#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/timerfd.h>
#include <unistd.h>

#define MAX_TIMERS 16

static void
usage(FILE *out, const char *prog)
{
	fprintf(out,
		"Usage: %s [-d SECONDS] INTERVAL_MS...\n"
		"Run one periodic CLOCK_MONOTONIC timer per INTERVAL_MS (default: 100 250 600),\n"
		"all from one epoll loop, for SECONDS (default 2), printing each expiration.\n",
		prog);
}

int
main(int argc, char **argv)
{
	long intervals[MAX_TIMERS] = { 100, 250, 600 };
	uint64_t totals[MAX_TIMERS] = { 0 };
	int fds[MAX_TIMERS], n = 3, argi = 1, ep, stop = -1;
	long seconds = 2;

	if (argc > 1 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
		usage(stdout, argv[0]);
		return EXIT_SUCCESS;
	}
	if (argc > 2 && strcmp(argv[1], "-d") == 0) {
		seconds = strtol(argv[2], NULL, 10);
		argi = 3;
	}
	if (argi < argc) {
		n = 0;
		for (; argi < argc && n < MAX_TIMERS; argi++)
			intervals[n++] = strtol(argv[argi], NULL, 10);
	}
	for (int i = 0; i < n; i++) {
		if (intervals[i] <= 0 || seconds <= 0 || argi < argc) {
			usage(stderr, argv[0]);
			return EXIT_FAILURE;
		}
	}

	ep = epoll_create1(EPOLL_CLOEXEC);
	if (ep < 0) {
		perror("epoll_create1");
		return EXIT_FAILURE;
	}
	/* One more timer, one-shot, ends the run. */
	for (int i = 0; i <= n; i++) {
		long ms = i < n ? intervals[i] : seconds * 1000;
		struct itimerspec its = { .it_value = { ms / 1000, ms % 1000 * 1000000L } };
		struct epoll_event ev = { .events = EPOLLIN, .data.u32 = (uint32_t)i };
		int fd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);

		if (i < n)
			its.it_interval = its.it_value;
		if (fd < 0 || timerfd_settime(fd, 0, &its, NULL) < 0 ||
		    epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev) < 0) {
			perror("timer");
			return EXIT_FAILURE;
		}
		if (i < n)
			fds[i] = fd;
		else
			stop = fd;
	}
	for (;;) {
		struct epoll_event events[MAX_TIMERS + 1];
		int ready = epoll_wait(ep, events, MAX_TIMERS + 1, -1);

		if (ready < 0 && errno == EINTR)
			continue;
		if (ready < 0) {
			perror("epoll_wait");
			return EXIT_FAILURE;
		}
		for (int e = 0; e < ready; e++) {
			uint32_t i = events[e].data.u32;
			uint64_t count;

			if ((int)i == n) {
				for (int t = 0; t < n; t++)
					printf("timer %d (%ld ms): %" PRIu64 " expirations\n", t,
					       intervals[t], totals[t]);
				close(stop);
				close(ep);
				return EXIT_SUCCESS;
			}
			if (read(fds[i], &count, sizeof(count)) != sizeof(count))
				continue; /* EAGAIN: another reader got there first */
			totals[i] += count;
			printf("timer %u (%ld ms): +%" PRIu64 "\n", i, intervals[i], count);
		}
	}
}
