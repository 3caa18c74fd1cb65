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
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
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
	bool hackbench_threads, model, no_compaction;
	uint64_t model_max_cpus;
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
	size_t events, marked, switched, periodic, host_gaps;
	size_t control;			/* matches half a period off */
	double expected_scans;
	double base_p25, base_p50, base_p75;	/* unmarked gaps, us */
	double scan_p50, scan_max;	/* periodic marked gaps, us */
	bool resolved;
	struct metric *m;
};

/*
 * Attribution: the scan is one notify-resume return per process every
 * 100 ms (plus up to a tick or two). A marked gap without a context
 * switch is "periodic" when another such gap, on any probe, lies one,
 * two or three such periods away (a scan that coincided with a switch
 * leaves a hole). Its excess over the median unmarked gap
 * (a tick without notify-resume) is the estimate of one scan call.
 */
static void estimate_analyse(struct wl_run *r, const struct scan_model *sm,
			     double seconds, struct estimate *e)
{
	uint64_t jiffy = 1000000000ULL / sm->hz, lo = SCAN_PERIOD_NS - jiffy / 2,
		 hi = SCAN_PERIOD_NS + 2 * jiffy;
	size_t n = 0, nb = 0, nm = 0;
	uint64_t *mt;		/* marked times, packed with their gap index */
	double *base, *scan;

	for (int i = 0; i < r->nworkers; i++)
		n += r->w[i].nev;
	mt = calloc(n + 1, sizeof(*mt));
	base = calloc(n + 1, sizeof(*base));
	scan = calloc(n + 1, sizeof(*scan));
	if (!mt || !base || !scan)
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
				scan[e->periodic++] = ev->gap_ns / 1000.0;
			e->control += periodic_neighbour(mt, nm, ev->t_ns, lo, hi,
							 SCAN_PERIOD_NS / 2,
							 SCAN_MULTIPLES);
		}
	e->expected_scans = sm->periodic ? seconds * 1e9 / SCAN_PERIOD_NS : 0;
	e->base_p25 = quantile_lower(base, nb, 0.25);
	e->base_p50 = quantile_lower(base, nb, 0.50);
	e->base_p75 = quantile_lower(base, nb, 0.75);
	for (size_t k = 0; k < e->periodic; k++)
		metric_add(e->m, scan[k] - e->base_p50);
	e->scan_p50 = quantile_lower(scan, e->periodic, 0.5);
	e->scan_max = e->periodic ? scan[e->periodic - 1] : 0;
	e->resolved = e->periodic && e->scan_p50 - e->base_p50 > e->base_p75 - e->base_p25;
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

/* --- the model ------------------------------------------------------ */

/*
 * One batch as the kernel's walk does it per CPU, twice (clear the old,
 * then those above the weight): read the line, compare-and-exchange
 * its CID. Returns ns.
 */
static double model_batch(void *base, int from, int n)
{
	uint64_t t0 = bench_clock_start();

	for (int pass = 0; pass < 2; pass++)
		for (int i = from; i < from + n; i++) {
			struct remote_line *l = remote_line(base, i);
			uint64_t c = l->val;

			if (l->tag != UINT64_MAX)
				__atomic_compare_exchange_n(&l->val, &c, c | (1ULL << 63),
							    false, __ATOMIC_SEQ_CST,
							    __ATOMIC_RELAXED);
		}
	return clock_to_ns(bench_clock_end() - t0) - bench_clock.overhead_ns;
}

static const char *const model_keys[] = {
	"full_scan_us_n8", "full_scan_us_n16", "full_scan_us_n32",
	"full_scan_us_n64", "full_scan_us_n128", "full_scan_us_n256",
	"full_scan_us_n512", "full_scan_us_n1024", "full_scan_us_n2048",
	"full_scan_us_n4096",
};

