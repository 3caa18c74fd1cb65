/* SPDX-License-Identifier: GPL-2.0 */
/*
 * x86 for lib/base/arch.h: fenced TSC reads, and the CPUID leaves that
 * say whether the TSC is invariant and which hypervisor runs us.
 */
#ifndef ISOLBENCH_ARCH_X86_H
#define ISOLBENCH_ARCH_X86_H

#include <cpuid.h>

#define HAVE_COUNTER	1
#define COUNTER_NAME	"tsc"

/*
 * lfence before rdtsc keeps earlier instructions from drifting past the
 * start stamp; rdtscp plus lfence at the end waits for the measured work
 * and keeps later work from starting before the stamp.
 */
static inline uint64_t counter_read_start(void)
{
	uint32_t lo, hi;

	asm volatile("lfence\n\trdtsc" : "=a"(lo), "=d"(hi) :: "memory");
	return (uint64_t)hi << 32 | lo;
}

static inline uint64_t counter_read_end(void)
{
	uint32_t lo, hi, aux;

	asm volatile("rdtscp\n\tlfence" : "=a"(lo), "=d"(hi), "=c"(aux) :: "memory");
	return (uint64_t)hi << 32 | lo;
}

/* CPUID.80000007H:EDX[8]: the TSC ticks at a constant rate in all states. */
static inline bool counter_usable(void)
{
	unsigned int a, b, c, d;

	if (!__get_cpuid(0x80000007, &a, &b, &c, &d))
		return false;
	return d & (1u << 8);
}

/* The TSC's rate is the kernel's to say (clock_counter_hz_kernel()). */
static inline uint64_t counter_hz_arch(void)
{
	return 0;
}

/* The hypervisor vendor signature (CPUID 0x40000000), "" on bare metal. */
static inline void cpu_hypervisor_signature(char sig[13])
{
	unsigned int a, b, c, d;

	sig[0] = '\0';
	if (!__get_cpuid(1, &a, &b, &c, &d) || !(c & (1u << 31)))
		return;
	__cpuid(0x40000000, a, b, c, d);
	__builtin_memcpy(sig, &b, 4);
	__builtin_memcpy(sig + 4, &c, 4);
	__builtin_memcpy(sig + 8, &d, 4);
	sig[12] = '\0';
}

/*
 * A raw syscall with two arguments, inline: no libc wrapper between the
 * measured loop and the kernel's entry code.
 */
static inline long arch_syscall2(long nr, long a1, long a2)
{
#ifdef __x86_64__
	long ret;

	asm volatile("syscall" : "=a"(ret) : "a"(nr), "D"(a1), "S"(a2)
		     : "rcx", "r11", "memory");
	return ret;
#else
	return syscall(nr, a1, a2);
#endif
}

#endif
