// SPDX-License-Identifier: GPL-2.0
/*
 * ipistorm: floods of synchronous IPIs between pinned CPUs, with the
 * deliveries counted on the target, and the IPIs that watched
 * (isolated) CPUs receive while the housekeeping CPUs are loaded.
 *
 * Storm modes: N calls that each need one IPI from src to dst, and wait
 * for it, every call counted where it lands (ipistorm_storm.c):
 *   membarrier  membarrier(PRIVATE_EXPEDITED_RSEQ, FLAG_CPU, dst) while
 *               a thread of this process spins on dst
 *   perf-read   read() of a software perf event bound to dst (idle dst
 *               by default, as the Idle Load Balance series' ipistorm)
 *   tlb         madvise(MADV_DONTNEED) or mprotect() of a page of this
 *               process while a thread of it runs on dst: a shootdown
 *               (these three in ipistorm_modes.c)
 *   kmod        module/ipistorm_kmod.ko: smp_call_function_single() from
 *               a kernel thread, the kernel-side floor (ipistorm_kmod_mode.c)
 *
 * Watch mode (--watch CPULIST -D SECS [--load]): every IPI sent to the
 * watched CPUs, per CPU, per minute, per kind and per callback
 * (ipistorm_watch.c), and its positive control (ipistorm_control.c).
 */
#include <stdlib.h>

#include "ipistorm_common.h"
#include "ipistorm_watch_phases.h"
#include "ipistorm_watcher.h"
#include "lib/base/topo.h"
#include "lib/base/util.h"

_Static_assert(MAX_PAIRS <= BENCH_MAX_PAIRS, "the harness keeps every pair");

/* The storm modes, in the order of --mode's names; watch comes last. */
enum { MODE_MEMBARRIER, MODE_PERF_READ, MODE_TLB, MODE_KMOD, MODE_WATCH };
static const char *const mode_names[] = {
	"membarrier", "perf-read", "tlb", "kmod", "watch", NULL
};
static const struct storm_mode *const storm_modes[MODE_WATCH] = {
	&ipistorm_membarrier_mode, &ipistorm_perf_read_mode, &ipistorm_tlb_mode, &ipistorm_kmod_mode,
};
_Static_assert(ARRAY_SIZE(mode_names) == ARRAY_SIZE(storm_modes) + 2,
	       "a storm mode in mode_names needs its entry in storm_modes");
static const char *const target_names[] = { "idle", "busy", NULL };

/*
 * The watched CPUs: --watch, else the nohz_full and isolated ones, else
 * the default target. Watching needs no affinity there (isolcpus= CPUs
 * are fine) and takes no lock: it only observes.
 */
static void watch_plan(struct bench *b, const struct ipistorm_opts *o)
{
	cpu_mask_t offline;

	if (o->watch_given) {
		b->watched = o->watch;
		CPU_XOR(&offline, &b->watched, &b->sets.online);
		CPU_AND(&offline, &offline, &b->watched);
		if (CPU_COUNT(&offline))
			bench_usage_error(b, "--watch: cpu %d is not online",
					  cpu_mask_first(&offline));
		b->target_reason = "given with --watch";
	} else if (CPU_COUNT(&b->sets.nohz_full) || CPU_COUNT(&b->sets.isolated)) {
		CPU_OR(&b->watched, &b->sets.nohz_full, &b->sets.isolated);
		b->target_reason = "the nohz_full and isolated CPUs";
	} else {
		b->watched = b->opt.cpus;
	}
	b->opt.cpus = b->watched;
	if (!b->opt.housekeeping_given)	/* the load runs off the watched CPUs */
		cpu_housekeeping_default(&b->sets, &b->watched, &b->opt.housekeeping);
	CPU_ZERO(&b->locked);
}