static void run_model(struct bench *b, const struct cid_opts *o)
{
	static const int batches[] = { 8, 16, 32 };
	struct remote_lines s;
	int reps = b->opt.quick ? 3 : 15, writer_cpu;
	cpu_mask_t other;
	double gap_us = o->model_call_gap_us;

	/* the scanner on the target CPU, the writer on any other one */
	CPU_AND(&other, &b->sets.allowed, &b->sets.online);
	CPU_CLR(b->target, &other);
	writer_cpu = CPU_COUNT(&other) ? cpu_mask_first(&other) : b->target;
	cpu_pin_self(b->target);
	remote_lines_start(&s, (int)o->model_max_cpus, writer_cpu);
	bench_note(b, "MODEL (user space, not a kernel measurement): one cache line per simulated CPU, written from cpu %d, scanned from cpu %d%s; %d repetitions; full scan = sum of batch costs + %.0f us between calls",
		   s.writer_cpu, b->target,
		   s.writer_cpu == b->target ? " (same CPU: lines are not remote)" : "",
		   reps, gap_us);
	for (size_t bi = 0; bi < ARRAY_SIZE(batches) && !bench_stop; bi++) {
		int batch = batches[bi];
		char name[64];
		struct metric *m;
		double cost_ns = 0;

		snprintf(name, sizeof(name), "model_batch_cost_ns_batch%d", batch);
		m = bench_metric(b, name, "ns", BETTER_LOWER,
				 "MODEL: median cost of one batch at the largest N, per repetition");
		for (int n = 8, k = 0; n <= s.n && !bench_stop; n *= 2, k++) {
			double *cost = calloc(reps, sizeof(double)), full_us;
			int nb = (n + batch - 1) / batch, r;

			if (!cost)
				ksft_exit_fail_msg("out of memory\n");
			for (r = 0; r < reps; r++) {
				double sum = 0, *per = calloc(nb, sizeof(double));

				if (!per)
					ksft_exit_fail_msg("out of memory\n");
				if (!remote_lines_refresh(&s)) {
					free(per);
					break;
				}
				for (int j = 0; j < nb; j++) {
					int from = j * batch;

					per[j] = model_batch(s.base, from,
							     from + batch > n ? n - from : batch);
					sum += per[j];
				}
				cost[r] = sum / nb;
				if (n * 2 > s.n)
					metric_add(m, quantile_lower(per, nb, 0.5));
				free(per);
			}
			if (r < reps) {	/* stopped: no partial point */
				free(cost);
				break;
			}
			cost_ns = quantile_lower(cost, reps, 0.5);
			full_us = nb * cost_ns / 1e3 + (nb - 1) * gap_us;
			metric_extra(m, model_keys[k], full_us);
			ksft_print_msg("MODEL batch %2d, %4d CPUs: %4d calls, %7.3f us per batch, full scan %9.1f us (%.1f us scanning)\n",
				       batch, n, nb, cost_ns / 1e3, full_us,
				       nb * cost_ns / 1e3);
			free(cost);
		}
		/* calls until 100 ms: nb * cost + (nb - 1) * gap > 100 ms */
		if (cost_ns > 0)	/* not when stopped before the first N */
			ksft_print_msg("MODEL batch %d: a full scan passes 100 ms at about %.0f CPUs (%.3f us per batch, %.0f us between calls)\n",
				       batch, ceil((1e5 + gap_us) / (cost_ns / 1e3 + gap_us)) * batch,
				       cost_ns / 1e3, gap_us);
	}
	remote_lines_stop(&s);
	bench_verdict(b, bench_stop ? KSFT_FAIL : KSFT_PASS, NULL,
		      "MODEL of the batched scan ran for 8 to %llu simulated CPUs",
		      (unsigned long long)o->model_max_cpus);
}

/* --- the three measurements ----------------------------------------- */

struct row {			/* one line of the seed's table */
	char scan[24];
	const char *workload, *method;
	struct stats call, full, delay;
	size_t n;
	bool walks_judged;	/* the calls-per-walk verdict was given */
};

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

