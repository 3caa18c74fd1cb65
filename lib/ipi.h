/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Counting IPIs as the kernel sees them:
 *  - what one CPU sends to another: real function-call IPIs (the
 *    ipi:ipi_send_cpu / ipi_send_cpumask tracepoints, reschedules left
 *    out), sends elided because the target polled in idle
 *    (sched:sched_wake_idle_without_ipi) and calls queued for it
 *    (csd:csd_queue_cpu), as perf counters on the sending CPU;
 *  - a tally of ipi_send_* trace records (trace_pipe text) for a set of
 *    watched CPUs: per CPU, per kind, per callback, per minute.
 * And "SRC:DST,SRC:DST" lists of CPU pairs.
 */
#ifndef ISOLBENCH_IPI_H
#define ISOLBENCH_IPI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "counters.h"
#include "cpu.h"

struct ipi_count {
	struct counter sent, sent_mask, elided, queued;
	bool have_queued;
	/*
	 * ipi_send_cpumask filtered by target: false on 6.3-6.5, whose
	 * filters have no CPUS{}. There every send to a mask is counted,
	 * whatever its CPUs, and a count that holds any is not read.
	 */
	bool have_mask;
	char why[192];		/* why it could not count */
	uint64_t real, elided_n, queued_n;
};

/*
 * Count what @from sends to @to; with @sender (a filter clause such as
 * "common_pid == 123" or "comm == \"ipistorm/0\"", or NULL for every
 * task on @from) only what that sender sends, from task context (not
 * from interrupts that hit it): another task's IPIs to @to then cannot
 * fill in for missing ones. 0, or -1 with a reason in
 * c->why.
 */
int ipi_count_open(struct ipi_count *c, int from, int to, const char *sender);
void ipi_count_close(struct ipi_count *c);
void ipi_count_enable(struct ipi_count *c, bool on);
/*
 * Fill real, elided_n and queued_n (0 without csd_queue_cpu). Returns 0,
 * or -1 with a reason in c->why when a counter could not be read, or
 * when, without CPUS{}, the sender sent to a CPU mask (its targets are
 * unknown); the counts are then 0: not counted. A failed csd_queue_cpu
 * read clears have_queued.
 */
int ipi_count_read(struct ipi_count *c);

/*
 * The delivery check of a storm: @reached (real + elided) of @calls.
 * Enough when at least 99% of the calls reached dst; more than the
 * calls is a counting error (sends that are not the storm's).
 */
enum ipi_delivery { IPI_DELIVERY_OK, IPI_DELIVERY_SHORT, IPI_DELIVERY_EXCESS,
		    IPI_DELIVERY_NONE };
enum ipi_delivery ipi_delivery_judge(uint64_t calls, uint64_t reached);

enum ipi_kind { IPI_CALL, IPI_RESCHED, IPI_TLB, IPI_NKINDS };
/* JSON keys of the kinds: "function_call_ipis", ... */
extern const char *const ipi_kind_keys[IPI_NKINDS];

#define IPI_TALLY_MAX_CB	32

struct ipi_tally {
	uint64_t per_cpu[CPU_SETSIZE];
	uint64_t kind[IPI_NKINDS], total;
	uint64_t *per_min;	/* malloc'ed, nmin entries */
	size_t nmin;
	struct ipi_name_count { char name[64]; uint64_t n; } cb[IPI_TALLY_MAX_CB];
	int ncb;
	uint64_t cb_other;	/* callbacks beyond the table */
	/*
	 * csd:csd_queue_cpu records: the functions queued for the watched
	 * CPUs (a single-target IPI only names the generic handler).
	 */
	struct ipi_name_count func[IPI_TALLY_MAX_CB];
	int nfunc;
	uint64_t func_other, queued;
};

/*
 * Account one trace_pipe line ("... ipi_send_cpu: cpu=3 callsite=...
 * callback=f+0x0/0x10") in minute @minute, for the CPUs of @watched it
 * names; a csd_queue_cpu line ("cpu=3 callsite=... func=f csd=...")
 * only counts its function. Modifies @line. Returns how many IPIs to
 * watched CPUs it added, -1 on no memory.
 */
int ipi_tally_line(struct ipi_tally *t, char *line, const cpu_mask_t *watched,
		   size_t minute);

/*
 * The timestamp of a trace_pipe record ("... [001] d..1. 123.456789:
 * ipi_send_cpu: ..."), in ns; -1 when the line has none.
 */
int ipi_trace_line_ns(const char *line, uint64_t *ns);

/* Add @n IPIs of @kind to @cpu in minute @minute; -1 on no memory. */
int ipi_tally_add(struct ipi_tally *t, int cpu, enum ipi_kind kind, uint64_t n,
		  size_t minute);

/*
 * Parse "8:16,9:17" into at most @max pairs. Returns the number of
 * pairs, or -1 with a reason in @err.
 */
int cpu_pairs_parse(const char *s, int *src, int *dst, int max,
		    char *err, size_t errlen);

#endif
