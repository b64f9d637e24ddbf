/* SPDX-License-Identifier: MIT */
/*
 * The program that tests/tracers-end-with-program.sh runs under the real strace -f and gdb:
 * a periodic 20 ms timer read three times (its family's server started, on the emulation),
 * then the time of its end (CLOCK_REALTIME, ns, the clock date(1) reads) written to FILE
 * just before it exits with the timer still open.
 * Usage: traced-program FILE
 */
#include <fcntl.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

int
main(int argc, char **argv)
{
	struct itimerspec every = { { 0, 20000000 }, { 0, 20000000 } };
	struct timespec now;
	uint64_t ticks, seen = 0;
	char line[32];
	int fd, out, len;

	if (argc != 2)
		return 2;
	fd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC);
	if (fd < 0 || timerfd_settime(fd, 0, &every, NULL) != 0) {
		perror("traced-program: timerfd");
		return 1;
	}
	while (seen < 3) {
		if (read(fd, &ticks, sizeof(ticks)) != (ssize_t)sizeof(ticks)) {
			perror("traced-program: read");
			return 1;
		}
		seen += ticks;
	}
	out = open(argv[1], O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	clock_gettime(CLOCK_REALTIME, &now);
	len = snprintf(line, sizeof(line), "%lld%09ld\n", (long long)now.tv_sec, (long)now.tv_nsec);
	if (out < 0 || write(out, line, (size_t)len) != len) {
		perror("traced-program: the end's time");
		return 1;
	}
	return 0; /* the timer still open: exit closes it, as most programs do */
}
