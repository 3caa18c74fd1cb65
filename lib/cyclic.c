// SPDX-License-Identifier: GPL-2.0
#include <time.h>

#include "cleanup.h"
#include "clock.h"
#include "cyclic.h"
#include "util.h"

void cyclic_loop(struct cyclic *c)
{
	uint64_t max = c->max_wakeups ? c->max_wakeups : UINT64_MAX;
	uint64_t now = mono_ns(), next = now + c->interval_ns;
	uint64_t end = c->duration_ns ? now + c->duration_ns : UINT64_MAX;
	struct timespec ts;

	while (c->wakeups < max && next <= end && !bench_stop &&
	       !(c->stop && *c->stop)) {
		double lat;

		ts.tv_sec = next / NSEC_PER_SEC;
		ts.tv_nsec = next % NSEC_PER_SEC;
		if (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL))
			break;	/* EINTR: the stop signal */
		now = mono_ns();
		lat = ((double)now - (double)next) / 1000;
		c->early += now < next;
		if (c->h)
			hist_add(c->h, lat);
		if (c->lat_us && c->nlat < c->cap)
			c->lat_us[c->nlat++] = lat;
		c->wakeups++;
		next += c->interval_ns;
		while (next <= now) {	/* missed periods are skipped */
			next += c->interval_ns;
			c->overruns++;
		}
	}
}
