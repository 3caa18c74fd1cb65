// SPDX-License-Identifier: GPL-2.0
/*
 * cid_scan: which scan the running kernel has (none, full, batched and
 * the batch size), from kallsyms, its config, sysfs and the command line.
 */
#include <stdlib.h>
#include <string.h>

#include "lib/kernel/kconfig.h"
#include "lib/kernel/ksym.h"
#include "lib/kernel/sysinfo.h"
#include "lib/base/util.h"
#include "cid_scan_common.h"

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
	uint64_t u, cfg = 0;
	bool has_scan = ksym_exists("task_mm_cid_scan");

	if (!kconfig_value("CONFIG_RSEQ_CID_SCAN_BATCH", c, sizeof(c)) &&
	    (parse_u64(c, &cfg) || !cfg || cfg > 1U << 20))
		c[0] = '\0';
	if (!read_file_line(PARAM_DIR PARAM_BATCH, v, sizeof(v)) && !parse_u64(v, &u) && u) {
		m->batch = (int)u;
		m->walk_retval = has_scan;
		snprintf(m->batch_from, sizeof(m->batch_from), "%s%s, CONFIG_RSEQ_CID_SCAN_BATCH %s",
			 PARAM_DIR, PARAM_BATCH, c[0] ? c : "not readable");
		if (!read_file_line(PARAM_DIR PARAM_SCAN, v, sizeof(v)))
			m->scan_off = v[0] == 'N' || v[0] == 'n' || v[0] == '0';
	} else if (c[0]) {
		m->batch = (int)cfg;
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
		 * only as far as the calls-per-walk verdict confirms them;
		 * without it (the posted series' shape) the batches run in
		 * task_mm_cid_work(), which returns nothing
		 */
		m->walk_retval = has_scan;
		m->walk_nested = !has_scan;
	} else if (has_scan) {
		m->batch = -1;
		snprintf(m->batch_from, sizeof(m->batch_from),
			 "task_mm_cid_scan in kallsyms, no config or parameter readable");
	}
	if (m->batch > 0)
		m->walk_calls = (m->possible + m->batch - 1) / m->batch;
}

void cid_scan_detect(struct bench *b, struct scan_model *m)
{
	char v[64];
	uint64_t u;

	if (rseq_probe(&m->rseq))
		bench_skip(b, "%s", m->rseq.why);
	if (!m->rseq.has_mm_cid)
		bench_skip(b, "%s", m->rseq.why);
	m->possible = CPU_COUNT(&b->sets.possible);
	m->hz = !kconfig_value("CONFIG_HZ", v, sizeof(v)) && !parse_u64(v, &u) ? (int)u : 250;
	detect_batch(m);
	m->periodic = ksym_exists("task_mm_cid_work");
	m->func = m->batch && ksym_exists("task_mm_cid_scan") ? "task_mm_cid_scan"
							       : "task_mm_cid_work";
	bench_note(b, "rseq: registered by %s (__rseq_offset %ld, __rseq_size %u), AT_RSEQ_FEATURE_SIZE %u: mm_cid available",
		   m->rseq.by_glibc ? "glibc" : "cid_scan itself",
		   m->rseq.offset, m->rseq.size, m->rseq.feature_size);
	if (sysinfo_hypervisor(&m->emulated), m->emulated)
		bench_note(b, "emulated CPU (TCG): durations are not meaningful, compare their growth with the CPU count only");
	if (!m->periodic)
		bench_note(b, "scan model: no periodic scan (task_mm_cid_work absent: 6.19 or later)");
	else if (m->batch > 0)
		bench_note(b, "scan model: periodic scan in batches of %d CPUs (%s), %d possible CPUs: %d calls per complete scan, HZ %d%s%s",
			   m->batch, m->batch_from, m->possible, m->walk_calls, m->hz,
			   m->scan_off ? "; the scan is OFF (rseq_cid_scan=off)" : "",
			   m->walk_nested ? "; task_mm_cid_work returns nothing: walks reconstructed from where each call starts its batch (a kprobe event on __find_nth_bit)" : "");
	else if (m->batch < 0)
		bench_note(b, "scan model: periodic scan in batches of unknown size (%s), %d possible CPUs, HZ %d",
			   m->batch_from, m->possible, m->hz);
	else
		bench_note(b, "scan model: periodic full scan (task_mm_cid_work) over %d possible CPUs every 100 ms, HZ %d",
			   m->possible, m->hz);
}
