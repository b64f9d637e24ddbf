/* SPDX-License-Identifier: MIT */
/* Fallback for ABIs without a table of ours: take the numbers from the system headers. */
#include <sys/syscall.h>

#define TFD_NR_create SYS_timerfd_create
#define TFD_NR_settime SYS_timerfd_settime
#define TFD_NR_gettime SYS_timerfd_gettime
