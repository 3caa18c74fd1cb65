// SPDX-License-Identifier: GPL-2.0
/*
 * cid_scan: the RSEQ mm_cid scan's latency, and CID compaction.
 *
 * On 6.4 to 6.18 the tick queues task_mm_cid_work() about every 100 ms
 * per process; it runs on the return to user space and walks every
 * possible CPU to clear and compact the process's concurrency IDs
 * (seed: 30-35 us on 128 CPUs; the unmerged batch patch,
 * CONFIG_RSEQ_CID_SCAN_BATCH, scans 8/16/32 CPUs per call). 6.19 has no
 * periodic scan. This program says which model the running kernel has,
 * times the scan per call (function_graph where it exists, else a
 * user-space estimate from pinned busy loops), checks that the IDs
 * compact and stay valid, and with --model simulates the batched scan
 * over up to 4096 CPUs in user space.
 */
#include <errno.h>
#include <math.h>
#include <sched.h>
#include <stdint.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lib/bench.h"
#include "lib/graph_passes.h"
#include "lib/kconfig.h"
#include "lib/periodic.h"
#include "lib/remote_lines.h"
#include "lib/rseq.h"
#include "lib/sysinfo.h"
#include "lib/tracefs.h"
#include "lib/workload.h"
#include "lib/util.h"

#define SCAN_PERIOD_NS		(100 * 1000000ULL)	/* MM_CID_SCAN_DELAY */
/* scans hidden by a context switch leave holes: look 1 to 3 periods away */
#define SCAN_MULTIPLES		3

enum method { M_AUTO, M_TRACE, M_ESTIMATE };
static const char *const method_names[] = { "auto", "trace", "estimate", NULL };

struct cid_opts {
	int workload, method;
	uint64_t threads, period_us, gap_min_ns, compaction_threads;
	double compaction_timeout_s;
	bool hackbench_threads, model, no_compaction, compaction_control;
	bool model_gap_given;
	uint64_t model_max_cpus, trace_buffer_kb;
	double model_call_gap_us;
};

/* What the kernel has (detection). */
struct scan_model {
	struct rseq_info rseq;
	bool periodic;		/* task_mm_cid_work in kallsyms */
	int batch;		/* CPUs per call: 0 full scan, -1 batched, size unknown */
	char batch_from[96];	/* where the batch size was read */
	bool scan_off;		/* the batch patch's rseq_cid_scan=off */
	bool walk_retval;	/* the scan returns where its walk stands */
	int walk_calls;		/* calls in a complete walk: ceil(possible / batch) */
	const char *func;	/* the function to trace */
	int hz;
	int possible;
};

/*
 * This project's batch patch (vm/patches/) shows the batch size in force
 * and the off switch as kernel parameters; task_mm_cid_scan() returns
 * where its walk stands.
 */
#define PARAM_DIR	"/sys/module/kernel/parameters/"
#define PARAM_BATCH	"rseq_cid_scan_batch"
#define PARAM_SCAN	"rseq_cid_scan"

/* The value of @key= on the kernel command line, or -1. */
static int cmdline_value(const char *key, char *val, size_t len)
{
	char *all = read_file_all("/proc/cmdline", NULL), *p, *e;
	size_t n = strlen(key);
	int ret = -1;

	for (p = all; p && (p = strstr(p, key)); p += n) {
		if ((p != all && p[-1] != ' ') || p[n] != '=')
			continue;
		e = p + n + 1;
		snprintf(val, len, "%.*s", (int)strcspn(e, "\n "), e);
		ret = 0;
	}
	free(all);
	return ret;
}

/*
 * The batch size: the patch's parameter in sysfs (the value in force),
 * else the kernel's config and command line. A kernel with the batched
 * scan function whose size cannot be read is batched of unknown size,
 * not a full scan.
 */
static void detect_batch(struct scan_model *m)
{
	char v[64], c[64] = "";
	uint64_t u;
	bool has_scan = kallsyms_has("task_mm_cid_scan");

	if (!kconfig_value("CONFIG_RSEQ_CID_SCAN_BATCH", c, sizeof(c)) && parse_u64(c, &u))
		c[0] = '\0';
	if (!read_file_line(PARAM_DIR PARAM_BATCH, v, sizeof(v)) && !parse_u64(v, &u) && u) {
		m->batch = (int)u;
		m->walk_retval = has_scan;
		snprintf(m->batch_from, sizeof(m->batch_from), "%s%s, CONFIG_RSEQ_CID_SCAN_BATCH %s",
			 PARAM_DIR, PARAM_BATCH, c[0] ? c : "not readable");
		if (!read_file_line(PARAM_DIR PARAM_SCAN, v, sizeof(v)))
			m->scan_off = v[0] == 'N' || v[0] == 'n' || v[0] == '0';
	} else if (c[0]) {
		m->batch = atoi(c);
		snprintf(m->batch_from, sizeof(m->batch_from), "CONFIG_RSEQ_CID_SCAN_BATCH");
		if (!cmdline_value(PARAM_BATCH, v, sizeof(v)) && !parse_u64(v, &u) && u) {
			m->batch = (int)u;
			snprintf(m->batch_from, sizeof(m->batch_from),
				 "%s= on the command line (CONFIG_RSEQ_CID_SCAN_BATCH %s)",
				 PARAM_BATCH, c);
		}
		if (!cmdline_value(PARAM_SCAN, v, sizeof(v)))
			m->scan_off = !strcmp(v, "off") || !strcmp(v, "0") || v[0] == 'n' || v[0] == 'N';
		/* a batch patch's scan function: its return values are trusted
		 * only as far as the calls-per-walk verdict confirms them
		 */
		m->walk_retval = has_scan;
	} else if (has_scan) {
		m->batch = -1;
		snprintf(m->batch_from, sizeof(m->batch_from),
			 "task_mm_cid_scan in kallsyms, no config or parameter readable");
	}
	if (m->batch > 0)
		m->walk_calls = (m->possible + m->batch - 1) / m->batch;
}

/* --- detection ------------------------------------------------------ */

static void detect(struct bench *b, struct scan_model *m)
{
	char v[64];
	uint64_t u;
	bool emulated = false;

	if (rseq_probe(&m->rseq))
		bench_skip(b, "%s", m->rseq.why);
	if (!m->rseq.has_mm_cid)
		bench_skip(b, "%s", m->rseq.why);
	m->possible = CPU_COUNT(&b->sets.possible);
	m->hz = !kconfig_value("CONFIG_HZ", v, sizeof(v)) && !parse_u64(v, &u) ? (int)u : 250;
	detect_batch(m);
	m->periodic = kallsyms_has("task_mm_cid_work");
	m->func = m->batch && kallsyms_has("task_mm_cid_scan") ? "task_mm_cid_scan"
							       : "task_mm_cid_work";
	bench_note(b, "rseq: registered by %s (__rseq_offset %ld, __rseq_size %u), AT_RSEQ_FEATURE_SIZE %u: mm_cid available",
		   m->rseq.by_glibc ? "glibc" : "cid_scan itself",
		   m->rseq.offset, m->rseq.size, m->rseq.feature_size);
	if (sysinfo_hypervisor(&emulated), emulated)
		bench_note(b, "emulated CPU (TCG): durations are not meaningful, compare their growth with the CPU count only");
	if (!m->periodic)
		bench_note(b, "scan model: no periodic scan (task_mm_cid_work absent: 6.19 or later)");
	else if (m->batch > 0)
		bench_note(b, "scan model: periodic scan in batches of %d CPUs (%s), %d possible CPUs: %d calls per complete scan, HZ %d%s",
			   m->batch, m->batch_from, m->possible, m->walk_calls, m->hz,
			   m->scan_off ? "; the scan is OFF (rseq_cid_scan=off)" : "");
	else if (m->batch < 0)
		bench_note(b, "scan model: periodic scan in batches of unknown size (%s), %d possible CPUs, HZ %d",
			   m->batch_from, m->possible, m->hz);
	else
		bench_note(b, "scan model: periodic full scan (task_mm_cid_work) over %d possible CPUs every 100 ms, HZ %d",
			   m->possible, m->hz);
}

