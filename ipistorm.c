// SPDX-License-Identifier: GPL-2.0
/*
 * ipistorm: floods of synchronous IPIs between pinned CPUs, with the
 * deliveries counted on the target, and the IPIs that watched
 * (isolated) CPUs receive while the housekeeping CPUs are loaded.
 *
 * Storm modes: a thread pinned to src makes N calls that each need one
 * IPI to dst, and waits for it:
 *   membarrier  membarrier(PRIVATE_EXPEDITED_RSEQ, FLAG_CPU, dst) while
 *               a thread of this process spins on dst
 *   perf-read   read() of a software perf event bound to dst (idle dst
 *               by default, as the ipistorm numbers of seed 002)
 *   tlb         madvise(MADV_DONTNEED) or mprotect() of a page of this
 *               process while a thread of it runs on dst: a shootdown
 *   kmod        module/ipistorm_kmod.ko: smp_call_function_single() from
 *               a kernel thread, the kernel-side floor
 * Every call is counted where it lands: the ipi_send_cpu/cpumask
 * tracepoints (real IPIs), sched_wake_idle_without_ipi (sends elided
 * because dst was polling idle), csd_queue_cpu (calls queued for dst)
 * and /proc/interrupts on dst.
 *
 * Watch mode (--watch CPULIST -D SECS [--load]): every IPI sent to the
 * watched CPUs, per CPU, per minute, per kind and per callback (seed 000
 * did it with trace-cmd over 6 hours); where the ipi tracepoints do not
 * exist (before 6.3) or with --method procfs, the IPIs they received,
 * from /proc/interrupts.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/membarrier.h>
#include <linux/perf_event.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "lib/bench.h"
#include "lib/ipi.h"
#include "lib/ipi_watch.h"
#include "lib/kmod.h"
#include "lib/spinner.h"
#include "lib/util.h"

enum mode { MODE_MEMBARRIER, MODE_PERF_READ, MODE_TLB, MODE_KMOD, MODE_WATCH };
static const char *const mode_names[] = {
	"membarrier", "perf-read", "tlb", "kmod", "watch", NULL
};
static const char *const target_names[] = { "idle", "busy", NULL };
static const char *const tlb_op_names[] = { "madvise", "mprotect", NULL };

#define MAX_PAIRS	8
#define KMOD_NAME	"ipistorm_kmod"
/*
 * The spinner on dst runs SCHED_OTHER at nice -20, so that it owns dst
 * the way a stay-in-userspace loop owns an isolated CPU; a task of
 * equal weight on dst still takes half of it (see the delivery check).
 */
#define SPINNER_NICE	(-20)

struct ipistorm_opts {
	int mode, target, tlb_op;
	const char *pairs, *pair_rel, *module;
	cpu_mask_t src_list, watch;
	bool src_list_given, watch_given, offset_given, max_given;
	uint64_t offset, delay_us, timeout_s, max_ipis;
	bool all, no_wait, method_given;
	int method;
};

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
	int64_t cal, tlb, res;		/* /proc/interrupts on dst, timed passes */
};

struct pair {
	int src, dst;
	enum cpu_relation rel;
	bool rel_known;
	int mode, tlb_op;
	struct spinner spin;
	struct counter switched;	/* the spinner switched out on dst */
	struct counter ev;		/* perf-read: the event bound to dst */
	char *page;			/* tlb: one page of this process */
	size_t page_size;
	bool writable;
	pthread_t thread;
	uint64_t n, end_ns, done;	/* one run: calls asked, deadline, made */
	double ns;
	bool counting;			/* this pass counts the deliveries */
	struct ipi_count cnt;		/* its counters, filtered to the sender */
	bool cnt_ok;
	int64_t pass_cal;		/* CAL on dst over the last timed pass */
	bool procfs_share;		/* per-IPI figures from CAL, not counted */
	uint64_t calls;			/* over all timed runs */
	uint64_t callbacks;		/* kmod: the callback ran on dst */
	unsigned long long spin0;
	double spin_share;		/* of dst over the runs, -1 unknown */
	struct delivery d;
	struct metric *ns_m, *rate_m, *call_m, *time_m;
	char desc[128];
	char why[160];			/* why a run failed (kmod) */
};

