/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The watch's positive control, after its window: a spinner of this
 * process on the first watched CPU and membarrier calls to it from a
 * housekeeping CPU, each a real IPI while the spinner runs there, whose
 * source the watch must name. The watch phase runs it while its trace
 * goes on (ipistorm_watch.c), the control phase judges it after the
 * watch's own verdicts (ipistorm_control.c).
 */
#ifndef ISOLBENCH_IPISTORM_CONTROL_STORM_H
#define ISOLBENCH_IPISTORM_CONTROL_STORM_H

#include <stdatomic.h>
#include <stdint.h>

#include "ipistorm_common.h"
#include "ipistorm_watcher.h"

/* The control's sender: membarrier calls to @cpu from a housekeeping CPU. */
struct watch_control {
	int cpu, from;
	struct ipi_watch *w;
	struct spinner *sp;
	atomic_int ready;	/* 1: calling, -1: could not pin itself */
	atomic_bool done;
	uint64_t calls;
	double spinner_share;	/* of the CPU during the calls, -1: unknown */
	const char *skip;	/* why it did not run */
	char why[192];
	/* of its IPIs the watch kept: named membarrier, otherwise, its thread's own besides */
	uint64_t named, other, excused;
};

/* Run the control (or set c->skip, why not) while the watcher @w still traces. */
void ipistorm_control_storm(struct bench *b, const struct ipistorm_opts *o, struct ipi_watch *w,
			    struct watch_control *c);

#endif