/* --- scan latency: the user-space estimate -------------------------- */

struct estimate {
	size_t events, marked, switched, candidates, periodic, host_gaps;
	size_t control;			/* matches half a period off */
	size_t below_tick;		/* picked, but no longer than a tick */
	double expected_scans, allowed;
	double base_p25, base_p50, base_p75;	/* unmarked gaps, us */
	double scan_p50, scan_max;	/* picked gaps, us */
	bool resolved;
	struct periodic_ev *ev;		/* candidates, picked ones marked */
	struct metric *m;
};

/* Walks a scan period allows: a full scan is one call, a batched one more. */
static double calls_per_walk(const struct scan_model *sm)
{
	return sm->batch ? ceil((double)sm->possible / sm->batch) : 1;
}

/*
 * Attribution: the scan is one notify-resume return per process every
 * 100 ms (plus up to a tick or two). A marked gap without a context
 * switch is a candidate when another such gap, on any probe, lies one,
 * two or three such periods away (a scan that coincided with a switch
 * leaves a hole). Of the candidates closer than a period to each other,
 * only the longest is the scan: at most one walk runs per period (the
 * other threads that queued the work in that period return at once, and
 * other notify-resume work is not periodic). Its excess over the median
 * unmarked gap (a tick without notify-resume) is the estimate of one
 * call; a picked gap not longer than that median is no estimate (counted
 * apart, never a negative sample).
 */
static void estimate_analyse(struct wl_run *r, const struct scan_model *sm,
			     double seconds, struct estimate *e)
{
	uint64_t jiffy = 1000000000ULL / sm->hz, lo = SCAN_PERIOD_NS - jiffy / 2,
		 hi = SCAN_PERIOD_NS + 2 * jiffy;
	size_t n = 0, nb = 0, nm = 0, ns = 0;
	uint64_t *mt;		/* marked times */
	double *base, *scan;

	for (int i = 0; i < r->nworkers; i++)
		n += r->w[i].nev;
	mt = calloc(n + 1, sizeof(*mt));
	base = calloc(n + 1, sizeof(*base));
	scan = calloc(n + 1, sizeof(*scan));
	e->ev = calloc(n + 1, sizeof(*e->ev));
	if (!mt || !base || !scan || !e->ev)
		ksft_exit_fail_msg("out of memory\n");
	e->events = n;
	for (int i = 0; i < r->nworkers; i++)
		for (size_t k = 0; k < r->w[i].nev; k++) {
			struct wl_event *ev = &r->w[i].ev[k];

			if (ev->marked && ev->switched) {
				e->switched++;
			} else if (ev->marked) {
				mt[nm++] = ev->t_ns;
			} else {
				base[nb++] = ev->gap_ns / 1000.0;
				e->host_gaps += ev->gap_ns > 100000;
			}
		}
	e->marked = nm;
	qsort(mt, nm, sizeof(*mt), periodic_cmp_u64);
	for (int i = 0; i < r->nworkers; i++)
		for (size_t k = 0; k < r->w[i].nev; k++) {
			struct wl_event *ev = &r->w[i].ev[k];

			if (!ev->marked || ev->switched)
				continue;
			if (periodic_neighbour(mt, nm, ev->t_ns, lo, hi, 0,
					       SCAN_MULTIPLES))
				e->ev[e->candidates++] = (struct periodic_ev){
					ev->t_ns, ev->gap_ns / 1000.0, i, false };
			e->control += periodic_neighbour(mt, nm, ev->t_ns, lo, hi,
							 SCAN_PERIOD_NS / 2,
							 SCAN_MULTIPLES);
		}
	/* batched walks are several calls closer than a period: no merging */
	e->periodic = periodic_pick(e->ev, e->candidates, sm->batch ? 0 : lo);
	e->expected_scans = sm->periodic ? seconds * 1e9 / SCAN_PERIOD_NS : 0;
	/* the real scan runs no sooner than a period after the last one */
	e->allowed = periodic_allowed(seconds * 1e9, SCAN_PERIOD_NS, calls_per_walk(sm));
	e->base_p25 = quantile_lower(base, nb, 0.25);
	e->base_p50 = quantile_lower(base, nb, 0.50);
	e->base_p75 = quantile_lower(base, nb, 0.75);
	for (size_t k = 0; k < e->candidates; k++) {
		if (!e->ev[k].picked)
			continue;
		scan[ns++] = e->ev[k].w;
		if (e->ev[k].w <= e->base_p50)
			e->below_tick++;
		else if (e->m)
			metric_add(e->m, e->ev[k].w - e->base_p50);
	}
	e->scan_p50 = quantile_lower(scan, ns, 0.5);
	e->scan_max = ns ? scan[ns - 1] : 0;
	e->resolved = ns && e->scan_p50 - e->base_p50 > e->base_p75 - e->base_p25;
	free(mt);
	free(base);
	free(scan);
}

/* --- compaction and the CID invariants ------------------------------ */

struct segment {
	uint64_t t0, t1;
	uint32_t cid;
	int worker;
};

static int cmp_segment(const void *a, const void *b)
{
	const struct segment *x = a, *y = b;

	return x->t0 < y->t0 ? -1 : x->t0 > y->t0;
}

struct invariants {
	size_t segments, out_of_range, duplicates;
	uint32_t max_cid;
	char first_dup[160];
};

/*
 * Between two recorded returns of a busy loop the thread ran without a
 * break and held the CID it read after the first: a segment. Segments
 * of two threads with the same CID must not overlap in time (2 us of
 * slack for the clocks of two CPUs); every CID is below the number of
 * possible CPUs.
 */
static void check_invariants(struct wl_run *r, int possible, struct invariants *inv)
{
	struct segment *seg;
	size_t n = 0, cap = 0;
	uint64_t *last_end, slack = 2000;
	int *last_worker;

	for (int i = 0; i < r->nworkers; i++)
		cap += r->w[i].nev;
	seg = calloc(cap + 1, sizeof(*seg));
	last_end = calloc(possible, sizeof(*last_end));
	last_worker = calloc(possible, sizeof(*last_worker));
	if (!seg || !last_end || !last_worker)
		ksft_exit_fail_msg("out of memory\n");
	memset(inv, 0, sizeof(*inv));
	for (int i = 0; i < r->nworkers; i++)
		for (size_t k = 0; k + 1 < r->w[i].nev; k++) {
			struct wl_event *a = &r->w[i].ev[k], *b = &r->w[i].ev[k + 1];

			if (a->cid > inv->max_cid)
				inv->max_cid = a->cid;
			if (a->cid >= (uint32_t)possible) {
				inv->out_of_range++;
				continue;
			}
			if (b->t_ns - b->gap_ns > a->t_ns + a->resume_ns)
				seg[n++] = (struct segment){ a->t_ns + a->resume_ns,
							     b->t_ns - b->gap_ns, a->cid, i };
		}
	qsort(seg, n, sizeof(*seg), cmp_segment);
	for (size_t k = 0; k < n; k++) {
		struct segment *s = &seg[k];

		if (last_end[s->cid] && last_worker[s->cid] != s->worker &&
		    s->t0 + slack < last_end[s->cid]) {
			if (!inv->duplicates++)
				snprintf(inv->first_dup, sizeof(inv->first_dup),
					 "cid %u held by threads %d and %d at once for %.1f us",
					 s->cid, last_worker[s->cid], s->worker,
					 (last_end[s->cid] - s->t0) / 1e3);
		}
		if (s->t1 > last_end[s->cid]) {
			last_end[s->cid] = s->t1;
			last_worker[s->cid] = s->worker;
		}
	}
	inv->segments = n;
	free(seg);
	free(last_end);
	free(last_worker);
}

