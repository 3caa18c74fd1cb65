// SPDX-License-Identifier: GPL-2.0
/*
 * getpid_bench: the cost of a syscall's entry and exit on one CPU.
 *
 * N back-to-back syscalls (getpid by default) per run, R runs, on the
 * target CPU, optionally with the housekeeping load running on the other
 * CPUs. The call goes through libc's syscall(3) by default, as the
 * IPI-deferral series and perf bench do (the way back to user space
 * through a libc return is part of the cost a kernel exit-path change
 * moves); --entry raw issues the syscall instruction inline instead. Per
 * run: average ns per call, wall, user and system time (the
 * context-tracking thread: 10M getpriority() calls as "run time / system
 * time"), cycles and instructions per call where the PMU exists. With
 * --distribution, every call of an extra pass is timed on its own.
 * docs/references.md has the threads.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/perf_event.h>

#include "lib/base/util.h"
#include "lib/harness/bench.h"
#include "lib/harness/phase.h"

enum sc { SC_GETPID, SC_GETPPID, SC_GETTID, SC_GETPRIORITY, SC_NONE };
enum entry { ENTRY_LIBC, ENTRY_RAW };

/* "none" runs the same loop without the syscall: the harness's own cost. */
static const char *const syscall_names[] = {
	"getpid", "getppid", "gettid", "getpriority", "none", NULL
};

static const char *const entry_names[] = { "libc", "raw", NULL };

#define NR_NONE	(-1L)

struct getpid_opts {
	int syscall;
	int entry;
	bool distribution;
	double hist_max_ns;
};

/* One run of the program: its options, what it measures, what it saw. */
struct getpid_run {
	struct bench b;
	struct getpid_opts o;
	const char *name, *ent;		/* the syscall, the entry path */
	long nr, expected;
	char cpu_desc[96];
	struct counter hw[2], mig;	/* cycles, instructions; migrations */
	struct metric *ns, *wall, *user, *sys, *cyc, *ins;
	struct hist h;
	uint64_t bad, migrations, runs_done;
};

struct run_sample {
	double ns_per_call, wall_s, user_s, sys_s;
	uint64_t cycles, instructions, migrations, bad;
};

/* What the raw syscall must return; getpriority's raw value is 20 - nice. */
static long syscall_expected(int sc)
{
	switch (sc) {
	case SC_GETPID:
		return getpid();
	case SC_GETPPID:
		return getppid();
	case SC_GETTID:
		return gettid();
	case SC_NONE:
		return 0;
	default:
		return 20 - getpriority(PRIO_PROCESS, 0);
	}
}

static long syscall_nr(int sc)
{
	static const long nr[] = { SYS_getpid, SYS_getppid, SYS_gettid,
				   SYS_getpriority, NR_NONE };
	return nr[sc];
}

/*
 * --syscall none with --entry libc: an out-of-line call of the same
 * shape as syscall(3) that enters no kernel, reached through a pointer
 * the compiler cannot see through, so the baseline keeps the call.
 */
static long no_syscall(long nr, ...)
{
	return nr;
}

static long (*volatile none_call)(long nr, ...) = no_syscall;

/*
 * One call: through libc's syscall(3) or the inline instruction; for
 * NR_NONE the same loop without a kernel entry (the harness's cost).
 */
static __always_inline
long syscall_issue(int entry, long nr, long expected)
{
	long v = expected;

	if (nr == NR_NONE) {
		if (entry == ENTRY_LIBC)
			return none_call(expected, PRIO_PROCESS, 0);
		asm volatile("" : "+r"(v));
		return v;
	}
	if (entry == ENTRY_LIBC)
		return syscall(nr, PRIO_PROCESS, 0);
	return arch_syscall2(nr, PRIO_PROCESS, 0);
}

/*
 * The measured loop: the syscall and a compare that is always
 * predicted; the stop flag is looked at once per 64k calls. @entry is
 * a constant in each caller, so each entry gets its own loop.
 */
static __always_inline
uint64_t entry_loop(int entry, long nr, long expected, uint64_t n)
{
	uint64_t bad = 0;

	while (n && !bench_stop) {
		uint64_t chunk = n < 65536 ? n : 65536;

		for (uint64_t i = 0; i < chunk; i++)
			if (__builtin_expect(syscall_issue(entry, nr, expected) != expected, 0))
				bad++;
		n -= chunk;
	}
	return bad + n;	/* calls not made count as not verified */
}

