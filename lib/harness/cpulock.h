/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One isolbench run per CPU: a lock file per target CPU, held with
 * flock() on a descriptor that lives as long as the process, so the
 * kernel drops it when the process ends in any way, SIGKILL included;
 * nothing is left to clean up. The file names the holder ("PID NAME").
 *
 * The files are ISOLBENCH_LOCK_DIR/isolbench-cpuN.lock, by default in
 * /run/lock, else /tmp.
 */
#ifndef ISOLBENCH_CPULOCK_H
#define ISOLBENCH_CPULOCK_H

#include <stdbool.h>
#include <stddef.h>

#include "../base/cpu.h"

/*
 * Lock every CPU of @cpus for @name, in ascending order. When one is held
 * by another process: with @wait, say so on stdout ("# ") and wait for it
 * (a signal ends the wait: -1 with errno EINTR); without, return 1 with
 * "cpu N is in use by NAME (pid P)" in @err. -1 with @err when the lock
 * file cannot be opened. Locks taken are kept, also on failure; they go
 * with the process. 0 when all are held.
 */
int cpulock_take(const cpu_mask_t *cpus, const char *name, bool wait,
		 char *err, size_t len);

/* The lock directory in use (for messages and tests). */
const char *cpulock_dir(void);

#endif
