/* SPDX-License-Identifier: MIT */
/* The processes of this machine, through /proc, for the tests that look for timer servers. */
#ifndef TFD_TESTS_PROCS_H
#define TFD_TESTS_PROCS_H

#include <stdbool.h>
#include <sys/types.h>

/* A process as /proc/PID/stat and /proc/PID show it. */
struct proc_entry {
	pid_t pid, ppid;
	uid_t uid;    /* the owner of /proc/PID */
	char comm[64];
};

/*
 * Every process of /proc that has not ended (no zombie), given to @keep: up to @max of those
 * it keeps go into @out, how many.  0 where /proc cannot be read.
 */
int procs_matching(bool (*keep)(const struct proc_entry *p, void *ctx), void *ctx, pid_t *out, int max);

#endif /* TFD_TESTS_PROCS_H */
