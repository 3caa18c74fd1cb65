/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Scheduling policy and memory locking, changed for a measurement and
 * put back afterwards: on the normal path by the *_restore() calls, and
 * on every other exit path (exit, second signal) through cleanup_push().
 *
 *	struct sched_saved s;
 *	if (sched_fifo_enter(&s, 95, err, sizeof(err)))
 *		...fall back: the thread keeps its policy, err says why...
 *	...measure...
 *	sched_restore(&s);
 */
#ifndef ISOLBENCH_SCHED_H
#define ISOLBENCH_SCHED_H

#include <sched.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

struct sched_saved {
	pid_t tid;		/* the thread that was changed */
	int policy;		/* its policy and priority before */
	struct sched_param param;
	int handle;		/* cleanup handle, -1 when nothing to undo */
};

/*
 * Make the calling thread SCHED_FIFO at @prio (1..99), remembering its
 * policy. Returns 0, or -1 with errno kept and a reason in @err (EPERM:
 * no CAP_SYS_NICE and no RLIMIT_RTPRIO); the thread is unchanged then.
 */
int sched_fifo_enter(struct sched_saved *s, int prio, char *err, size_t errlen);
/* Put the saved policy back now (once; a no-op when nothing was changed). */
void sched_restore(struct sched_saved *s);
/* The calling thread's policy name: "SCHED_FIFO 95", "SCHED_OTHER". */
const char *sched_describe(char *buf, size_t len);

struct mlock_saved {
	bool was_locked;	/* pages were already locked (VmLck > 0) */
	int handle;		/* cleanup handle, -1 when nothing to undo */
};

/*
 * mlockall(MCL_CURRENT | MCL_FUTURE), undone by munlockall() unless the
 * process had locked memory before. Returns 0, or -1 with a reason.
 */
int mlock_enter(struct mlock_saved *m, char *err, size_t errlen);
void mlock_restore(struct mlock_saved *m);
/* Locked memory of this process in kB (VmLck), -1 if unreadable. */
long mlock_locked_kb(void);

#endif
