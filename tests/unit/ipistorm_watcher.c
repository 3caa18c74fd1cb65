// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of ipistorm_watcher.c, ipistorm_tally.c and
 * lib/kernel/ipi_source.c: a kernel that refuses the CPUS{} filter makes
 * an auto watch fall back to /proc/interrupts (a --method trace one
 * fails); records go into the window and minute of their own timestamp,
 * not of their read; each IPI is named by the first frame of its
 * sender's stack outside the generic cross-CPU call code, a reschedule
 * by its call site; the control's sends after the window are counted
 * apart, and a control whose IPIs are named otherwise (no stack: the
 * generic call site) comes out so.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ipistorm_watcher.h"
#include "lib/base/ktap.h"

/* instance dir whose ipi_send_cpu filter cannot be written (a directory) */
static void fake_instance(const char *dir)
{
	char path[512];

	snprintf(path, sizeof(path), "mkdir -p '%s/events/ipi/ipi_send_cpu/filter' '%s/events/ipi/ipi_send_cpumask' && touch '%s/events/ipi/ipi_send_cpu/enable'",
		 dir, dir, dir);
	if (system(path))
		ksft_exit_fail_msg("cannot make %s\n", dir);
}

static void test_filter_refused(const char *dir)
{
	struct ipi_watch w;
	char err[256] = "";
	int ret;

	memset(&w, 0, sizeof(w));
	w.ti.pipe_fd = -1;
	snprintf(w.ti.dir, sizeof(w.ti.dir), "%s", dir);
	CPU_SET(0, &w.cpus);
	ret = ipistorm_watcher_trace_setup(&w, false, err, sizeof(err));
	ksft_test_result(ret == -1 && strstr(err, "refused"),
			 "--method trace, CPUS{} filter refused: fails (%s)", err);
	memset(&w, 0, sizeof(w));
	w.ti.pipe_fd = -1;
	snprintf(w.ti.dir, sizeof(w.ti.dir), "%s", dir);
	CPU_SET(0, &w.cpus);
	err[0] = '\0';
	ret = ipistorm_watcher_trace_setup(&w, true, err, sizeof(err));
	/* the procfs method needs x86's CAL/RES rows */
	if (ret && strstr(err, "CAL and RES"))
		ksft_test_result_skip("auto falls back: no CAL/RES rows here\n");
	else
		ksft_test_result(!ret && w.method == IPI_WATCH_PROCFS &&
				 strstr(w.why_procfs, "CPUS{}"),
				 "auto, CPUS{} filter refused: falls back to procfs (%s)",
				 w.why_procfs);
	irq_table_free(&w.first);
}

/* A watch of cpu 1 reading @lines from a file as if from trace_pipe. */
static void watch_lines(struct ipi_watch *w, const char *dir, const char *lines,
			uint64_t start, uint64_t end)
{
	cpu_mask_t one;
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/pipe", dir);
	f = fopen(path, "w");
	if (!f || fputs(lines, f) < 0 || fclose(f))
		ksft_exit_fail_msg("%s\n", path);
	memset(w, 0, sizeof(*w));
	CPU_ZERO(&one);
	CPU_SET(1, &one);
	ipistorm_watcher_init(w, &one, 1);
	w->method = IPI_WATCH_TRACE;
	w->ts_mono = true;
	w->stacks = true;
	w->start_ns = start;
	w->end_ns = end;
	w->seconds = 130;
	/* tracing_on of a directory that is not there: not switched, read all the same */
	snprintf(w->ti.dir, sizeof(w->ti.dir), "%s/no-instance", dir);
	w->ti.pipe_fd = open(path, O_RDONLY);
	if (w->ti.pipe_fd < 0)
		ksft_exit_fail_msg("open\n");
}

static void watch_close(struct ipi_watch *w)
{
	close(w->ti.pipe_fd);
	ipistorm_tally_free(&w->t);
	ipistorm_tally_free(&w->after);
}