static uint64_t syscall_loop(int entry, long nr, long expected, uint64_t n)
{
	if (entry == ENTRY_RAW)
		return entry_loop(ENTRY_RAW, nr, expected, n);
	return entry_loop(ENTRY_LIBC, nr, expected, n);
}

static double tv_s(const struct timeval *tv)
{
	return tv->tv_sec + tv->tv_usec / 1e6;
}

static bool run_once(int entry, long nr, long expected, uint64_t n, struct counter *hw,
		     struct counter *mig, struct run_sample *s)
{
	struct rusage r0, r1;
	uint64_t t0, t1;

	for (int i = 0; i < 2; i++)
		if (hw[i].fd >= 0)
			counter_enable(&hw[i]);
	counter_enable(mig);
	getrusage(RUSAGE_THREAD, &r0);
	t0 = bench_clock_start();
	s->bad = syscall_loop(entry, nr, expected, n);
	t1 = bench_clock_end();
	getrusage(RUSAGE_THREAD, &r1);
	if (bench_stop)
		return false;
	s->wall_s = clock_to_ns(t1 - t0) / 1e9;
	s->ns_per_call = clock_to_ns(t1 - t0) / n;
	s->user_s = tv_s(&r1.ru_utime) - tv_s(&r0.ru_utime);
	s->sys_s = tv_s(&r1.ru_stime) - tv_s(&r0.ru_stime);
	s->cycles = hw[0].fd >= 0 ? counter_read(&hw[0]) : 0;
	s->instructions = hw[1].fd >= 0 ? counter_read(&hw[1]) : 0;
	s->migrations = counter_read(mig);
	return true;
}

/*
 * Count the calls the kernel really saw: raw_syscalls:sys_enter for
 * this syscall number from this thread, over a short pass. It runs
 * apart from the measured runs because an enabled syscall tracepoint
 * sends every syscall through the slow entry path.
 */
static int syscalls_seen_by_kernel(int entry, long nr, long expected, uint64_t n,
				   uint64_t *seen, char *why, size_t whylen)
{
	struct counter c;
	char filter[32];

	snprintf(filter, sizeof(filter), "id == %ld", nr);
	if (counter_open_tracepoint(&c, "raw_syscalls:sys_enter", filter, 0, -1)) {
		snprintf(why, whylen, "%s", c.error);
		return -1;
	}
	counter_enable(&c);
	syscall_loop(entry, nr, expected, n);
	counter_disable(&c);
	*seen = counter_read(&c);
	counter_close(&c);
	return 0;
}

/* Each call of one more pass timed on its own, into a histogram. */
static void distribution_pass(int entry, long nr, uint64_t n, struct hist *h)
{
	double overhead = bench_clock.overhead_ns;

	for (uint64_t i = 0; i < n && !bench_stop; i++) {
		uint64_t t0 = bench_clock_start();

		if (entry == ENTRY_RAW)
			syscall_issue(ENTRY_RAW, nr, 0);
		else
			syscall_issue(ENTRY_LIBC, nr, 0);
		hist_add(h, clock_to_ns(bench_clock_end() - t0) - overhead);
	}
}

/* Pin, resolve the syscall, describe the run, open the counters. */
static void getpid_setup(struct getpid_run *g)
{
	struct bench *b = &g->b;

	if (cpu_pin_self(b->target))
		ksft_exit_fail_msg("cannot pin to cpu %d: %s\n", b->target,
				   strerror(errno));
	g->nr = syscall_nr(g->o.syscall);
	g->expected = syscall_expected(g->o.syscall);
	snprintf(g->cpu_desc, sizeof(g->cpu_desc), "cpu %d (%s%s)", b->target,
		 cpu_isolation_name(&b->sets, b->target),
		 b->opt.load ? ", housekeeping load" : "");
	bench_note(b, "entry: %s (--entry %s)", g->o.entry == ENTRY_RAW ?
		   "the syscall instruction inline" :
		   "libc's syscall(3), as the IPI-deferral series and perf bench",
		   g->ent);
	bench_param(b, "entry", g->ent);

	counter_open_hw(&g->hw[0], PERF_COUNT_HW_CPU_CYCLES, 0, -1);
	counter_open_hw(&g->hw[1], PERF_COUNT_HW_INSTRUCTIONS, 0, -1);
	if (g->hw[0].fd < 0 || g->hw[1].fd < 0)
		bench_note(b, "no cycles/instructions per call: %s",
			   g->hw[0].fd < 0 ? g->hw[0].error : g->hw[1].error);
	if (counter_open_sw(&g->mig, PERF_COUNT_SW_CPU_MIGRATIONS, 0, -1))
		bench_note(b, "migrations not counted: %s", g->mig.error);
}

