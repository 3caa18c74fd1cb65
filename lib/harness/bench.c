// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bench.h"
#include "cpulock.h"
#include "../kernel/journal.h"
#include "../base/json.h"
#include "../result/result_write.h"
#include "../base/util.h"
#include "../kernel/sysinfo.h"
#include "../kernel/trace_instance.h"

static void bench_choose_cpus(struct bench *b)
{
	char err[192], buf[1024];

	if (b->opt.cpus_given) {
		if (cpu_mask_check_usable(&b->sets, &b->opt.cpus, err, sizeof(err)))
			bench_usage_error(b, "--cpu: %s", err);
		b->target_reason = "given with --cpu";
	} else {
		int cpu = cpu_target_default(&b->sets, &b->target_reason);

		if (cpu < 0)
			bench_usage_error(b, "no online CPU in the affinity mask");
		CPU_ZERO(&b->opt.cpus);
		CPU_SET(cpu, &b->opt.cpus);
	}
	b->target = cpu_mask_first(&b->opt.cpus);

	if (b->opt.housekeeping_given) {
		cpu_mask_t both;

		if (cpu_mask_check_usable(&b->sets, &b->opt.housekeeping, err,
					  sizeof(err)))
			bench_usage_error(b, "--housekeeping: %s", err);
		/* a default target no option uses is no CPU to keep clear */
		CPU_AND(&both, &b->opt.housekeeping, &b->opt.cpus);
		if (CPU_COUNT(&both) && !b->opt.cpus_unused)
			bench_usage_error(b, "--housekeeping %s overlaps the target CPUs",
					  cpu_mask_format(&both, buf, sizeof(buf)));
	} else {
		cpu_housekeeping_default(&b->sets, &b->opt.cpus,
					 &b->opt.housekeeping);
	}
	/* (the housekeeping default keeps off every CPU the list named) */
	if (b->spec->one_cpu && CPU_COUNT(&b->opt.cpus) > 1) {
		CPU_ZERO(&b->opt.cpus);
		CPU_SET(b->target, &b->opt.cpus);
		b->narrowed = true;
	}
}

void bench_usage_error(struct bench *b, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	exit_usage_status(KSFT_FAIL, b->spec->name, fmt, ap);
}

/* The CPUs decided, on one line: targets, housekeeping, pairs, watched. */
static void bench_print_cpus(const struct bench *b)
{
	char cpus[1024], hk[1024], more[2048] = "";
	size_t n = 0;

	for (int i = 0; i < b->npairs && n < sizeof(more); i++)
		n += snprintf(more + n, sizeof(more) - n, "%s%d:%d", i ? "," : ", pairs ",
			      b->pairs[i].src, b->pairs[i].dst);
	if (CPU_COUNT(&b->watched) && !CPU_EQUAL(&b->watched, &b->opt.cpus) &&
	    n < sizeof(more))
		snprintf(more + n, sizeof(more) - n, ", watching %s",
			 cpu_mask_format(&b->watched, cpus, sizeof(cpus)));
	ksft_print_msg("%s: target cpu %s (%s; %s), housekeeping %s%s\n",
		       b->spec->name, cpu_mask_format(&b->opt.cpus, cpus, sizeof(cpus)),
		       cpu_isolation_name(&b->sets, b->target), b->target_reason,
		       CPU_COUNT(&b->opt.housekeeping) ?
		       cpu_mask_format(&b->opt.housekeeping, hk, sizeof(hk)) : "none",
		       more);
}

/* Take the locks of b->locked: another run there is a SKIP, or --wait. */
static void bench_lock_cpus(struct bench *b)
{
	char err[PATH_MAX + 192];
	int ret;

	if (!CPU_COUNT(&b->locked))
		return;
	ret = cpulock_take(&b->locked, b->spec->name, b->opt.wait, err, sizeof(err));
	if (ret > 0)
		bench_skip(b, "%s", err);
	if (ret < 0 && bench_stop)
		bench_skip(b, "interrupted while %s", err);
	if (ret < 0)	/* the lock file, not the CPU: run, and say so */
		bench_note(b, "running without the cpu lock: %s", err);
}

