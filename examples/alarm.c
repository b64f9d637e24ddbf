/* SPDX-License-Identifier: MIT */
/* Example: an absolute-time alarm that wakes at a wall-clock time given on the command line. */
#include <errno.h>
#include <inttypes.h>
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
		"Usage: %s HH:MM[:SS] | +SECONDS\n"
		"Sleep until the given local wall-clock time (today, or tomorrow if it has\n"
		"passed) or for SECONDS, with an absolute CLOCK_REALTIME timer, then print\n"
		"the time it woke. The alarm follows the clock if the clock is set meanwhile.\n",
		prog);
}

/* The CLOCK_REALTIME second the argument names, or -1. */
static time_t
parse_when(const char *arg)
{
	time_t now = time(NULL);
	struct tm tm;
	int h, m, s = 0;

	if (arg[0] == '+') {
		char *end;
		long secs = strtol(arg + 1, &end, 10);

		return *end || secs < 0 ? -1 : now + secs;
	}
	if (sscanf(arg, "%d:%d:%d", &h, &m, &s) < 2 || h < 0 || h > 23 || m < 0 || m > 59 ||
	    s < 0 || s > 59)
		return -1;
	localtime_r(&now, &tm);
	tm.tm_hour = h;
	tm.tm_min = m;
	tm.tm_sec = s;
	tm.tm_isdst = -1;
	if (mktime(&tm) <= now)
		tm.tm_mday++;
	return mktime(&tm);
}

int
main(int argc, char **argv)
{
	struct itimerspec its = { 0 };
	char woke[64];
	uint64_t expirations;
	time_t when, now;
	int fd;

	if (argc == 2 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
		usage(stdout, argv[0]);
		return EXIT_SUCCESS;
	}
	if (argc != 2 || (when = parse_when(argv[1])) < 0) {
		usage(stderr, argv[0]);
		return EXIT_FAILURE;
	}
	fd = timerfd_create(CLOCK_REALTIME, TFD_CLOEXEC);
	if (fd < 0) {
		perror("timerfd_create");
		return EXIT_FAILURE;
	}
	its.it_value.tv_sec = when;
	if (timerfd_settime(fd, TFD_TIMER_ABSTIME, &its, NULL) < 0) {
		perror("timerfd_settime");
		return EXIT_FAILURE;
	}
	while (read(fd, &expirations, sizeof(expirations)) != sizeof(expirations)) {
		if (errno != EINTR) {
			perror("read");
			return EXIT_FAILURE;
		}
	}
	now = time(NULL);
	strftime(woke, sizeof(woke), "%Y-%m-%d %H:%M:%S", localtime(&now));
	printf("alarm: woke at %s (%" PRIu64 " expiration)\n", woke, expirations);
	close(fd);
	return EXIT_SUCCESS;
}
