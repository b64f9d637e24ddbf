/* SPDX-License-Identifier: MIT */
/*
 * What a temporary-file cleaner (systemd-tmpfiles' age rules, tmpreaper, tmpwatch) does to
 * the emulation's directory, for the tests: found through an emulated timer's /proc link,
 * removed with what is in it.  Raw getdents64, no stdio, no allocation: usable under a
 * program's own seccomp filter (tests/syscall-list-test).
 */
#ifndef TFD_TESTS_CLEANER_H
#define TFD_TESTS_CLEANER_H

#include <stdbool.h>
#include <stddef.h>

/* The outer directory of emulated timer @fd's FIFO (two levels up from it), into @out. */
bool emu_dir_of(int fd, char *out, size_t size);
/*
 * Removes directory @path and everything in it, again until it is gone (the server may make
 * a file in it meanwhile, as under a real cleaner's next run): whether it is gone.
 */
bool remove_tree(const char *path);

#endif /* TFD_TESTS_CLEANER_H */
