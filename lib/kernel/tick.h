/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The kernel's tick as seen from user space: jiffies read from
 * /proc/timer_list, and HZ measured from two such reads.
 */
#ifndef ISOLBENCH_TICK_H
#define ISOLBENCH_TICK_H

#include <signal.h>
#include <stdint.h>

/* The current jiffies; 0, or -1 when /proc/timer_list is unreadable. */
int tick_jiffies(uint64_t *jiffies);
/*
 * HZ from @djiffies counted over @seconds, rounded to the nearest
 * CONFIG_HZ choice (100, 250, 300, 1000); 0 when the measurement is too
 * short or too far from all of them.
 */
int tick_hz_from(uint64_t djiffies, double seconds);
/*
 * Wait until @cpu has taken no local timer interrupt (/proc/interrupts
 * LOC, x86) for @quiet_s, at most @max_s or until *@stop. Returns the
 * seconds until the last one seen (0: none came), -1 when the bound or
 * *@stop came first, -2 when there is no LOC row to read.
 */
double tick_wait_quiet(int cpu, double quiet_s, double max_s,
		       volatile const sig_atomic_t *stop);

#endif
