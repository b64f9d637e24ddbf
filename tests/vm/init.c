/* SPDX-License-Identifier: MIT */
/*
 * Description: the /init of make check-vm's guests (static, no shell): mounts what a Linux
 * system has, runs each line of /plan with its output on the console, and powers off.
 *
 * /plan: one program per line, "LABEL<TAB>[NAME=VALUE ...] PROGRAM [ARG ...]".  Around each
 * it prints "check-vm: run LABEL" and "check-vm: exit LABEL STATUS after SECONDS s" (STATUS:
 * 128 + the signal for a program killed by one, "timeout" past the deadline); check-vm.sh
 * reads these lines.
 * The kernel's command line gives the environment (CK_TIMEOUT_MULTIPLIER=..., for one) and
 * check_vm_timeout=SECONDS, the deadline of each program.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/reboot.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MAX_ARGS 64

static void
mount_fs(const char *type, const char *dir, const char *opts)
{
	mkdir(dir, 0755);
	if (mount(type, dir, type, 0, opts) != 0)
		printf("check-vm: mount %s on %s: %s\n", type, dir, strerror(errno));
}

/* stdin, stdout and stderr on the console (the kernel found no /dev/console in the cpio). */
static void
open_console(void)
{
	int fd = open("/dev/console", O_RDWR);

	if (fd < 0)
		return;
	for (int k = 0; k < 3; k++)
		dup2(fd, k);
	if (fd > 2)
		close(fd);
}

/* Every process but this one, killed and reaped: each program starts on a clean machine. */
static void
kill_the_rest(void)
{
	kill(-1, SIGKILL);
	while (waitpid(-1, NULL, 0) > 0 || errno == EINTR)
		;
}

/* Runs one plan line; returns its status as the shell would give it, or -1 past @deadline s. */
static int
run(char *line, int deadline)
{
	char *argv[MAX_ARGS + 1];
	int argc = 0, status = 0;
	time_t end = time(NULL) + deadline;
	pid_t pid;

	for (char *tok = strtok(line, " "); tok && argc < MAX_ARGS; tok = strtok(NULL, " "))
		argv[argc++] = tok;
	argv[argc] = NULL;
	pid = fork();
	if (pid == 0) {
		int k = 0;

		while (argv[k] && strchr(argv[k], '=') && argv[k][0] != '/')
			putenv(argv[k++]);
		if (!argv[k])
			_exit(127);
		execv(argv[k], argv + k);
		printf("check-vm: exec %s: %s\n", argv[k], strerror(errno));
		_exit(127);
	}
	if (pid < 0)
		return 127;
	/* Reap everything (orphans come here too) until the program itself ends. */
	for (;;) {
		pid_t p = waitpid(-1, &status, WNOHANG);

		if (p == pid)
			break;
		if (p > 0)
			continue;
		if (time(NULL) > end) {
			kill_the_rest();
			return -1;
		}
		usleep(20000);
	}
	kill_the_rest();
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return WEXITSTATUS(status);
}

int
main(void)
{
	const char *t = getenv("check_vm_timeout");
	int deadline = t ? atoi(t) : 900;
	struct utsname u;
	char line[4096];
	FILE *plan;

	mount_fs("devtmpfs", "/dev", NULL);
	open_console();
	setvbuf(stdout, NULL, _IONBF, 0);
	mount_fs("proc", "/proc", NULL);
	mount_fs("sysfs", "/sys", NULL);
	mount_fs("tmpfs", "/dev/shm", "mode=1777");
	mount_fs("tmpfs", "/tmp", "mode=1777");
	/* A system's usual descriptor limits (systemd's), not the kernel's 1024/4096 for init. */
	setrlimit(RLIMIT_NOFILE, &(struct rlimit){ 1024, 524288 });
	setenv("PATH", "/bin", 1);
	setenv("HOME", "/", 1);
	uname(&u);
	printf("check-vm: guest kernel %s %s, %ld CPUs\n", u.release, u.machine,
	       sysconf(_SC_NPROCESSORS_ONLN));
	plan = fopen("/plan", "r");
	if (!plan)
		printf("check-vm: no /plan: %s\n", strerror(errno));
	while (plan && fgets(line, sizeof(line), plan)) {
		char *tab = strchr(line, '\t');
		time_t start = time(NULL);
		int status;

		line[strcspn(line, "\n")] = '\0';
		if (!tab || line[0] == '#')
			continue;
		*tab = '\0';
		printf("check-vm: run %s\n", line);
		status = run(tab + 1, deadline);
		if (status < 0)
			printf("check-vm: exit %s timeout after %ld s\n", line, (long)(time(NULL) - start));
		else
			printf("check-vm: exit %s %d after %ld s\n", line, status, (long)(time(NULL) - start));
	}
	printf("check-vm: done\n");
	sync();
	reboot(RB_POWER_OFF);
	return 0;
}
