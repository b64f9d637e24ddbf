/* SPDX-License-Identifier: MIT */
/* The processes of this machine, through /proc (procs.h). */
#include "config.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

#include "procs.h"

int
procs_matching(bool (*keep)(const struct proc_entry *p, void *ctx), void *ctx, pid_t *out, int max)
{
	DIR *d = opendir("/proc");
	struct dirent *e;
	int n = 0;

	if (!d)
		return 0;
	while ((e = readdir(d)) && n < max) {
		char path[64], line[512], state;
		struct proc_entry p = { .pid = (pid_t)atoi(e->d_name) };
		struct stat st;
		int ppid;
		FILE *f;

		if (p.pid <= 0)
			continue;
		snprintf(path, sizeof(path), "/proc/%d/stat", (int)p.pid);
		f = fopen(path, "r");
		if (!f)
			continue;
		if (fgets(line, sizeof(line), f) &&
		    sscanf(line, "%*d (%63[^)]) %c %d", p.comm, &state, &ppid) == 3 && state != 'Z') {
			p.ppid = (pid_t)ppid;
			snprintf(path, sizeof(path), "/proc/%d", (int)p.pid);
			p.uid = stat(path, &st) == 0 ? st.st_uid : (uid_t)-1;
			if (keep(&p, ctx))
				out[n++] = p.pid;
		}
		fclose(f);
	}
	closedir(d);
	return n;
}