void bench_init(struct bench *b, const struct prog_spec *spec,
		int argc, char **argv)
{
	char err[PATH_MAX + 128];

	b->spec = spec;
	b->argc = argc;
	b->argv = argv;
	cleanup_init();
	opts_parse(spec, &b->opt, argc, argv);
	cpu_sets_read(&b->sets);
	bench_choose_cpus(b);
	b->locked = b->opt.cpus;
	if (spec->cpu_plan) {
		spec->cpu_plan(b, spec->ctx);
		b->target = cpu_mask_first(&b->opt.cpus);
	}
	if (b->opt.output &&
	    outfile_open(&b->out, b->opt.output, err, sizeof(err)))
		bench_usage_error(b, "--output %s", err);
	cpu_affinity_save();
	b->start_ns = mono_ns();
	ksft_print_header();
	journal_recover();	/* what a killed run left changed */
	trace_instances_reap_mounted();	/* ...and left tracing */
	clock_init();
	bench_print_cpus(b);
	if (b->narrowed)
		bench_note(b, "%s measures one CPU: using cpu %d of the list", spec->name, b->target);
	bench_lock_cpus(b);
	if (b->opt.load && !CPU_COUNT(&b->opt.housekeeping))
		bench_skip(b, "--load needs a housekeeping CPU besides the target CPUs");
	if (b->opt.verbose)
		ksft_print_msg("clock: %s, %.0f Hz (%s), overhead %.1f ns\n",
			       bench_clock.source, bench_clock.counter_hz,
			       bench_clock.hz_source, bench_clock.overhead_ns);
}

void bench_phases(struct bench *b, const struct plan_phase *phases)
{
	long n = plan_declare(&b->plan, phases);

	if (n < 0)
		ksft_exit_fail_msg("harness bug: %s declares more than %d phases\n",
				   b->spec->name, PLAN_MAX_PHASES);
	ksft_set_plan(n);
}

void bench_plan(struct bench *b, unsigned int n)
{
	plan_count(&b->plan, n);
	ksft_set_plan(n);
}

/*
 * The results printed against the plan. An interrupted run stops its
 * phases early and ends by its signal: only a complete run is checked.
 */
static void bench_plan_check(struct bench *b)
{
	char msg[512];

	if (bench_stop || !plan_check(&b->plan, ksft_test_num(), msg, sizeof(msg)))
		return;
	fflush(stdout);
	fprintf(stderr, "%s: harness bug: %s\n", b->spec->name, msg);
	ksft_exit_fail_msg("harness bug: %s\n", msg);
}

bool bench_progress_wanted(const struct bench *b)
{
	return !b->opt.quiet && isatty(STDERR_FILENO);
}

void bench_progress_run(const struct bench *b, uint64_t done, uint64_t runs)
{
	if (bench_progress_wanted(b))
		fprintf(stderr, "\r%s: run %llu/%llu done", b->spec->name,
			(unsigned long long)done, (unsigned long long)runs);
}

void bench_progress_end(const struct bench *b)
{
	if (bench_progress_wanted(b))
		fprintf(stderr, "\n");
}

void bench_load_start(struct bench *b)
{
	char err[192];

	if (!CPU_COUNT(&b->opt.housekeeping))
		bench_skip(b, "--load needs a housekeeping CPU besides the target CPUs");
	if (load_start(&b->load, &b->opt.housekeeping, b->opt.load_kind, 0,
		       err, sizeof(err)))
		ksft_exit_fail_msg("%s\n", err);
	b->load_running = true;
	ksft_print_msg("housekeeping load started: %s, %d processes (%s)%s%s\n",
		       load_kind_names[b->opt.load_kind], b->load.nprocs,
		       b->opt.load_kind == LOAD_RTEVAL ? "messaging pairs and job streams" :
		       b->opt.load_kind == LOAD_MESSAGING ? "messaging pairs and CPU burners" :
		       "job streams",
		       !b->load.ndrivers ? "" : b->load.compiler[0] ?
		       ", jobs compile with " : ", no compiler: jobs fork, fault and exec /bin/true",
		       b->load.ndrivers ? b->load.compiler : "");
}

void bench_load_stop(struct bench *b)
{
	struct load_report *r = &b->load_report;

	if (!b->load_running)
		return;
	load_stop(&b->load, r);
	b->load_running = false;
	ksft_print_msg("housekeeping load stopped: %s, %.1f s, %llu messages (%.0f/s), %llu M burner iterations, %llu jobs (%.1f/s: %llu compiles, %llu churn, %llu failed)\n",
		       load_kind_names[r->kind], r->seconds,
		       (unsigned long long)r->messages,
		       r->seconds > 0 ? r->messages / r->seconds : 0,
		       (unsigned long long)r->burner_loops,
		       (unsigned long long)r->jobs,
		       r->seconds > 0 ? r->jobs / r->seconds : 0,
		       (unsigned long long)r->compiles,
		       (unsigned long long)r->churn,
		       (unsigned long long)r->jobs_failed);
}

