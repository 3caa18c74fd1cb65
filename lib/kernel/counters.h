/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Counting what really happened: perf_event_open for software, hardware
 * and tracepoint events (per CPU, with tracepoint filters), and per-CPU
 * deltas of /proc/interrupts and /proc/softirqs rows.
 */
#ifndef ISOLBENCH_COUNTERS_H
#define ISOLBENCH_COUNTERS_H

#include <stdint.h>
#include <sys/types.h>

struct counter {
	int fd;
	char name[96];
	char error[160];	/* why it could not be opened */
};

/*
 * Open a counting event: @pid/@cpu as perf_event_open() takes them
 * (pid 0 and cpu -1 for this thread; pid -1 and a cpu for that CPU).
 * Returns 0, or -1 with counter.error set; hardware events that the
 * machine lacks say "not supported".
 */
int counter_open_sw(struct counter *c, uint64_t config, pid_t pid, int cpu);
int counter_open_hw(struct counter *c, uint64_t config, pid_t pid, int cpu);
/*
 * A software event sampling @freq_hz times a second (perf's -F): the
 * kernel adjusts its period from the tick, so on a nohz_full CPU it
 * keeps the tick (PERF_EVENTS). Its samples are not read.
 */
int counter_open_sw_sampling(struct counter *c, uint64_t config, pid_t pid, int cpu,
			     uint64_t freq_hz);
/*
 * @event is "system:name", e.g. "irq:softirq_entry"; @filter may be NULL.
 * A filter the kernel refuses fails with errno set by the ioctl (EINVAL).
 */
int counter_open_tracepoint(struct counter *c, const char *event,
			    const char *filter, pid_t pid, int cpu);
int counter_enable(struct counter *c);
int counter_disable(struct counter *c);
/* Current value, or -1 (as uint64_t max) when unreadable. */
uint64_t counter_read(struct counter *c);
void counter_close(struct counter *c);

/*
 * tracefs: its mount point, mounted on demand (and unmounted at exit
 * when we mounted it). NULL when unavailable.
 */
const char *tracefs_path(void);
/* Whether the tracepoint "system:name" exists on this kernel. */
int tracepoint_exists(const char *event);

/*
 * A snapshot of /proc/interrupts or /proc/softirqs: one row per line,
 * named by its first column ("LOC", "CAL", "TIMER", "24"), with a count
 * per CPU column.
 */
struct irq_row {
	char name[32];
	char desc[64];
	uint64_t *count;	/* per CPU column */
};

struct irq_table {
	int ncpus;
	int *cpu_of_col;	/* the CPU number of each column */
	int nrows;
	struct irq_row *rows;
};

int irq_table_read(const char *path, struct irq_table *t);
/*
 * The time the hypervisor took from @cpu so far (the steal column of
 * /proc/stat, in ns): 0, or -1 when there is no such line.
 */
int cpu_steal_ns(int cpu, uint64_t *ns);
void irq_table_free(struct irq_table *t);
/*
 * Count of row @name on @cpu; -1 if missing. x86's names RES, CAL, IWI and
 * LOC also find arm64's rows of those kinds (IPIn by description, the
 * arch timer's rows summed).
 */
int64_t irq_table_count(const struct irq_table *t, const char *name, int cpu);
/* Count of row @name on @cpu in @after minus @before; -1 if missing. */
int64_t irq_table_delta(const struct irq_table *before,
			const struct irq_table *after,
			const char *name, int cpu);

#endif
