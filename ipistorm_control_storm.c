// SPDX-License-Identifier: GPL-2.0
/* The watch's positive control's storm: see ipistorm_control_storm.h. */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <string.h>
#include <unistd.h>

#include "ipistorm_control_storm.h"
#include "lib/harness/cpulock.h"

/*
 * The control's membarrier calls: at least this many and for at least
 * this long (a tenth of a second on an idle machine, a few seconds under
 * TCG), so that the spinner's share below is of a measurable time.
 */
#define CONTROL_CALLS	2000
#define CONTROL_NS	100000000ULL
#define CONTROL_NICE	-10	/* its spinner owns the CPU for them (nice 0 without root) */

static void *control_main(void *arg)
{
	struct watch_control *c = arg;
	unsigned long long run0, run1;
	uint64_t t0, t1;

	if (cpu_pin_self(c->from)) {
		atomic_store(&c->ready, -1);
		atomic_store(&c->done, true);
		return NULL;
	}
	c->w->control_tid = gettid();
	atomic_store(&c->ready, 1);
	run0 = spinner_runtime_ns(c->sp);
	t0 = mono_ns();
	do {
		ipistorm_membarrier_ipi(c->cpu);
		c->calls++;
		t1 = mono_ns();
	} while ((c->calls < CONTROL_CALLS || t1 - t0 < CONTROL_NS) && !bench_stop);
	__atomic_store_n(&c->w->control_end_ns, t1, __ATOMIC_RELEASE);
	run1 = spinner_runtime_ns(c->sp);
	c->spinner_share = run0 && run1 >= run0 ? (double)(run1 - run0) / (double)(t1 - t0) : -1;
	atomic_store(&c->done, true);
	return NULL;
}

/*
 * The positive control, after the window (its IPIs apart from the
 * window's): a spinner of this process on the first watched CPU (its
 * lock taken, another run there is left alone) and membarrier calls to
 * it from a housekeeping CPU, each a real IPI while the spinner runs
 * there. The control phase judges it (ipistorm_control.c).
 */
void ipistorm_control_storm(struct bench *b, const struct ipistorm_opts *o, struct ipi_watch *w,
			    struct watch_control *c)
{
	struct spinner sp = { 0 };
	cpu_mask_t one;
	pthread_t th;
	int poll_errno = 0;

	c->cpu = cpu_mask_first(&w->cpus);
	c->w = w;
	CPU_ZERO(&one);
	CPU_SET(c->cpu, &one);
	if (o->no_control)
		c->skip = "--no-control";
	else if (w->method != IPI_WATCH_TRACE)
		c->skip = "no sources without the ipi tracepoints";
	else if (!w->stacks)
		c->skip = w->why_no_stacks;
	else if (bench_stop)
		c->skip = "interrupted";
	else if (!CPU_COUNT(&b->opt.housekeeping))
		c->skip = "no housekeeping CPU to send from";
	else if (ipistorm_membarrier_ready(c->why, sizeof(c->why)) ||
		 cpulock_take(&one, b->spec->name, false, c->why, sizeof(c->why)))
		c->skip = c->why;
	if (c->skip)
		return;
	c->from = cpu_mask_first(&b->opt.housekeeping);
	if (spinner_start(&sp, c->cpu, CONTROL_NICE, 10, c->why, sizeof(c->why))) {
		c->skip = c->why;
		return;
	}
	c->sp = &sp;
	c->spinner_share = -1;
	if (pthread_create(&th, NULL, control_main, c)) {
		c->skip = "cannot start the control's thread";
	} else {
		/*
		 * The trace read while the calls run, as in the window: thousands
		 * of them would overrun its buffer before a read at their end.
		 * Its records are told by w->control_tid, set before c->ready.
		 */
		while (!atomic_load(&c->done)) {
			if (atomic_load(&c->ready) <= 0) {
				sched_yield();
			} else if (ipistorm_watcher_poll(w)) {
				poll_errno = errno;
				break;
			}
		}
		pthread_join(th, NULL);
		if (atomic_load(&c->ready) < 0)
			c->skip = "cannot pin the control's thread to a housekeeping CPU";
	}
	spinner_stop(&sp);
	if (poll_errno)
		ksft_exit_fail_msg("watching the IPIs: %s\n", strerror(poll_errno));
}
