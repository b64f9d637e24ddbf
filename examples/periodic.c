/* SPDX-License-Identifier: MIT */
/* Example: a periodic timer in a poll() loop, printing each expiration and its count. */
#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

static void
usage(FILE *out, const char *prog)
{
	fprintf(out,
		"Usage: %s [INTERVAL_MS [COUNT]]\n"
		"Arm a periodic CLOCK_MONOTONIC timer (default 200 ms) and print each of\n"
		"the first COUNT expirations (default 5) as poll() reports them.\n",
		prog);
}

int
main(int argc, char **argv)
{
	long interval_ms = 200, count = 5, seen = 0;
	struct itimerspec its;
	struct pollfd pfd;
	struct timespec start, now;
	int fd;

	if (argc > 1 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
		usage(stdout, argv[0]);
		return EXIT_SUCCESS;
	}
	if (argc > 1)
		interval_ms = strtol(argv[1], NULL, 10);
	if (argc > 2)
		count = strtol(argv[2], NULL, 10);
	if (argc > 3 || interval_ms <= 0 || count <= 0) {
		usage(stderr, argv[0]);
		return EXIT_FAILURE;
	}

	fd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);
	if (fd < 0) {
		perror("timerfd_create");
		return EXIT_FAILURE;
	}
	its.it_value.tv_sec = interval_ms / 1000;
	its.it_value.tv_nsec = interval_ms % 1000 * 1000000L;
	its.it_interval = its.it_value;
	if (timerfd_settime(fd, 0, &its, NULL) < 0) {
		perror("timerfd_settime");
		return EXIT_FAILURE;
	}
	clock_gettime(CLOCK_MONOTONIC, &start);

	pfd.fd = fd;
	pfd.events = POLLIN;
	while (seen < count) {
		uint64_t expirations;

		if (poll(&pfd, 1, -1) < 0) {
			if (errno == EINTR)
				continue;
			perror("poll");
			return EXIT_FAILURE;
		}
		if (read(fd, &expirations, sizeof(expirations)) != sizeof(expirations)) {
			if (errno == EAGAIN)
				continue;
			perror("read");
			return EXIT_FAILURE;
		}
		seen += (long)expirations;
		clock_gettime(CLOCK_MONOTONIC, &now);
		printf("%8.3f s: %" PRIu64 " expiration(s), %ld in all\n",
		       (double)(now.tv_sec - start.tv_sec) + (now.tv_nsec - start.tv_nsec) / 1e9,
		       expirations, seen);
	}
	close(fd);
	return EXIT_SUCCESS;
}