static const struct ipi_tally_source *find(const struct ipi_tally *t, const char *name)
{
	for (int i = 0; i < t->sources.n; i++)
		if (!strcmp(tally_slot_name(&t->sources, i), name))
			return &t->src[i];
	return NULL;
}

/* What a record of the text source carries. */
struct record_seen {
	char comm[32], event[32];
	pid_t pid;
	int cpu;
	uint64_t ts_ns;
};

static void record_seen(void *ctx, const struct trace_event_record *r)
{
	struct record_seen *seen = ctx;

	snprintf(seen->comm, sizeof(seen->comm), "%s", r->comm);
	snprintf(seen->event, sizeof(seen->event), "%s", r->event);
	seen->pid = r->pid;
	seen->cpu = r->cpu;
	seen->ts_ns = r->ts_ns;
}

#define SEND "  a-1  [000] d..1.  %s: ipi_send_cpu: cpu=1 callsite=%s+0x3e/0x100 callback=%s+0x0/0x10\n"

static void test_windows_and_sources(const char *dir)
{
	const uint64_t start = 1000ULL * 1000000000ULL;	/* 1000 s */
	const struct ipi_tally_source *s;
	static const struct trace_event_row any[] = { { "any", "*", NULL, false, record_seen } };
	struct trace_event_table tab = TRACE_EVENT_TABLE(any);
	struct record_seen r = { 0 };
	struct ipi_watch w;
	char lines[4096];
	size_t n = 0;
	int ret = trace_event_dispatch_line(&tab, &r, "  kworker/0:1-42  [000] d..1.  1061.250000: ipi_send_cpu: cpu=1 callsite=x callback=f+0x0/0x10");

	ksft_test_result(!ret && r.ts_ns == 1061250000000ULL && r.pid == 42 && r.cpu == 0 &&
			 !strcmp(r.comm, "kworker/0:1") && !strcmp(r.event, "ipi_send_cpu"),
			 "a record: comm, pid, cpu, timestamp (%llu ns), event",
			 (unsigned long long)r.ts_ns);
	/* 10 s, 70 s and 71 s into the watch: windows 10, 70, 71; minutes 0 and 1 */
	n += snprintf(lines + n, sizeof(lines) - n, SEND, "1010.000000",
		      "generic_exec_single", "generic_smp_call_function_single_interrupt");
	n += snprintf(lines + n, sizeof(lines) - n,
		      "  a-1  [000] d..1.  1010.000100: <stack trace>\n"
		      " => trace_event_raw_event_ipi_send_cpu\n"
		      " => __smp_call_single_queue\n"
		      " => generic_exec_single\n"
		      " => smp_call_function_single\n"
		      " => membarrier_private_expedited\n"
		      " => __x64_sys_membarrier\n");
	n += snprintf(lines + n, sizeof(lines) - n, SEND, "1070.000000", "wakeup_preempt", "0x0");
	/* another CPU's send to cpu 2, not watched, and its stack */
	n += snprintf(lines + n, sizeof(lines) - n,
		      "  b-2  [002] d..1.  1070.500000: ipi_send_cpu: cpu=2 callsite=generic_exec_single+0x3e/0x100 callback=g+0x0/0x10\n"
		      "  b-2  [002] d..1.  1070.500001: <stack trace>\n"
		      " => generic_exec_single\n"
		      " => not_watched_sender\n");
	n += snprintf(lines + n, sizeof(lines) - n,
		      "  a-1  [000] d..1.  1071.000000: ipi_send_cpumask: cpumask=00000000,0000000a callsite=on_each_cpu_cond_mask+0x2a/0x40 callback=do_sync_core+0x0/0x30\n"
		      "  a-1  [000] d..1.  1071.000001: <stack trace>\n"
		      " => on_each_cpu_cond_mask\n"
		      " => smp_text_poke_batch_finish\n");
	watch_lines(&w, dir, lines, start, 0);
	if (ipistorm_watcher_drain(&w))
		ksft_exit_fail_msg("read\n");
	ksft_test_result(w.t.nmin == 2 && w.t.per_min[0] == 1 && w.t.per_min[1] == 2 &&
			 ipistorm_tally_win(&w.t, 10, 0) == 1 && ipistorm_tally_win(&w.t, 70, 0) == 1 &&
			 ipistorm_tally_win(&w.t, 71, 0) == 1 && w.t.total == 3,
			 "records placed by their timestamps: minutes 1 and 2, windows 10, 70, 71 (%llu in all)",
			 (unsigned long long)w.t.total);
	s = find(&w.t, "membarrier_private_expedited");
	ksft_test_result(s && s->n == 1 && s->stacks == 1 && !strcmp(s->senders[0].comm, "a"),
			 "a call through generic_exec_single: named membarrier_private_expedited from the stack, sender a");
	ksft_test_result(find(&w.t, "wakeup_preempt") && find(&w.t, "smp_text_poke_batch_finish") &&
			 !find(&w.t, "not_watched_sender") && w.t.sources.n == 3,
			 "a reschedule by its call site, a cpumask send by its stack, another CPU's stack skipped (%d sources)",
			 w.t.sources.n);
	watch_close(&w);
}

