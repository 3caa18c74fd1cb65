/* SPDX-License-Identifier: GPL-2.0 */
/*
 * arm64 for lib/base/arch.h: the generic timer's virtual counter
 * CNTVCT_EL0, which Linux lets user space read, at the rate CNTFRQ_EL0
 * states (firmware sets it; the architecture fixes it at 1 GHz from
 * Armv8.6).
 */
#ifndef ISOLBENCH_ARCH_ARM64_H
#define ISOLBENCH_ARCH_ARM64_H

#define HAVE_COUNTER	1
#define COUNTER_NAME	"cntvct_el0"

/*
 * The counter may be read early, before instructions ahead of it in
 * program order complete: an isb first makes the read wait for them.
 */
static inline uint64_t counter_read_start(void)
{
	uint64_t v;

	asm volatile("isb\n\tmrs %0, cntvct_el0" : "=r"(v) :: "memory");
	return v;
}

/* ...and the isb after the read keeps later work from starting before it. */
static inline uint64_t counter_read_end(void)
{
	uint64_t v;

	asm volatile("isb\n\tmrs %0, cntvct_el0\n\tisb" : "=r"(v) :: "memory");
	return v;
}

static inline uint64_t counter_hz_arch(void)
{
	uint64_t hz;

	asm volatile("mrs %0, cntfrq_el0" : "=r"(hz));
	return hz;
}

/* The counter runs at a constant rate by definition; firmware must set its rate. */
static inline bool counter_usable(void)
{
	return counter_hz_arch() != 0;
}

/* A raw syscall with two arguments: svc with the number in x8. */
static inline long arch_syscall2(long nr, long a1, long a2)
{
	register long x8 asm("x8") = nr;
	register long x0 asm("x0") = a1;
	register long x1 asm("x1") = a2;

	asm volatile("svc #0" : "+r"(x0) : "r"(x8), "r"(x1) : "memory");
	return x0;
}

#endif
