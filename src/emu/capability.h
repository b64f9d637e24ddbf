/* SPDX-License-Identifier: MIT */
/*
 * The kernel's capget(2)/capset(2) ABI (include/uapi/linux/capability.h), carried here so
 * that nothing needs the kernel's headers: some C libraries' compilers have none (musl-gcc).
 */
#ifndef TFD_EMU_CAPABILITY_H
#define TFD_EMU_CAPABILITY_H

#include <stdint.h>

#define TFD_CAP_VERSION_3 0x20080522u /* _LINUX_CAPABILITY_VERSION_3: two data words */
#define TFD_CAP_WAKE_ALARM 35         /* CAP_WAKE_ALARM */

struct tfd_cap_header {
	uint32_t version;
	int pid;
};

struct tfd_cap_data {
	uint32_t effective;
	uint32_t permitted;
	uint32_t inheritable;
};

#endif /* TFD_EMU_CAPABILITY_H */
