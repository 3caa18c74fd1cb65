/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ipistorm's watch as phases (lib/harness/phase.h), in the order of
 * ipistorm.c's table, over one context: the watch (ipistorm_watch.c:
 * the window, then the control's storm while its trace goes on, then
 * its verdicts, --max on the window's count among them) and the
 * control (ipistorm_control.c: what the watch named of the storm).
 */
#ifndef ISOLBENCH_IPISTORM_WATCH_PHASES_H
#define ISOLBENCH_IPISTORM_WATCH_PHASES_H

#include "lib/harness/phase.h"
#include "ipistorm_common.h"
#include "ipistorm_control_storm.h"
#include "ipistorm_watcher.h"

struct ipistorm_watch_run {
	const struct ipistorm_opts *o;
	struct ipi_watch *w;		/* its window's tallies kept until the last phase */
	struct watch_control c;
	char list[512];			/* the watched CPUs, "2-3" */
};

extern const struct phase ipistorm_watch_phase;		/* ipistorm_watch.c */
extern const struct phase ipistorm_control_phase;	/* ipistorm_control.c */

#endif