/* One run-time metric with its summary line: "run time: cpu 3 ...". */
static struct metric *time_metric(struct getpid_run *g, const char *name,
				  const char *label, const char *aggregate)
{
	struct metric *m = bench_metric(&g->b, name, "s", BETTER_LOWER, aggregate);

	metric_summary(m, label, "%s %llu %s calls, entry %s", g->cpu_desc,
		       (unsigned long long)g->b.opt.loops, g->name, g->ent);
	return m;
}

static void getpid_metrics(struct getpid_run *g)
{
	struct bench *b = &g->b;

	g->ns = bench_metric(b, "syscall_ns", "ns", BETTER_LOWER,
			     "average ns per call of one run");
	metric_summary(g->ns, g->name, "%s %llu calls, entry %s", g->cpu_desc,
		       (unsigned long long)b->opt.loops, g->ent);
	g->wall = time_metric(g, "run_time_s", "run time", "wall time of one run");
	g->user = time_metric(g, "user_time_s", "user time",
			      "user time of one run (getrusage)");
	g->sys = time_metric(g, "system_time_s", "system time",
			     "system time of one run (getrusage)");
	if (g->hw[0].fd >= 0 && g->hw[1].fd >= 0) {
		g->cyc = bench_metric(b, "cycles_per_call", "cycles", BETTER_LOWER,
				      "cycles per call of one run");
		g->ins = bench_metric(b, "instructions_per_call", "instructions",
				      BETTER_LOWER, "instructions per call of one run");
	}
}

static void run_record(struct getpid_run *g, uint64_t r, const struct run_sample *s)
{
	uint64_t loops = g->b.opt.loops;

	g->runs_done++;
	g->bad += s->bad;
	g->migrations += s->migrations;
	metric_add(g->ns, s->ns_per_call);
	metric_add(g->wall, s->wall_s);
	metric_add(g->user, s->user_s);
	metric_add(g->sys, s->sys_s);
	if (g->cyc) {
		metric_add(g->cyc, (double)s->cycles / loops);
		metric_add(g->ins, (double)s->instructions / loops);
	}
	if (g->b.opt.verbose)
		ksft_print_msg("run %llu: %.1f ns/call, wall %.3f s, user %.3f s, sys %.3f s\n",
			       (unsigned long long)r + 1, s->ns_per_call,
			       s->wall_s, s->user_s, s->sys_s);
}

/* A warm-up pass, then the measured runs. */
static void getpid_measure(struct getpid_run *g)
{
	struct bench *b = &g->b;
	struct run_sample s;

	/* warm up: caches, TLB and the branch predictors see the loop once */
	syscall_loop(g->o.entry, g->nr, g->expected, b->opt.loops / 10 + 1);
	for (uint64_t r = 0; r < b->opt.runs && !bench_stop; r++) {
		if (!run_once(g->o.entry, g->nr, g->expected, b->opt.loops,
			      g->hw, &g->mig, &s))
			break;
		run_record(g, r, &s);
		bench_progress_run(b, r + 1, b->opt.runs);
	}
	bench_progress_end(b);
}

/* --distribution: one more pass, every call timed on its own. */
static void getpid_distribution_pass(struct getpid_run *g)
{
	if (bench_stop)
		return;
	if (hist_init(&g->h, 0, 10, (size_t)(g->o.hist_max_ns / 10)))
		ksft_exit_fail_msg("no memory for the histogram\n");
	distribution_pass(g->o.entry, g->nr, g->b.opt.loops, &g->h);
}

/* The distribution pass's metric: its quantiles and histogram. */
static void getpid_distribution_metric(struct getpid_run *g)
{
	struct hist *h = &g->h;
	struct metric *dist;

	dist = bench_metric(&g->b, "syscall_call_ns", "ns", BETTER_LOWER,
			    "one call, timer overhead subtracted");
	dist->hist = h;
	metric_extra(dist, "p50_ns", hist_quantile(h, 0.5));
	metric_extra(dist, "p90_ns", hist_quantile(h, 0.9));
	metric_extra(dist, "p99_ns", hist_quantile(h, 0.99));
	metric_extra(dist, "p99_9_ns", hist_quantile(h, 0.999));
	metric_extra(dist, "max_ns", h->max);
	metric_extra(dist, "timer_overhead_ns", bench_clock.overhead_ns);
}

