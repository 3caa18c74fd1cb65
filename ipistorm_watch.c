// SPDX-License-Identifier: GPL-2.0
/*
 * ipistorm's watch (--watch CPULIST -D SECS [--load]): every IPI sent to
 * the watched CPUs, per CPU, per minute, per kind and per callback (seed
 * 000 did it with trace-cmd over 6 hours); where the ipi tracepoints do
 * not exist (before 6.3) or with --method procfs, the IPIs they
 * received, from /proc/interrupts.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ipistorm.h"
#include "lib/ipi_watch.h"

/*
 * Watch mode: the IPIs of the watched CPUs, sent to them (traced) or
 * received by them (/proc/interrupts), per CPU, kind and minute.
 */
static void watch_cpus(struct bench *b, const struct ipistorm_opts *o, cpu_mask_t *watched)
{
	if (o->watch_given) {
		cpu_mask_t offline;

		/* watching needs no affinity there: isolcpus= CPUs are fine */
		*watched = o->watch;
		CPU_XOR(&offline, watched, &b->sets.online);
		CPU_AND(&offline, &offline, watched);
		if (CPU_COUNT(&offline))
			bench_usage_error(b, "--watch: cpu %d is not online",
					  cpu_mask_first(&offline));
	} else if (CPU_COUNT(&b->sets.nohz_full) || CPU_COUNT(&b->sets.isolated)) {
		CPU_OR(watched, &b->sets.nohz_full, &b->sets.isolated);
	} else {
		*watched = b->opt.cpus;
	}
	if (!b->opt.housekeeping_given)	/* the load runs off the watched CPUs */
		cpu_housekeeping_default(&b->sets, watched, &b->opt.housekeeping);
}

static void watch_collect(struct bench *b, struct ipi_watch *w, double dur_s)
{
	uint64_t now, last_progress = 0;

	while (!bench_stop && (now = mono_ns()) - w->start_ns < dur_s * 1e9) {
		if (ipi_watch_poll(w, false))
			ksft_exit_fail_msg("watching the IPIs: %s\n", strerror(errno));
		if (bench_progress_wanted(b) && now - last_progress > 1000000000ULL) {
			last_progress = now;
			fprintf(stderr, "\ripistorm watch: %.0f/%.0f s, %llu IPIs to watched CPUs (%s) ",
				(now - w->start_ns) / 1e9, dur_s,
				(unsigned long long)w->t.total, w->how);
		}
	}
	if (ipi_watch_poll(w, true))
		ksft_exit_fail_msg("watching the IPIs: %s\n", strerror(errno));
	if (bench_progress_wanted(b))
		fprintf(stderr, "\n");
}

/* Per CPU and per callback (traced) or why there are no callbacks. */
static void watch_report_details(struct bench *b, struct ipi_watch *w, struct metric *m)
{
	bool traced = w->method == IPI_WATCH_TRACE;
	char note[160] = "";
	int cpu;

	cpu_mask_for_each(cpu, &w->cpus) {
		char *key;

		ksft_print_msg("cpu %d: %llu IPIs %s (%.2f per minute); /proc/interrupts: CAL +%lld, RES +%lld, TLB +%lld\n",
			       cpu, (unsigned long long)w->t.per_cpu[cpu],
			       traced ? "sent to it" : "received",
			       w->seconds > 0 ? w->t.per_cpu[cpu] * 60 / w->seconds : 0,
			       (long long)irq_table_delta(&w->first, &w->last, "CAL", cpu),
			       (long long)irq_table_delta(&w->first, &w->last, "RES", cpu),
			       (long long)irq_table_delta(&w->first, &w->last, "TLB", cpu));
		if (m->nextras < BENCH_MAX_EXTRAS - 2 && asprintf(&key, "cpu%d_ipis", cpu) > 0)
			metric_extra(m, key, w->t.per_cpu[cpu]);
	}
	if (!traced) {
		bench_note(b, "callbacks: unavailable: /proc/interrupts counts interrupts, not the functions they ran%s",
			   w->why_procfs[0] ? "; ipi tracing is not usable on this kernel" : "");
		return;
	}
	for (int i = 0; i < w->t.ncb; i++) {
		char *key;

		ksft_print_msg("callback %s: %llu\n", strcmp(w->t.cb[i].name, "0x0") ?
			       w->t.cb[i].name : "0x0 (reschedule)",
			       (unsigned long long)w->t.cb[i].n);
		if (m->nextras < BENCH_MAX_EXTRAS && asprintf(&key, "callback:%s", w->t.cb[i].name) > 0)
			metric_extra(m, key, w->t.cb[i].n);
	}
	for (int i = 0; i < w->t.nfunc; i++) {
		ksft_print_msg("queued function %s: %llu\n", w->t.func[i].name,
			       (unsigned long long)w->t.func[i].n);
		snprintf(note + strlen(note), sizeof(note) - strlen(note), "%s%s %llu",
			 i ? ", " : "", w->t.func[i].name, (unsigned long long)w->t.func[i].n);
	}
	if (w->t.nfunc)
		bench_note(b, "queued functions (csd_queue_cpu): %s", note);
	metric_extra(m, "csd_queued", w->t.queued);
}

