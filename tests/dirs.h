/* SPDX-License-Identifier: MIT */
/* Directories as the tests look into them (dirs.c). */
#ifndef TFD_TESTS_DIRS_H
#define TFD_TESTS_DIRS_H

#include <stdbool.h>
#include <stddef.h>

/* The number of entries of directory @path but "." and "..", or -1 if it cannot be read. */
int dir_entries(const char *path);

/*
 * Calls @fn(@d, name, @arg) for each entry of directory @d but "." and "..", until it answers
 * true: whether one did.  Raw getdents64, or the old getdents where the kernel answers ENOSYS
 * to it (the basic ABI's: readdir() of the C library takes getdents64 alone there).  No stdio,
 * no allocation: usable under a program's own seccomp filter (tests/syscall-list-test).
 */
bool dir_any(int d, bool (*fn)(int d, const char *name, void *arg), void *arg);

/*
 * The directory of the server that serves the emulated timer @fd, as its process finds it
 * (/proc/self/fd: its FIFO is <dir>/<secret>/<name>, " (deleted)" once its name went; without
 * /proc, the library's directory whose FIFO has @fd's inode), in @out of @size bytes: false
 * where there is none (the kernel's timer, a timer with no name where /proc is not mounted).
 */
bool library_dir_of(int fd, char *out, size_t size);

#endif /* TFD_TESTS_DIRS_H */
