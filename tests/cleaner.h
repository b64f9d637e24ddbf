/* SPDX-License-Identifier: MIT */
/*
 * What a temporary-file cleaner (systemd-tmpfiles' age rules, tmpreaper, tmpwatch) does to
 * the emulation's directory, for the tests (found with tests/dirs.h's library_dir_of()):
 * removed with what is in it.  Through dir_any() (tests/dirs.h): no stdio, no allocation,
 * usable under a program's own seccomp filter (tests/syscall-list-test).
 */
#ifndef TFD_TESTS_CLEANER_H
#define TFD_TESTS_CLEANER_H

#include <stdbool.h>
#include <stddef.h>

/*
 * Removes directory @path and everything in it, again until it is gone (the server may make
 * a file in it meanwhile, as under a real cleaner's next run): whether it is gone.
 */
bool remove_tree(const char *path);

#endif /* TFD_TESTS_CLEANER_H */
