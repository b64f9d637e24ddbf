/* SPDX-License-Identifier: MIT */
/*
 * How slow a test run may be, for every test program (those without Check too): what the
 * bounds of what must happen "soon" are scaled by.
 */
#ifndef TFD_TEST_SLOWNESS_H
#define TFD_TEST_SLOWNESS_H

#include <stdbool.h>

/* Whether the tests run under qemu-user (make check-cross names it in TEST_RUNNER). */
bool under_qemu(void);
/*
 * Whether this process runs under valgrind: its preload library is in LD_PRELOAD (what it
 * sets in every process it runs, whatever started it, so no environment of make's is needed).
 */
bool under_valgrind(void);
/*
 * How much slower than an idle native machine this run may be: CK_TIMEOUT_MULTIPLIER (as
 * Check scales its own timeouts by it; make check-cross, check-vm and check-valgrind set
 * it), and at least 10 under qemu-user or a test wrapper (valgrind) where nothing set it.
 */
int slowness(void);

#endif /* TFD_TEST_SLOWNESS_H */