#define CTL_CSD "  ctl-77  [000] d..1.  1006.%06d: csd_queue_cpu: cpu=1 callsite=generic_exec_single+0x3e/0x100 func=%s csd=00000000deadbeef\n"
#define CTL_SEND "  ctl-77  [000] d..1.  1006.%06d: ipi_send_cpu: cpu=1 callsite=generic_exec_single+0x3e/0x100 callback=generic_smp_call_function_single_interrupt+0x0/0x10\n"

static void test_control(const char *dir)
{
	static const char *const funcs[] = { "ipi_mb", "ipi_rseq", NULL };
	const uint64_t start = 1000ULL * 1000000000ULL;
	uint64_t named, other, excused;
	struct ipi_watch w;
	char lines[4096];
	size_t n = 0;

	/* after the window (1005 s): the control thread 77, then another task */
	for (int i = 0; i < 3; i++) {
		n += snprintf(lines + n, sizeof(lines) - n,
			      "  ctl-77  [000] d..1.  1006.%06d: ipi_send_cpu: cpu=1 callsite=generic_exec_single+0x3e/0x100 callback=generic_smp_call_function_single_interrupt+0x0/0x10\n"
			      "  ctl-77  [000] d..1.  1006.%06d: <stack trace>\n"
			      " => generic_exec_single\n => smp_call_function_single\n"
			      " => membarrier_private_expedited\n", i * 10, i * 10 + 1);
	}
	n += snprintf(lines + n, sizeof(lines) - n, SEND, "1006.500000",
		      "generic_exec_single", "generic_smp_call_function_single_interrupt");
	/* the control thread exiting, after its calls: glibc's madvise of its stack */
	n += snprintf(lines + n, sizeof(lines) - n,
		      "  ctl-77  [000] d..1.  1006.900000: ipi_send_cpu: cpu=1 callsite=smp_call_function_many_cond+0x3e/0x100 callback=generic_smp_call_function_single_interrupt+0x0/0x10\n"
		      "  ctl-77  [000] d..1.  1006.900001: <stack trace>\n"
		      " => smp_call_function_many_cond\n => on_each_cpu_cond_mask\n"
		      " => flush_tlb_mm_range\n => zap_page_range_single\n => do_madvise\n");
	watch_lines(&w, dir, lines, start, start + 5000000000ULL);
	w.control_tid = 77;
	w.control_end_ns = start + 6100000000ULL;
	if (ipistorm_watcher_drain(&w))
		ksft_exit_fail_msg("read\n");
	ipistorm_watcher_control_count(&w, "membarrier", funcs, &named, &other, &excused);
	ksft_test_result(named == 3 && other == 0 && w.after_others == 2 && w.t.total == 0,
			 "the control's 3 sends after the window: named membarrier, apart from the window; 1 other sender's and its own after its calls (1006.9 s, a TLB flush as it exits) counted only");
	watch_close(&w);

	/* the same sends without their stacks: the generic call site names them */
	n = 0;
	for (int i = 0; i < 3; i++)
		n += snprintf(lines + n, sizeof(lines) - n,
			      "  ctl-77  [000] d..1.  1006.%06d: ipi_send_cpu: cpu=1 callsite=generic_exec_single+0x3e/0x100 callback=generic_smp_call_function_single_interrupt+0x0/0x10\n",
			      i * 10);
	watch_lines(&w, dir, lines, start, start + 5000000000ULL);
	w.control_tid = 77;
	if (ipistorm_watcher_drain(&w))
		ksft_exit_fail_msg("read\n");
	ipistorm_watcher_control_count(&w, "membarrier", funcs, &named, &other, &excused);
	ksft_test_result(named == 0 && other == 3,
			 "no stacks: the control's IPIs are named generic_exec_single, not membarrier (the control fails)");
	watch_close(&w);

	/*
	 * During its calls the thread also flushes a TLB (NUMA balancing on
	 * its way back to user space): its queued flush_tlb_func excuses
	 * the IPI named flush_tlb_mm_range; its ipi_rseq excuse nothing.
	 */
	n = 0;
	for (int i = 0; i < 2; i++)
		n += snprintf(lines + n, sizeof(lines) - n,
			      CTL_CSD CTL_SEND "  ctl-77  [000] d..1.  1006.%06d: <stack trace>\n"
			      " => generic_exec_single\n => smp_call_function_single\n"
			      " => membarrier_private_expedited\n",
			      i * 10, "ipi_rseq", i * 10 + 1, i * 10 + 2);
	n += snprintf(lines + n, sizeof(lines) - n,
		      CTL_CSD CTL_SEND "  ctl-77  [000] d..1.  1006.%06d: <stack trace>\n"
		      " => generic_exec_single\n => smp_call_function_many_cond\n"
		      " => flush_tlb_mm_range\n => change_prot_numa\n => task_numa_work\n",
		      50, "flush_tlb_func", 51, 52);
	/* and an IPI it queued ipi_rseq for, sent without its stack */
	n += snprintf(lines + n, sizeof(lines) - n, CTL_CSD CTL_SEND, 60, "ipi_rseq", 61);
	watch_lines(&w, dir, lines, start, start + 5000000000ULL);
	w.control_tid = 77;
	if (ipistorm_watcher_drain(&w))
		ksft_exit_fail_msg("read\n");
	ipistorm_watcher_control_count(&w, "membarrier", funcs, &named, &other, &excused);
	ksft_test_result(named == 2 && other == 1 && excused == 1,
			 "a TLB flush of the control thread's own excused by its queued flush_tlb_func; an ipi_rseq IPI misnamed still counts against it (%llu named, %llu other, %llu excused)",
			 (unsigned long long)named, (unsigned long long)other,
			 (unsigned long long)excused);
	watch_close(&w);
}

