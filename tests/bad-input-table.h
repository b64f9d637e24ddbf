/* SPDX-License-Identifier: MIT */
/* Every bad input we know of, and what the kernel answers to it (tests/bad-input-table.c). */
#ifndef TFD_TEST_BAD_INPUT_TABLE_H
#define TFD_TEST_BAD_INPUT_TABLE_H

#include <stddef.h>
#include <time.h>

/* The call a row makes. */
enum bad_op { BAD_CREATE, BAD_SETTIME, BAD_GETTIME, BAD_READ, BAD_WRITE };

/* The descriptor a row passes (settime, gettime, read, write). */
enum bad_fd {
	FD_TIMER,          /* a fresh disarmed timerfd, CLOCK_MONOTONIC, non-blocking */
	FD_REALTIME_TIMER, /* the same on CLOCK_REALTIME */
	FD_EXPIRED_TIMER,  /* a non-blocking timerfd with one expiration to read */
	FD_CLOSED,         /* a number that is not open */
	FD_MINUS_ONE,
	FD_INT_MAX,
	FD_DEV_NULL,       /* open, but not a timerfd */
	FD_PIPE,
	FD_EVENTFD,        /* a counter that polls like a timer, yet not one */
};

/* A pointer a row passes (settime's new and old value, gettime's, read's and write's buffer). */
enum bad_ptr {
	PTR_OK,        /* valid (settime's new value: the row's value) */
	PTR_NULL,      /* NULL (for settime's old value, no old value wanted: not bad) */
	PTR_NO_ACCESS, /* a PROT_NONE page */
	PTR_READ_ONLY, /* a PROT_READ page: readable, not writable */
};

struct bad_input {
	const char *what;
	enum bad_op op;
	clockid_t clock;        /* create */
	int flags;              /* create, settime */
	enum bad_fd fd;         /* settime, gettime, read, write */
	enum bad_ptr ptr;       /* settime's new value, gettime's current value, the buffer */
	enum bad_ptr old;       /* settime's old value */
	struct itimerspec value;/* settime's new value */
	size_t len;             /* read's and write's length */
	int err;                /* the kernel's errno; 0 where the kernel accepts the call */
	/* Where the emulation differs by design (man 7 libtimerfd, "Limits of the emulation"):
	 * its errno there, and why.  Rows without a reason get the same answer from both. */
	int emulation_err;
	const char *emulation_differs;
	/* Where qemu-user, which runs the suite for other arches (make check-cross), answers
	 * for the kernel and answers otherwise: its errno there, and why. */
	int qemu_err;
	const char *qemu_differs;
};

extern const struct bad_input bad_inputs[];
extern const size_t n_bad_inputs;

#endif /* TFD_TEST_BAD_INPUT_TABLE_H */