/* The runs phase's results, in the order printed, and their names (the syscall's in two). */
enum { R_VALUE, R_COUNTED, R_COMPLETE, R_STAYED, R_CHECKS };
static const struct phase getpid_runs_phase;
static void runs_check_name(const void *ctx, unsigned int run, unsigned int i,
			    char *buf, size_t len)
{
	const char *sys = ((const struct getpid_run *)ctx)->name;

	(void)run;
	if (i == R_VALUE)
		snprintf(buf, len, "%s returns the expected value", sys);
	else if (i == R_COUNTED)
		snprintf(buf, len, "kernel counts the %s syscalls", sys);
	else if (i == R_COMPLETE)
		snprintf(buf, len, "every run completed");
	else
		snprintf(buf, len, "stayed on the target cpu");
}

/* Whether the kernel saw the calls: a SKIP when it cannot be counted. */
static void verdict_kernel_count(struct getpid_run *g)
{
	uint64_t seen = 0;
	char why[192];
	int ret = -1;

	if (bench_stop)
		snprintf(why, sizeof(why), "interrupted before the check");
	else if (g->nr == NR_NONE)
		snprintf(why, sizeof(why), "--syscall none issues no syscall");
	else
		ret = syscalls_seen_by_kernel(g->o.entry, g->nr, g->expected,
					      10000, &seen, why, sizeof(why));
	if (ret) {
		phase_verdict(&g->b, &getpid_runs_phase, g, 0, R_COUNTED, KSFT_SKIP, why);
		return;
	}
	ksft_print_msg("raw_syscalls:sys_enter counted %llu of 10000 %s syscalls\n",
		       (unsigned long long)seen, g->name);
	phase_verdict(&g->b, &getpid_runs_phase, g, 0, R_COUNTED,
		      seen >= 10000 ? KSFT_PASS : KSFT_FAIL, NULL);
}

static const char *const distribution_checks[] = { "per-call distribution of every call" };

static void verdict_distribution(struct getpid_run *g)
{
	const struct hist *h = &g->h;

	if (h->count) {
		ksft_print_msg("%s per call: p50 %.0f ns, p90 %.0f, p99 %.0f, p99.9 %.0f, max %.0f (%llu calls, timer overhead %.1f ns subtracted)\n",
			       g->name, hist_quantile(h, 0.5), hist_quantile(h, 0.9),
			       hist_quantile(h, 0.99), hist_quantile(h, 0.999),
			       h->max, (unsigned long long)h->count,
			       bench_clock.overhead_ns);
		if (!g->b.opt.quiet)
			hist_print(h, stdout, "ns", 50);
	}
	ksft_print_msg("%llu of %llu calls in the distribution\n",
		       (unsigned long long)h->count,
		       (unsigned long long)g->b.opt.loops);
	bench_verdict(&g->b, h->count == g->b.opt.loops ? KSFT_PASS : KSFT_FAIL,
		      NULL, "%s", distribution_checks[0]);
}

/* The runs phase's four results. */
static void runs_verdicts(struct bench *b, void *ctx)
{
	const struct phase *p = &getpid_runs_phase;
	struct getpid_run *g = ctx;

	ksft_print_msg("%llu calls, expected %ld, %llu wrong\n",
		       (unsigned long long)(g->runs_done * b->opt.loops),
		       g->expected, (unsigned long long)g->bad);
	phase_verdict(b, p, g, 0, R_VALUE, g->bad ? KSFT_FAIL : KSFT_PASS, NULL);
	verdict_kernel_count(g);
	ksft_print_msg("%llu of %llu runs completed\n",
		       (unsigned long long)g->runs_done, (unsigned long long)b->opt.runs);
	phase_verdict(b, p, g, 0, R_COMPLETE, g->runs_done == b->opt.runs ? KSFT_PASS : KSFT_FAIL,
		      bench_stop ? "interrupted" : NULL);
	if (g->mig.fd < 0) {
		phase_verdict(b, p, g, 0, R_STAYED, KSFT_SKIP, g->mig.error);
	} else {
		ksft_print_msg("cpu %d, %llu migrations\n", b->target,
			       (unsigned long long)g->migrations);
		phase_verdict(b, p, g, 0, R_STAYED, g->migrations ? KSFT_FAIL : KSFT_PASS, NULL);
	}
}