/* @n sends to cpu 1 from task @comm on @cpu, all of one source. */
static void sends_from(struct ipi_tally *t, const char *comm, int cpu, int n)
{
	struct ipi_send s;

	memset(&s, 0, sizeof(s));
	snprintf(s.comm, sizeof(s.comm), "%s", comm);
	s.w.cpu = cpu;
	CPU_SET(1, &s.targets);
	snprintf(s.callback, sizeof(s.callback), "f");
	snprintf(s.source, sizeof(s.source), "src");
	while (n--)
		if (ipistorm_tally_send(t, &s, 0, 0))
			ksft_exit_fail_msg("no memory\n");
}

/* One IPI to cpu 1 from @source, running @callback. */
static void send_of(struct ipi_tally *t, const char *source, const char *callback)
{
	struct ipi_send s;

	memset(&s, 0, sizeof(s));
	CPU_SET(1, &s.targets);
	snprintf(s.callback, sizeof(s.callback), "%s", callback);
	snprintf(s.source, sizeof(s.source), "%s", source);
	if (ipistorm_tally_send(t, &s, 0, 0))
		ksft_exit_fail_msg("no memory\n");
}

/*
 * The sources beyond the table are "other"; a source keeps the callback
 * of its first IPI.
 */
static void test_sources_beyond(void)
{
	const struct ipi_tally_source *first, *other;
	struct ipi_tally t;
	cpu_mask_t one;
	char name[16];

	CPU_ZERO(&one);
	CPU_SET(1, &one);
	ipistorm_tally_init(&t, &one);
	for (int i = 0; i < IPI_TALLY_SOURCES + 2; i++) {
		snprintf(name, sizeof(name), "s%d", i);
		send_of(&t, name, "f");
	}
	send_of(&t, "s0", "0x0");
	first = ipistorm_tally_source(&t, 0);
	other = ipistorm_tally_source(&t, TALLY_OTHER);
	ksft_test_result(t.sources.n == IPI_TALLY_SOURCES && other->n == 2 &&
			 !strcmp(tally_slot_name(&t.sources, TALLY_OTHER), "other") &&
			 first->n == 2 && !strcmp(first->callback, "f"),
			 "sources beyond the table counted as other, a source's callback its first IPI's (%d sources, %llu other, s0: %llu, %s)",
			 t.sources.n, (unsigned long long)other->n, (unsigned long long)first->n,
			 first->callback);
	ipistorm_tally_free(&t);
}