/*
 * The per-minute samples: the full minutes; the partial last one left
 * out, or scaled to 60 s when there is no full minute.
 */
static void watch_minutes(struct ipi_watch *w, struct metric *m)
{
	size_t full = (size_t)(w->seconds / 60);
	double part_s = w->seconds - full * 60.0;
	uint64_t part = full < w->t.nmin ? w->t.per_min[full] : 0;

	for (size_t i = 0; i < full && i < w->t.nmin; i++)
		metric_add(m, w->t.per_min[i]);
	for (size_t i = w->t.nmin; i < full; i++)
		metric_add(m, 0);
	/* events of a later minute than the window's own: none expected */
	for (size_t i = full + 1; i < w->t.nmin; i++)
		part += w->t.per_min[i];
	if (!full && part_s > 0)
		metric_add(m, part * 60.0 / part_s);
	else if (!full)
		metric_add(m, 0);
	metric_extra(m, "full_minutes", full);
	metric_extra(m, "last_minute_s", part_s);
	metric_extra(m, "last_minute_ipis", part);
	metric_extra(m, "last_minute_scaled", !full);
	if (part_s > 0.001)
		ksft_print_msg("per minute: %zu full minute%s%s; the last %.1f s (%llu IPIs) %s\n",
			       full, full == 1 ? "" : "s",
			       w->method == IPI_WATCH_TRACE && w->ts_mono ?
			       ", records bucketed by their own timestamps" : "",
			       part_s, (unsigned long long)part,
			       full ? "left out of the per-minute samples (in the totals)" :
			       "scaled to 60 s (the watch is shorter than a minute)");
}