/* The measured loops: the operation and nothing else. */
static uint64_t storm_loop(struct pair *p, uint64_t n, uint64_t end_ns)
{
	uint64_t i = 0, val;

	while (i < n && !bench_stop) {
		uint64_t chunk = n - i < 256 ? n - i : 256;

		switch (p->mode) {
		case MODE_MEMBARRIER:
			for (uint64_t k = 0; k < chunk; k++)
				syscall(__NR_membarrier, MEMBARRIER_CMD_PRIVATE_EXPEDITED_RSEQ,
					MEMBARRIER_CMD_FLAG_CPU, p->dst);
			break;
		case MODE_PERF_READ:
			for (uint64_t k = 0; k < chunk; k++)
				if (read(p->ev.fd, &val, sizeof(val)) != sizeof(val))
					return i;
			break;
		case MODE_TLB:
			for (uint64_t k = 0; k < chunk; k++) {
				if (p->tlb_op == 0) {
					p->page[0] = 1;	/* map it again */
					madvise(p->page, p->page_size, MADV_DONTNEED);
				} else {
					/* every change of protection is one flush */
					p->writable = !p->writable;
					mprotect(p->page, p->page_size, p->writable ?
						 PROT_READ | PROT_WRITE : PROT_READ);
				}
			}
			break;
		}
		i += chunk;
		if (mono_ns() > end_ns)
			break;
	}
	return i;
}

/*
 * A counted pass: count what @sender sends from src to dst, outside the
 * timed loop. A failure to count is kept in the delivery's why.
 */
static void pass_count_start(struct pair *p, const char *sender)
{
	p->cnt_ok = !ipi_count_open(&p->cnt, p->src, p->dst, sender);
	if (p->cnt_ok)
		ipi_count_enable(&p->cnt, true);
	else if (!p->d.why[0])
		snprintf(p->d.why, sizeof(p->d.why), "%s", p->cnt.why);
}

static void pass_count_stop(struct pair *p)
{
	p->d.calls += p->done;
	p->d.ns += p->ns;
	if (!p->cnt_ok) {
		p->d.counted = false;
		return;
	}
	ipi_count_enable(&p->cnt, false);
	if (ipi_count_read(&p->cnt)) {
		p->d.counted = false;
		if (!p->d.why[0])
			snprintf(p->d.why, sizeof(p->d.why), "%s", p->cnt.why);
	} else {
		p->d.real += p->cnt.real;
		p->d.elided += p->cnt.elided_n;
		p->d.queued += p->cnt.queued_n;
		p->d.have_queued = p->cnt.have_queued;
	}
	ipi_count_close(&p->cnt);
}

static void *storm_thread(void *arg)
{
	struct pair *p = arg;
	uint64_t t0, t1;
	char who[48];

	if (cpu_pin_self(p->src)) {
		p->done = 0;
		return NULL;
	}
	if (p->counting) {	/* this thread's own sends only */
		snprintf(who, sizeof(who), "common_pid == %d", (int)gettid());
		pass_count_start(p, who);
	}
	t0 = bench_clock_start();
	p->done = storm_loop(p, p->n, p->end_ns);
	t1 = bench_clock_end();
	p->ns = clock_to_ns(t1 - t0);
	if (p->counting)
		pass_count_stop(p);
	return NULL;
}

/* One run of every pair at once; false when interrupted or broken. */
static bool storm_run(struct pair *pairs, int np, uint64_t n, double dur_s,
		      double timeout_s, bool counting)
{
	uint64_t end = mono_ns() + (uint64_t)((dur_s ? dur_s : timeout_s) * 1e9);

	for (int i = 0; i < np; i++) {
		pairs[i].n = n;
		pairs[i].end_ns = end;
		pairs[i].counting = counting;
		if (pthread_create(&pairs[i].thread, NULL, storm_thread, &pairs[i]))
			ksft_exit_fail_msg("cannot start a storm thread\n");
	}
	for (int i = 0; i < np; i++)
		pthread_join(pairs[i].thread, NULL);
	return !bench_stop;
}

/* Choose the pairs: --pairs, --pair REL, --src-list/--offset, or -c. */
static void pairs_choose(struct bench *b, struct ipistorm_opts *o,
			 struct pair *p, int *np)
{
	struct cpu_sets usable;
	cpu_mask_t used, one;
	char err[192];
	int cpu, hk;

