// SPDX-License-Identifier: GPL-2.0
/*
 * ipistorm's kmod mode: module/ipistorm_kmod.ko calls
 * smp_call_function_single() from a kernel thread per source CPU, the
 * kernel-side floor. The module is loaded with the parameters once,
 * runs once per pass for all pairs (they share one offset dst - src),
 * and its per-source results are read back from debugfs; each pair
 * also checks that the callback ran on dst once per call.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ipistorm_common.h"
#include "lib/harness/kmod.h"
#include "lib/base/util.h"

#define KMOD_NAME	"ipistorm_kmod"

struct kmod_storm {
	struct kmod km;
	uint64_t callbacks[MAX_PAIRS];	/* the callback ran on dst */
};

static const char *kmod_path(const struct ipistorm_opts *o, char *buf, size_t len)
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

/* The offset dst - src every pair shares: the module has one. */
static int kmod_offset(struct storm *s)
{
	/* the module wraps at nr_cpu_ids: the last possible CPU + 1 */
	int ncpu = cpu_mask_last(&s->b->sets.possible) + 1;
	struct pair *p = s->p;
	int off;

	if (ncpu <= 0)
		ncpu = cpu_mask_last(&s->b->sets.online) + 1;
	off = (p[0].dst - p[0].src + ncpu) % ncpu;
	for (int i = 1; i < s->np; i++)
		if ((p[i].dst - p[i].src + ncpu) % ncpu != off)
			bench_usage_error(s->b, "--mode kmod: every pair needs the same offset dst - src");
	return off;
}

static void kmod_setup(struct storm *s)
{
	const struct ipistorm_opts *o = s->o;
	struct bench *b = s->b;
	char why[192], path[600], params[256], srcs[64] = "";
	const char *ko = kmod_path(o, path, sizeof(path));
	uint64_t n = b->opt.duration_s ? 4000000000ULL : b->opt.loops;
	uint64_t timeout_s = b->opt.duration_s ?
			     (uint64_t)(b->opt.duration_s + 0.999) : o->timeout_s;
	struct kmod_storm *k;
	int off;

	if (!kmod_supported(why, sizeof(why)))
		bench_skip(b, "%s", why);
	if (access(ko, R_OK)) {
		if (o->module)
			bench_usage_error(b, "--module %s: %s", ko, strerror(errno));
		bench_skip(b, "%s not built (make module KDIR=...)", ko);
	}
	off = kmod_offset(s);
	for (int i = 0; i < s->np; i++)
		snprintf(srcs + strlen(srcs), sizeof(srcs) - strlen(srcs), "%s%d",
			 i ? "," : "", s->p[i].src);
	snprintf(params, sizeof(params),
		 "nr_ipis=%llu single=%d offset=%d cpulist=%s wait=%d delay_us=%llu timeout_s=%llu",
		 (unsigned long long)n, !o->all, off, srcs, !o->no_wait,
		 (unsigned long long)o->delay_us, (unsigned long long)timeout_s);
	k = calloc(1, sizeof(*k));
	if (!k)
		ksft_exit_fail_msg("no memory\n");
	s->priv = k;
	if (kmod_load(&k->km, ko, KMOD_NAME, params, why, sizeof(why)))
		bench_skip(b, "%s", why);
	bench_note(b, "module %s loaded: %s", ko, params);
}

/* Why the module's line for @p says its pass failed; "" when it did not. */
static void kmod_line_check(struct pair *p, int dst, bool duration, int to,
			    unsigned long long calls, unsigned long long errors,
			    int err, unsigned long long unfinished)
{
	if (p->why[0])
		return;
	/* --all: the module has no single dst (-1) */
	if (dst >= 0 && dst != p->dst)
		snprintf(p->why, sizeof(p->why),
			 "the module sent to cpu %d, not cpu %d", dst, p->dst);
	else if (errors)
		snprintf(p->why, sizeof(p->why),
			 "%llu calls failed in the kernel (last: %s)",
			 errors, strerror(-err));
	else if (unfinished)
		snprintf(p->why, sizeof(p->why),
			 "%llu callbacks had not run 10 s after the last call",
			 unfinished);
	else if (to && !duration)
		snprintf(p->why, sizeof(p->why),
			 "incomplete: the module's run hit its timeout (--timeout) after %llu of %llu calls",
			 calls, (unsigned long long)p->n);
}

