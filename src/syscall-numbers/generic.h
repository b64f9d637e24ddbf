/* SPDX-License-Identifier: MIT */
/* Fallback for ABIs without a table of ours: take the numbers from the system headers. */
#include <sys/syscall.h>

/* Lets a test tell this fallback from a table of ours. */
#define TFD_NR_FROM_SYSTEM_HEADERS 1

#define TFD_NR_create SYS_timerfd_create
#define TFD_NR_settime SYS_timerfd_settime
#define TFD_NR_gettime SYS_timerfd_gettime
#ifdef SYS_timerfd_settime64
#define TFD_NR_settime64 SYS_timerfd_settime64
#define TFD_NR_gettime64 SYS_timerfd_gettime64
#endif
