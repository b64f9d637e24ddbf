/* SPDX-License-Identifier: MIT */
/* Making the server's processes: quiet clones, the twin's clone, the robust death mark. */
#ifndef TFD_EMU_PROCESS_H
#define TFD_EMU_PROCESS_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

/*
 * A child with no exit signal where the kernel takes one (the program gets no SIGCHLD for
 * it, its wait(-1) never reaps it), never traced by the caller's tracer (CLONE_UNTRACED:
 * strace -f and gdb end with the program): 0 in the child, its pid, or -1 with errno.
 */
pid_t __tfd_clone_quiet(void);
/*
 * The same, sharing the caller's descriptor table where the kernel allows it
 * (CLONE_FILES): *@shared says whether it does.
 */
pid_t __tfd_clone_twin(bool *shared);
/*
 * Whether this process runs under valgrind, which ends a process that asks for a clone it
 * does not implement (anything but a thread's or fork's flags) rather than refusing it.
 * Known by its preload library, which it puts in every client's LD_PRELOAD.
 */
bool __tfd_under_valgrind(void);
/*
 * Registers @word as this thread's one robust futex and stores its thread id there: at
 * its death, however it dies, the kernel sets TFD_OWNER_DIED in it and wakes a waiter.
 */
void __tfd_robust_mark(uint32_t *word);
/*
 * Registers @word as this thread's one robust futex, storing nothing: the kernel marks it at
 * the thread's death only once it holds the thread's id, so a compare-and-swap that claims
 * it is marked from that instant (no window between the claim and the registration).
 */
void __tfd_robust_watch(uint32_t *word);

/* The highest realtime priority (SCHED_FIFO, SCHED_RR): sched(7). */
#define TFD_RT_PRIO_MAX 99
/*
 * The realtime priority (SCHED_FIFO or SCHED_RR) of thread or process @pid (0: the calling
 * thread), or 0 for any other policy or where it cannot be read.
 */
int __tfd_rt_priority(pid_t pid);
struct tfd_spec;
/* What a settime of @spec by @pid records in the slot: its priority, 0 for a disarm. */
int __tfd_rt_priority_arming(const struct tfd_spec *spec, pid_t pid);
/*
 * This process runs at realtime priority @prio (SCHED_FIFO), or at the normal policy for 0,
 * where the kernel allows it (RLIMIT_RTPRIO, CAP_SYS_NICE): whether it does now.
 */
bool __tfd_rt_become(int prio);

#endif /* TFD_EMU_PROCESS_H */
