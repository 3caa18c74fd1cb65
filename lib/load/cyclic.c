// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../base/cleanup.h"
#include "../base/clock.h"
#include "cyclic.h"
#include "../base/util.h"

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
		if (c->lat_us && c->nlat < c->cap) {
			if (c->wake_ns)
				c->wake_ns[c->nlat] = now;
			c->lat_us[c->nlat++] = lat;
		}
		c->wakeups++;
		next += c->interval_ns;
		while (next <= now) {	/* missed periods are skipped */
			next += c->interval_ns;
			c->overruns++;
		}
	}
}

#define CPU_DMA_LATENCY	"/dev/cpu_dma_latency"

static void dma_latency_close(void *arg)
{
	struct cpu_dma_latency *d = arg;

	/* async-signal-safe: the kernel drops the request on close */
	if (d->fd >= 0)
		close(d->fd);
	d->fd = -1;
}

int cpu_dma_latency_hold(struct cpu_dma_latency *d, int32_t us,
			 char *err, size_t errlen)
{
	d->fd = open(CPU_DMA_LATENCY, O_WRONLY | O_CLOEXEC);
	d->handle = -1;
	d->us = us;
	if (d->fd < 0) {
		snprintf(err, errlen, "%s: %s", CPU_DMA_LATENCY, strerror(errno));
		return -1;
	}
	/* the binary form: a 32-bit number of microseconds */
	if (write(d->fd, &us, sizeof(us)) != sizeof(us)) {
		snprintf(err, errlen, "%s: write: %s", CPU_DMA_LATENCY, strerror(errno));
		close(d->fd);
		d->fd = -1;
		return -1;
	}
	d->handle = cleanup_push(dma_latency_close, d);
	return 0;
}

void cpu_dma_latency_release(struct cpu_dma_latency *d)
{
	if (d->handle >= 0)
		cleanup_run_one(d->handle);
	d->handle = -1;
	d->fd = -1;
}