struct row {			/* one line of the seed's table */
	char scan[24];
	const char *workload, *method;
	struct stats call, full, delay;
	size_t n;
	bool walks_judged;	/* the calls-per-walk verdict was given */
};

/* --- the model ------------------------------------------------------ */

/*
 * Per possible CPU the kernel's walk touches three remote lines: the
 * process's pcpu_cid (CID and time), the run queue (its clock) and the
 * task running there (its mm and mm_cid_active). The model does the
 * same per simulated CPU, twice (clear the old, then those above the
 * weight): reads the run queue and current-task lines, then reads and
 * compare-and-exchanges the CID line. Returns ns.
 */
#define MODEL_LINES_PER_CPU	3

static double model_batch(void *base, int from, int n)
{
	uint64_t t0 = bench_clock_start(), sink = 0;

	for (int pass = 0; pass < 2; pass++)
		for (int i = from; i < from + n; i++) {
			struct remote_line *cid = remote_line(base, MODEL_LINES_PER_CPU * i);
			uint64_t c;

			sink += remote_line(base, MODEL_LINES_PER_CPU * i + 1)->val;
			sink += remote_line(base, MODEL_LINES_PER_CPU * i + 2)->tag;
			c = cid->val;
			if (cid->tag != UINT64_MAX)
				__atomic_compare_exchange_n(&cid->val, &c, c | (1ULL << 63),
							    false, __ATOMIC_SEQ_CST,
							    __ATOMIC_RELAXED);
		}
	__asm__ volatile("" : : "r"(sink));
	return clock_to_ns(bench_clock_end() - t0) - bench_clock.overhead_ns;
}

static const char *const model_keys[] = {
	"full_scan_us_n8", "full_scan_us_n16", "full_scan_us_n32",
	"full_scan_us_n64", "full_scan_us_n128", "full_scan_us_n256",
	"full_scan_us_n512", "full_scan_us_n1024", "full_scan_us_n2048",
	"full_scan_us_n4096",
};

/* Median model cost of one walk over @n simulated CPUs in @batch batches. */
static double model_cost_ns(struct remote_lines *s, int n, int batch, int reps,
			    struct metric *m)
{
	double *cost = calloc(reps, sizeof(double)), res;
	int nb = (n + batch - 1) / batch, r;

	if (!cost)
		ksft_exit_fail_msg("out of memory\n");
	for (r = 0; r < reps; r++) {
		double sum = 0, *per = calloc(nb, sizeof(double));

		if (!per)
			ksft_exit_fail_msg("out of memory\n");
		if (!remote_lines_refresh(s)) {
			free(per);
			break;
		}
		for (int j = 0; j < nb; j++) {
			int from = j * batch;

			per[j] = model_batch(s->base, from,
					     from + batch > n ? n - from : batch);
			sum += per[j];
		}
		cost[r] = sum / nb;
		if (m)
			metric_add(m, quantile_lower(per, nb, 0.5));
		free(per);
	}
	res = r < reps ? -1 : quantile_lower(cost, reps, 0.5);	/* stopped: none */
	free(cost);
	return res;
}

/*
 * The MODEL: no verdict of its own (a model checks nothing); where
 * function_graph works the kernel's walk is traced first (that verdict
 * can fail) and the model of the same walk is set beside it as a ratio.
 * The time between batch calls is an input: given by the user, or none
 * (then no extrapolation to 100 ms is printed).
 */
static void run_model(struct bench *b, const struct cid_opts *o,
		      const struct scan_model *sm, const struct row *traced)
{
	static const int batches[] = { 8, 16, 32 };
	struct remote_lines s;
	int reps = b->opt.quick ? 3 : 15, writer_cpu;
	int nsim = (int)o->model_max_cpus;
	cpu_mask_t other;
	double gap_us = o->model_call_gap_us;

	if (nsim < sm->possible)
		nsim = sm->possible;
	/* the scanner on the target CPU, the writer on any other one */
	CPU_AND(&other, &b->sets.allowed, &b->sets.online);
	CPU_CLR(b->target, &other);
	writer_cpu = CPU_COUNT(&other) ? cpu_mask_first(&other) : b->target;
	cpu_pin_self(b->target);
	remote_lines_start(&s, MODEL_LINES_PER_CPU * nsim, writer_cpu);
	bench_note(b, "MODEL (user space, not a kernel measurement): per simulated CPU %d cache lines (CID, run queue clock, current task), written from cpu %d, scanned from cpu %d%s; %d repetitions",
		   MODEL_LINES_PER_CPU, s.writer_cpu, b->target,
		   s.writer_cpu == b->target ? " (same CPU: lines are not remote)" : "", reps);
	if (o->model_gap_given)
		bench_note(b, "MODEL input: %.0f us between batch calls, given with --model-call-gap-us", gap_us);
	else
		bench_note(b, "MODEL input: no time between batch calls (none given, none measured on this kernel): full-scan times are scanning only, no 100 ms extrapolation");
	if (traced && traced->n) {
		double walk_ns = model_cost_ns(&s, sm->possible, sm->batch ? sm->batch : sm->possible,
					       reps, NULL);

		if (walk_ns > 0)
			ksft_print_msg("MODEL vs kernel: one %s over %d possible CPUs, model %.3f us, traced p50 %.2f us (function_graph, %zu calls): ratio traced/model %.1f\n",
				       sm->batch ? "batch" : "full walk", sm->possible, walk_ns / 1e3,
				       traced->call.p50, traced->n, traced->call.p50 / (walk_ns / 1e3));
	}
	for (size_t bi = 0; bi < ARRAY_SIZE(batches) && !bench_stop; bi++) {
		int batch = batches[bi];
		char name[64];
		struct metric *m;
		double cost_ns = 0;

		snprintf(name, sizeof(name), "model_batch_cost_ns_batch%d", batch);
		m = bench_metric(b, name, "ns", BETTER_LOWER,
				 "MODEL: median cost of one batch at the largest N, per repetition");
		for (int n = 8, k = 0; n <= (int)o->model_max_cpus && !bench_stop; n *= 2, k++) {
			int nb = (n + batch - 1) / batch;
			double c = model_cost_ns(&s, n, batch, reps, n * 2 > (int)o->model_max_cpus ? m : NULL),
			       full_us;

			if (c < 0)
				break;
			cost_ns = c;
			full_us = nb * cost_ns / 1e3 + (nb - 1) * gap_us;
			metric_extra(m, model_keys[k], full_us);
			ksft_print_msg("MODEL batch %2d, %4d CPUs: %4d calls, %7.3f us per batch, full scan %9.1f us (%.1f us scanning)\n",
				       batch, n, nb, cost_ns / 1e3, full_us, nb * cost_ns / 1e3);
		}
		/* calls until 100 ms: nb * cost + (nb - 1) * gap > 100 ms */
		if (cost_ns > 0 && o->model_gap_given)
			ksft_print_msg("MODEL batch %d: a full scan passes 100 ms at about %.0f CPUs (%.3f us per batch, %.0f us between calls as given)\n",
				       batch, ceil((1e5 + gap_us) / (cost_ns / 1e3 + gap_us)) * batch,
				       cost_ns / 1e3, gap_us);
	}
	remote_lines_stop(&s);
}

/* --- the three measurements ----------------------------------------- */

static void row_fill(struct row *row, const struct scan_model *sm,
		     const struct cid_opts *o, const char *method,
		     struct metric *call, struct metric *full)
{
	if (sm->scan_off)
		snprintf(row->scan, sizeof(row->scan), "scan off");
	else if (sm->batch > 0)
		snprintf(row->scan, sizeof(row->scan), "batch %d", sm->batch);
	else if (sm->batch < 0)
		snprintf(row->scan, sizeof(row->scan), "batch ?");
	else
		snprintf(row->scan, sizeof(row->scan), "full scan");
	row->workload = workload_names[o->workload];
	row->method = method;
	row->n = call->n;
	if (call->n)
		stats_compute(call->samples, call->n, &row->call);
	if (full && full->n)
		stats_compute(full->samples, full->n, &row->full);
	else if (!sm->batch)
		row->full = row->call;	/* a full scan is one call */
}

