/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ipistorm's parts: the options, a pair of CPUs under a storm, and the
 * storm modes. A storm mode is one struct storm_mode (its setup, its
 * measured loop or whole pass, its teardown and what its delivery check
 * expects) in a file of its own or in ipistorm_modes.c; the runs and the
 * delivery check that every mode shares are in ipistorm_storm.c, the
 * watch in ipistorm_watch.c, the options and main() in ipistorm.c.
 */
#ifndef ISOLBENCH_IPISTORM_COMMON_H
#define ISOLBENCH_IPISTORM_COMMON_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "lib/harness/bench.h"
#include "lib/harness/phase.h"
#include "lib/kernel/interference.h"
#include "ipistorm_count.h"
#include "lib/load/spinner.h"

#define MAX_PAIRS	8

struct ipistorm_opts {
	int mode, target, tlb_op;
	const char *pairs, *pair_rel, *module;
	cpu_mask_t src_list, watch;
	bool src_list_given, watch_given, offset_given, max_given;
	uint64_t offset, delay_us, timeout_s, max_ipis;
	bool all, no_wait;
	int method;
	double window_s;		/* watch: the windows of the per-window counts */
	bool no_control;		/* watch: no positive control after the window */
	uint64_t trace_buffer_kb;	/* watch: its trace's ring buffer per CPU, 0: default */
};

extern const char *const ipistorm_tlb_op_names[];

/*
 * What reached dst, counted by the kernel in the counted passes (each
 * timed run is paired with a counted run of the same size: the timed
 * one has no per-event counting attached), from the storm's own sends.
 */
struct delivery {
	bool counted;			/* every counted pass was read */
	bool have_queued;
	char why[192];			/* why it could not count */
	uint64_t calls;			/* calls of the counted passes */
	double ns;			/* and their time */
	uint64_t real, elided, queued;
	/*
	 * /proc/interrupts on dst over the timed passes: the row of each
	 * IPI kind that has one (intf_kinds[].row), -1 where the machine
	 * has no such row (arm64 has no TLB row)
	 */
	int64_t rows[INTF_KINDS];
};

struct storm_mode;

/* A pair of CPUs: src sends, dst receives. */
struct pair {
	int src, dst;
	enum cpu_relation rel;
	bool rel_known;
	const struct storm_mode *mode;
	void *priv;			/* the mode's state for this pair */
	bool busy;			/* a spinner keeps dst busy */
	const char *variant;		/* the mode's detail in desc, or NULL */
	struct spinner spin;
	struct counter switched;	/* the spinner switched out on dst */
	pthread_t thread;
	uint64_t n, end_ns, done;	/* one run: calls asked, deadline, made */
	double ns;
	bool counting;			/* this pass counts the deliveries */
	struct ipi_count cnt;		/* its counters, filtered to the sender */
	bool cnt_ok;
	int64_t pass_cal;		/* function-call row on dst over the last timed pass */
	bool procfs_share;		/* per-IPI figures from that row, not counted */
	uint64_t calls;			/* over all timed runs */
	unsigned long long spin0;
	double spin_share;		/* of dst over the runs, -1 unknown */
	struct delivery d;
	struct metric *ns_m, *rate_m, *call_m, *time_m;
	char desc[128];
	char why[160];			/* why a run failed */
};

/* One storm: the pairs storming at once in one mode. */
struct storm {
	struct bench *b;
	const struct ipistorm_opts *o;
	const struct storm_mode *mode;
	struct pair p[MAX_PAIRS];
	int np;
	void *priv;			/* the mode's state for the whole storm */
	uint64_t runs_done;		/* measured runs that completed */
	/*
	 * Its phase table (lib/harness/phase.h): the storm and the checks
	 * of each pair, as many a pair as the mode has.
	 */
	struct phase phase;
	const struct phase *phases[2];
};

/*
 * A storm mode. Either @burst (a storm thread pinned to src makes the
 * calls, @burst is the measured loop: @n calls, how many were made) or
 * @run (the mode makes a whole pass of every pair itself, fills each
 * pair's done and ns, and says why a pair's pass failed in its why).
 * Every hook but the one of those two may be NULL.
 */
struct storm_mode {
	const char *name;
	/* once, before the plan: feature probes (SKIP when missing) */
	void (*setup)(struct storm *s);
	/*
	 * per pair, from the options alone, before the plan (the pair's
	 * results are named by it): p->busy for a spinner on dst, p->variant
	 */
	void (*pair_describe)(const struct storm *s, struct pair *p);
	/* per pair: what dst needs */
	void (*pair_setup)(struct storm *s, struct pair *p);
	uint64_t (*burst)(struct pair *p, uint64_t n);
	bool (*run)(struct storm *s, bool counting);
	/* after the runs, on a normal exit */
	void (*teardown)(struct storm *s);
	/* why calls that find dst running another task deliver nothing */
	const char *busy_dst_why;
	/*
	 * The mode's own verdicts per pair, after the delivery check, in the
	 * checks phase: @nverdicts results a pair, named @checks after the
	 * pair's description, when @verdicts_on (NULL: always) says that
	 * they are given.
	 */
	unsigned int nverdicts;
	const char *const *checks;
	bool (*verdicts_on)(const struct storm *s);
	void (*verdicts)(struct storm *s, struct pair *p);
};

/* A pair's results: every run complete, the delivery, then its mode's own. */
enum { PAIR_COMPLETE, PAIR_DELIVERED, PAIR_CHECKS };
/* Result @i of pair @p, under its name (the pair's description, the check). */
void ipistorm_pair_verdict(struct bench *b, const struct pair *p, unsigned int i, int code,
			   const char *reason);

extern const struct storm_mode ipistorm_membarrier_mode, ipistorm_perf_read_mode, ipistorm_tlb_mode,
	ipistorm_kmod_mode;

/*
 * membarrier(PRIVATE_EXPEDITED_RSEQ) registered and usable with
 * FLAG_CPU: 0, or -1 and why. ipistorm_membarrier_ipi(): one call to @cpu, an IPI
 * there while a thread of this process runs on it.
 */
int ipistorm_membarrier_ready(char *why, size_t len);
void ipistorm_membarrier_ipi(int cpu);

/*
 * ipistorm_storm.c: the runs of every mode. ipistorm_storm_context():
 * the mode's setup (its probes, SKIP when missing) and the storm's
 * phase table, in s->phases.
 */
void ipistorm_storm_context(struct storm *s);

/*
 * ipistorm_delivery.c: the delivery check of every mode: a pair's
 * counted pass around its storm loop, then what reached dst, printed
 * and judged (a KSFT code).
 */
void ipistorm_pass_count_start(struct pair *p, const char *sender);
void ipistorm_pass_count_stop(struct pair *p);
int ipistorm_delivery_check(struct pair *p, char *why, size_t len);

#endif
