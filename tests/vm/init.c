/* SPDX-License-Identifier: MIT */
/*
 * Description: the /init of make check-vm's guests (static, no shell): mounts what a Linux
 * system has, runs each line of /plan with its output on the console, and powers off.
 *
 * /plan: one program per line, "LABEL<TAB>[NAME=VALUE ...] PROGRAM [ARG ...]" (CHECK_VM_SH=PATH
 * also points /bin/sh at PATH for it).  Around each it prints "check-vm: run LABEL" and
 * "check-vm: exit LABEL STATUS after SECONDS s" (STATUS:
 * 128 + the signal for a program killed by one, "timeout" past the deadline); check-vm.sh
 * reads these lines.
 * The kernel's command line gives the environment (CK_TIMEOUT_MULTIPLIER=..., for one) and
 * check_vm_timeout=SECONDS, the deadline of each program.
 */
#define _GNU_SOURCE
#include <dirent.h>
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
#include <sys/syscall.h>
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

static void
enable_pids_controller(void)
{
	int fd = open("/sys/fs/cgroup/cgroup.subtree_control", O_WRONLY);

	if (fd < 0 || write(fd, "+pids", 5) != 5)
		printf("check-vm: cgroup pids controller: %s\n", strerror(errno));
	if (fd >= 0)
		close(fd);
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

/* Timer servers running (not zombies): processes named libtimerfd, libtimerfd-twin. */
static int
servers_running(void)
{
	DIR *proc = opendir("/proc");
	struct dirent *e;
	int n = 0;

	while (proc && (e = readdir(proc))) {
		char path[300], buf[300] = "";
		char *name;
		FILE *f;

		if (e->d_name[0] < '0' || e->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%s/stat", e->d_name);
		f = fopen(path, "r");
		if (!f)
			continue;
		if (!fgets(buf, sizeof(buf), f))
			buf[0] = '\0';
		fclose(f);
		/* "pid (comm) state ...": comm may hold spaces, the state follows its ')'. */
		name = strchr(buf, '(');
		if (name && strncmp(name, "(libtimerfd", 11) == 0 && strrchr(buf, ')') &&
		    strrchr(buf, ')')[2] != 'Z')
			n++;
	}
	if (proc)
		closedir(proc);
	return n;
}

/* Directories of timer servers (.libtimerfd-*) left in @dir. */
static int
dirs_left(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	while (d && (e = readdir(d)))
		n += strncmp(e->d_name, ".libtimerfd-", 12) == 0;
	if (d)
		closedir(d);
	return n;
}

/* The directories of servers in the places the library uses (here: no $TMPDIR). */
static int
all_dirs_left(void)
{
	return dirs_left("/dev/shm") + dirs_left("/tmp") + dirs_left("/var/tmp");
}

/*
 * After a program ended: the servers it started must end by themselves, and leave no
 * directory beyond the @dirs_before there were, as its kernel timers would leave nothing
 * (waited for up to @wait s, reaping).
 */
static void
check_nothing_left(const char *label, int dirs_before, int wait)
{
	time_t end = time(NULL) + wait;
	int servers, dirs;

	for (;;) {
		while (waitpid(-1, NULL, WNOHANG) > 0)
			;
		servers = servers_running();
		dirs = all_dirs_left() - dirs_before;
		if ((servers == 0 && dirs <= 0) || time(NULL) > end)
			break;
		usleep(20000);
	}
	if (servers || dirs > 0)
		printf("check-vm: left by %s: %d timer servers running, %d directories, %d s after "
		       "it ended\n", label, servers, dirs, wait);
}

/* Every process but this one, killed and reaped: each program starts on a clean machine. */
static void
kill_the_rest(void)
{
	kill(-1, SIGKILL);
	while (waitpid(-1, NULL, 0) > 0 || errno == EINTR)
		;
}

/*
 * Runs one plan line (@label's); returns its status as the shell would give it, or -1 past
 * @deadline s.
 */
static int
run(const char *label, char *line, int deadline)
{
	char *argv[MAX_ARGS + 1];
	int argc = 0, status = 0, dirs_before = all_dirs_left();
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
		/*
		 * CHECK_VM_SH=PATH: /bin/sh becomes PATH, the busybox of the program's own arch
		 * (a shell the program spawns runs under its seccomp filter, which refuses
		 * another arch's calls, as a basic-ABI platform has no other arch).
		 */
		if (getenv("CHECK_VM_SH")) {
			unlink("/bin/sh");
			if (symlink(getenv("CHECK_VM_SH"), "/bin/sh") != 0)
				printf("check-vm: /bin/sh -> %s: %s\n", getenv("CHECK_VM_SH"), strerror(errno));
		}
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
	check_nothing_left(label, dirs_before, 30);
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
	long raw;
	FILE *plan;

	mount_fs("devtmpfs", "/dev", NULL);
	open_console();
	setvbuf(stdout, NULL, _IONBF, 0);
	mount_fs("proc", "/proc", NULL);
	mount_fs("sysfs", "/sys", NULL);
	/* cgroup v2 with the pids controller for the root's children, as systemd sets it up
	 * (the suite's full-pids-cgroup case). */
	mount_fs("cgroup2", "/sys/fs/cgroup", NULL);
	enable_pids_controller();
	mount_fs("tmpfs", "/dev/shm", "mode=1777");
	mount_fs("tmpfs", "/tmp", "mode=1777");
	/* A system's usual descriptor limits (systemd's), not the kernel's 1024/4096 for init. */
	setrlimit(RLIMIT_NOFILE, &(struct rlimit){ 1024, 524288 });
	setenv("PATH", "/bin", 1);
	setenv("HOME", "/", 1);
	uname(&u);
	printf("check-vm: guest kernel %s %s, %ld CPUs\n", u.release, u.machine,
	       sysconf(_SC_NPROCESSORS_ONLN));
	/* The kernel's own answer to the raw call, before any library is involved (the guest
	 * built without CONFIG_TIMERFD must answer ENOSYS here; check-vm.sh checks it). */
	errno = 0;
	raw = syscall(SYS_timerfd_create, CLOCK_MONOTONIC, 0);
	printf("check-vm: raw timerfd_create: %s\n", raw >= 0 ? "a descriptor" : strerror(errno));
	if (raw >= 0)
		close((int)raw);
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
		status = run(line, tab + 1, deadline);
		if (status < 0)
			printf("check-vm: exit %s timeout after %ld s\n", line, (long)(time(NULL) - start));
		else
			printf("check-vm: exit %s %d after %ld s\n", line, status, (long)(time(NULL) - start));
	}
	printf("check-vm: done\n");
	sync();
	/*
	 * A reboot, which qemu's -no-reboot turns into its exit: a kernel with no ACPI (the
	 * tinyconfig one without timerfd) halts at a power-off, and qemu would idle on until
	 * check-vm.sh's VM_TIMEOUT.
	 */
	reboot(RB_AUTOBOOT);
	return 0;
}