/* How the calls of the batched scan formed complete walks. */
static void walks_report(struct bench *b, const struct scan_model *sm,
			 const struct graph_passes *gp, uint64_t lost, struct row *row)
{
	char other[160] = "", why[256];
	size_t off = 0, n;
	int code;

	for (int k = 1; k <= GRAPH_WALK_CALLS_MAX + 1; k++) {
		if (k == sm->walk_calls || !gp->walk_calls[k] || off >= sizeof(other))
			continue;
		off += snprintf(other + off, sizeof(other) - off, "%s%s%d calls x%zu",
				off ? ", " : "", k > GRAPH_WALK_CALLS_MAX ? ">" : "",
				k > GRAPH_WALK_CALLS_MAX ? GRAPH_WALK_CALLS_MAX : k,
				gp->walk_calls[k]);
	}
	n = graph_walks_other(gp);
	ksft_print_msg("walks (function_graph return values): %zu complete with %d calls, %zu with other counts%s%s%s; %zu partial at the trace's ends; %zu calls claimed no batch (-EBUSY)%s\n",
		       gp->walk_calls[sm->walk_calls], sm->walk_calls, n,
		       n ? " (" : "", other, n ? ")" : "", gp->partial, gp->busy,
		       lost ? ", events lost" : "");
	if (row->delay.n)
		ksft_print_msg("delay between the calls of a walk (function_graph): min %.2f us, p50 %.2f, p99 %.2f, max %.2f\n",
			       row->delay.min, row->delay.p50, row->delay.p99, row->delay.max);
	metric_extra(gp->call, "walks_expected_calls", gp->walk_calls[sm->walk_calls]);
	metric_extra(gp->call, "walks_other_calls", n);
	metric_extra(gp->call, "walks_partial", gp->partial);
	metric_extra(gp->call, "calls_no_batch", gp->busy);
	code = graph_walks_verdict(gp, why, sizeof(why));
	bench_verdict(b, code, NULL, "calls per complete scan: %s", why);
	row->walks_judged = true;
}

static void run_workload(struct bench *b, const struct cid_opts *o,
			 struct wl_run *r, int nprobe, bool with_wl)
{
	r->kind = o->workload;
	r->period_us = o->period_us;
	r->hackbench_threads = o->hackbench_threads;
	r->gap_min_ns = o->gap_min_ns;
	r->end_ns = mono_ns() + b->opt.duration_s * 1e9;
	workload_start(r, &b->opt.cpus, nprobe, (int)o->threads, with_wl);
	workload_wait_until(r->end_ns);
	workload_join(r);
}

/*
 * Both methods on one run (spin workload under function_graph): the
 * traced walks (the longest call per period, in a busy loop's thread)
 * against the returns the estimate attributed. A match is the same
 * thread with the estimate's return within 2 ms after the traced call
 * ended. Needs the trace clock on CLOCK_MONOTONIC.
 */
static void cross_check(struct wl_run *r, const struct graph_passes *gp,
			const struct scan_model *sm, double seconds, struct metric *call)
{
	struct estimate e = { 0 };
	struct periodic_ev *tw = calloc(gp->nts + 1, sizeof(*tw));
	size_t ntw = 0, real = 0, missed = 0, walks;
	/* why a traced walk was missed: the return after it was ... */
	size_t m_none = 0, m_switched = 0, m_unmarked = 0, m_lonely = 0, m_other = 0;
	uint64_t jiffy = 1000000000ULL / sm->hz, tol = 2000000;

	if (!tw)
		ksft_exit_fail_msg("out of memory\n");
	estimate_analyse(r, sm, seconds, &e);
	for (size_t k = 0; k < gp->nts; k++)
		for (int i = 0; i < r->nworkers; i++)
			if (r->w[i].tid == gp->ts_pid[k])
				tw[ntw++] = (struct periodic_ev){
					(uint64_t)(gp->ts_s[k] * 1e9), gp->ts_us[k], i, false };
	walks = periodic_pick(tw, ntw, sm->batch ? 0 : SCAN_PERIOD_NS - jiffy / 2);
	for (size_t k = 0; k < ntw; k++) {
		struct wl_worker *w = &r->w[tw[k].tag];
		struct wl_event *ret = NULL;
		bool found = false, cand = false;

		if (!tw[k].picked)
			continue;
		for (size_t j = 0; j < e.candidates && !found; j++) {
			uint64_t t = workload_mono_ns(r, e.ev[j].t);
			bool near = e.ev[j].tag == tw[k].tag && t >= tw[k].t &&
				    t - tw[k].t < tol + tw[k].w * 1e3;

			cand |= near;
			found = near && e.ev[j].picked;
		}
		real += found;
		if (found)
			continue;
		missed++;
		/* the return in the window, a marked one if there is one */
		for (size_t j = 0; j < w->nev && !(ret && ret->marked); j++) {
			uint64_t t = workload_mono_ns(r, w->ev[j].t_ns);

			if (t >= tw[k].t && t - tw[k].t < tol + tw[k].w * 1e3)
				ret = &w->ev[j];
		}
		if (!ret)
			m_none++;
		else if (!ret->marked)
			m_unmarked++;
		else if (ret->switched)
			m_switched++;
		else if (!cand)
			m_lonely++;
		else
			m_other++;
	}
	ksft_print_msg("both methods on this run: the estimate attributed %zu scans, %zu of them real (a traced walk in the same thread ending within 2 ms before), %zu not; function_graph saw %zu walks (%zu calls in the busy loops), the estimate missed %zu: %zu returned after a context switch, %zu without a periodic neighbour, %zu another pick in their period, %zu unmarked, %zu with no return recorded\n",
		       e.periodic, real, e.periodic - real, walks, ntw, missed, m_switched,
		       m_lonely, m_other, m_unmarked, m_none);
	if (r->clk1_ns > r->clk0_ns)
		ksft_print_msg("both methods: the busy loops' clock ran %+.0f ppm against CLOCK_MONOTONIC over the run (mapped linearly)\n",
			       1e6 * ((double)(r->mono1_ns - r->mono0_ns) /
				      (r->clk1_ns - r->clk0_ns) - 1));
	metric_extra(call, "cross_estimated_scans", e.periodic);
	metric_extra(call, "cross_estimated_real", real);
	metric_extra(call, "cross_traced_walks", walks);
	metric_extra(call, "cross_missed", missed);
	metric_extra(call, "cross_missed_switched", m_switched);
	free(e.ev);
	free(tw);
}

