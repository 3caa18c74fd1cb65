// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <sched.h>
#include <sys/resource.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cleanup.h"
#include "clock.h"
#include "cpu.h"
#include "spinner.h"
#include "util.h"

static void *spinner_main(void *arg)
{
	struct spinner *s = arg;
	struct sched_param sp = { .sched_priority = 0 };

	/* Busy loops never run real-time: they must not starve the CPU. */
	pthread_setschedparam(pthread_self(), SCHED_OTHER, &sp);
	s->tid = gettid();
	s->pinned_ok = !cpu_pin_self(s->cpu) && sched_getcpu() == s->cpu;
	s->nice_ok = !setpriority(PRIO_PROCESS, s->tid, s->nice);
	s->started = 1;
	if (!s->pinned_ok)
		return NULL;
	while (!s->stop && !bench_stop) {
		for (int i = 0; i < 1000; i++) {
			asm volatile("" ::: "memory");
		}
		s->loops++;
		if (!(s->loops & 1023) && mono_ns() > s->deadline_ns)
			break;
	}
	return NULL;
}

static void spinner_cleanup(void *arg)
{
	struct spinner *s = arg;

	s->stop = 1;	/* async-signal-safe: the thread sees it and ends */
}

int spinner_start(struct spinner *s, int cpu, int nice, double max_s,
		  char *err, size_t errlen)
{
	int ret;

	s->cpu = cpu;
	s->nice = nice;
	s->stop = 0;
	s->started = 0;
	s->pinned_ok = 0;
	s->loops = 0;
	s->deadline_ns = mono_ns() + (uint64_t)(max_s * 1e9);
	ret = pthread_create(&s->thread, NULL, spinner_main, s);
	if (ret) {
		snprintf(err, errlen, "cannot start a spinner thread: %s",
			 strerror(ret));
		return -1;
	}
	s->running = true;
	s->cleanup_handle = cleanup_push(spinner_cleanup, s);
	while (!s->started)
		sched_yield();
	if (!s->pinned_ok) {
		spinner_stop(s);
		snprintf(err, errlen, "cannot run a spinner on cpu %d", cpu);
		return -1;
	}
	return 0;
}

void spinner_stop(struct spinner *s)
{
	if (!s->running)
		return;
	cleanup_run_one(s->cleanup_handle);	/* raises s->stop */
	pthread_join(s->thread, NULL);
	s->running = false;
}

unsigned long long spinner_runtime_ns(const struct spinner *s)
{
	char path[64], buf[96];

	snprintf(path, sizeof(path), "/proc/self/task/%d/schedstat", s->tid);
	if (read_file_line(path, buf, sizeof(buf)) <= 0)
		return 0;
	return strtoull(buf, NULL, 10);
}