	*np = 0;
	if (o->pairs) {
		int src[MAX_PAIRS], dst[MAX_PAIRS];

		*np = cpu_pairs_parse(o->pairs, src, dst, MAX_PAIRS, err, sizeof(err));
		if (*np < 0)
			bench_usage_error(b, "--pairs: %s", err);
		for (int i = 0; i < *np; i++) {
			p[i].src = src[i];
			p[i].dst = dst[i];
		}
	} else if (o->pair_rel) {
		enum cpu_relation rel;

		if (cpu_relation_parse(o->pair_rel, &rel))
			bench_usage_error(b, "--pair: unknown relation '%s' (smt, core, llc, cross-llc, cross-node)",
					  o->pair_rel);
		if (cpu_pair_find(&b->sets.allowed, rel, &p[0].src, &p[0].dst))
			bench_skip(b, "no pair of CPUs with relation %s on this machine",
				   cpu_relation_name(rel));
		*np = 1;
	} else if (o->src_list_given) {
		int ncpu = cpu_mask_last(&b->sets.online) + 1;

		cpu_mask_for_each(cpu, &o->src_list) {
			if (*np == MAX_PAIRS)
				bench_usage_error(b, "--src-list: more than %d CPUs", MAX_PAIRS);
			p[*np].src = cpu;
			p[(*np)++].dst = (cpu + o->offset) % ncpu;
		}
	} else {
		hk = cpu_mask_first(&b->opt.housekeeping);
		cpu_mask_for_each(cpu, &b->opt.cpus) {
			if (hk < 0)
				bench_usage_error(b, "no housekeeping CPU left as the source for target cpu %d",
						  cpu);
			if (*np == MAX_PAIRS)
				break;
			p[*np].src = hk;
			p[(*np)++].dst = cpu;
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
	for (int i = 0; i < *np; i++) {
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
		p[i].rel_known = !cpu_relation(p[i].src, p[i].dst, &p[i].rel);
	}
	bench_lock_cpus(b, &used);
}

/* Set up what a pair needs on dst before the runs; SKIP when missing. */
static void pair_setup(struct bench *b, struct ipistorm_opts *o, struct pair *p,
		       double max_s)
{
	char err[192];
	bool spin = p->mode == MODE_MEMBARRIER || p->mode == MODE_TLB ||
		    (p->mode == MODE_PERF_READ && o->target == 1);

	if (p->mode == MODE_PERF_READ) {
		if (counter_open_sw(&p->ev, PERF_COUNT_SW_CPU_CLOCK, -1, p->dst))
			bench_skip(b, "perf event on cpu %d: %s", p->dst, p->ev.error);
		counter_enable(&p->ev);
	}
	if (p->mode == MODE_TLB) {
		p->page_size = sysconf(_SC_PAGESIZE);
		p->writable = true;
		p->page = mmap(NULL, p->page_size, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (p->page == MAP_FAILED)
			ksft_exit_fail_msg("mmap: %s\n", strerror(errno));
		p->page[0] = 1;
	}
	if (spin && spinner_start(&p->spin, p->dst, SPINNER_NICE, max_s, err, sizeof(err)))
		ksft_exit_fail_msg("%s\n", err);
	p->switched.fd = -1;
	if (spin) {
		char f[32];

		snprintf(f, sizeof(f), "prev_pid == %d", p->spin.tid);
		counter_open_tracepoint(&p->switched, "sched:sched_switch", f, -1, p->dst);
	}
	snprintf(p->desc, sizeof(p->desc), "cpu %d -> cpu %d (%s, %s target%s%s)",
		 p->src, p->dst, p->rel_known ? cpu_relation_name(p->rel) : "relation unknown",
		 spin ? "busy" : "idle", p->mode == MODE_TLB ? ", " : "",
		 p->mode == MODE_TLB ? tlb_op_names[p->tlb_op] : "");
	p->d.counted = true;
}

static void membarrier_probe(struct bench *b)
{
	long q = syscall(__NR_membarrier, MEMBARRIER_CMD_QUERY, 0, 0);

	if (q < 0)
		bench_skip(b, "membarrier: %s", strerror(errno));
	if (!(q & MEMBARRIER_CMD_PRIVATE_EXPEDITED_RSEQ))
		bench_skip(b, "membarrier PRIVATE_EXPEDITED_RSEQ not supported by this kernel (CONFIG_RSEQ?)");
	if (syscall(__NR_membarrier, MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED_RSEQ, 0, 0))
		bench_skip(b, "membarrier REGISTER_PRIVATE_EXPEDITED_RSEQ: %s", strerror(errno));
	if (syscall(__NR_membarrier, MEMBARRIER_CMD_PRIVATE_EXPEDITED_RSEQ,
		    MEMBARRIER_CMD_FLAG_CPU, 0) && errno == EINVAL)
		bench_skip(b, "membarrier MEMBARRIER_CMD_FLAG_CPU not supported (kernel < 5.10)");
}

/*
 * kmod: load the module with the parameters, run it once per run for
 * all pairs sharing an offset (else pair by pair), read the results.
 */
static const char *kmod_path(struct ipistorm_opts *o, char *buf, size_t len)
{
	char exe[512];
	ssize_t n;

	if (o->module)
		return o->module;
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	exe[n > 0 ? n : 0] = '\0';
	if (strrchr(exe, '/'))
		*strrchr(exe, '/') = '\0';
	snprintf(buf, len, "%s/module/" KMOD_NAME ".ko", exe);
	return buf;
}

static void kmod_setup(struct bench *b, struct ipistorm_opts *o, struct kmod *km,
		       struct pair *p, int np, uint64_t n, uint64_t timeout_s)
{
	char why[192], path[600], params[256], srcs[64] = "";
	const char *ko = kmod_path(o, path, sizeof(path));
	/* the module wraps at nr_cpu_ids: the last possible CPU + 1 */
	int ncpu = cpu_mask_last(&b->sets.possible) + 1;
	int off;

	if (ncpu <= 0)
		ncpu = cpu_mask_last(&b->sets.online) + 1;
	off = (p[0].dst - p[0].src + ncpu) % ncpu;

	if (!kmod_supported(why, sizeof(why)))
		bench_skip(b, "%s", why);
	if (access(ko, R_OK)) {
		if (o->module)
			bench_usage_error(b, "--module %s: %s", ko, strerror(errno));
		bench_skip(b, "%s not built (make module KDIR=...)", ko);
	}
	for (int i = 1; i < np; i++)
		if ((p[i].dst - p[i].src + ncpu) % ncpu != off)
			bench_usage_error(b, "--mode kmod: every pair needs the same offset dst - src");
	for (int i = 0; i < np; i++)
		snprintf(srcs + strlen(srcs), sizeof(srcs) - strlen(srcs), "%s%d",
			 i ? "," : "", p[i].src);
	snprintf(params, sizeof(params),
		 "nr_ipis=%llu single=%d offset=%d cpulist=%s wait=%d delay_us=%llu timeout_s=%llu",
		 (unsigned long long)n, !o->all, off, srcs, !o->no_wait,
		 (unsigned long long)o->delay_us, (unsigned long long)timeout_s);
	if (kmod_load(km, ko, KMOD_NAME, params, why, sizeof(why)))
		bench_skip(b, "%s", why);
	bench_note(b, "module %s loaded: %s", ko, params);
}

/*
 * One run of the module. False when it failed (the reason in the pair's
 * why) or was interrupted: an interrupted run is not a complete one.
 */
static bool kmod_run(struct pair *p, int np, bool duration, bool counting)
{
	char path[128], *txt, *line;
	const char *dbg = debugfs_path();
	bool ok = true;

	for (int i = 0; i < np; i++)
		p[i].done = 0;	/* a failed run adds no calls */
	if (!dbg)
		return false;
	/* the module's threads are named ipistorm/SRC: their sends only */
	for (int i = 0; counting && i < np; i++) {
		char who[48];

		snprintf(who, sizeof(who), "comm == \"ipistorm/%d\"", p[i].src);
		pass_count_start(&p[i], who);
	}
	snprintf(path, sizeof(path), "%s/ipistorm/run", dbg);
	if (write_file(path, "1")) {
		ksft_print_msg("kmod run: %s\n", strerror(errno));
		ok = false;
	}
	for (int i = 0; counting && i < np; i++)
		if (p[i].cnt_ok)
			ipi_count_enable(&p[i].cnt, false);
	if (!ok)
		goto out;
	snprintf(path, sizeof(path), "%s/ipistorm/result", dbg);
	txt = read_file_all(path, NULL);
	if (!txt) {
		ok = false;
		goto out;
	}
	for (line = strtok(txt, "\n"); line; line = strtok(NULL, "\n")) {
		int src, dst, to, err = 0;
		unsigned long long calls, ns, cb, errors = 0, unfinished = 0;

		if (sscanf(line, "src %d dst %d calls %llu ns %llu callbacks %llu timed_out %d errors %llu last_error %d unfinished %llu",
			   &src, &dst, &calls, &ns, &cb, &to, &errors, &err, &unfinished) < 6)
			continue;
		for (int i = 0; i < np; i++) {
			if (p[i].src != src)
				continue;
			/* --all: the module has no single dst (-1) */
			if (dst >= 0 && dst != p[i].dst && !p[i].why[0])
				snprintf(p[i].why, sizeof(p[i].why),
					 "the module sent to cpu %d, not cpu %d", dst, p[i].dst);
			else if (errors && !p[i].why[0])
				snprintf(p[i].why, sizeof(p[i].why),
					 "%llu calls failed in the kernel (last: %s)",
					 errors, strerror(-err));
			else if (unfinished && !p[i].why[0])
				snprintf(p[i].why, sizeof(p[i].why),
					 "%llu callbacks had not run 10 s after the last call",
					 unfinished);
			else if (to && !duration && !p[i].why[0])
				snprintf(p[i].why, sizeof(p[i].why),
					 "incomplete: the module's run hit its timeout (--timeout) after %llu of %llu calls",
					 calls, (unsigned long long)p[i].n);
			if (p[i].why[0]) {
				ksft_print_msg("kmod run: %s: %s\n", p[i].desc, p[i].why);
				ok = false;
				continue;
			}
			p[i].done = calls;
			p[i].ns = ns;
			p[i].callbacks += cb;
		}
	}
	free(txt);
out:
	for (int i = 0; counting && i < np; i++)
		pass_count_stop(&p[i]);
	return ok && !bench_stop;
}

/*
 * Watch mode: the IPIs of the watched CPUs, sent to them (traced) or
 * received by them (/proc/interrupts), per CPU, kind and minute.
 */
static void watch_cpus(struct bench *b, struct ipistorm_opts *o, cpu_mask_t *watched)
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

static void watch_report(struct bench *b, struct ipistorm_opts *o, struct ipi_watch *w,
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

static noreturn void watch_main(struct bench *b, struct ipistorm_opts *o)
{
	struct ipi_watch *w = calloc(1, sizeof(*w));
	char list[512], err[256];
	cpu_mask_t watched;

	if (!w)
		ksft_exit_fail_msg("no memory\n");
	watch_cpus(b, o, &watched);
	cpu_mask_format(&watched, list, sizeof(list));
	bench_plan(b, 2);
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

/* The split of what happened to the calls, and whether it is enough. */
static void pair_verdict(struct bench *b, struct pair *p, double spin_share)
{
	uint64_t preempted = p->switched.fd >= 0 ? counter_read(&p->switched) : 0;
	struct delivery *d = &p->d;
	uint64_t reached = d->real + d->elided;
	uint64_t none = d->calls > reached ? d->calls - reached : 0;
	enum ipi_delivery judged;
	char why[256] = "";
	bool ok;

	if (d->counted)
		ksft_print_msg("%s: counted passes, %llu calls: %llu real IPIs, %llu elided sends (dst polling idle), %llu reached no CPU; csd queued %s%llu (the storm's own sends only)\n",
			       p->desc, (unsigned long long)d->calls,
			       (unsigned long long)d->real, (unsigned long long)d->elided,
			       (unsigned long long)none, d->have_queued ? "" : "(not counted) ",
			       (unsigned long long)d->queued);
	ksft_print_msg("%s: timed passes, %llu calls, no per-event counting; /proc/interrupts cpu %d (every sender): CAL +%lld, TLB +%lld, RES +%lld\n",
		       p->desc, (unsigned long long)p->calls, p->dst,
		       (long long)d->cal, (long long)d->tlb, (long long)d->res);
	metric_extra(p->ns_m, "calls", p->calls);
	metric_extra(p->ns_m, "counted_calls", d->calls);
	/* what per-event counting costs: the counted passes' time per call */
	if (d->calls)
		metric_extra(p->ns_m, "counted_call_ns", d->ns / d->calls);
	if (d->counted) {	/* not counted: no split to report */
		metric_extra(p->ns_m, "ipis_real", d->real);
		metric_extra(p->ns_m, "sends_elided", d->elided);
		metric_extra(p->ns_m, "calls_reached_no_cpu", none);
		metric_extra(p->ns_m, "delivered_share", d->calls ? (double)reached / d->calls : 0);
	}
	if (d->counted && d->have_queued)
		metric_extra(p->ns_m, "csd_queued", d->queued);
	metric_extra(p->ns_m, "dst_cal_irqs", d->cal);
	metric_extra(p->ns_m, "dst_tlb_irqs", d->tlb);
	metric_extra(p->ns_m, "dst_res_irqs", d->res);
	if (spin_share >= 0) {
		metric_extra(p->ns_m, "dst_spinner_cpu_share", spin_share);
		metric_extra(p->ns_m, "dst_spinner_switched_out", preempted);
	}
	metric_extra(p->ns_m, "delivered_from_dst_cal_irqs", p->procfs_share);
	if (p->procfs_share)
		ksft_print_msg("%s: not counted (%s): per-IPI figures divide by the function call interrupts dst took in each timed run (every sender's, at most one per call)\n",
			       p->desc, d->why);
	if (!d->counted || !d->calls) {
		bench_verdict(b, KSFT_SKIP, d->calls ? d->why : "no counted run was made",
			      "%s: calls counted on dst", p->desc);
		return;
	}
	/*
	 * A call made while dst runs another process returns at once with
	 * no IPI (membarrier), or has no CPU to shoot down (tlb); such calls
	 * are quick, so a few % of dst's time lost is many % of the calls.
	 * More deliveries than calls is a counting error: flagged.
	 */
	judged = ipi_delivery_judge(d->calls, reached);
	if (judged == IPI_DELIVERY_NONE)
		snprintf(why, sizeof(why), "no call was counted");
	else if (judged == IPI_DELIVERY_EXCESS)
		snprintf(why, sizeof(why),
			 "%llu more deliveries than calls: the count is not the storm's alone",
			 (unsigned long long)(reached - d->calls));
	else if (spin_share >= 0 && (preempted || spin_share < 0.95))
		snprintf(why, sizeof(why),
			 "cpu %d also ran other tasks: the spinner was switched out %llu times and had %.1f%% of it; %s",
			 p->dst, (unsigned long long)preempted, spin_share * 100,
			 p->mode == MODE_MEMBARRIER ?
			 "membarrier returns at once, without an IPI, while dst runs another process" :
			 "no shootdown is needed while dst runs another mm");
	else
		snprintf(why, sizeof(why), "%llu calls reached no CPU", (unsigned long long)none);
	ok = judged == IPI_DELIVERY_OK;
	bench_verdict(b, ok ? KSFT_PASS : KSFT_FAIL, ok ? NULL : why,
		      "%s: %llu of %llu calls reached dst as a real IPI or an elided send",
		      p->desc, (unsigned long long)reached, (unsigned long long)d->calls);
}

/* The options that only go together. */
static void opts_check(struct bench *b, struct ipistorm_opts *o)
{
	if (o->watch_given)
		o->mode = MODE_WATCH;
	if (o->max_given && o->mode != MODE_WATCH)
		bench_usage_error(b, "--max goes with --watch");
	if (o->method_given && o->mode != MODE_WATCH)
		bench_usage_error(b, "--method goes with --watch");
	if (o->offset_given != o->src_list_given)
		bench_usage_error(b, "--src-list and --offset go together");
	if (o->mode != MODE_WATCH && !b->opt.duration_given)
		b->opt.duration_s = 0;	/* storms: -n calls unless -D is given */
}

/* A pair's metrics, suffixed _SRC_DST when there are several. */
static void pair_metrics(struct bench *b, struct ipistorm_opts *o, struct pair *p,
			 bool several)
{
	char name[64], sfx[16] = "", ctx[160];

	if (several)
		snprintf(sfx, sizeof(sfx), "_%d_%d", p->src, p->dst);
	snprintf(ctx, sizeof(ctx), "%s %s%s", mode_names[o->mode], p->desc,
		 b->opt.load ? " with housekeeping load" : "");
	snprintf(name, sizeof(name), "ipi_ns%s", sfx);
	p->ns_m = bench_metric(b, name, "ns", BETTER_LOWER,
			       "average ns per delivered IPI (real + elided) of one timed run: its time / (its calls x the delivered share of its paired counted run)");
	metric_summary(p->ns_m, "IPI round trip", "%s, per delivered IPI", ctx);
	snprintf(name, sizeof(name), "ipis_per_s%s", sfx);
	p->rate_m = bench_metric(b, name, "1/s", BETTER_HIGHER,
				 "delivered IPIs (real + elided) per second of one timed run, as ipi_ns");
	metric_summary(p->rate_m, "IPI rate", "%s, delivered IPIs", ctx);
	snprintf(name, sizeof(name), "call_ns%s", sfx);
	p->call_m = bench_metric(b, name, "ns", BETTER_LOWER,
				 "average ns per call of one timed run, calls that reached no CPU included");
	metric_summary(p->call_m, "call", "%s, per call", ctx);
	snprintf(name, sizeof(name), "run_time_s%s", sfx);
	p->time_m = bench_metric(b, name, "s", BETTER_LOWER, "wall time of one timed run");
	metric_summary(p->time_m, "run time", "%s", ctx);
}

/* Probe the mode, load the module, set up every pair and its metrics. */
static void storm_setup(struct bench *b, struct ipistorm_opts *o, struct kmod *km,
			struct pair *p, int np)
{
	/* a timed and a counted pass per run */
	double max_s = 2 * b->opt.runs * (b->opt.duration_s ? b->opt.duration_s : o->timeout_s) + 10;

	if (o->mode == MODE_MEMBARRIER)
		membarrier_probe(b);
	if (o->mode == MODE_KMOD)
		kmod_setup(b, o, km, p, np, b->opt.duration_s ? 4000000000ULL : b->opt.loops,
			   b->opt.duration_s ? (uint64_t)(b->opt.duration_s + 0.999) : o->timeout_s);
	bench_plan(b, np * (o->mode == MODE_KMOD && !o->all ? 3 : 2));
	for (int i = 0; i < np; i++) {
		p[i].mode = o->mode;
		p[i].tlb_op = o->tlb_op;
		pair_setup(b, o, &p[i], max_s);
		pair_metrics(b, o, &p[i], np > 1);
	}
}

/*
 * One pass of every pair: a timed one (no per-event counting, the
 * /proc/interrupts rows of dst read around it) or a counted one. False
 * when a pair's pass failed or stopped early (its why says so).
 */
static bool storm_pass(struct bench *b, struct ipistorm_opts *o, struct pair *p,
		       int np, bool counting)
{
	bool duration = b->opt.duration_s > 0;
	uint64_t n = duration ? UINT64_MAX : b->opt.loops;
	struct irq_table t0, t1;
	bool ok, have_irqs;

	have_irqs = !counting && !irq_table_read("/proc/interrupts", &t0);
	for (int i = 0; i < np; i++)
		p[i].n = n;
	ok = o->mode == MODE_KMOD ? kmod_run(p, np, duration, counting) :
	     storm_run(p, np, n, b->opt.duration_s, o->timeout_s, counting);
	if (have_irqs && !irq_table_read("/proc/interrupts", &t1)) {
		for (int i = 0; i < np; i++) {
			p[i].pass_cal = irq_table_delta(&t0, &t1, "CAL", p[i].dst);
			p[i].d.cal += p[i].pass_cal;
			p[i].d.tlb += irq_table_delta(&t0, &t1, "TLB", p[i].dst);
			p[i].d.res += irq_table_delta(&t0, &t1, "RES", p[i].dst);
		}
		irq_table_free(&t1);
	}
	if (have_irqs)
		irq_table_free(&t0);
	for (int i = 0; i < np && !bench_stop; i++) {
		/* a run that stopped at --timeout is not a complete run */
		if (!duration && o->mode != MODE_KMOD && p[i].done < n && !p[i].why[0])
			snprintf(p[i].why, sizeof(p[i].why),
				 "incomplete: a %s run stopped at --timeout %llu s after %llu of %llu calls",
				 counting ? "counted" : "timed", (unsigned long long)o->timeout_s,
				 (unsigned long long)p[i].done, (unsigned long long)n);
		if (!p[i].done && !p[i].why[0])
			snprintf(p[i].why, sizeof(p[i].why), "a run made no call");
		if (p[i].why[0])
			ok = false;
	}
	return ok;
}

/*
 * The measured runs, every pair at once in each: a timed pass, then a
 * counted pass of the same size for its delivered share. How many runs
 * completed.
 */
static uint64_t storm_runs(struct bench *b, struct ipistorm_opts *o, struct pair *p, int np)
{
	uint64_t runs_done = 0, done[MAX_PAIRS];
	double ns[MAX_PAIRS];

	for (uint64_t r = 0; r < b->opt.runs && !bench_stop; r++) {
		bool ok = storm_pass(b, o, p, np, false);

		for (int i = 0; i < np; i++) {
			done[i] = p[i].done;
			ns[i] = p[i].ns;
			p[i].calls += p[i].done;
		}
		if (ok) {
			uint64_t c0[MAX_PAIRS], r0[MAX_PAIRS];

			for (int i = 0; i < np; i++) {
				c0[i] = p[i].d.calls;
				r0[i] = p[i].d.real + p[i].d.elided;
			}
			ok = storm_pass(b, o, p, np, true);
			for (int i = 0; ok && i < np; i++) {
				uint64_t cc = p[i].d.calls - c0[i];
				uint64_t cr = p[i].d.real + p[i].d.elided - r0[i];
				/* the timed run's deliveries, at the counted run's share */
				double est = cc ? done[i] * ((double)cr / cc) : 0;

				/*
				 * Not counted (no ipi tracepoints before 6.3): the
				 * function call interrupts dst took in the timed run,
				 * every sender's, at most one per call.
				 */
				if (!p[i].d.counted && p[i].pass_cal >= 0) {
					p[i].procfs_share = true;
					est = (uint64_t)p[i].pass_cal < done[i] ? (double)p[i].pass_cal : done[i];
				}
				metric_add(p[i].call_m, ns[i] / done[i]);
				metric_add(p[i].time_m, ns[i] / 1e9);
				if (est < 0.5)
					continue;	/* nothing delivered: no per-IPI figure */
				metric_add(p[i].ns_m, ns[i] / est);
				metric_add(p[i].rate_m, est / (ns[i] / 1e9));
			}
		}
		if (!ok || bench_stop)
			break;
		runs_done++;
		bench_progress_run(b, r + 1, b->opt.runs);
	}
	bench_progress_end(b);
	return runs_done;
}

/* Start counting the spinner's time and switches on dst. */
static void delivery_start(struct pair *p, int np)
{
	for (int i = 0; i < np; i++) {
		p[i].spin0 = spinner_runtime_ns(&p[i].spin);
		if (p[i].switched.fd >= 0)
			counter_enable(&p[i].switched);
	}
}

/* Stop the spinners; @runs_s is how long the runs took. */
static void delivery_stop(struct pair *p, int np, double runs_s)
{
	for (int i = 0; i < np; i++) {
		p[i].spin_share = -1;
		if (p[i].spin.running && runs_s > 0)
			p[i].spin_share = (spinner_runtime_ns(&p[i].spin) - p[i].spin0) / 1e9 / runs_s;
		spinner_stop(&p[i].spin);
	}
}

/* A pair's verdicts: runs done, delivery, and (kmod) callbacks. */
static void delivery_report(struct bench *b, struct ipistorm_opts *o, struct pair *p,
			    uint64_t runs_done)
{
	bench_verdict(b, runs_done == b->opt.runs ? KSFT_PASS : KSFT_FAIL,
		      bench_stop ? "interrupted" : p->why[0] ? p->why : NULL,
		      "%s: %llu of %llu runs complete, %llu timed calls",
		      p->desc, (unsigned long long)runs_done,
		      (unsigned long long)b->opt.runs, (unsigned long long)p->calls);
	pair_verdict(b, p, p->spin_share);
	if (o->mode == MODE_KMOD && !o->all && !(p->calls + p->d.calls))
		bench_verdict(b, KSFT_SKIP, "no call completed", "%s: the callback ran on cpu %d",
			      p->desc, p->dst);
	else if (o->mode == MODE_KMOD && !o->all)
		bench_verdict(b, p->callbacks == p->calls + p->d.calls ? KSFT_PASS : KSFT_FAIL, NULL,
			      "%s: the callback ran %llu times on cpu %d for %llu calls",
			      p->desc, (unsigned long long)p->callbacks, p->dst,
			      (unsigned long long)(p->calls + p->d.calls));
}

int main(int argc, char **argv)
{
	struct ipistorm_opts o = { .mode = MODE_PERF_READ, .timeout_s = 60 };
	const struct opt opts[] = {
		{ .name = "mode", .key = 'm', .type = OPT_CHOICE, .dest = &o.mode,
		  .arg = "MODE", .choices = mode_names,
		  .help = "membarrier, perf-read, tlb, kmod (storms) or watch" },
		{ .name = "target", .type = OPT_CHOICE, .dest = &o.target,
		  .arg = "idle|busy", .choices = target_names,
		  .help = "perf-read: leave dst idle or keep a spinner on it" },
		{ .name = "tlb-op", .type = OPT_CHOICE, .dest = &o.tlb_op,
		  .arg = "OP", .choices = tlb_op_names,
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
		  .help = "every pass stops after SECS (default 60); one stopped before -n calls is incomplete: fails" },
		{ .name = "watch", .type = OPT_CPULIST, .dest = &o.watch,
		  .given = &o.watch_given, .arg = "CPULIST",
		  .help = "count the IPIs sent to these CPUs for -D SECS (--mode watch)" },
		{ .name = "max", .type = OPT_UINT, .dest = &o.max_ipis, .given = &o.max_given,
		  .arg = "N", .max = 1e15, .help = "watch: fail when more IPIs than N" },
		{ .name = "method", .type = OPT_CHOICE, .dest = &o.method,
		  .given = &o.method_given, .arg = "auto|trace|procfs",
		  .choices = ipi_watch_method_names,
		  .help = "watch: IPIs sent (ipi tracepoints, Linux >= 6.3), received (/proc/interrupts), or auto" },
		{ NULL }
	};
	const struct prog_spec spec = {
		.name = "ipistorm",
		.summary = "IPI floods between pinned CPUs with counted delivery; IPIs to watched CPUs.",
		.common = COMMON_CPU | COMMON_HOUSEKEEPING | COMMON_LOOPS | COMMON_RUNS |
			  COMMON_DURATION | COMMON_LOAD,
		.opts = opts,
		.own_cpu_locks = true,	/* a storm's pairs; a watch only observes */
		.quick = { .loops = 2000, .runs = 2, .duration_s = 2 },
		.rules = (const struct opt_rule[]){
			{ "watch", OPT_CONFLICTS, "mode!=watch" },
			{ "pairs", OPT_CONFLICTS, "pair" },
			{ "src-list", OPT_CONFLICTS, "pairs" },
			{ "src-list", OPT_CONFLICTS, "pair" },
			{ "target", OPT_NEEDS, "mode=perf-read" },
			{ "tlb-op", OPT_NEEDS, "mode=tlb" },
			{ "module", OPT_NEEDS, "mode=kmod" },
			{ "all", OPT_NEEDS, "mode=kmod" },
			{ "no-wait", OPT_NEEDS, "mode=kmod" },
			{ "delay", OPT_NEEDS, "mode=kmod" },
			{ NULL }
		},
	};
	struct bench b = { .opt = { .loops = 100000, .runs = 3, .duration_s = 60 } };
	struct pair p[MAX_PAIRS] = { 0 };
	uint64_t t_runs0, runs_done, warmup;
	struct kmod km = { 0 };
	int np;

	bench_init(&b, &spec, argc, argv);
	opts_check(&b, &o);
	if (o.mode == MODE_WATCH)
		watch_main(&b, &o);
	pairs_choose(&b, &o, p, &np);
	storm_setup(&b, &o, &km, p, np);
	if (b.opt.load)
		bench_load_start(&b);
	warmup = b.opt.loops / 10 + 1 < 1000 ? b.opt.loops / 10 + 1 : 1000;
	if (o.mode != MODE_KMOD)	/* warm up caches and the paths once */
		storm_run(p, np, warmup, 0, o.timeout_s, false);

	delivery_start(p, np);
	t_runs0 = mono_ns();
	runs_done = storm_runs(&b, &o, p, np);
	delivery_stop(p, np, (mono_ns() - t_runs0) / 1e9);
	for (int i = 0; i < np; i++)
		delivery_report(&b, &o, &p[i], runs_done);

	if (km.loaded && kmod_unload(&km))
		ksft_print_msg("could not unload %s: %s\n", KMOD_NAME, strerror(errno));
	else if (o.mode == MODE_KMOD)
		ksft_print_msg("%s unloaded\n", KMOD_NAME);
	bench_load_stop(&b);
	bench_finish(&b);
}
