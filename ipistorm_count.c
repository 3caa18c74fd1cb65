// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ipistorm_count.h"
#include "lib/base/util.h"

/*
 * ipi_send_cpumask filtered to the target (@filter, with CPUS{}). The
 * filters of 6.3-6.5 have no CPUS{}: there it counts the sender's sends
 * to any mask (@any). A send to a single CPU goes through ipi_send_cpu
 * even from smp_call_function_many(), so a storm to one dst counts
 * exactly there, unless it sent to a mask.
 */
static int ipi_mask_open(struct ipi_count *c, const char *filter, const char *any,
			 int from)
{
	c->have_mask = !counter_open_tracepoint(&c->sent_mask, "ipi:ipi_send_cpumask",
						filter, -1, from);
	if (c->have_mask)
		return 0;
	if (errno != EINVAL || !strstr(c->sent_mask.error, "rejected"))
		return -1;	/* not the filter: the tracepoint or the open */
	return counter_open_tracepoint(&c->sent_mask, "ipi:ipi_send_cpumask", any, -1, from);
}

int ipistorm_count_open(struct ipi_count *c, int from, int to, const char *sender)
{
	char f[160], fe[160], fm[192], fa[160], who[96] = "";

	memset(c, 0, sizeof(*c));
	c->sent.fd = c->sent_mask.fd = c->elided.fd = c->queued.fd = -1;
	/*
	 * common_pid is whoever ran when the tracepoint fired: sends from an
	 * interrupt that hit the sender (the tick's idle-balance kick, ...)
	 * are not its own. Task context only: no hardirq (0x08), softirq
	 * (0x10) or NMI (0x40) bit in common_flags.
	 */
	if (sender)
		snprintf(who, sizeof(who), " && %s && !(common_flags & 88)", sender);
	/* callback 0 is a reschedule IPI, not a function call */
	snprintf(f, sizeof(f), "cpu == %d && callback != 0%s", to, who);
	snprintf(fm, sizeof(fm), "cpumask & CPUS{%d} && callback != 0%s", to, who);
	snprintf(fe, sizeof(fe), "cpu == %d%s", to, who);
	snprintf(fa, sizeof(fa), "callback != 0%s", who);
	if (counter_open_tracepoint(&c->sent, "ipi:ipi_send_cpu", f, -1, from) ||
	    ipi_mask_open(c, fm, fa, from) ||
	    counter_open_tracepoint(&c->elided, "sched:sched_wake_idle_without_ipi",
				    fe, -1, from)) {
		snprintf(c->why, sizeof(c->why), "%s", c->sent.fd < 0 ? c->sent.error :
			 c->sent_mask.fd < 0 ? c->sent_mask.error : c->elided.error);
		/* the ones that did open */
		counter_close(&c->sent);
		counter_close(&c->sent_mask);
		counter_close(&c->elided);
		return -1;
	}
	c->have_queued = !counter_open_tracepoint(&c->queued, "csd:csd_queue_cpu",
						  fe, -1, from);
	return 0;
}

void ipistorm_count_enable(struct ipi_count *c, bool on)
{
	struct counter *all[] = { &c->sent, &c->sent_mask, &c->elided, &c->queued };

	for (size_t i = 0; i < ARRAY_SIZE(all); i++) {
		if (all[i]->fd < 0)
			continue;
		if (on)
			counter_enable(all[i]);
		else
			counter_disable(all[i]);
	}
}

int ipistorm_count_read(struct ipi_count *c)
{
	uint64_t sent, mask, elided, queued = 0;

	c->real = c->elided_n = c->queued_n = 0;
	if (c->sent.fd < 0) {
		snprintf(c->why, sizeof(c->why), "the IPI counters are not open");
		return -1;
	}
	/* counter_read() says UINT64_MAX when the read failed */
	sent = counter_read(&c->sent);
	mask = counter_read(&c->sent_mask);
	elided = counter_read(&c->elided);
	if (c->have_queued)
		queued = counter_read(&c->queued);
	if (sent == UINT64_MAX || mask == UINT64_MAX || elided == UINT64_MAX) {
		snprintf(c->why, sizeof(c->why), "reading the %s counter failed",
			 sent == UINT64_MAX ? "ipi_send_cpu" :
			 mask == UINT64_MAX ? "ipi_send_cpumask" :
			 "sched_wake_idle_without_ipi");
		return -1;
	}
	if (!c->have_mask && mask) {
		snprintf(c->why, sizeof(c->why),
			 "%llu sends to a CPU mask, targets unknown: trace filters have no CPUS{} before Linux 6.6",
			 (unsigned long long)mask);
		return -1;
	}
	if (queued == UINT64_MAX) {	/* optional: not counted */
		c->have_queued = false;
		queued = 0;
	}
	c->real = sent + mask;
	c->elided_n = elided;
	c->queued_n = queued;
	return 0;
}

void ipistorm_count_close(struct ipi_count *c)
{
	counter_close(&c->sent);
	counter_close(&c->sent_mask);
	counter_close(&c->elided);
	if (c->queued.fd >= 0)
		counter_close(&c->queued);
}

enum ipi_delivery ipistorm_delivery_judge(uint64_t calls, uint64_t reached)
{
	if (!calls)
		return IPI_DELIVERY_NONE;
	if (reached > calls)
		return IPI_DELIVERY_EXCESS;
	/* reached / calls >= 0.99, in integers */
	return reached * 100 >= calls * 99 ? IPI_DELIVERY_OK : IPI_DELIVERY_SHORT;
}
