/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The kernel's tick as seen from user space: jiffies read from
 * /proc/timer_list, and HZ measured from two such reads.
 */
#ifndef ISOLBENCH_TICK_H
#define ISOLBENCH_TICK_H

#include <stdint.h>

/* The current jiffies; 0, or -1 when /proc/timer_list is unreadable. */
int tick_jiffies(uint64_t *jiffies);
/*
 * HZ from @djiffies counted over @seconds, rounded to the nearest
 * CONFIG_HZ choice (100, 250, 300, 1000); 0 when the measurement is too
 * short or too far from all of them.
 */
int tick_hz_from(uint64_t djiffies, double seconds);

#endif