/* The pairs: --pairs, --pair REL, --src-list/--offset, or -c from housekeeping. */
static void pairs_plan(struct bench *b, const struct ipistorm_opts *o)
{
	struct bench_pair *p = b->pairs;
	struct cpu_sets usable;
	cpu_mask_t used, one;
	char err[192];
	int cpu, hk, np = 0;

	if (o->pairs) {
		int src[MAX_PAIRS], dst[MAX_PAIRS];

		np = cpu_pairs_parse(o->pairs, src, dst, MAX_PAIRS, err, sizeof(err));
		if (np < 0)
			bench_usage_error(b, "--pairs: %s", err);
		for (int i = 0; i < np; i++) {
			p[i].src = src[i];
			p[i].dst = dst[i];
		}
		b->target_reason = "the destinations of --pairs";
	} else if (o->pair_rel) {
		enum cpu_relation rel;

		if (cpu_relation_parse(o->pair_rel, &rel))
			bench_usage_error(b, "--pair: unknown relation '%s' (smt, core, llc, cross-llc, cross-node)",
					  o->pair_rel);
		if (cpu_pair_find(&b->sets.allowed, rel, &p[0].src, &p[0].dst))
			bench_skip(b, "no pair of CPUs with relation %s on this machine",
				   cpu_relation_name(rel));
		np = 1;
		b->target_reason = "the destination of --pair";
	} else if (o->src_list_given) {
		int ncpu = cpu_mask_last(&b->sets.online) + 1;

		cpu_mask_for_each(cpu, &o->src_list) {
			if (np == MAX_PAIRS)
				bench_usage_error(b, "--src-list: more than %d CPUs", MAX_PAIRS);
			p[np].src = cpu;
			p[np++].dst = (cpu + o->offset) % ncpu;
		}
		b->target_reason = "--src-list + --offset";
	} else {
		hk = cpu_mask_first(&b->opt.housekeeping);
		cpu_mask_for_each(cpu, &b->opt.cpus) {
			if (hk < 0)
				bench_usage_error(b, "no housekeeping CPU left as the source for target cpu %d",
						  cpu);
			if (np == MAX_PAIRS)
				break;
			p[np].src = hk;
			p[np++].dst = cpu;
			hk = cpu_mask_next(hk, &b->opt.housekeeping);
		}
	}
	/*
	 * isolcpus= CPUs are outside the default affinity, but a pair may
	 * name them: the storm and spinner threads pin themselves there.
	 */
	usable = b->sets;
	CPU_OR(&usable.allowed, &usable.allowed, &usable.isolated);
	CPU_ZERO(&used);
	CPU_ZERO(&b->opt.cpus);
	for (int i = 0; i < np; i++) {
		if (p[i].src == p[i].dst)
			bench_usage_error(b, "pair %d:%d: source and destination are the same CPU",
					  p[i].src, p[i].dst);
		for (int k = 0; k < 2; k++) {
			cpu = k ? p[i].dst : p[i].src;
			CPU_ZERO(&one);
			CPU_SET(cpu, &one);
			if (cpu_mask_check_usable(&usable, &one, err, sizeof(err)))
				bench_usage_error(b, "pair %d:%d: %s", p[i].src, p[i].dst, err);
			if (CPU_ISSET(cpu, &used))
				bench_usage_error(b, "cpu %d is in more than one pair", cpu);
			CPU_SET(cpu, &used);
		}
		CPU_SET(p[i].dst, &b->opt.cpus);
	}
	b->npairs = np;
	b->locked = used;
}

/* ipistorm's CPUs (prog_spec.cpu_plan): a watch's set, or a storm's pairs. */
static void ipistorm_cpu_plan(struct bench *b, void *ctx)
{
	struct ipistorm_opts *o = ctx;

	if (o->watch_given)
		o->mode = MODE_WATCH;
	if (o->mode == MODE_WATCH)
		watch_plan(b, o);
	else
		pairs_plan(b, o);
}

/* A storm runs -n calls unless -D is given. */
static void opts_check(struct bench *b, struct ipistorm_opts *o)
{
	if (o->mode != MODE_WATCH && !b->opt.duration_given)
		b->opt.duration_s = 0;	/* storms: -n calls unless -D is given */
}

/*
 * A storm: the pairs bench_init decided, the mode's setup, then its
 * phases: the storm (the load beside it) and the checks of every pair.
 */
static noreturn void storm_main(struct bench *b, const struct ipistorm_opts *o)
{
	struct storm s = { .b = b, .o = o, .mode = storm_modes[o->mode] };

	for (s.np = 0; s.np < b->npairs; s.np++) {
		struct pair *p = &s.p[s.np];

		p->src = b->pairs[s.np].src;
		p->dst = b->pairs[s.np].dst;
		p->rel_known = !cpu_relation(p->src, p->dst, &p->rel);
	}
	ipistorm_storm_context(&s);
	phases_plan(b, s.phases, &s);
	phases_run(b, s.phases, &s);
	bench_finish(b);
}

/*
 * A watch: its phases over one context, the watcher's tallies kept for
 * the last of them.
 */
