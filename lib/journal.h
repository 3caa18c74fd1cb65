/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The settings journal: what a run changed in the kernel's settings
 * (tracefs files, sysctls), written down before each change, so that a
 * run the cleanups never reached (SIGKILL, a crash, the OOM killer) is
 * undone by the next one. Without it a killed cid_scan leaves the
 * function_graph tracer on for the whole machine, a killed
 * timer_softirq leaves timer migration off.
 *
 * One file per process, $ISOLBENCH_STATE_DIR/settings-PID (default
 * /run/isolbench), appended to only:
 *	S <truncate 0|1> <path> <old value>	saved before the change
 *	R <path>				put back
 * and removed when the run ends through its cleanups.
 */
#ifndef ISOLBENCH_JOURNAL_H
#define ISOLBENCH_JOURNAL_H

#include <stdbool.h>

/* Where the journals are. */
const char *journal_dir(void);

/*
 * Note that @path is about to change from @old (written back with
 * O_TRUNC when @truncate). The first call creates the journal and
 * registers its removal as a cleanup, to run after every cleanup
 * registered later. 0, or -1 when it cannot be written (the change may
 * go ahead; a SIGKILL then leaves it).
 */
int journal_save(const char *path, const char *old, bool truncate);

/* @path is back to its old value. Async-signal-safe. */
void journal_restored(const char *path);

/*
 * Put back what the journals of isolbench processes that are gone
 * still hold, say so on the KTAP stream, and remove those journals
 * (one with a setting not written back, or left to a live run, is kept).
 * A path that a live run's journal holds is left to that run. Returns
 * the number of settings put back.
 */
int journal_recover(void);

#endif
