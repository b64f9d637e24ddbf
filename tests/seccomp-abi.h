/* SPDX-License-Identifier: MIT */
/*
 * The kernel's seccomp filter ABI, as much as tests/enosys-launcher.c uses (classic BPF from
 * include/uapi/linux/filter.h and bpf_common.h, include/uapi/linux/seccomp.h, and the
 * AUDIT_ARCH values of include/uapi/linux/audit.h), carried here so that the tests build
 * where the compiler has no kernel headers (musl-gcc).  BPF_STMT and BPF_JUMP are the
 * kernel's own names: nothing here includes its header, so they cannot meet.
 */
#ifndef TFD_TESTS_SECCOMP_ABI_H
#define TFD_TESTS_SECCOMP_ABI_H

#include <stdint.h>

struct tfd_sock_filter {
	uint16_t code;
	uint8_t jt;
	uint8_t jf;
	uint32_t k;
};

struct tfd_sock_fprog {
	unsigned short len;
	struct tfd_sock_filter *filter;
};

/* What a filter reads: offsetof() of these fields is the kernel's. */
struct tfd_seccomp_data {
	int nr;
	uint32_t arch;
	uint64_t instruction_pointer;
	uint64_t args[6];
};

/*
 * The classic BPF instructions the filters use, each code spelled whole (the kernel's
 * BPF_LD | BPF_W | BPF_ABS, BPF_JMP | BPF_JEQ | BPF_K, BPF_JMP | BPF_JSET | BPF_K,
 * BPF_ALU | BPF_AND | BPF_K and BPF_RET | BPF_K).  A jump's jt and jf count the
 * instructions it skips, at most 255: a long filter is a chain of short jumps.
 */
#define TFD_BPF_LD_W_ABS 0x20
#define TFD_BPF_JEQ_K 0x15
#define TFD_BPF_JSET_K 0x45
#define TFD_BPF_AND_K 0x54
#define TFD_BPF_RET_K 0x06
/* The longest filter the kernel takes (BPF_MAXINSNS). */
#define TFD_BPF_MAXINSNS 4096
#define BPF_STMT(code, k) { (uint16_t)(code), 0, 0, (uint32_t)(k) }
#define BPF_JUMP(code, k, jt, jf) { (uint16_t)(code), (jt), (jf), (uint32_t)(k) }

#define TFD_SECCOMP_MODE_FILTER 2
#define TFD_SECCOMP_RET_ALLOW 0x7fff0000u
#define TFD_SECCOMP_RET_ERRNO 0x00050000u
#define TFD_SECCOMP_RET_KILL_PROCESS 0x80000000u

#define TFD_AUDIT_ARCH_X86_64 0xc000003eu
#define TFD_AUDIT_ARCH_I386 0x40000003u
#define TFD_AUDIT_ARCH_AARCH64 0xc00000b7u
#define TFD_AUDIT_ARCH_ARM 0x40000028u

/* This build's arch, where the tests know it (a filter checks it first). */
#if defined(__x86_64__) && defined(__ILP32__)
#define TFD_AUDIT_ARCH_SELF TFD_AUDIT_ARCH_X86_64 /* x32 shares it; its numbers carry bit 30 */
#elif defined(__x86_64__)
#define TFD_AUDIT_ARCH_SELF TFD_AUDIT_ARCH_X86_64
#elif defined(__i386__)
#define TFD_AUDIT_ARCH_SELF TFD_AUDIT_ARCH_I386
#elif defined(__aarch64__)
#define TFD_AUDIT_ARCH_SELF TFD_AUDIT_ARCH_AARCH64
#elif defined(__arm__)
#define TFD_AUDIT_ARCH_SELF TFD_AUDIT_ARCH_ARM
#endif

#endif /* TFD_TESTS_SECCOMP_ABI_H */