struct metric *bench_metric(struct bench *b, const char *name,
			    const char *unit, enum better better,
			    const char *aggregate)
{
	struct metric *m;

	if (b->nmetrics == BENCH_MAX_METRICS)
		abort();	/* a programming error */
	m = &b->metrics[b->nmetrics++];
	metric_init(m, name, unit, better, aggregate);
	return m;
}

void bench_count_family(struct bench *b, const char *name, const char *pattern,
			const char *unit, size_t samples)
{
	if (b->nfamilies == BENCH_MAX_FAMILIES)
		abort();	/* a programming error */
	b->families[b->nfamilies++] = (struct count_family){ name, pattern, unit, samples };
}

void bench_note(struct bench *b, const char *fmt, ...)
{
	char note[sizeof(b->notes[0])];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(note, sizeof(note), fmt, ap);
	va_end(ap);
	/* the JSON keeps the first ones; every note is still printed */
	if (b->nnotes < (int)(sizeof(b->notes) / sizeof(b->notes[0])))
		memcpy(b->notes[b->nnotes++], note, sizeof(note));
	ksft_print_msg("%s\n", note);
}

void bench_param(struct bench *b, const char *key, const char *value)
{
	if (b->nparams == (int)ARRAY_SIZE(b->params))
		abort();	/* a programming error */
	b->params[b->nparams].key = key;
	b->params[b->nparams++].value = value;
}

void bench_verdict(struct bench *b, int code, const char *reason,
		   const char *fmt, ...)
{
	struct verdict *v = NULL;
	va_list ap;

	/*
	 * A check that failed after an interruption judged a phase cut
	 * short: it is not a failure of the kernel but a check not done.
	 */
	if (bench_stop && code == KSFT_FAIL) {
		code = KSFT_SKIP;
		reason = "interrupted";
	}
	if (b->nverdicts < BENCH_MAX_VERDICTS)
		v = &b->verdicts[b->nverdicts++];
	else
		abort();
	v->code = code;
	va_start(ap, fmt);
	vsnprintf(v->name, sizeof(v->name), fmt, ap);
	va_end(ap);
	snprintf(v->reason, sizeof(v->reason), "%s", reason ? reason : "");
	ksft_test_result_code(code, reason, "%s", v->name);
}

struct run_context {
	struct bench *b;
	int exit_code;
};

