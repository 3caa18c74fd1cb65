// SPDX-License-Identifier: GPL-2.0
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/base/clock.h"
#include "timer_softirq_events.h"
#include "lib/kernel/kconfig.h"
#include "lib/kernel/tick.h"
#include "lib/base/util.h"

void timer_softirq_events_init(struct cpu_events *s, int cpu)
{
	memset(s, 0, sizeof(*s));
	s->cpu = cpu;
	for (int i = 0; i < CPU_EVENTS_MAX; i++)
		s->c[i].fd = -1;
	s->have_jiffies = !tick_jiffies(&s->jiffies0);
}

static int ev_slot(struct cpu_events *s, int i)
{
	if (i < 0 || i >= CPU_EVENTS_MAX)
		return -1;
	if (s->nev <= i)
		s->nev = i + 1;
	return 0;
}

int timer_softirq_events_tracepoint(struct cpu_events *s, int i, const char *event,
				    const char *filter)
{
	if (ev_slot(s, i))
		return -1;
	return counter_open_tracepoint(&s->c[i], event, filter, -1, s->cpu);
}

void timer_softirq_events_missing(struct cpu_events *s, int i, const char *reason)
{
	if (ev_slot(s, i))
		return;
	counter_close(&s->c[i]);
	s->c[i] = (struct counter){ .fd = -1 };
	snprintf(s->c[i].error, sizeof(s->c[i].error), "%s", reason);
}

const char *timer_softirq_events_error(const struct cpu_events *s, int i)
{
	return s->c[i].fd >= 0 ? "" : s->c[i].error;
}

int timer_softirq_events_row(struct cpu_events *s, int i, const char *path,
			     const char *name)
{
	int f;

	if (i < 0 || i >= CPU_EVENTS_MAX_ROWS)
		return -1;
	for (f = 0; f < s->nfiles && strcmp(s->files[f], path); f++)
		;
	if (f == s->nfiles) {
		if (f == CPU_EVENTS_MAX_FILES)
			return -1;
		s->files[s->nfiles++] = path;
	}
	s->rows[i].name = name;
	s->rows[i].file = f;
	if (s->nrows <= i)
		s->nrows = i + 1;
	return 0;
}

void timer_softirq_events_begin(struct cpu_events *s)
{
	for (int i = 0; i < s->nev; i++)
		if (s->c[i].fd >= 0)
			counter_enable(&s->c[i]);
	for (int f = 0; f < s->nfiles; f++)
		irq_table_read(s->files[f], &s->before[f]);
	if (s->have_jiffies)
		tick_jiffies(&s->jiffies0);
	s->t0_ns = mono_ns();
}

void timer_softirq_events_end(struct cpu_events *s, struct cpu_window *w)
{
	struct irq_table after[CPU_EVENTS_MAX_FILES] = { 0 };
	uint64_t j1;
	char hz[16];
	uint64_t hz_cfg;

	w->seconds = (mono_ns() - s->t0_ns) / 1e9;
	for (int i = 0; i < CPU_EVENTS_MAX; i++) {
		w->ev[i] = UINT64_MAX;
		if (i < s->nev && s->c[i].fd >= 0) {
			counter_disable(&s->c[i]);
			w->ev[i] = counter_read(&s->c[i]);
		}
	}
	for (int f = 0; f < s->nfiles; f++)
		irq_table_read(s->files[f], &after[f]);
	for (int i = 0; i < CPU_EVENTS_MAX_ROWS; i++)
		w->row[i] = i < s->nrows && s->rows[i].name ?
			    irq_table_delta(&s->before[s->rows[i].file],
					    &after[s->rows[i].file],
					    s->rows[i].name, s->cpu) : -1;
	w->jiffies = s->have_jiffies && !tick_jiffies(&j1) ? j1 - s->jiffies0 : 0;
	/*
	 * The kernel's own CONFIG_HZ when its config is readable: under
	 * emulation jiffies against the clock can be far from it.
	 */
	if (!kconfig_value("CONFIG_HZ", hz, sizeof(hz)) && !parse_u64(hz, &hz_cfg) &&
	    hz_cfg > 0 && hz_cfg <= 10000)
		w->hz = (int)hz_cfg;
	else
		w->hz = tick_hz_from(w->jiffies, w->seconds);
	for (int f = 0; f < s->nfiles; f++) {
		irq_table_free(&s->before[f]);
		irq_table_free(&after[f]);
	}
}

void timer_softirq_events_close(struct cpu_events *s)
{
	for (int i = 0; i < s->nev; i++)
		counter_close(&s->c[i]);
}

double timer_softirq_window_ev(const struct cpu_window *w, int i)
{
	return w->ev[i] == UINT64_MAX ? NAN : (double)w->ev[i];
}