/*
 * The senders of a source, most IPIs first, ties by name, the rest
 * counted as "and N more"; beyond the table "at least N more".
 */
static void test_senders(void)
{
	const char *want = "w on cpu 1 (5), a on cpu 0 (3), b on cpu 0 (3), b on cpu 1 (3) and 2 more (3 IPIs)";
	struct ipi_tally t;
	cpu_mask_t one;
	char text[320];
	char comm[16];

	CPU_ZERO(&one);
	CPU_SET(1, &one);
	ipistorm_tally_init(&t, &one);
	sends_from(&t, "z", 0, 1);
	sends_from(&t, "b", 1, 3);
	sends_from(&t, "y", 0, 2);
	sends_from(&t, "b", 0, 3);
	sends_from(&t, "a", 0, 3);
	sends_from(&t, "w", 1, 5);
	ipistorm_tally_senders(&t.src[0], 4, text, sizeof(text));
	ksft_print_msg("senders: %s\n", text);
	ksft_test_result(!strcmp(text, want), "senders sorted by IPIs, then name; the rest counted");
	for (int i = 0; i < IPI_TALLY_SENDERS; i++) {
		snprintf(comm, sizeof(comm), "t%02d", i);
		sends_from(&t, comm, 0, 1);
	}
	ipistorm_tally_senders(&t.src[0], 4, text, sizeof(text));
	ksft_print_msg("senders: %s\n", text);
	ksft_test_result(strstr(text, " and at least 13 more (") != NULL,
			 "senders beyond the table: at least so many more");
	ipistorm_tally_free(&t);
}

int main(void)
{
	char tmpl[] = "/tmp/isolbench-iw-XXXXXX", cmd[512];

	ksft_print_header();
	ksft_set_plan(12);
	if (!mkdtemp(tmpl))
		ksft_exit_fail_msg("mkdtemp\n");
	fake_instance(tmpl);
	test_filter_refused(tmpl);
	test_windows_and_sources(tmpl);
	test_control(tmpl);
	test_senders();
	test_sources_beyond();
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpl);
	if (system(cmd))
		ksft_print_msg("could not remove %s\n", tmpl);
	ksft_finished();
}
