// SPDX-License-Identifier: GPL-2.0
#include "timer_softirq_common.h"

static void rows_add(struct cpu_events *s)
{
	timer_softirq_events_row(s, ROW_LOC, "/proc/interrupts", "LOC");
	timer_softirq_events_row(s, ROW_TIMER, "/proc/softirqs", "TIMER");
	timer_softirq_events_row(s, ROW_HRTIMER, "/proc/softirqs", "HRTIMER");
}

void timer_softirq_common_rows_open(struct cpu_events *s, int cpu)
{
	timer_softirq_events_init(s, cpu);
	rows_add(s);
}

void timer_softirq_common_counters_open(struct cpu_events *k, int cpu)
{
	timer_softirq_events_init(k, cpu);
	timer_softirq_events_tracepoint(k, EV_TIMER_RAISE, "irq:softirq_raise", "vec == 1");
	timer_softirq_events_tracepoint(k, EV_TIMER_RUN, "irq:softirq_entry", "vec == 1");
	timer_softirq_events_tracepoint(k, EV_HRTIMER_RUN, "irq:softirq_entry", "vec == 8");
	timer_softirq_events_tracepoint(k, EV_TIMER_EXPIRE, "timer:timer_expire_entry", NULL);
	timer_softirq_events_tracepoint(k, EV_HRTIMER_EXPIRE, "timer:hrtimer_expire_entry", NULL);
	rows_add(k);
}