static void latency_traced(struct bench *b, const struct cid_opts *o,
			   const struct scan_model *sm, struct row *row)
{
	struct wl_run r = { 0 };
	/* with batches, one walk is the calls less than 50 ms apart */
	struct graph_passes gp = { .split_s = sm->batch ? 0.05 : 0, .below_us = 10,
				   .by_retval = sm->walk_retval, .expect = sm->walk_calls };
	/* the metric keeps it until the JSON is written: not on this stack */
	static struct hist h;
	struct graph_read_info info;
	char err[256];
	uint64_t lost;
	bool spin = o->workload == WL_SPIN;
	uint64_t t0;
	double run_s;

	if (o->trace_buffer_kb) {
		char kb[32];

		snprintf(kb, sizeof(kb), "%llu", (unsigned long long)o->trace_buffer_kb);
		if (tracefs_set("buffer_size_kb", kb, err, sizeof(err))) {
			tracefs_restore_all();
			bench_verdict(b, KSFT_FAIL, NULL, "function_graph: %s", err);
			return;
		}
	}
	if (tracefs_graph_start(sm->func, err, sizeof(err))) {
		tracefs_restore_all();
		bench_verdict(b, KSFT_SKIP, err, "function_graph timed %s", sm->func);
		return;
	}
	t0 = mono_ns();
	run_workload(b, o, &r, spin ? (int)o->threads : 0, !spin);
	tracefs_graph_stop();
	run_s = (mono_ns() - t0) / 1e9;
	graph_passes_init(&gp, r.nworkers + r.nchildren, r.nchildren + 1);
	if (hist_init(&h, 0, 1, 200))
		ksft_exit_fail_msg("out of memory\n");
	/* this process is group 0, each hackbench child its own */
	graph_passes_task(&gp, getpid(), 0);
	for (int i = 0; i < r.nworkers; i++)
		graph_passes_task(&gp, r.w[i].tid, 0);
	for (int i = 0; i < r.nchildren; i++)
		graph_passes_task(&gp, -r.children[i], i + 1);
	gp.h = &h;
	gp.call = bench_metric(b, "scan_call_us", "us", BETTER_LOWER,
			       "one call of the scan function (function_graph)");
	gp.pass_us = bench_metric(b, "complete_scan_us", "us", BETTER_LOWER,
				  gp.by_retval ? "first to last call of one complete walk over all CPUs, walks with the expected number of calls (function_graph)"
					       : "first to last call of one walk over all CPUs (function_graph)");
	if (gp.by_retval)
		gp.gap_us = bench_metric(b, "scan_call_delay_us", "us", BETTER_NONE,
					 "end of one call to the start of the next within a walk (function_graph)");
	graph_passes_read(&gp, &info);
	tracefs_restore_all();
	lost = graph_read_lost(&info);
	if (spin && tracefs_graph_mono())
		cross_check(&r, &gp, sm, run_s, gp.call);
	metric_extra(gp.call, "batch_cpus", sm->batch);
	metric_extra(gp.call, "possible_cpus", sm->possible);
	metric_extra(gp.call, "walk_calls_expected", sm->walk_calls);
	metric_extra(gp.call, "scan_off", sm->scan_off);
	metric_extra(gp.call, "below_10us_share", gp.calls ? (double)gp.below / gp.calls : 0);
	metric_extra(gp.call, "nonleaf_calls", gp.nonleaf);
	metric_extra(gp.call, "events_lost", lost);
	gp.call->hist = &h;
	metric_sample_noun(gp.call, "call", "calls");
	metric_summary(gp.call, "scan per call", "%s, %s, %d possible CPUs, %zu calls, function_graph",
		       sm->scan_off ? "scan off" : sm->batch ? "batched" : "full scan",
		       workload_names[o->workload], sm->possible, gp.calls);
	row_fill(row, sm, o, "function_graph", gp.call, gp.pass_us);
	if (gp.gap_us && gp.gap_us->n)
		stats_compute(gp.gap_us->samples, gp.gap_us->n, &row->delay);
	if (gp.calls) {
		ksft_print_msg("scan per call (function_graph, %s): min %.2f us, p50 %.2f, p99 %.2f, max %.2f; %.0f%% below 10 us; %zu calls (%zu non-leaf: preempted or interrupted inside), %zu in other processes ignored\n",
			       sm->func, row->call.min, row->call.p50, row->call.p99,
			       row->call.max, 100.0 * gp.below / gp.calls, gp.calls,
			       gp.nonleaf, gp.other);
		if (row->full.n)
			ksft_print_msg("complete scan (function_graph): %zu walks, min %.2f us, p50 %.2f, max %.2f\n",
				       row->full.n, row->full.min, row->full.p50, row->full.max);
		if (!b->opt.quiet)
			hist_print(&h, stdout, "us", 50);
	}
	ksft_print_msg("function_graph trace: %llu events lost (%llu in LOST markers, %llu overwritten, %llu per-CPU overrun and dropped), %zu entries cut by the end of tracing\n",
		       (unsigned long long)lost, (unsigned long long)info.lost_lines,
		       (unsigned long long)info.overwritten, (unsigned long long)info.overrun,
		       info.unmatched);
	bench_verdict(b, gp.calls && !lost ? KSFT_PASS : KSFT_FAIL, NULL,
		      "function_graph timed %zu calls of %s in %.1f s (%s)%s",
		      gp.calls, sm->func, run_s, workload_names[o->workload],
		      lost ? ", but the trace lost events: calls are missing" : "");
	if (gp.by_retval)
		walks_report(b, sm, &gp, lost, row);
	graph_passes_free(&gp);
	workload_free(&r);
}

static void latency_estimated(struct bench *b, const struct cid_opts *o,
			      const struct scan_model *sm, struct row *row)
{
	struct wl_run r = { 0 };
	struct estimate e = { 0 };
	bool spin = o->workload == WL_SPIN;
	int nprobe = spin ? (int)o->threads : CPU_COUNT(&b->opt.cpus);
	uint64_t t0 = mono_ns();
	bool seen;

	e.m = bench_metric(b, "scan_call_estimate_us", "us", BETTER_LOWER,
			   "periodic notify-resume gap minus the median tick gap, one per scan period (user-space estimate)");
	run_workload(b, o, &r, nprobe, !spin);
	estimate_analyse(&r, sm, (mono_ns() - t0) / 1e9, &e);
	metric_extra(e.m, "batch_cpus", sm->batch);
	metric_extra(e.m, "possible_cpus", sm->possible);
	metric_extra(e.m, "tick_gap_iqr_us", e.base_p75 - e.base_p25);
	metric_extra(e.m, "resolved", e.resolved);
	metric_extra(e.m, "candidates", e.candidates);
	metric_extra(e.m, "attributed_scans", e.periodic);
	metric_extra(e.m, "allowed_scans", e.allowed);
	metric_extra(e.m, "picked_below_tick", e.below_tick);
	metric_sample_noun(e.m, "scan", "scans");
	metric_summary(e.m, "scan per call (estimate)", "%s, %s, %d possible CPUs, %d busy loops, %zu scans attributed, user-space estimate",
		       sm->batch ? "batched" : "full scan", workload_names[o->workload],
		       sm->possible, nprobe, e.periodic);
	row_fill(row, sm, o, "estimate", e.m, NULL);
	ksft_print_msg("estimate method: pinned busy loops time every kernel entry with the TSC; the rseq notify-resume marker (rseq_cs cleared by the kernel) tags the returns that ran task_work, getrusage drops those after a context switch; marked returns 100 ms apart are candidates, the longest per scan period is attributed to the scan\n");
	ksft_print_msg("estimate: %zu recorded gaps, %zu marked without a context switch (%zu more with one), %zu periodic candidates (%zu with the windows half a period off), %zu attributed to the scan (one per period; expected about %.0f, at most %.0f), %zu of them no longer than a tick; attributed gap p50 %.2f us, max %.2f; tick gap p50 %.2f us (IQR %.2f-%.2f); %zu host gaps over 100 us\n",
		       e.events, e.marked, e.switched, e.candidates, e.control, e.periodic,
		       e.expected_scans, e.allowed, e.below_tick, e.scan_p50, e.scan_max,
		       e.base_p50, e.base_p25, e.base_p75, e.host_gaps);
	seen = e.periodic >= e.expected_scans / 2 && e.candidates > 2 * e.control;
	if (!e.resolved)
		ksft_print_msg("estimate swamped: the scan adds less than the spread of ordinary tick gaps (%.2f us IQR) here; the per-call numbers are an upper bound, not a measurement\n",
			       e.base_p75 - e.base_p25);
	if (!sm->periodic)
		bench_verdict(b, e.candidates <= 2 * e.control + 1 ? KSFT_PASS : KSFT_FAIL, NULL,
			      "no periodic scan: %zu periodic notify-resume returns (%zu half a period off)",
			      e.candidates, e.control);
	else if (e.periodic > e.allowed)
		bench_verdict(b, KSFT_FAIL, NULL,
			      "scan seen from user space: %zu scans attributed in %.1f s, more than the %.0f the 100 ms period allows",
			      e.periodic, (mono_ns() - t0) / 1e9, e.allowed);
	else if (seen || e.switched < e.expected_scans / 2)
		bench_verdict(b, seen ? KSFT_PASS : KSFT_FAIL, NULL,
			      "scan seen from user space: %zu scans attributed (about %.0f expected, at most %.0f), %zu candidates half a period off",
			      e.periodic, e.expected_scans, e.allowed, e.control);
	else
		bench_verdict(b, KSFT_SKIP, "swamped: the busy loops were switched out more often than the scan runs (a busy machine)",
			      "scan seen from user space: %zu scans attributed, about %.0f expected, %zu context switches",
			      e.periodic, e.expected_scans, e.switched);
	free(e.ev);
	workload_free(&r);
}

