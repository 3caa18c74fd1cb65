// SPDX-License-Identifier: GPL-2.0
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../base/clock.h"
#include "counters.h"
#include "tick.h"
#include "../base/util.h"

int tick_jiffies(uint64_t *jiffies)
{
	char *s = read_file_all("/proc/timer_list", NULL);
	char *p, *end;
	int ret = -1;

	if (!s)
		return -1;
	/* the first "jiffies: N" line, at the start of a line */
	for (p = strstr(s, "jiffies: "); p; p = strstr(p + 1, "jiffies: ")) {
		if (p != s && p[-1] != '\n')
			continue;
		*jiffies = strtoull(p + 9, &end, 10);
		if (end != p + 9)
			ret = 0;
		break;
	}
	free(s);
	return ret;
}

int tick_hz_from(uint64_t djiffies, double seconds)
{
	static const int choices[] = { 100, 250, 300, 1000 };
	double hz;

	if (seconds < 0.2)
		return 0;
	hz = djiffies / seconds;
	for (size_t i = 0; i < ARRAY_SIZE(choices); i++)
		if (fabs(hz - choices[i]) <= 0.05 * choices[i])
			return choices[i];
	return 0;
}

/* @cpu's LOC count, or -1. */
static int64_t tick_loc(int cpu)
{
	struct irq_table t;
	int64_t n;

	if (irq_table_read("/proc/interrupts", &t))
		return -1;
	n = irq_table_count(&t, "LOC", cpu);
	irq_table_free(&t);
	return n;
}

double tick_wait_quiet(int cpu, double quiet_s, double max_s,
		       volatile const sig_atomic_t *stop)
{
	uint64_t t0 = mono_ns(), since = t0, now;
	int64_t last = tick_loc(cpu), n;

	if (last < 0)
		return -2;
	while (!(stop && *stop)) {
		usleep(20000);
		now = mono_ns();
		n = tick_loc(cpu);
		if (n < 0)
			return -2;
		if (n != last) {
			last = n;
			since = now;
		} else if (now - since >= quiet_s * 1e9) {
			return (since - t0) / 1e9;
		}
		if (now - t0 >= max_s * 1e9)
			return -1;
	}
	return -1;
}