static void latency_traced(struct bench *b, const struct cid_opts *o,
			   const struct scan_model *sm, struct row *row)
{
	struct wl_run r = { 0 };
	/* with batches, one walk is the calls less than 50 ms apart */
	struct graph_passes gp = { .split_s = sm->batch ? 0.05 : 0, .below_us = 10,
				   .by_retval = sm->walk_retval, .expect = sm->walk_calls };
	struct hist h;
	char err[256];
	uint64_t lost;
	bool spin = o->workload == WL_SPIN;
	uint64_t t0;
	double run_s;

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
	graph_passes_read(&gp, &lost);
	tracefs_restore_all();
	metric_extra(gp.call, "batch_cpus", sm->batch);
	metric_extra(gp.call, "possible_cpus", sm->possible);
	metric_extra(gp.call, "walk_calls_expected", sm->walk_calls);
	metric_extra(gp.call, "scan_off", sm->scan_off);
	metric_extra(gp.call, "below_10us_share", gp.calls ? (double)gp.below / gp.calls : 0);
	metric_extra(gp.call, "lost_events", (double)lost);
	gp.call->hist = &h;
	metric_sample_noun(gp.call, "call", "calls");
	metric_summary(gp.call, "scan per call", "%s, %s, %d possible CPUs, %zu calls, function_graph",
		       sm->scan_off ? "scan off" : sm->batch ? "batched" : "full scan",
		       workload_names[o->workload], sm->possible, gp.calls);
	row_fill(row, sm, o, "function_graph", gp.call, gp.pass_us);
	if (gp.gap_us && gp.gap_us->n)
		stats_compute(gp.gap_us->samples, gp.gap_us->n, &row->delay);
	if (gp.calls) {
		ksft_print_msg("scan per call (function_graph, %s): min %.2f us, p50 %.2f, p99 %.2f, max %.2f; %.0f%% below 10 us; %zu calls, %zu in other processes ignored%s\n",
			       sm->func, row->call.min, row->call.p50, row->call.p99,
			       row->call.max, 100.0 * gp.below / gp.calls, gp.calls, gp.other,
			       lost ? ", events lost" : "");
		if (row->full.n)
			ksft_print_msg("complete scan (function_graph): %zu walks, min %.2f us, p50 %.2f, max %.2f\n",
				       row->full.n, row->full.min, row->full.p50, row->full.max);
		if (!b->opt.quiet)
			hist_print(&h, stdout, "us", 50);
	}
	bench_verdict(b, gp.calls ? KSFT_PASS : KSFT_FAIL, NULL,
		      "function_graph timed %zu calls of %s in %.1f s (%s)",
		      gp.calls, sm->func, run_s,
		      workload_names[o->workload]);
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
			   "periodic notify-resume gap minus the median tick gap (user-space estimate)");
	run_workload(b, o, &r, nprobe, !spin);
	estimate_analyse(&r, sm, (mono_ns() - t0) / 1e9, &e);
	metric_extra(e.m, "batch_cpus", sm->batch);
	metric_extra(e.m, "possible_cpus", sm->possible);
	metric_extra(e.m, "tick_gap_iqr_us", e.base_p75 - e.base_p25);
	metric_extra(e.m, "resolved", e.resolved);
	metric_sample_noun(e.m, "scan", "scans");
	metric_summary(e.m, "scan per call (estimate)", "%s, %s, %d possible CPUs, %d busy loops, %zu periodic returns, user-space estimate",
		       sm->batch ? "batched" : "full scan", workload_names[o->workload],
		       sm->possible, nprobe, e.periodic);
	row_fill(row, sm, o, "estimate", e.m, NULL);
	ksft_print_msg("estimate method: pinned busy loops time every kernel entry with the TSC; the rseq notify-resume marker (rseq_cs cleared by the kernel) tags the returns that ran task_work, getrusage drops those after a context switch; marked returns 100 ms apart are attributed to the scan\n");
	ksft_print_msg("estimate: %zu recorded gaps, %zu marked without a context switch (%zu more with one), %zu periodic (expected about %.0f scans; %zu with the windows half a period off); periodic gap p50 %.2f us, max %.2f; tick gap p50 %.2f us (IQR %.2f-%.2f); %zu host gaps over 100 us\n",
		       e.events, e.marked, e.switched, e.periodic, e.expected_scans, e.control,
		       e.scan_p50, e.scan_max, e.base_p50, e.base_p25, e.base_p75,
		       e.host_gaps);
	seen = e.periodic >= e.expected_scans / 2 && e.periodic > 2 * e.control;
	if (!e.resolved)
		ksft_print_msg("estimate swamped: the scan adds less than the spread of ordinary tick gaps (%.2f us IQR) here; the per-call numbers are an upper bound, not a measurement\n",
			       e.base_p75 - e.base_p25);
	if (!sm->periodic)
		bench_verdict(b, e.periodic <= 2 * e.control + 1 ? KSFT_PASS : KSFT_FAIL, NULL,
			      "no periodic scan: %zu periodic notify-resume returns (%zu half a period off)",
			      e.periodic, e.control);
	else if (seen || e.switched < e.expected_scans / 2)
		bench_verdict(b, seen ? KSFT_PASS : KSFT_FAIL, NULL,
			      "scan seen from user space: %zu periodic notify-resume returns, about %.0f expected, %zu half a period off",
			      e.periodic, e.expected_scans, e.control);
	else
		bench_verdict(b, KSFT_SKIP, "swamped: the busy loops were switched out more often than the scan runs (a busy machine)",
			      "scan seen from user space: %zu periodic notify-resume returns, about %.0f expected, %zu context switches",
			      e.periodic, e.expected_scans, e.switched);
	workload_free(&r);
}

