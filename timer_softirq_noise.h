/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The quiet and control windows as a noise measurement (after rtla
 * osnoise): the busy loop logs every gap in its own progress over
 * --noise-threshold, and each gap is attributed from the window's trace
 * to what ran on the CPU in it (timer_softirq_gaps.h): hard IRQs by
 * vector or name, softirqs by type, IPIs by where they came from, the
 * threads that preempted the loop. Unexplained gaps are reported with
 * the hypervisor's steal over the same windows. Here are the noise's
 * report, its metrics and its verdicts, for the quiet and control
 * phases; timer_softirq_windows.c attributes each window's gaps.
 */
#ifndef ISOLBENCH_TIMER_SOFTIRQ_NOISE_H
#define ISOLBENCH_TIMER_SOFTIRQ_NOISE_H

#include "timer_softirq_windows.h"

/*
 * The noise of @what's windows @set, by source; with @metrics, a count
 * metric per source (the family noise_sources), the unexplained gaps
 * and the time lost.
 */
void timer_softirq_noise_report(struct bench *b, const struct ts_run *r, const char *what,
				const struct ts_window_set *set, bool metrics);
/* Every gap of @what's windows attributed or counted unexplained: the result @name. */
void timer_softirq_noise_verdict(struct bench *b, const struct ts_run *r,
				 const struct ts_window_set *set, const char *what,
				 const char *name);
/*
 * The control's sleeper preempts the loop once per timeout: at least
 * RECALL_MIN_PCT% of the timeouts must be runs of it that the loop
 * noticed as a gap (clocks and attribution agree). One result.
 */
void timer_softirq_noise_control_verdict(struct bench *b, const struct ts_run *r,
					 const char *name);

#endif
