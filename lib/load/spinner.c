// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <sched.h>
#include <sys/resource.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../base/cleanup.h"
#include "../base/clock.h"
#include "../base/cpu.h"
#include "spinner.h"
#include "../base/util.h"

/* The loop with its gaps logged: a clock read a turn, a log entry a gap. */
static void spin_logging(struct spinner *s)
{
	struct spinner_gaps *g = s->gaps;
	uint64_t prev = mono_ns(), now;

	for (uint64_t i = 1; !s->stop && !bench_stop; i++) {
		now = mono_ns();
		if (now - prev > g->threshold_ns) {
			size_t h = atomic_load_explicit(&g->head, memory_order_relaxed);

			g->log[h & (g->cap - 1)][0] = prev;
			g->log[h & (g->cap - 1)][1] = now;
			atomic_store_explicit(&g->head, h + 1, memory_order_release);
		}
		prev = now;
		if (!(i & 1023)) {
			s->loops++;
			if (now > s->deadline_ns)
				break;
		}
	}
}

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
	if (s->gaps) {
		spin_logging(s);
		return NULL;
	}
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

int spinner_gaps_init(struct spinner_gaps *g, size_t cap, uint64_t threshold_ns)
{
	memset(g, 0, sizeof(*g));
	g->log = calloc(cap, sizeof(*g->log));
	if (!g->log)
		return -1;
	g->cap = cap;
	g->threshold_ns = threshold_ns;
	return 0;
}

void spinner_gaps_free(struct spinner_gaps *g)
{
	free(g->log);
	g->log = NULL;
}

size_t spinner_gaps_read(struct spinner_gaps *g, uint64_t from, uint64_t to,
			 uint64_t (**out)[2], uint64_t *lost)
{
	size_t head = atomic_load_explicit(&g->head, memory_order_acquire), n = 0, cap = 0;

	*lost = 0;
	*out = NULL;
	if (head - g->tail > g->cap) {
		*lost = head - g->tail - g->cap;
		g->tail = head - g->cap;
	}
	for (; g->tail < head; g->tail++) {
		const uint64_t *e = g->log[g->tail & (g->cap - 1)];

		if (e[0] < from || e[1] > to)
			continue;	/* outside the window: not its noise */
		if (n == cap) {
			size_t c = cap ? 2 * cap : 256;
			uint64_t (*p)[2] = realloc(*out, c * sizeof(*p));

			if (!p)
				break;
			*out = p;
			cap = c;
		}
		(*out)[n][0] = e[0];
		(*out)[n][1] = e[1];
		n++;
	}
	return n;
}

unsigned long long spinner_runtime_ns(const struct spinner *s)
{
	char path[64], buf[96];

	snprintf(path, sizeof(path), "/proc/self/task/%d/schedstat", s->tid);
	if (read_file_line(path, buf, sizeof(buf)) <= 0)
		return 0;
	return strtoull(buf, NULL, 10);
}