static void runs_setup(struct bench *b, void *ctx)
{
	struct getpid_run *g = ctx;

	getpid_setup(g);
	getpid_metrics(g);
	if (b->opt.load)
		bench_load_start(b);
}

/*
 * The measured runs, and the distribution's pass under the same load;
 * the load stops before the verdicts' own pass (the kernel count).
 */
static void runs_run(struct bench *b, void *ctx)
{
	struct getpid_run *g = ctx;

	getpid_measure(g);
	if (g->o.distribution)
		getpid_distribution_pass(g);
	bench_load_stop(b);
}

static const struct phase getpid_runs_phase = {
	.name = "runs",
	.nverdicts = R_CHECKS,
	.check_name = runs_check_name,
	.setup = runs_setup,
	.run = runs_run,
	.verdicts = runs_verdicts,
};

static unsigned int distribution_judged(const void *ctx)
{
	const struct getpid_run *g = ctx;

	return g->o.distribution;
}

static void distribution_run(struct bench *b, void *ctx)
{
	(void)b;
	getpid_distribution_metric(ctx);
}

static void distribution_verdicts(struct bench *b, void *ctx)
{
	(void)b;
	verdict_distribution(ctx);
}

/* --distribution: every call of the runs phase's extra pass, judged */
static const struct phase getpid_distribution_phase = {
	.name = "distribution",
	.nverdicts = ARRAY_SIZE(distribution_checks),
	.checks = distribution_checks,
	.judged = distribution_judged,
	.run = distribution_run,
	.verdicts = distribution_verdicts,
};

static const struct phase *const getpid_phases[] = {
	&getpid_runs_phase, &getpid_distribution_phase, NULL
};

int main(int argc, char **argv)
{
	struct getpid_run g = {
		.o = { .syscall = SC_GETPID, .entry = ENTRY_LIBC,
		       .hist_max_ns = 100000 },
		.b = { .opt = { .loops = 10000000, .runs = 5 } },
	};
	const struct opt opts[] = {
		{ .name = "syscall", .key = 's', .type = OPT_CHOICE,
		  .dest = &g.o.syscall, .arg = "NAME",
		  .help = "the syscall to issue", .choices = syscall_names },
		{ .name = "entry", .type = OPT_CHOICE, .dest = &g.o.entry,
		  .arg = "PATH",
		  .help = "how the call enters the kernel: libc's syscall(3) as the IPI-deferral series and perf bench, or the inline syscall instruction",
		  .choices = entry_names },
		{ .name = "distribution", .key = 'd', .type = OPT_FLAG,
		  .dest = &g.o.distribution,
		  .help = "also time every call of one more pass (p50/p90/p99/p99.9, histogram)" },
		{ .name = "hist-max", .type = OPT_DOUBLE, .dest = &g.o.hist_max_ns,
		  .arg = "NS", .help = "histogram range for --distribution, 10 ns buckets",
		  .min = 100, .max = 1e7 },
		{ NULL }
	};
	const struct prog_spec spec = {
		.name = "getpid_bench",
		.one_cpu = true,
		.summary = "Syscall entry/exit cost: N syscalls per run on the target CPU.",
		.common = COMMON_CPU | COMMON_HOUSEKEEPING | COMMON_LOOPS |
			  COMMON_RUNS | COMMON_LOAD,
		.opts = opts,
		.quick = { .loops = 200000, .runs = 3 },
		/* options that would do nothing are refused, not ignored */
		.rules = (const struct opt_rule[]){
			{ "hist-max", OPT_NEEDS, "distribution" },
			/* the housekeeping CPUs run the load, nothing else */
			{ "housekeeping", OPT_NEEDS, "load|load-kind" },
			{ NULL }
		},
	};

	bench_init(&g.b, &spec, argc, argv);
	g.name = syscall_names[g.o.syscall];
	g.ent = entry_names[g.o.entry];
	phases_plan(&g.b, getpid_phases, &g);
	phases_run(&g.b, getpid_phases, &g);
	bench_finish(&g.b);
}