/* The harness's part of the result: "system" and "run". */
static void run_json(struct json *j, void *arg)
{
	struct bench *b = ((struct run_context *)arg)->b;
	int exit_code = ((struct run_context *)arg)->exit_code;
	char buf[1024], stamp[32];
	time_t now = time(NULL);

	strftime(stamp, sizeof(stamp), "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
	sysinfo_json(j, &b->sets, b->target);
	json_object_start(j, "run");
	json_string(j, "finished", stamp);
	json_double(j, "duration_s", (mono_ns() - b->start_ns) / 1e9);
	json_array_start(j, "argv");
	for (int i = 0; i < b->argc; i++)
		json_string(j, NULL, b->argv[i]);
	json_array_end(j);
	json_string(j, "cpus", cpu_mask_format(&b->opt.cpus, buf, sizeof(buf)));
	json_string(j, "cpus_reason", b->target_reason);
	json_string(j, "cpus_isolation", cpu_isolation_name(&b->sets, b->target));
	json_string(j, "housekeeping",
		    cpu_mask_format(&b->opt.housekeeping, buf, sizeof(buf)));
	if (b->npairs) {
		json_array_start(j, "pairs");
		for (int i = 0; i < b->npairs; i++) {
			snprintf(buf, sizeof(buf), "%d:%d", b->pairs[i].src, b->pairs[i].dst);
			json_string(j, NULL, buf);
		}
		json_array_end(j);
	}
	if (CPU_COUNT(&b->watched))
		json_string(j, "watched", cpu_mask_format(&b->watched, buf, sizeof(buf)));
	json_string(j, "locked", cpu_mask_format(&b->locked, buf, sizeof(buf)));
	json_bool(j, "load", b->opt.load);
	if (b->opt.load) {
		const struct load_report *r = &b->load_report;

		json_string(j, "load_kind", load_kind_names[b->opt.load_kind]);
		json_object_start(j, "load_report");
		json_string(j, "kind", load_kind_names[r->kind]);
		json_double(j, "seconds", r->seconds);
		json_u64(j, "messages", r->messages);
		json_u64(j, "burner_mloops", r->burner_loops);
		json_u64(j, "jobs", r->jobs);
		json_u64(j, "jobs_failed", r->jobs_failed);
		json_u64(j, "compiles", r->compiles);
		json_u64(j, "churn_jobs", r->churn);
		json_string(j, "compiler", r->compiler);
		json_object_end(j);
	}
	if (b->nparams) {
		json_object_start(j, "params");
		for (int i = 0; i < b->nparams; i++)
			json_string(j, b->params[i].key, b->params[i].value);
		json_object_end(j);
	}
	json_bool(j, "quick", b->opt.quick);
	json_bool(j, "interrupted", bench_stop != 0);
	if (bench_stop)
		json_i64(j, "signal", bench_stop_signal());
	json_i64(j, "exit_code", exit_code);
	json_array_start(j, "notes");
	for (int i = 0; i < b->nnotes; i++)
		json_string(j, NULL, b->notes[i]);
	json_array_end(j);
	json_object_end(j);
}

/* The JSON result, renamed into place once complete: 0, or -1 when lost. */
static int bench_write_json(struct bench *b, int exit_code)
{
	char err[PATH_MAX + 128];
	struct run_context rc = { b, exit_code };
	struct result_doc d = {
		.program = b->spec->name,
		.test = b->test ? b->test : b->spec->name,
		.metrics = b->metrics, .nmetrics = b->nmetrics,
		.verdicts = b->verdicts, .nverdicts = b->nverdicts,
		.families = b->families, .nfamilies = b->nfamilies,
		.context = run_json, .arg = &rc,
	};

	bool measured = false;
	int ret;

	if (!b->out.f)
		return 0;
	for (int i = 0; i < b->nmetrics; i++)
		measured |= b->metrics[i].n > 0;
	result_write(b->out.f, &d);
	/* a run that measured nothing never replaces an earlier result */
	ret = measured ? outfile_commit(&b->out, err, sizeof(err)) :
			 outfile_commit_new(&b->out, err, sizeof(err));
	if (ret < 0) {
		fflush(stdout);
		fprintf(stderr, "%s: %s\n", b->spec->name, err);
		return -1;
	}
	if (ret)
		ksft_print_msg("%s was left as it was: this run measured nothing\n", b->out.path);
	return 0;
}

static int bench_exit_code(const struct bench *b)
{
	int pass = 0, skip = 0;

	if (bench_stop)		/* see cleanup_exit_interrupted() */
		return 128 + bench_stop_signal();
	/*
	 * A report lost to a full disk fails, as ktap_exit() will end. One
	 * whose reader left keeps the verdicts' code, though the program
	 * ends by SIGPIPE: the measurement is whole and judged.
	 */
	if (ktap_report_errno() && !ktap_reader_gone())
		return KSFT_FAIL;
	for (int i = 0; i < b->nverdicts; i++) {
		if (b->verdicts[i].code == KSFT_FAIL)
			return KSFT_FAIL;
		if (b->verdicts[i].code == KSFT_SKIP)
			skip++;
		else
			pass++;
	}
	return skip && !pass ? KSFT_SKIP : KSFT_PASS;
}

void bench_finish(struct bench *b)
{
	int lost;

	bench_load_stop(b);
	bench_plan_check(b);
	if (bench_stop)
		ksft_print_msg("interrupted by signal %d: reporting what was measured so far\n",
			       bench_stop_signal());
	for (int i = 0; i < b->nmetrics; i++)
		metric_report(&b->metrics[i]);
	lost = bench_write_json(b, bench_exit_code(b));
	for (int i = 0; i < b->nmetrics; i++)
		free(b->metrics[i].samples);
	if (lost)
		ksft_exit_fail();	/* a result that is not saved is a failure */
	ksft_finished();
}

void bench_skip(struct bench *b, const char *fmt, ...)
{
	char msg[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	bench_load_stop(b);
	if (bench_stop)		/* the one way an interrupted run ends */
		ksft_print_msg("interrupted by signal %d: reporting what was measured so far\n",
			       bench_stop_signal());
	if (b->nverdicts < BENCH_MAX_VERDICTS) {
		struct verdict *v = &b->verdicts[b->nverdicts++];

		v->code = KSFT_SKIP;
		snprintf(v->name, sizeof(v->name), "%s", b->spec->name);
		snprintf(v->reason, sizeof(v->reason), "%s", msg);
	}
	if (bench_write_json(b, bench_stop ? 128 + bench_stop_signal() : KSFT_SKIP))
		ksft_exit_fail();
	ksft_exit_skip("%s\n", msg);
}
