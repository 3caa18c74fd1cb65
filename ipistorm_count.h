/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Counting IPIs as the kernel sees them: what one CPU sends to another,
 * real function-call IPIs (the ipi:ipi_send_cpu / ipi_send_cpumask
 * tracepoints, reschedules left out), sends elided because the target
 * polled in idle (sched:sched_wake_idle_without_ipi) and calls queued
 * for it (csd:csd_queue_cpu), as perf counters on the sending CPU. And
 * "SRC:DST,SRC:DST" lists of CPU pairs.
 */
#ifndef ISOLBENCH_IPISTORM_COUNT_H
#define ISOLBENCH_IPISTORM_COUNT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/kernel/counters.h"
#include "lib/base/cpu.h"

struct ipi_count {
	struct counter sent, sent_mask, elided, queued;
	bool have_queued;
	/*
	 * ipi_send_cpumask filtered by target: false on 6.3-6.5, whose
	 * filters have no CPUS{}. There every send to a mask is counted,
	 * whatever its CPUs, and a count that holds any is not read.
	 */
	bool have_mask;
	char why[192];		/* why it could not count */
	uint64_t real, elided_n, queued_n;
};

/*
 * Count what @from sends to @to; with @sender (a filter clause such as
 * "common_pid == 123" or "comm == \"ipistorm/0\"", or NULL for every
 * task on @from) only what that sender sends, from task context (not
 * from interrupts that hit it): another task's IPIs to @to then cannot
 * fill in for missing ones. 0, or -1 with a reason in
 * c->why.
 */
int ipistorm_count_open(struct ipi_count *c, int from, int to, const char *sender);
void ipistorm_count_close(struct ipi_count *c);
void ipistorm_count_enable(struct ipi_count *c, bool on);
/*
 * Fill real, elided_n and queued_n (0 without csd_queue_cpu). Returns 0,
 * or -1 with a reason in c->why when a counter could not be read, or
 * when, without CPUS{}, the sender sent to a CPU mask (its targets are
 * unknown); the counts are then 0: not counted. A failed csd_queue_cpu
 * read clears have_queued.
 */
int ipistorm_count_read(struct ipi_count *c);

/*
 * The delivery check of a storm: @reached (real + elided) of @calls.
 * Enough when at least 99% of the calls reached dst; more than the
 * calls is a counting error (sends that are not the storm's).
 */
enum ipi_delivery { IPI_DELIVERY_OK, IPI_DELIVERY_SHORT, IPI_DELIVERY_EXCESS,
		    IPI_DELIVERY_NONE };
enum ipi_delivery ipistorm_delivery_judge(uint64_t calls, uint64_t reached);

#endif
