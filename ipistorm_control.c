// SPDX-License-Identifier: GPL-2.0
/* The watch's positive control: see ipistorm_control.h. */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "ipistorm_control.h"
#include "lib/harness/cpulock.h"

/*
 * The control's membarrier calls: at least this many and for at least
 * this long (a tenth of a second on an idle machine, a few seconds under
 * TCG), so that the spinner's share below is of a measurable time.
 */
#define CONTROL_CALLS	2000
#define CONTROL_NS	100000000ULL
#define CONTROL_NICE	-10	/* its spinner owns the CPU for them (nice 0 without root) */
#define CONTROL_MIN	50	/* IPIs it must have caused to judge */
/*
 * membarrier interrupts only the CPUs that run this process: while other
 * tasks hold the control's CPU, its calls send nothing. Below this share
 * of the CPU for its spinner, too few IPIs say nothing of the watch.
 */
#define CONTROL_MIN_SHARE	0.9

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
 * there. Its verdict, after the watch's: ipistorm_control_verdict().
 */
void ipistorm_control_run(struct bench *b, const struct ipistorm_opts *o, struct ipi_watch *w,
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

/* The watch must name membarrier (from the sender's stack: the call site is generic). */
void ipistorm_control_verdict(struct bench *b, const struct ipi_watch *w,
			      const struct watch_control *c)
{
	/* what membarrier queues on the CPUs it interrupts */
	static const char *const funcs[] = {
		"ipi_mb", "ipi_rseq", "ipi_sync_core", "ipi_sync_rq_state", NULL
	};
	uint64_t named, other, excused;
	char why[256];
	bool pass;

	if (c->skip) {
		bench_verdict(b, KSFT_SKIP, c->skip, "%s", CONTROL_NAME);
		return;
	}
	ipistorm_watcher_control_count(w, "membarrier", funcs, &named, &other, &excused);
	if (c->spinner_share >= 0)
		snprintf(why, sizeof(why), " (its spinner had %.0f%% of it)", 100 * c->spinner_share);
	else
		snprintf(why, sizeof(why), " (no schedstat: its spinner's share unknown)");
	ksft_print_msg("control: %llu membarrier calls from cpu %d to cpu %d%s: %llu IPIs named membarrier, %llu named otherwise, %llu of its thread's own besides (queued functions not membarrier's)\n",
		       (unsigned long long)c->calls, c->from, c->cpu, why,
		       (unsigned long long)named, (unsigned long long)other,
		       (unsigned long long)excused);
	if (w->lost_after)
		ksft_print_msg("control: %lld events lost after the window (the trace buffer overran under its storm): its counts are of the records kept\n",
			       w->lost_after);
	for (int i = 0; i < w->after.sources.n && other + excused; i++)
		if (!strstr(tally_slot_name(&w->after.sources, i), "membarrier"))
			ipistorm_tally_source_print(&w->after, i, w->seconds);
	pass = named + other >= CONTROL_MIN && named * 100 >= (named + other) * 99;
	/* a send whose stack record was lost is named by its call site: not judged */
	if (!pass && w->lost_after) {
		snprintf(why, sizeof(why),
			 "the trace lost %lld events under the control's storm, its IPIs' stacks among them: %llu of its IPIs kept, %llu named otherwise",
			 w->lost_after, (unsigned long long)(named + other),
			 (unsigned long long)other);
		bench_verdict(b, KSFT_SKIP, why, "%s", CONTROL_NAME);
		return;
	}
	if (named + other < CONTROL_MIN && c->spinner_share >= 0 &&
	    c->spinner_share < CONTROL_MIN_SHARE) {
		snprintf(why, sizeof(why),
			 "cpu %d ran other tasks: the control's spinner had %.0f%% of it, and membarrier sends no IPI while another process runs there (%llu IPIs, %d needed)",
			 c->cpu, 100 * c->spinner_share, (unsigned long long)(named + other),
			 CONTROL_MIN);
		bench_verdict(b, KSFT_SKIP, why, "%s", CONTROL_NAME);
		return;
	}
	bench_verdict(b, pass ? KSFT_PASS : KSFT_FAIL, NULL, "%s", CONTROL_NAME);
}