static noreturn void watch_main(struct bench *b, const struct ipistorm_opts *o)
{
	static const struct phase *const watch_phases[] = {
		&ipistorm_watch_phase,		/* also runs the control's storm */
		&ipistorm_control_phase,
		NULL
	};
	struct ipistorm_watch_run r = { .o = o, .w = calloc(1, sizeof(*r.w)) };

	if (!r.w)
		ksft_exit_fail_msg("no memory\n");
	phases_plan(b, watch_phases, &r);
	phases_run(b, watch_phases, &r);
	bench_finish(b);
}

/* Options that do not go together (lib/harness/opts.h). */
static const struct opt_rule ipistorm_rules[] = {
	{ "watch", OPT_CONFLICTS, "mode!=watch" },
	{ "max", OPT_NEEDS, "watch|mode=watch" },
	{ "method", OPT_NEEDS, "watch|mode=watch" },
	{ "window", OPT_NEEDS, "watch|mode=watch" },
	{ "no-control", OPT_NEEDS, "watch|mode=watch" },
	{ "trace-buffer-kb", OPT_NEEDS, "watch|mode=watch" },
	{ "trace-buffer-kb", OPT_CONFLICTS, "method=procfs" },
	/* a watch sends nothing: no pairs, calls, runs or pass timeout */
	{ "pairs", OPT_CONFLICTS, "watch|mode=watch" },
	{ "pair", OPT_CONFLICTS, "watch|mode=watch" },
	{ "src-list", OPT_CONFLICTS, "watch|mode=watch" },
	{ "timeout", OPT_CONFLICTS, "watch|mode=watch" },
	{ "loops", OPT_CONFLICTS, "watch|mode=watch" },
	{ "runs", OPT_CONFLICTS, "watch|mode=watch" },
	{ "pairs", OPT_CONFLICTS, "pair" },
	{ "src-list", OPT_NEEDS, "offset" },
	{ "offset", OPT_NEEDS, "src-list" },
	{ "src-list", OPT_CONFLICTS, "pairs" },
	{ "src-list", OPT_CONFLICTS, "pair" },
	{ "target", OPT_NEEDS, "mode=perf-read" },
	{ "tlb-op", OPT_NEEDS, "mode=tlb" },
	{ "module", OPT_NEEDS, "mode=kmod" },
	{ "all", OPT_NEEDS, "mode=kmod" },
	{ "no-wait", OPT_NEEDS, "mode=kmod" },
	{ "delay", OPT_NEEDS, "mode=kmod" },
	/* -D bounds every pass itself */
	{ "timeout", OPT_CONFLICTS, "duration" },
	/* the pairs name their CPUs, --watch the watched ones: no target */
	{ "cpu", OPT_CONFLICTS, "pairs|pair|src-list" },
	{ "cpu", OPT_CONFLICTS, "watch" },
	/* a watch takes no CPU lock: nothing to wait for */
	{ "wait", OPT_CONFLICTS, "watch|mode=watch" },
	/*
	 * the housekeeping CPUs run the load, and without pairs given are
	 * the storms' sources; else they have nothing to do
	 */
	{ "housekeeping&pairs", OPT_NEEDS, "load|load-kind" },
	{ "housekeeping&pair", OPT_NEEDS, "load|load-kind" },
	{ "housekeeping&src-list", OPT_NEEDS, "load|load-kind" },
	{ "housekeeping&watch", OPT_NEEDS, "load|load-kind" },
	{ "housekeeping&mode=watch", OPT_NEEDS, "load|load-kind" },
	{ NULL }
};

