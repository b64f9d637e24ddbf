/* SPDX-License-Identifier: MIT */
/* Declarations shared by the library's sources and never installed. */
#ifndef TFD_INTERNAL_H
#define TFD_INTERNAL_H

/* Everything is hidden (-fvisibility=hidden) but the public entry points. */
#define TFD_EXPORT __attribute__((visibility("default")))

/* Turn a -errno result into -1 with errno set; pass any other result through. */
long __tfd_ret(long r);

#endif /* TFD_INTERNAL_H */
