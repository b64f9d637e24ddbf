/* SPDX-License-Identifier: MIT */
/* Directories as the tests look into them (dirs.c). */
#ifndef TFD_TESTS_DIRS_H
#define TFD_TESTS_DIRS_H

/* The number of entries of directory @path but "." and "..", or -1 if it cannot be read. */
int dir_entries(const char *path);

#endif /* TFD_TESTS_DIRS_H */