/* The CID of the CPU whose busy loop showed the highest one lately. */
static int cpu_with_highest_cid(struct wl_run *r, uint32_t *cid)
{
	int cpu = r->w[0].cpu;

	*cid = 0;
	for (int i = 0; i < r->nworkers; i++) {
		size_t k = __atomic_load_n(&r->w[i].nev, __ATOMIC_ACQUIRE);

		if (k && r->w[i].ev[k - 1].cid >= *cid) {
			*cid = r->w[i].ev[k - 1].cid;
			cpu = r->w[i].cpu;
		}
	}
	return cpu;
}

/*
 * The survivor is this (main) thread: a CID stays reserved for a CPU
 * while the process has as many users as CIDs, so only a process left
 * with one thread can compact to 0. It spins about a millisecond and
 * sleeps one, so that the scan can mark its CID and the next switch
 * lets it go. Seconds from @t0 (the others told to exit) until the CID
 * is 0, or -1.
 */
static double survivor_wait(volatile struct rseq_abi *rs, uint64_t t0,
			    double timeout_s)
{
	uint64_t end = t0 + timeout_s * 1e9, now;

	while (!bench_stop && (now = mono_ns()) < end) {
		if (rseq_mm_cid(rs) == 0)
			return (now - t0) / 1e9;
		while (mono_ns() < now + 1000000)
			;
		usleep(1000);
	}
	return -1;
}

