/* SPDX-License-Identifier: MIT */
/* The userspace timerfd served after the kernel answers ENOSYS: its internal interface. */
#ifndef TFD_EMU_H
#define TFD_EMU_H

#include <stdint.h>
#include <time.h>

/* An itimerspec as the kernel sees it once copied in: 64-bit fields whatever the ABI. */
struct tfd_spec {
	struct {
		int64_t sec;
		int64_t nsec;
	} interval, value;
};

/* Which backend serves timerfd_create(): decided once, from LIBTIMERFD_BACKEND and ENOSYS. */
enum tfd_backend { TFD_BACKEND_UNDECIDED, TFD_BACKEND_KERNEL, TFD_BACKEND_EMULATION };

/* The backend create() must use now: KERNEL or EMULATION, or UNDECIDED (try the kernel). */
enum tfd_backend __tfd_backend(void);
/* The kernel said ENOSYS: switch to the emulation unless the user forbade it; 1 if switched. */
int __tfd_backend_switch_to_emulation(void);

/* Nonzero once any emulated timer has ever existed in this process (cheap fast-path test). */
extern int __tfd_emu_used;
static inline int
__tfd_emu_in_use(void)
{
	return __atomic_load_n(&__tfd_emu_used, __ATOMIC_RELAXED);
}

/* What the calls below return for a descriptor that is open but no emulated timer. */
#define TFD_EMU_NOT_OURS 1
/* What __tfd_emu_identify() says of a timer of another family's, served behind a door. */
#define TFD_ID_DOOR (1L << 30)

/*
 * Whether @fd may be an emulated timer: its slot's index + 1 (this process's family),
 * TFD_ID_DOOR (maybe another's), 0 not one, -EBADF not open; its FIFO's @dev and @ino.
 */
long __tfd_emu_identify(int fd, uint64_t *dev, uint64_t *ino);
/*
 * The three calls, kernel semantics and errno order, returning a value or
 * -errno; settime and gettime take what __tfd_emu_identify() said of @fd
 * (@id, @ino) and return TFD_EMU_NOT_OURS when it is no emulated timer.
 */
long __tfd_emu_create(clockid_t clockid, int flags);
long __tfd_emu_settime(int fd, long id, uint64_t dev, uint64_t ino, int flags,
		       const struct tfd_spec *new_value, struct tfd_spec *old_value);
long __tfd_emu_gettime(int fd, long id, uint64_t dev, uint64_t ino, struct tfd_spec *curr_value);

#endif /* TFD_EMU_H */
