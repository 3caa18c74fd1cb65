/* SPDX-License-Identifier: GPL-2.0 */
/*
 * timer_softirq's phases (lib/harness/phase.h), one file each, in the
 * order of timer_softirq.c's table.
 */
#ifndef ISOLBENCH_TIMER_SOFTIRQ_PHASES_H
#define ISOLBENCH_TIMER_SOFTIRQ_PHASES_H

#include "lib/harness/phase.h"

extern const struct phase timer_softirq_quiet_phase;	/* timer_softirq_quiet.c */
extern const struct phase timer_softirq_control_phase;	/* timer_softirq_control.c */
extern const struct phase timer_softirq_tick_phase;	/* timer_softirq_tick.c */
extern const struct phase timer_softirq_cyclic_phase;	/* timer_softirq_cyclic.c */

#endif
