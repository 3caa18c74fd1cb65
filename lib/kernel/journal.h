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
 * /run/isolbench), appended to only, tab-separated:
 *	S <truncate 0|1> <CLOCK_REALTIME ns> <path> <old value>
 *	R <path>			put back
 * and removed when the run ends through its cleanups with every setting
 * back (a write-back that failed keeps it for the next run).
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
 * still hold, say so on the KTAP stream, and remove those journals. A
 * path that a live run's journal holds is left to that run; of two dead
 * runs that saved one path, the older save is put back. A journal with
 * a setting left (to a live run, or a write that failed) is kept, with
 * what was decided marked in it. Only this user's journals are read and,
 * unless ISOLBENCH_STATE_DIR moved them, only paths under /proc/sys/ and
 * /sys/ written. Returns the number of settings put back.
 */
int journal_recover(void);

#endif
