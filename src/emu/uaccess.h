/* SPDX-License-Identifier: MIT */
/* Copies to and from the caller's memory: 0, or -EFAULT on a bad pointer, as the kernel's. */
#ifndef TFD_EMU_UACCESS_H
#define TFD_EMU_UACCESS_H

#include <stddef.h>

long __tfd_copy_from_user(void *dst, const void *user_src, size_t n);
long __tfd_copy_to_user(void *user_dst, const void *src, size_t n);

#endif /* TFD_EMU_UACCESS_H */
