// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "../base/cleanup.h"
#include "sched.h"
#include "../base/util.h"

/* Async-signal-safe: one syscall. */
static void sched_undo(void *arg)
{
	struct sched_saved *s = arg;

	sched_setscheduler(s->tid, s->policy, &s->param);
}

int sched_fifo_enter(struct sched_saved *s, int prio, char *err, size_t errlen)
{
	struct sched_param p = { .sched_priority = prio };
	int ret;

	s->handle = -1;
	s->tid = gettid();
	s->policy = sched_getscheduler(0);
	if (s->policy < 0 || sched_getparam(0, &s->param)) {
		snprintf(err, errlen, "cannot read the scheduling policy: %s",
			 strerror(errno));
		return -1;
	}
	/* registered first, so a signal between the two calls still undoes it */
	s->handle = cleanup_push(sched_undo, s);
	ret = sched_setscheduler(0, SCHED_FIFO, &p);
	if (ret) {
		int e = errno;

		snprintf(err, errlen, "SCHED_FIFO %d refused: %s%s", prio,
			 strerror(e), e == EPERM ?
			 " (needs CAP_SYS_NICE or an RLIMIT_RTPRIO)" : "");
		cleanup_run_one(s->handle);
		s->handle = -1;
		errno = e;
		return -1;
	}
	return 0;
}

void sched_restore(struct sched_saved *s)
{
	if (s->handle >= 0)
		cleanup_run_one(s->handle);
	s->handle = -1;
}

const char *sched_describe(char *buf, size_t len)
{
	struct sched_param p;
	int pol = sched_getscheduler(0);

	if (pol == SCHED_FIFO || pol == SCHED_RR) {
		sched_getparam(0, &p);
		snprintf(buf, len, "%s %d", pol == SCHED_FIFO ? "SCHED_FIFO" :
			 "SCHED_RR", p.sched_priority);
	} else {
		snprintf(buf, len, "%s", pol == SCHED_BATCH ? "SCHED_BATCH" :
			 pol == SCHED_IDLE ? "SCHED_IDLE" : "SCHED_OTHER");
	}
	return buf;
}

long mlock_locked_kb(void)
{
	char *s = read_file_all("/proc/self/status", NULL);
	char *p;
	long kb = -1;

	if (!s)
		return -1;
	p = strstr(s, "\nVmLck:");
	if (p)
		kb = strtol(p + 7, NULL, 10);
	free(s);
	return kb;
}

static void mlock_undo(void *arg)
{
	(void)arg;
	munlockall();
}

int mlock_enter(struct mlock_saved *m, char *err, size_t errlen)
{
	m->handle = -1;
	m->was_locked = mlock_locked_kb() > 0;
	if (!m->was_locked)
		m->handle = cleanup_push(mlock_undo, NULL);
	if (mlockall(MCL_CURRENT | MCL_FUTURE)) {
		snprintf(err, errlen, "mlockall refused: %s%s", strerror(errno),
			 errno == EPERM || errno == ENOMEM ?
			 " (needs CAP_IPC_LOCK or a larger RLIMIT_MEMLOCK)" : "");
		mlock_restore(m);
		return -1;
	}
	return 0;
}

void mlock_restore(struct mlock_saved *m)
{
	if (m->handle >= 0)
		cleanup_run_one(m->handle);
	m->handle = -1;
}