int main(int argc, char **argv)
{
	struct ipistorm_opts o = { .mode = MODE_PERF_READ, .timeout_s = 60, .window_s = 1 };
	const struct opt opts[] = {
		{ .name = "mode", .key = 'm', .type = OPT_CHOICE, .dest = &o.mode,
		  .arg = "MODE", .choices = mode_names,
		  .help = "membarrier, perf-read, tlb, kmod (storms) or watch" },
		{ .name = "target", .type = OPT_CHOICE, .dest = &o.target,
		  .arg = "idle|busy", .choices = target_names,
		  .help = "perf-read: leave dst idle or keep a spinner on it" },
		{ .name = "tlb-op", .type = OPT_CHOICE, .dest = &o.tlb_op,
		  .arg = "OP", .choices = ipistorm_tlb_op_names,
		  .help = "tlb: madvise (MADV_DONTNEED) or mprotect" },
		{ .name = "pairs", .type = OPT_STRING, .dest = &o.pairs,
		  .arg = "SRC:DST,...", .help = "pairs of CPUs, storming at once" },
		{ .name = "pair", .type = OPT_STRING, .dest = &o.pair_rel,
		  .arg = "REL", .help = "one pair by topology: smt, core, llc, cross-llc, cross-node" },
		{ .name = "src-list", .type = OPT_CPULIST, .dest = &o.src_list,
		  .given = &o.src_list_given, .arg = "CPULIST",
		  .help = "source CPUs, each sending to cpu + --offset (ipistorm style)" },
		{ .name = "offset", .type = OPT_UINT, .dest = &o.offset,
		  .given = &o.offset_given, .arg = "N", .min = 1, .max = CPU_SETSIZE - 1,
		  .help = "with --src-list: dst = src + N (mod CPUs)" },
		{ .name = "module", .type = OPT_FILE, .dest = &o.module, .arg = "PATH",
		  .help = "kmod: the .ko (default: module/ipistorm_kmod.ko next to the program)" },
		{ .name = "all", .type = OPT_FLAG, .dest = &o.all,
		  .help = "kmod: each call goes to all other CPUs (smp_call_function)" },
		{ .name = "no-wait", .type = OPT_FLAG, .dest = &o.no_wait,
		  .help = "kmod: do not wait for each callback to finish" },
		{ .name = "delay", .type = OPT_UINT, .dest = &o.delay_us, .arg = "US",
		  .max = 1000000, .help = "kmod: busy delay between calls, us" },
		{ .name = "timeout", .type = OPT_UINT, .dest = &o.timeout_s, .arg = "SECS",
		  .min = 1, .max = 3600,
		  .help = "every pass of -n calls stops after SECS (default 60; not with -D, which bounds each pass); one stopped before -n calls is incomplete: fails" },
		{ .name = "watch", .type = OPT_CPULIST, .dest = &o.watch,
		  .given = &o.watch_given, .arg = "CPULIST",
		  .help = "count the IPIs sent to these CPUs for -D SECS (--mode watch)" },
		{ .name = "max", .type = OPT_UINT, .dest = &o.max_ipis, .given = &o.max_given,
		  .arg = "N", .max = 1e15, .help = "watch: fail when more IPIs than N" },
		{ .name = "method", .type = OPT_CHOICE, .dest = &o.method,
		  .arg = "auto|trace|procfs",
		  .choices = ipistorm_watcher_method_names,
		  .help = "watch: IPIs sent (ipi tracepoints, Linux >= 6.3), received (/proc/interrupts), or auto" },
		{ .name = "window", .type = OPT_DOUBLE, .dest = &o.window_s, .arg = "SECS",
		  .min = 0.1, .max = 3600,
		  .help = "watch: count per window of SECS of the machine's own time (default 1): the samples compare and bisect judge" },
		{ .name = "no-control", .type = OPT_FLAG, .dest = &o.no_control,
		  .help = "watch: no positive control (a membarrier storm to the first watched CPU, after the window, whose source the watch must name)" },
		{ .name = "trace-buffer-kb", .type = OPT_UINT, .dest = &o.trace_buffer_kb,
		  .arg = "KB", .min = 1, .max = 1048576,
		  .help = "watch: the trace's ring buffer per CPU (default 8192); records it loses in the window fail the watch" },
		{ NULL }
	};
	const struct prog_spec spec = {
		.name = "ipistorm",
		.summary = "IPI floods between pinned CPUs with counted delivery; IPIs to watched CPUs.",
		.common = COMMON_CPU | COMMON_HOUSEKEEPING | COMMON_LOOPS | COMMON_RUNS |
			  COMMON_DURATION | COMMON_LOAD,
		.opts = opts,
		.cpu_plan = ipistorm_cpu_plan,
		.ctx = &o,
		.quick = { .loops = 2000, .runs = 2, .duration_s = 2 },
		.rules = ipistorm_rules,
	};
	struct bench b = { .opt = { .loops = 100000, .runs = 3, .duration_s = 60 } };

	bench_init(&b, &spec, argc, argv);
	opts_check(&b, &o);
	/* run.sh's tests of this program (its table): one result each */
	b.test = o.mode == MODE_WATCH ? "ipistorm_watch" :
		 o.mode == MODE_KMOD ? "ipistorm_kmod" : "ipistorm";
	if (o.mode == MODE_WATCH)
		watch_main(&b, &o);
	storm_main(&b, &o);
}
