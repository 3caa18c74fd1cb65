/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the harness needs of the CPU, one header per architecture:
 *
 *	HAVE_COUNTER		a user-readable cycle counter exists
 *	COUNTER_NAME		its name in results ("tsc", "cntvct_el0")
 *	counter_read_start()	a stamp later work cannot precede
 *	counter_read_end()	a stamp taken after the measured work
 *	counter_usable()	it ticks at a constant rate, so it can time
 *	counter_hz_arch()	its frequency as the CPU states it, or 0
 *	arch_syscall2()		a raw syscall with no libc wrapper
 *
 * Elsewhere the harness times with clock_gettime() (lib/base/clock.c).
 */
#ifndef ISOLBENCH_ARCH_H
#define ISOLBENCH_ARCH_H

#include <stdbool.h>
#include <stdint.h>
#include <unistd.h>

#if defined(__x86_64__) || defined(__i386__)
#include "arch_x86.h"
#elif defined(__aarch64__)
#include "arch_arm64.h"
#else
#define HAVE_COUNTER	0
#define COUNTER_NAME	"none"

static inline long arch_syscall2(long nr, long a1, long a2)
{
	return syscall(nr, a1, a2);
}

static inline uint64_t counter_read_start(void) { return 0; }
static inline uint64_t counter_read_end(void) { return 0; }
static inline bool counter_usable(void) { return false; }
static inline uint64_t counter_hz_arch(void) { return 0; }
#endif

#endif