/*
 * Compaction that only the scan can do. A CID belongs to a (process,
 * CPU) pair and stays with the CPU while threads come and go; it is
 * given back when a thread exits or execs on that CPU, when a migrating
 * thread takes it along (only while nothing else of the process runs
 * on the source CPU), and by the scan: CIDs unused for 100 ms, and those
 * at or above the number still allocated. So, in a fresh process (a
 * child: its CIDs start unallocated):
 *
 *  1. the main thread keeps off cpu A and starts one holder thread per
 *     other CPU, pinned and spinning there: those CPUs take the low CIDs;
 *  2. the holder on the main thread's CPU moves the main thread to A
 *     (sched_setaffinity, then a wakeup, while that holder itself runs
 *     on the source CPU, so the CID is not taken along): A gets the next
 *     free CID, at least 1. Nothing else of the process ever runs on A;
 *  3. the holders exit on their own CPUs, freeing every lower CID;
 *  4. the survivor sleeps 3 scan periods in one nanosleep: the scan runs
 *     only in the process's own threads, queued by a tick that finds one
 *     of them running, so none can run. Its CID must still be the high
 *     one: the exits did not compact it;
 *  5. then it runs (1 ms spin, 1 ms sleep) until its CID reads 0: the
 *     scan's second walk marks A's CID (at or above the weight, 1), the
 *     next switch gives it back, the next allocation takes 0.
 * On a kernel whose scan is off, step 5 never ends: FAIL at the bound.
 */
#define COMPACT_SLEEP_PERIODS	3

struct compact_shared {
	int cpu_a, cpu_after;
	uint32_t held, after_sleep;
	uint32_t holder_cid[64];
	int nholders;
	double sleep_s, reach_s;	/* reach_s -1: not within the bound */
	char why[160];			/* why the setup failed, "" if it did not */
	int done;
};

struct holder {
	pthread_t th;
	int cpu, cpu_a, wake_fd;
	pid_t main_tid;
	bool mover;			/* on the main thread's CPU */
	volatile uint32_t cid;
	volatile int running, go, stop;
};

static void *holder_main(void *arg)
{
	struct holder *h = arg;
	volatile struct rseq_abi *rs;

	if (cpu_pin_self(h->cpu) || rseq_thread_init()) {
		h->running = -1;
		return NULL;
	}
	rs = rseq_area();
	if (!rs) {
		h->running = -1;
		return NULL;
	}
	while (!h->stop) {
		h->cid = rseq_mm_cid(rs);
		h->running = rseq_cpu(rs) == (uint32_t)h->cpu;
		if (h->mover && h->go) {
			cpu_mask_t a;
			char c = 1;

			CPU_ZERO(&a);
			CPU_SET(h->cpu_a, &a);
			h->go = sched_setaffinity(h->main_tid, sizeof(a), &a) ? -errno : 0;
			if (write(h->wake_fd, &c, 1) != 1)
				h->go = -EIO;
			h->mover = false;
		}
	}
	return NULL;
}

/* Cleanup: kill and reap the child unless it was reaped (*pid 0). */
static void child_kill(void *arg)
{
	pid_t *pid = arg;

	if (*pid > 0) {
		kill(*pid, SIGKILL);
		waitpid(*pid, NULL, 0);
	}
}

/*
 * Seconds until the calling thread's CID reads 0 while it runs, or -1.
 * The negative control (@asleep) sleeps through the bound instead, so
 * that no scan can run, and reads once.
 */
static double survivor_wait(volatile struct rseq_abi *rs, double timeout_s,
			    bool asleep)
{
	uint64_t t0 = mono_ns(), end = t0 + timeout_s * 1e9, now;

	if (asleep) {
		usleep(timeout_s * 1e6);
		return rseq_mm_cid(rs) == 0 ? (mono_ns() - t0) / 1e9 : -1;
	}
	while ((now = mono_ns()) < end) {
		if (rseq_mm_cid(rs) == 0)
			return (now - t0) / 1e9;
		while (mono_ns() < now + 1000000)
			;
		usleep(1000);
	}
	return -1;
}

static void compact_child(struct compact_shared *cs, const cpu_mask_t *cpus,
			  double timeout_s, bool control)
{
	volatile struct rseq_abi *rs = rseq_area();
	struct holder h[64] = { 0 };
	cpu_mask_t others = *cpus;
	int wake[2], q, n = 0, cpu;
	uint64_t t;
	char c;

	CPU_CLR(cs->cpu_a, &others);
	q = cpu_mask_first(&others);
	if (pipe(wake) || cpu_pin_self(q)) {
		snprintf(cs->why, sizeof(cs->why), "pipe or pinning to cpu %d: %s", q, strerror(errno));
		return;
	}
	cpu_mask_for_each(cpu, &others) {
		if (n == (int)ARRAY_SIZE(h))
			break;
		h[n] = (struct holder){ .cpu = cpu, .cpu_a = cs->cpu_a, .wake_fd = wake[1],
					.main_tid = gettid(), .mover = cpu == q };
		errno = pthread_create(&h[n].th, NULL, holder_main, &h[n]);
		if (errno) {
			snprintf(cs->why, sizeof(cs->why), "pthread_create: %s", strerror(errno));
			break;
		}
		n++;
	}
	/* every holder spinning on its CPU with a CID (bounded: 5 s) */
	for (t = mono_ns(); !cs->why[0] && mono_ns() < t + 5000000000ULL; usleep(2000)) {
		int ready = 0;

		for (int i = 0; i < n; i++)
			ready += h[i].running == 1;
		if (ready == n)
			break;
	}
	usleep(20000);
	for (int i = 0; i < n; i++)
		if (h[i].mover)
			h[i].go = 1;
	if (!cs->why[0] && read(wake[0], &c, 1) != 1)
		snprintf(cs->why, sizeof(cs->why), "wake pipe: %s", strerror(errno));
	for (int i = 0; i < n; i++) {
		if (h[i].go < 0 && !cs->why[0])
			snprintf(cs->why, sizeof(cs->why), "sched_setaffinity to cpu %d: %s",
				 cs->cpu_a, strerror(-h[i].go));
		cs->holder_cid[i] = h[i].cid;
	}
	cs->nholders = n;
	/* let the other CPUs' last switches settle, then read */
	for (t = mono_ns(); mono_ns() < t + 10000000;)
		;
	cs->held = rseq_mm_cid(rs);
	cs->cpu_after = rseq_cpu(rs);
	for (int i = 0; i < n; i++)
		h[i].stop = 1;
	for (int i = 0; i < n; i++)
		pthread_join(h[i].th, NULL);
	if (cs->why[0] || cs->cpu_after != cs->cpu_a || !cs->held)
		return;
	/* off CPU for whole scan periods: no scan can run meanwhile */
	t = mono_ns();
	usleep(COMPACT_SLEEP_PERIODS * SCAN_PERIOD_NS / 1000);
	cs->after_sleep = rseq_mm_cid(rs);
	cs->sleep_s = (mono_ns() - t) / 1e9;
	cs->reach_s = survivor_wait(rs, timeout_s, control);
}