/* Read the module's result of one run into the pairs; false on a failure. */
static bool kmod_result(struct storm *s, char *txt)
{
	struct kmod_storm *k = s->priv;
	bool duration = s->b->opt.duration_s > 0, ok = true;
	char *line;

	for (line = strtok(txt, "\n"); line; line = strtok(NULL, "\n")) {
		int src, dst, to, err = 0;
		unsigned long long calls, ns, cb, errors = 0, unfinished = 0;

		if (sscanf(line, "src %d dst %d calls %llu ns %llu callbacks %llu timed_out %d errors %llu last_error %d unfinished %llu",
			   &src, &dst, &calls, &ns, &cb, &to, &errors, &err, &unfinished) < 6)
			continue;
		for (int i = 0; i < s->np; i++) {
			struct pair *p = &s->p[i];

			if (p->src != src)
				continue;
			kmod_line_check(p, dst, duration, to, calls, errors, err, unfinished);
			if (p->why[0]) {
				ksft_print_msg("kmod run: %s: %s\n", p->desc, p->why);
				ok = false;
				continue;
			}
			p->done = calls;
			p->ns = ns;
			k->callbacks[i] += cb;
		}
	}
	return ok;
}

/*
 * One run of the module. False when it failed (the reason in the pair's
 * why) or was interrupted: an interrupted run is not a complete one.
 */
static bool kmod_run(struct storm *s, bool counting)
{
	struct pair *p = s->p;
	const char *dbg = debugfs_path();
	char path[128], *txt;
	bool ok = true;

	for (int i = 0; i < s->np; i++)
		p[i].done = 0;	/* a failed run adds no calls */
	if (!dbg)
		return false;
	/* the module's threads are named ipistorm/SRC: their sends only */
	for (int i = 0; counting && i < s->np; i++) {
		char who[48];

		snprintf(who, sizeof(who), "comm == \"ipistorm/%d\"", p[i].src);
		ipistorm_pass_count_start(&p[i], who);
	}
	snprintf(path, sizeof(path), "%s/ipistorm/run", dbg);
	if (write_file(path, "1")) {
		ksft_print_msg("kmod run: %s\n", strerror(errno));
		ok = false;
	}
	for (int i = 0; counting && i < s->np; i++)
		if (p[i].cnt_ok)
			ipistorm_count_enable(&p[i].cnt, false);
	if (ok) {
		snprintf(path, sizeof(path), "%s/ipistorm/result", dbg);
		txt = read_file_all(path, NULL);
		ok = txt && kmod_result(s, txt);
		free(txt);
	}
	for (int i = 0; counting && i < s->np; i++)
		ipistorm_pass_count_stop(&p[i]);
	return ok && !bench_stop;
}

static void kmod_teardown(struct storm *s)
{
	struct kmod_storm *k = s->priv;

	if (k->km.loaded && kmod_unload(&k->km))
		ksft_print_msg("could not unload %s: %s\n", KMOD_NAME, strerror(errno));
	else
		ksft_print_msg("%s unloaded\n", KMOD_NAME);
}

/* One call to all other CPUs (--all) has no single dst to check. */
static bool kmod_callbacks_on(const struct storm *s)
{
	return !s->o->all;
}

static const char *const kmod_checks[] = { "the callback ran on dst once per call" };

static void kmod_verdicts(struct storm *s, struct pair *p)
{
	struct kmod_storm *k = s->priv;
	uint64_t calls = p->calls + p->d.calls, cb = k->callbacks[p - s->p];

	if (!calls) {
		ipistorm_pair_verdict(s->b, p, PAIR_CHECKS, KSFT_SKIP, "no call completed");
		return;
	}
	ksft_print_msg("%s: the callback ran %llu times on cpu %d for %llu calls\n",
		       p->desc, (unsigned long long)cb, p->dst, (unsigned long long)calls);
	ipistorm_pair_verdict(s->b, p, PAIR_CHECKS, cb == calls ? KSFT_PASS : KSFT_FAIL, NULL);
}

const struct storm_mode ipistorm_kmod_mode = {
	.name = "kmod",
	.setup = kmod_setup,
	.run = kmod_run,
	.teardown = kmod_teardown,
	.nverdicts = ARRAY_SIZE(kmod_checks),
	.checks = kmod_checks,
	.verdicts_on = kmod_callbacks_on,
	.verdicts = kmod_verdicts,
};
