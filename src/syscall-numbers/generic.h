/* SPDX-License-Identifier: MIT */
/* Fallback for ABIs without a table of ours: take the numbers from the system headers. */
#include <sys/syscall.h>

/* Lets a test tell this fallback from a table of ours. */
#define TFD_NR_FROM_SYSTEM_HEADERS 1

#define TFD_NR_create SYS_timerfd_create
#if defined(SYS_timerfd_settime)
#define TFD_NR_settime SYS_timerfd_settime
#define TFD_NR_gettime SYS_timerfd_gettime
#elif defined(SYS_timerfd_settime32)
/* musl names the 32-bit time calls so where its own time_t is 64-bit. */
#define TFD_NR_settime SYS_timerfd_settime32
#define TFD_NR_gettime SYS_timerfd_gettime32
#endif
#ifdef SYS_timerfd_settime64
#define TFD_NR_settime64 SYS_timerfd_settime64
#define TFD_NR_gettime64 SYS_timerfd_gettime64
#endif