/* The verdict line of the scan-only compaction; a child does the work. */
static void compaction(struct bench *b, const struct cid_opts *o,
		       const struct scan_model *sm)
{
	struct compact_shared *cs;
	struct metric *m;
	char hold[256] = "";
	uint64_t end;
	pid_t pid;
	int st, handle, a;
	cpu_mask_t ticking;

	/*
	 * The survivor's CPU: one whose tick runs. On a nohz_full CPU a
	 * lone task stops the tick, and the scan is queued only from the
	 * tick (the remote 1 Hz tick does not): there it never runs.
	 */
	CPU_XOR(&ticking, &b->opt.cpus, &b->sets.nohz_full);
	CPU_AND(&ticking, &ticking, &b->opt.cpus);
	if (!CPU_COUNT(&ticking))
		ticking = b->opt.cpus;
	a = CPU_ISSET(b->target, &ticking) ? b->target : cpu_mask_last(&ticking);
	if (CPU_ISSET(a, &b->sets.nohz_full))
		ksft_print_msg("compaction: every CPU of --cpu is nohz_full: the survivor's tick may stop and with it the scan\n");
	if (bench_stop) {
		bench_verdict(b, KSFT_SKIP, "interrupted", "compaction by the scan");
		return;
	}
	if (!sm->periodic) {
		bench_verdict(b, KSFT_SKIP, "no periodic scan on this kernel",
			      "compaction by the scan");
		return;
	}
	if (CPU_COUNT(&b->opt.cpus) < 2) {
		bench_verdict(b, KSFT_SKIP, "needs 2 CPUs in --cpu (holders and the survivor)",
			      "compaction by the scan");
		return;
	}
	cs = mmap(NULL, sizeof(*cs), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (cs == MAP_FAILED)
		ksft_exit_fail_msg("mmap: %s\n", strerror(errno));
	memset(cs, 0, sizeof(*cs));
	cs->cpu_a = a;
	cs->reach_s = -1;
	fflush(stdout);
	pid = fork();
	if (pid < 0)
		ksft_exit_fail_msg("fork: %s\n", strerror(errno));
	if (pid == 0) {
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		signal(SIGHUP, SIG_DFL);
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		compact_child(cs, &b->opt.cpus, o->compaction_timeout_s,
			      o->compaction_control);
		cs->done = 1;
		_exit(0);
	}
	handle = cleanup_push(child_kill, &pid);
	end = mono_ns() + (o->compaction_timeout_s + 15) * 1e9;
	while (waitpid(pid, &st, WNOHANG) == 0) {
		if (bench_stop || mono_ns() > end)
			kill(pid, SIGKILL);
		usleep(10000);
	}
	pid = 0;
	cleanup_run_one(handle);
	for (int i = 0; i < cs->nholders; i++)
		snprintf(hold + strlen(hold), sizeof(hold) - strlen(hold), "%s%u",
			 i ? "," : "", cs->holder_cid[i]);
	ksft_print_msg("compaction: a fresh process; holders on the other cpus had cids %s; the survivor on cpu %d (read cpu %d) held cid %u; after its siblings exited it slept %.3f s (%d scan periods, no scan possible) and still held %u; running, %s\n",
		       hold, a, cs->cpu_after, cs->held, cs->sleep_s, COMPACT_SLEEP_PERIODS,
		       cs->after_sleep, cs->reach_s >= 0 ? "its cid reached 0" : "its cid did not reach 0");
	m = bench_metric(b, "compaction_s", "s", BETTER_LOWER,
			 "survivor running after its siblings exited and a scan-free sleep: until its mm_cid reads 0 (only the scan can do it)");
	if (cs->reach_s >= 0)
		metric_add(m, cs->reach_s);
	if (bench_stop && !cs->done)
		bench_verdict(b, KSFT_SKIP, "interrupted", "compaction by the scan");
	else if (!cs->done)
		bench_verdict(b, KSFT_FAIL, NULL, "compaction by the scan: the child did not finish");
	else if (cs->why[0] || cs->cpu_after != a || !cs->held)
		bench_verdict(b, KSFT_FAIL, NULL,
			      "compaction by the scan: setup failed, cid %u on cpu %d (wanted >0 on cpu %d)%s%s",
			      cs->held, cs->cpu_after, a, cs->why[0] ? ": " : "", cs->why);
	else if (cs->after_sleep != cs->held)
		bench_verdict(b, KSFT_FAIL, NULL,
			      "compaction by the scan: cid %u became %u asleep, with no scan: something else compacts",
			      cs->held, cs->after_sleep);
	else if (cs->reach_s < 0)
		bench_verdict(b, KSFT_FAIL, NULL,
			      "compaction by the scan: cid %u kept %.2f s asleep, not 0 within %.1f s %s",
			      cs->held, cs->sleep_s, o->compaction_timeout_s,
			      o->compaction_control ? "asleep (control)" : "running");
	else
		bench_verdict(b, KSFT_PASS, NULL,
			      "compaction by the scan: cid %u kept %.2f s asleep, 0 after %.3f s running (bound %.1f s)",
			      cs->held, cs->sleep_s, cs->reach_s, o->compaction_timeout_s);
	munmap(cs, sizeof(*cs));
}

/*
 * The CID invariants over pinned busy loops (2 per CPU by default):
 * every CID below the possible CPUs, none held by two threads at once.
 */
static void invariants(struct bench *b, const struct cid_opts *o,
		       const struct scan_model *sm)
{
	struct wl_run r = { .kind = WL_SPIN, .gap_min_ns = o->gap_min_ns };
	struct invariants inv;
	int n = o->compaction_threads ? (int)o->compaction_threads
				      : 2 * CPU_COUNT(&b->opt.cpus);
	uint64_t t0;

	if (bench_stop) {
		bench_verdict(b, KSFT_SKIP, "interrupted", "mm_cid invariants");
		return;
	}
	/* at least 0.3 s (0.6), more on a busy machine: 20 returns per loop */
	t0 = mono_ns();
	r.end_ns = t0 + 5e9;
	workload_start(&r, &b->opt.cpus, n, 0, false);
	workload_wait_until(t0 + (b->opt.quick ? 0.3 : 0.6) * 1e9);
	while (!bench_stop && mono_ns() < r.end_ns) {
		int short_of = 0;

		for (int i = 0; i < n; i++)
			short_of += __atomic_load_n(&r.w[i].nev, __ATOMIC_ACQUIRE) < 20;
		if (!short_of)
			break;
		usleep(20000);
	}
	workload_join(&r);
	check_invariants(&r, sm->possible, &inv);
	bench_verdict(b, !inv.out_of_range && !inv.duplicates && inv.segments ? KSFT_PASS : KSFT_FAIL,
		      NULL, "mm_cid invariants over %zu running stretches of %d threads: max cid %u < %d possible CPUs (%zu above), %zu duplicates at the same moment%s%s",
		      inv.segments, n, inv.max_cid, sm->possible, inv.out_of_range,
		      inv.duplicates, inv.duplicates ? ": " : "", inv.first_dup);
	workload_free(&r);
}

/* The walks phase when function_graph gave no walks to judge. */
static void walks_unjudged(struct bench *b, const struct scan_model *sm,
			   const struct row *row)
{
	if (sm->walk_retval && !row->walks_judged)
		bench_verdict(b, KSFT_SKIP, "needs function_graph", "calls per complete scan");
}

/* Per call: function_graph where it works, else the user-space estimate. */
static void scan_latency(struct bench *b, const struct cid_opts *o,
			 const struct scan_model *sm, struct row *row)
{
	char why[192];

	if (!sm->periodic)
		bench_verdict(b, KSFT_SKIP, "no periodic mm_cid scan on this kernel",
			      "scan latency per call");
	else if (o->method != M_ESTIMATE && !tracefs_graph_probe(sm->func, why, sizeof(why)))
		latency_traced(b, o, sm, row);
	else if (o->method == M_TRACE)
		bench_verdict(b, KSFT_SKIP, why, "function_graph timed %s", sm->func);
	else
		latency_estimated(b, o, sm, row);
	if (o->method == M_AUTO && sm->periodic && row->method && !strcmp(row->method, "estimate"))
		bench_note(b, "function_graph not usable (%s): user-space estimate", why);
	walks_unjudged(b, sm, row);
}

/* Defaults that depend on --cpu and --quick; what the table cannot check. */
static void opts_finish(struct bench *b, struct cid_opts *o, bool threads_given)
{
	if (!b->opt.cpus_given)
		CPU_AND(&b->opt.cpus, &b->sets.allowed, &b->sets.online);
	if (b->opt.quick && !b->opt.duration_given)
		b->opt.duration_s = 2;
	if (!threads_given)
		o->threads = CPU_COUNT(&b->opt.cpus);
	if (o->workload == WL_HACKBENCH && o->threads < 2)
		bench_usage_error(b, "--workload hackbench needs --threads 2 or more");
}

static void table_print(const struct row *row)
{
	char full[32] = "-", delay[32] = "-";

	ksft_print_msg("cid_scan table (us; complete scan: first to last call of a walk):\n");
	ksft_print_msg("  %-10s %-10s %-14s %-7s %-16s %-14s %s\n", "scan", "workload",
		       "per call", "p50", "complete scan", "delay", "method, calls");
	if (!row->n) {
		ksft_print_msg("  %-10s %-10s %-14s %-7s %-16s %-14s %s\n", row->scan,
			       row->workload ? row->workload : "-", "-", "-", "-", "-",
			       "no calls");
		return;
	}
	if (row->full.n)
		snprintf(full, sizeof(full), "%.1f-%.1f", row->full.min, row->full.max);
	if (row->delay.n)
		snprintf(delay, sizeof(delay), "%.1f-%.1f", row->delay.min, row->delay.max);
	ksft_print_msg("  %-10s %-10s %5.1f-%-8.1f %-7.1f %-16s %-14s %s, %zu\n",
		       row->scan, row->workload, row->call.min, row->call.max,
		       row->call.p50, full, delay, row->method, row->n);
}

int main(int argc, char **argv)
{
	struct cid_opts o = {
		.workload = WL_SPIN, .method = M_AUTO, .period_us = 100,
		.gap_min_ns = 1000, .compaction_timeout_s = 5,
		.model_max_cpus = 4096,
	};
	bool threads_given = false;
	const struct opt opts[] = {
		{ .name = "workload", .key = 'w', .type = OPT_CHOICE, .dest = &o.workload,
		  .arg = "NAME", .help = "what runs while the scan is timed",
		  .choices = workload_names },
		{ .name = "threads", .key = 't', .type = OPT_UINT, .dest = &o.threads,
		  .given = &threads_given, .arg = "N",
		  .help = "workload threads (default one per CPU of --cpu)", .min = 1, .max = 4096 },
		{ .name = "period-us", .type = OPT_UINT, .dest = &o.period_us, .arg = "US",
		  .help = "cyclic workload: wakeup period", .min = 10, .max = 1000000 },
		{ .name = "hackbench-threads", .type = OPT_FLAG, .dest = &o.hackbench_threads,
		  .help = "hackbench workload: threads of this process instead of processes" },
		{ .name = "method", .key = 'm', .type = OPT_CHOICE, .dest = &o.method,
		  .arg = "NAME", .help = "scan latency: function_graph trace or user-space estimate",
		  .choices = method_names },
		{ .name = "trace-buffer-kb", .type = OPT_UINT, .dest = &o.trace_buffer_kb,
		  .arg = "KB", .help = "trace: ring buffer per CPU (default: as it is; restored after)",
		  .min = 1, .max = 1048576 },
		{ .name = "gap-min-ns", .type = OPT_UINT, .dest = &o.gap_min_ns, .arg = "NS",
		  .help = "estimate: record busy-loop gaps longer than this", .min = 100, .max = 1000000 },
		{ .name = "compaction-threads", .type = OPT_UINT, .dest = &o.compaction_threads,
		  .arg = "N", .help = "invariants: pinned busy loops (default 2 per CPU)",
		  .min = 2, .max = 4096 },
		{ .name = "compaction-timeout", .type = OPT_DOUBLE, .dest = &o.compaction_timeout_s,
		  .arg = "SECS", .help = "compaction: bound for the survivor's cid to reach 0 while it runs",
		  .min = 0.1, .max = 600 },
		{ .name = "no-compaction", .type = OPT_FLAG, .dest = &o.no_compaction,
		  .help = "skip the compaction and invariant checks" },
		{ .name = "compaction-control", .type = OPT_FLAG, .dest = &o.compaction_control,
		  .help = "negative control: the survivor sleeps through the bound, no scan can run, compaction must FAIL" },
		{ .name = "model", .type = OPT_FLAG, .dest = &o.model,
		  .help = "run the user-space MODEL of the batched scan instead" },
		{ .name = "model-max-cpus", .type = OPT_UINT, .dest = &o.model_max_cpus,
		  .arg = "N", .help = "model: largest simulated CPU count (8, 16, ... up to N)",
		  .min = 8, .max = 4096 },
		{ .name = "model-call-gap-us", .type = OPT_DOUBLE, .dest = &o.model_call_gap_us,
		  .given = &o.model_gap_given, .arg = "US",
		  .help = "model: time between two batch calls, your input (no default)",
		  .min = 0, .max = 1e6 },
		{ NULL }
	};
	const struct prog_spec spec = {
		.name = "cid_scan",
		.summary = "RSEQ mm_cid scan latency per call, complete-scan time and CID compaction.",
		.common = COMMON_CPU | COMMON_DURATION,
		.opts = opts,
		.rules = (const struct opt_rule[]){
			{ "model", OPT_CONFLICTS, "workload" },
			{ "model", OPT_CONFLICTS, "threads" },
			{ "model", OPT_CONFLICTS, "method" },
			{ "model", OPT_CONFLICTS, "compaction-threads" },
			{ "model-max-cpus", OPT_NEEDS, "model" },
			{ "model-call-gap-us", OPT_NEEDS, "model" },
			{ "no-compaction", OPT_CONFLICTS, "compaction-threads" },
			{ "no-compaction", OPT_CONFLICTS, "compaction-timeout" },
			{ "period-us", OPT_NEEDS, "workload=cyclic" },
			{ "hackbench-threads", OPT_NEEDS, "workload=hackbench" },
			{ NULL }
		},
	};
	struct bench b = { .opt = { .duration_s = 10 } };
	struct scan_model sm = { 0 };
	struct row row = { .scan = "" };
	char why[192];
	bool trace;

	bench_init(&b, &spec, argc, argv);
	opts_finish(&b, &o, threads_given);
	detect(&b, &sm);
	/* the model times the scan with function_graph where it can */
	trace = o.model && sm.periodic && !tracefs_graph_probe(sm.func, why, sizeof(why));
	bench_phases(&b, (const struct plan_phase[]){
		/* scan_latency(), or latency_traced() for the model */
		{ "latency", 1, !o.model || trace },
		/* walks_report(): the batch patch's return values */
		{ "walks", 1, sm.walk_retval && (!o.model || trace) },
		{ "compaction", 1, !o.model && !o.no_compaction },
		{ "invariants", 1, !o.model && !o.no_compaction },
		{ "model", 0, o.model },	/* run_model(): no verdict */
		{ NULL }
	});
	if (o.model) {
		if (trace) {
			latency_traced(&b, &o, &sm, &row);
			walks_unjudged(&b, &sm, &row);
		} else {
			bench_note(&b, "MODEL only, no verdict: %s", sm.periodic ? why : "no periodic scan to compare with");
		}
		run_model(&b, &o, &sm, trace ? &row : NULL);
		bench_finish(&b);
	}
	scan_latency(&b, &o, &sm, &row);
	if (!o.no_compaction) {
		compaction(&b, &o, &sm);
		invariants(&b, &o, &sm);
	}
	if (row.workload)
		table_print(&row);
	bench_finish(&b);
}