static void watch_report(struct bench *b, const struct ipistorm_opts *o, struct ipi_watch *w,
			 const char *list)
{
	bool traced = w->method == IPI_WATCH_TRACE;
	struct metric *m;

	m = bench_metric(b, "ipis_per_min", "IPIs", BETTER_LOWER, traced ?
			 "IPIs sent to watched CPUs in one full minute (by the records' own timestamps); a partial last minute is left out, or scaled to 60 s when the watch is shorter than a minute; ipi tracepoints" :
			 "IPIs received by watched CPUs in one full minute; a partial last minute is left out, or scaled to 60 s when the watch is shorter than a minute; /proc/interrupts");
	watch_minutes(w, m);
	metric_sample_noun(m, "minute", "minutes");
	metric_summary(m, "IPIs per minute to watched cpus", "cpus %s, %.0f s%s, %llu in all, %s",
		       list, w->seconds, b->opt.load ? " with housekeeping load" : "",
		       (unsigned long long)w->t.total, w->how);
	metric_extra(m, "ipis_total", w->t.total);
	metric_extra(m, "watch_s", w->seconds);
	metric_extra(m, "setup_ipis", w->setup_ipis);
	metric_extra(m, "teardown_ipis", w->teardown_ipis);
	ksft_print_msg("outside the window: %lld IPIs (CAL + RES) to cpus %s while the watch set itself up, %lld while it tore itself down%s\n",
		       (long long)w->setup_ipis, list, (long long)w->teardown_ipis,
		       traced ? " (enabling and disabling tracepoints patches kernel text, which interrupts every CPU)" : "");
	if (traced)
		metric_extra(m, "events_lost", w->lost);
	else
		metric_extra(m, "procfs_samples", w->samples);
	for (int k = 0; k < IPI_NKINDS; k++)
		metric_extra(m, ipi_kind_keys[k], w->t.kind[k]);
	ksft_print_msg("by kind: %llu function call, %llu reschedule, %llu TLB shootdown\n",
		       (unsigned long long)w->t.kind[IPI_CALL],
		       (unsigned long long)w->t.kind[IPI_RESCHED],
		       (unsigned long long)w->t.kind[IPI_TLB]);
	watch_report_details(b, w, m);
	if (traced)
		bench_verdict(b, w->lost ? KSFT_FAIL : KSFT_PASS, NULL,
			      "traced every IPI sent to cpus %s for %.1f s%s: %llu (%lld events lost)",
			      list, w->seconds, bench_stop ? " (interrupted)" : "",
			      (unsigned long long)w->t.total, w->lost);
	else
		bench_verdict(b, w->samples >= 2 ? KSFT_PASS : KSFT_FAIL, NULL,
			      "counted the IPIs received by cpus %s for %.1f s%s in /proc/interrupts (%llu samples): %llu",
			      list, w->seconds, bench_stop ? " (interrupted)" : "",
			      (unsigned long long)w->samples, (unsigned long long)w->t.total);
	if (o->max_given)
		bench_verdict(b, w->t.total > o->max_ipis ? KSFT_FAIL : KSFT_PASS, NULL,
			      "at most %llu IPIs to the watched cpus (%llu seen)",
			      (unsigned long long)o->max_ipis, (unsigned long long)w->t.total);
	else
		bench_verdict(b, KSFT_SKIP, "no --max given", "IPI count under a limit");
}

noreturn void watch_main(struct bench *b, const struct ipistorm_opts *o)
{
	struct ipi_watch *w = calloc(1, sizeof(*w));
	const struct plan_phase phases[] = {
		{ "watch", 1, 1 },	/* watch_report: every IPI traced or counted */
		{ "limit", 1, 1 },	/* watch_report: --max */
		{ NULL }
	};
	char list[512], err[256];
	cpu_mask_t watched;

	if (!w)
		ksft_exit_fail_msg("no memory\n");
	watch_cpus(b, o, &watched);
	cpu_mask_format(&watched, list, sizeof(list));
	bench_phases(b, phases);
	if (ipi_watch_open(w, o->method, &watched, err, sizeof(err)))
		bench_skip(b, "%s", err);
	if (w->why_procfs[0])
		bench_note(b, "%s: counting the IPIs received instead", w->why_procfs);
	if (w->note[0])
		bench_note(b, "%s", w->note);
	bench_note(b, "method: %s", w->how);
	ksft_print_msg("watching the IPIs %s cpus %s for %.0f s%s\n",
		       w->method == IPI_WATCH_TRACE ? "sent to" : "received by", list,
		       b->opt.duration_s, b->opt.load ? " under the housekeeping load" : "");
	if (b->opt.load) {
		char hk[512];

		ksft_print_msg("housekeeping load on cpus %s\n",
			       cpu_mask_format(&b->opt.housekeeping, hk, sizeof(hk)));
		bench_load_start(b);
	}
	if (ipi_watch_start(w, err, sizeof(err)))
		bench_skip(b, "%s", err);
	watch_collect(b, w, b->opt.duration_s);
	bench_load_stop(b);
	watch_report(b, o, w, list);
	bench_finish(b);
}
