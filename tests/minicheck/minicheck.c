/* SPDX-License-Identifier: MIT */
/* minicheck: runs each test in its own process with a timeout, and reports as Check does. */
#include "config.h"

#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"

#define MC_MAX_TESTS 64
#define MC_MAX_TCASES 32

struct TCase {
	const char *name;
	double timeout;
	const MTest *tests[MC_MAX_TESTS];
	int ntests;
};

struct Suite {
	const char *name;
	TCase *tcases[MC_MAX_TCASES];
	int ntcases;
};

struct SRunner {
	Suite *suite;
	int run, failures, errors;
};

/* Where the current test is, for failure messages. */
static const char *current_tcase, *current_test;

static void *
xcalloc(size_t size)
{
	void *p = calloc(1, size);

	if (!p) {
		perror("minicheck");
		exit(2);
	}
	return p;
}

Suite *
suite_create(const char *name)
{
	Suite *s = xcalloc(sizeof(*s));

	s->name = name;
	return s;
}

void
suite_add_tcase(Suite *s, TCase *tc)
{
	if (s->ntcases == MC_MAX_TCASES) {
		fprintf(stderr, "minicheck: more than %d test cases\n", MC_MAX_TCASES);
		exit(2);
	}
	s->tcases[s->ntcases++] = tc;
}

TCase *
tcase_create(const char *name)
{
	TCase *tc = xcalloc(sizeof(*tc));
	const char *env = getenv("CK_DEFAULT_TIMEOUT");

	tc->name = name;
	tc->timeout = env ? atof(env) : 4.0;
	return tc;
}

void
tcase_set_timeout(TCase *tc, double seconds)
{
	tc->timeout = seconds;
}

void
mc_tcase_add_test(TCase *tc, const MTest *test)
{
	if (tc->ntests == MC_MAX_TESTS) {
		fprintf(stderr, "minicheck: more than %d tests in %s\n", MC_MAX_TESTS, tc->name);
		exit(2);
	}
	tc->tests[tc->ntests++] = test;
}

SRunner *
srunner_create(Suite *s)
{
	SRunner *sr = xcalloc(sizeof(*sr));

	sr->suite = s;
	return sr;
}

void
mc_fail(const char *file, int line, const char *fmt, ...)
{
	va_list ap;

	printf("%s:%d:F:%s:%s:0: ", file, line, current_tcase, current_test);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
	_exit(1);
}

/*
 * Waits for the test's process; kills its process group when the timeout runs out first
 * (1).  As Check does, the timeout is kept by the parent (here: a watchdog child that
 * sleeps it out), so a test that blocks SIGALRM, or hangs with every signal blocked, is
 * still ended.
 */
static int
wait_with_timeout(pid_t pid, unsigned int timeout, int *status)
{
	pid_t watchdog = fork(), done;
	int other;

	if (watchdog == 0) {
		sleep(timeout);
		_exit(0);
	}
	if (watchdog < 0) { /* no watchdog: wait without a timeout */
		while (waitpid(pid, status, 0) < 0)
			;
		return 0;
	}
	while ((done = wait(&other)) != pid && done != watchdog)
		;
	if (done == watchdog) {
		kill(-pid, SIGKILL);
		while (waitpid(pid, status, 0) < 0)
			;
		return 1;
	}
	*status = other;
	/*
	 * And what the test left in its process group (a child it stopped before an
	 * assertion failed, holding timers and so their servers), as Check's killpg() after
	 * every test: the servers have sessions of their own.
	 */
	kill(-pid, SIGKILL);
	kill(watchdog, SIGKILL);
	while (waitpid(watchdog, &other, 0) < 0)
		;
	return 0;
}

/* Runs one test in a child process: 0 passed, 1 failed, 2 error (signal or timeout). */
static int
run_one(const TCase *tc, const MTest *test, double multiplier)
{
	unsigned int timeout = (unsigned int)(tc->timeout * multiplier + 0.999);
	int status = 0;
	pid_t pid;

	current_tcase = tc->name;
	current_test = test->name;
	fflush(stdout);
	pid = fork();
	if (pid < 0) {
		perror("minicheck: fork");
		return 2;
	}
	if (pid == 0) {
		setpgid(0, 0);
		test->fn(0);
		fflush(stdout);
		_exit(0);
	}
	setpgid(pid, pid);
	if (wait_with_timeout(pid, timeout, &status)) {
		printf("%s:%s:E: Test timeout expired\n", tc->name, test->name);
		return 2;
	}
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0) {
		printf("%s:%s: Passed\n", tc->name, test->name);
		return 0;
	}
	if (WIFEXITED(status))
		return 1;
	printf("%s:%s:E: Received signal %d (%s)\n", tc->name, test->name, WTERMSIG(status),
	       strsignal(WTERMSIG(status)));
	return 2;
}

/* CK_RUN_SUITE and CK_RUN_CASE, as in Check: run only the named suite or test case. */
static int
selected(const char *variable, const char *name)
{
	const char *want = getenv(variable);

	return !want || !*want || strcmp(want, name) == 0;
}

void
srunner_run_all(SRunner *sr, enum print_output mode)
{
	const char *env = getenv("CK_TIMEOUT_MULTIPLIER");
	double multiplier = env ? atof(env) : 1.0;
	int passed;

	(void)mode;
	printf("Running suite(s): %s\n", sr->suite->name);
	for (int i = 0; i < sr->suite->ntcases && selected("CK_RUN_SUITE", sr->suite->name); i++) {
		const TCase *tc = sr->suite->tcases[i];

		if (!selected("CK_RUN_CASE", tc->name))
			continue;
		for (int j = 0; j < tc->ntests; j++) {
			int r = run_one(tc, tc->tests[j], multiplier > 0 ? multiplier : 1.0);

			sr->run++;
			sr->failures += r == 1;
			sr->errors += r == 2;
		}
	}
	passed = sr->run - sr->failures - sr->errors;
	printf("%d%%: Checks: %d, Failures: %d, Errors: %d\n",
	       sr->run ? passed * 100 / sr->run : 0, sr->run, sr->failures, sr->errors);
}

int
srunner_ntests_failed(SRunner *sr)
{
	return sr->failures + sr->errors;
}

void
srunner_free(SRunner *sr)
{
	for (int i = 0; i < sr->suite->ntcases; i++)
		free(sr->suite->tcases[i]);
	free(sr->suite);
	free(sr);
}
