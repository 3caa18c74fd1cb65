/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Cache lines that another CPU keeps writing, so that reading them from
 * this CPU misses: one line per simulated per-CPU area, a page and two
 * lines apart (no adjacent-line prefetch hides the misses). A writer
 * thread pinned to @writer_cpu rewrites every line on request.
 *
 *	struct remote_lines rl;
 *	cid_scan_remote_lines_start(&rl, n, writer_cpu);
 *	while (cid_scan_remote_lines_refresh(&rl))	all lines now remote
 *		...read remote_line(&rl, i)...
 *	cid_scan_remote_lines_stop(&rl);
 */
#ifndef ISOLBENCH_CID_SCAN_REMOTE_H
#define ISOLBENCH_CID_SCAN_REMOTE_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct remote_line {
	volatile uint64_t val;	/* the writer stores the line's index */
	volatile uint64_t tag;	/* and the generation */
} __attribute__((aligned(64)));

#define REMOTE_LINE_STRIDE	(4096 + 128)
/* the writer rewrites at most 4096 lines: far longer is a starved thread */
#define REMOTE_LINES_WAIT_NS	(10 * 1000000000ULL)

struct remote_lines {
	void *base;
	int n, writer_cpu, gen;
	pthread_t th;
	volatile int want, done, stop;
};

static inline struct remote_line *remote_line(void *base, int i)
{
	return (struct remote_line *)((char *)base + (size_t)i * REMOTE_LINE_STRIDE);
}

/* Allocate @n zeroed lines and start the writer; exits on failure. */
void cid_scan_remote_lines_start(struct remote_lines *rl, int n, int writer_cpu);
/*
 * Have the writer rewrite every line (a new generation) and wait for
 * it, bounded in time: false on a stop request (bench_stop), a failure
 * exit when the writer does not answer.
 */
bool cid_scan_remote_lines_refresh(struct remote_lines *rl);
/* Stop and join the writer, free the lines. */
void cid_scan_remote_lines_stop(struct remote_lines *rl);

#endif