static void compaction(struct bench *b, const struct cid_opts *o,
		       const struct scan_model *sm)
{
	struct wl_run r = { .kind = WL_SPIN, .gap_min_ns = o->gap_min_ns };
	struct invariants inv;
	volatile struct rseq_abi *rs = rseq_area();
	int n = o->compaction_threads ? (int)o->compaction_threads
				      : 2 * CPU_COUNT(&b->opt.cpus), cpu;
	uint32_t cid, held;
	char cpus[256];
	uint64_t t0;
	double after_s;
	struct metric *m;

	if (bench_stop) {
		for (int i = 0; i < 2; i++)
			bench_verdict(b, KSFT_SKIP, "interrupted", "compaction");
		return;
	}
	r.end_ns = mono_ns() + 5e9;
	workload_start(&r, &b->opt.cpus, n, 0, false);
	workload_wait_until(mono_ns() + (b->opt.quick ? 0.2 : 0.5) * 1e9);
	/* join the CPU with the highest CID, share it, then be alone */
	cpu = cpu_with_highest_cid(&r, &cid);
	cpu_pin_self(cpu);
	for (uint64_t t = mono_ns(); mono_ns() < t + 100000000;)
		;
	held = rseq_mm_cid(rs);
	t0 = mono_ns();
	r.phase = 1;
	workload_join(&r);
	after_s = survivor_wait(rs, t0, o->compaction_timeout_s);
	m = bench_metric(b, "compaction_s", "s", BETTER_LOWER,
			 "from all but one thread exiting to the survivor's mm_cid reaching 0");
	if (after_s >= 0)
		metric_add(m, after_s);
	check_invariants(&r, sm->possible, &inv);
	ksft_print_msg("compaction: %d threads on cpus %s, then the main thread alone on cpu %d with cid %u (its busy loop had %u); %s\n",
		       n + 1, cpu_mask_format(&b->opt.cpus, cpus, sizeof(cpus)), cpu, held, cid,
		       after_s >= 0 ? "its cid reached 0" : "its cid did not reach 0");
	if (held == 0)
		bench_verdict(b, KSFT_SKIP, "the survivor already held cid 0 (one CPU, or the CPU got cid 0)",
			      "survivor's mm_cid compacted to 0");
	else
		bench_verdict(b, after_s >= 0 ? KSFT_PASS : KSFT_FAIL, NULL,
			      "survivor's mm_cid went from %u to 0 in %.3f s (bound %.1f s)",
			      held, after_s, o->compaction_timeout_s);
	bench_verdict(b, !inv.out_of_range && !inv.duplicates && inv.segments ? KSFT_PASS : KSFT_FAIL,
		      NULL, "mm_cid invariants over %zu running stretches: max cid %u < %d possible CPUs (%zu above), %zu duplicates at the same moment%s%s",
		      inv.segments, inv.max_cid, sm->possible, inv.out_of_range,
		      inv.duplicates, inv.duplicates ? ": " : "", inv.first_dup);
	cpu_pin_self_mask(&b->sets.allowed);
	workload_free(&r);
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
	if (sm->walk_retval && !row->walks_judged)
		bench_verdict(b, KSFT_SKIP, "needs function_graph", "calls per complete scan");
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
		.model_max_cpus = 4096, .model_call_gap_us = 940,
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
		{ .name = "gap-min-ns", .type = OPT_UINT, .dest = &o.gap_min_ns, .arg = "NS",
		  .help = "estimate: record busy-loop gaps longer than this", .min = 100, .max = 1000000 },
		{ .name = "compaction-threads", .type = OPT_UINT, .dest = &o.compaction_threads,
		  .arg = "N", .help = "compaction: threads before all but one exit (default 2 per CPU)",
		  .min = 2, .max = 4096 },
		{ .name = "compaction-timeout", .type = OPT_DOUBLE, .dest = &o.compaction_timeout_s,
		  .arg = "SECS", .help = "compaction: bound for the survivor's cid to reach 0",
		  .min = 0.1, .max = 600 },
		{ .name = "no-compaction", .type = OPT_FLAG, .dest = &o.no_compaction,
		  .help = "skip the compaction check" },
		{ .name = "model", .type = OPT_FLAG, .dest = &o.model,
		  .help = "run the user-space MODEL of the batched scan instead" },
		{ .name = "model-max-cpus", .type = OPT_UINT, .dest = &o.model_max_cpus,
		  .arg = "N", .help = "model: largest simulated CPU count (8, 16, ... up to N)",
		  .min = 8, .max = 4096 },
		{ .name = "model-call-gap-us", .type = OPT_DOUBLE, .dest = &o.model_call_gap_us,
		  .arg = "US", .help = "model: time between two batch calls (seed: hackbench 15 ms / 16 calls)",
		  .min = 0, .max = 1e6 },
		{ NULL }
	};
	const struct prog_spec spec = {
		.name = "cid_scan",
		.summary = "RSEQ mm_cid scan latency per call, complete-scan time and CID compaction.",
		.common = COMMON_CPU | COMMON_DURATION,
		.opts = opts,
	};
	struct bench b = { .opt = { .duration_s = 10 } };
	struct scan_model sm = { 0 };
	struct row row = { .scan = "" };

	bench_init(&b, &spec, argc, argv);
	opts_finish(&b, &o, threads_given);
	detect(&b, &sm);
	if (o.model) {
		bench_plan(&b, 1);
		run_model(&b, &o);
		bench_finish(&b);
	}
	/* the batch patch's return values: calls per walk are checked */
	bench_plan(&b, (o.no_compaction ? 1 : 3) + sm.walk_retval);
	scan_latency(&b, &o, &sm, &row);
	if (!o.no_compaction)
		compaction(&b, &o, &sm);
	if (row.workload)
		table_print(&row);
	bench_finish(&b);
}
