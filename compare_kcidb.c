// SPDX-License-Identifier: GPL-2.0
#include <ctype.h>
#include <errno.h>
#include <string.h>

#include "lib/base/json.h"
#include "compare_kcidb.h"

/* KCIDB test paths allow [.a-zA-Z0-9_-]: anything else becomes an underscore */
static void path_part(char *dst, size_t len, const char *s)
{
	size_t i = 0;

	for (; *s && i + 1 < len; s++, i++)
		dst[i] = isalnum((unsigned char)*s) || strchr("_-.", *s) ?
			 *s : '_';
	dst[i] = '\0';
}

/*
 * A check's name as one path part: the same name gives the same path on
 * every run (the farms follow a test by it); runs of other characters
 * become one underscore, so the name's dots add no level.
 */
static void check_part(char *dst, size_t len, const char *s)
{
	size_t i = 0;

	for (; *s && i + 1 < len; s++) {
		if (isalnum((unsigned char)*s) || *s == '-')
			dst[i++] = *s;
		else if (i && dst[i - 1] != '_')
			dst[i++] = '_';
	}
	while (i && dst[i - 1] == '_')
		i--;
	dst[i] = '\0';
}

static void build_id_of(const struct result *r, const char *given,
			char *buf, size_t len)
{
	char rel[128];

	if (given) {
		snprintf(buf, len, "%s", given);
		return;
	}
	path_part(rel, sizeof(rel), r->sys.kernel_release[0] ?
		  r->sys.kernel_release : "unknown");
	snprintf(buf, len, KCIDB_ORIGIN ":%s", rel);
}

/* Unique per run: host, finish time, then the record's path (by test). */
static void test_id(const struct result *r, const char *path, char *buf,
		    size_t len)
{
	char host[64], stamp[40];

	path_part(host, sizeof(host), r->sys.hostname[0] ? r->sys.hostname : "host");
	path_part(stamp, sizeof(stamp), r->finished[0] ? r->finished : "unknown");
	snprintf(buf, len, KCIDB_ORIGIN ":%s.%s.%s", host, stamp, path);
}

static void environment_json(struct json *j, const struct result *r)
{
	char comment[512];

	snprintf(comment, sizeof(comment), "%s, %s, kernel %s, cpu %s (%s)",
		 r->sys.hostname, r->sys.cpu_model, r->sys.kernel_release,
		 r->cpus, r->cpus_isolation);
	json_object_start(j, "environment");
	json_string(j, "comment", comment);
	json_object_start(j, "misc");
	json_string(j, "hostname", r->sys.hostname);
	json_string(j, "kernel_release", r->sys.kernel_release);
	json_string(j, "kernel_version", r->sys.kernel_version);
	json_string(j, "machine", r->sys.machine);
	json_string(j, "cmdline", r->sys.cmdline);
	json_string(j, "cpu_model", r->sys.cpu_model);
	json_string(j, "online", r->sys.online);
	json_string(j, "isolated", r->sys.isolated);
	json_string(j, "nohz_full", r->sys.nohz_full);
	json_string(j, "target_cpus", r->cpus);
	json_string(j, "target_isolation", r->cpus_isolation);
	json_string(j, "hypervisor", r->sys.hypervisor);
	json_bool(j, "emulated", r->sys.emulated);
	json_object_end(j);
	json_object_end(j);
}

static void record_start(struct json *j, const struct result *r,
			 const char *path, const char *build_id,
			 const char *status)
{
	char id[512], build[256];

	test_id(r, path, id, sizeof(id));
	build_id_of(r, build_id, build, sizeof(build));
	json_object_start(j, NULL);
	json_string(j, "id", id);
	json_string(j, "build_id", build);
	json_string(j, "origin", KCIDB_ORIGIN);
	json_string(j, "path", path);
	json_string(j, "status", status);
	environment_json(j, r);
}

static const char *verdict_status(const char *result)
{
	if (!strcmp(result, "pass"))
		return "PASS";
	if (!strcmp(result, "skip"))
		return "SKIP";
	return "FAIL";
}

static const char *exit_status(int code)
{
	switch (code) {
	case 0:
		return "PASS";
	case 1:
		return "FAIL";
	case 4:
		return "SKIP";
	default:
		return "ERROR";
	}
}

static void result_records(struct json *j, const struct result *r,
			   const char *build_id)
{
	char prog[64], name[192], path[320];

	path_part(prog, sizeof(prog), r->test);
	snprintf(path, sizeof(path), "isolbench.%s", prog);
	record_start(j, r, path, build_id, exit_status(r->exit_code));
	json_double(j, "duration", r->duration_s);
	json_string(j, "comment", "the program's exit status");
	json_object_end(j);

	for (size_t i = 0; i < r->nverdicts; i++) {
		const struct result_verdict *v = &r->verdicts[i];

		check_part(name, sizeof(name), v->name);
		snprintf(path, sizeof(path), "isolbench.%s.%s", prog, name);
		record_start(j, r, path, build_id, verdict_status(v->result));
		json_string(j, "comment", v->name);
		if (v->reason[0]) {
			json_object_start(j, "misc");
			json_string(j, "reason", v->reason);
			json_object_end(j);
		}
		json_object_end(j);
	}

	for (size_t i = 0; i < r->nmetrics; i++) {
		const struct result_metric *m = &r->metrics[i];

		path_part(name, sizeof(name), m->name);
		snprintf(path, sizeof(path), "isolbench.%s.%s", prog, name);
		/* no number without a sample: SKIP, as KCIDB asks */
		record_start(j, r, path, build_id, m->n ? "DONE" : "SKIP");
		json_string(j, "comment", m->aggregate);
		if (m->n) {
			json_object_start(j, "number");
			json_double(j, "value", m->st.mean);
			if (m->unit[0])
				json_string(j, "unit", m->unit);
			json_object_end(j);
		}
		json_object_start(j, "misc");
		json_string(j, "better", better_str(m->better));
		json_u64(j, "n", m->n);
		if (m->n) {
			json_double(j, "median", m->st.median);
			json_double(j, "stddev", m->st.stddev);
			json_double(j, "min", m->st.min);
			json_double(j, "max", m->st.max);
			json_array_start(j, "ci95_mean");
			json_double(j, NULL, m->st.ci95_mean_lo);
			json_double(j, NULL, m->st.ci95_mean_hi);
			json_array_end(j);
		}
		json_object_end(j);
		json_object_end(j);
	}
}

static const char *bisect_status(enum bisect_verdict v)
{
	return v == BISECT_GOOD ? "PASS" : v == BISECT_BAD ? "FAIL" : "SKIP";
}

static void cmp_record(struct json *j, const struct kcidb_cmp *k,
		       const char *build_id)
{
	char prog[64], name[64], path[256], comment[256];

	path_part(prog, sizeof(prog), k->res->test);
	path_part(name, sizeof(name), k->metric->name);
	snprintf(path, sizeof(path), "isolbench.%s.%s.vs_base", prog, name);
	record_start(j, k->res, path, build_id, bisect_status(k->verdict));
	snprintf(comment, sizeof(comment), "against %s, threshold %g%s%s: %s",
		 k->base_label, k->threshold, k->threshold_unit ? " " : "%",
		 k->threshold_unit ? k->threshold_unit : "", k->why);
	json_string(j, "comment", comment);
	/* the change it was judged on: in % of the base, or the difference */
	if (k->threshold_unit ? k->c.welch : k->c.tested) {
		json_object_start(j, "number");
		json_double(j, "value", k->threshold_unit ? k->c.w.diff : k->c.change_pct);
		json_string(j, "unit", k->threshold_unit ? k->threshold_unit : "%");
		json_object_end(j);
	}
	json_object_start(j, "misc");
	json_string(j, "base", k->base_label);
	if (k->threshold_unit) {
		json_double(j, "threshold_abs", k->threshold);
		json_string(j, "threshold_unit", k->threshold_unit);
	} else {
		json_double(j, "threshold_pct", k->threshold);
	}
	if (k->threshold_unit && k->c.welch)
		json_double(j, "ci95_abs", k->c.w.diff_hi - k->c.w.diff);
	if (k->c.tested)
		json_double(j, "ci95_pct", k->c.ci_pct);
	if (k->c.welch) {
		json_double(j, "welch_p", k->c.w.p);
		json_bool(j, "significant", k->c.significant);
	}
	json_object_end(j);
	json_object_end(j);
}

int compare_kcidb_write(FILE *f, const struct result *const *res, size_t nres,
			const struct kcidb_cmp *cmps, size_t ncmps,
			const char *build_id)
{
	struct json j;

	json_begin(&j, f);
	json_object_start(&j, NULL);
	json_object_start(&j, "version");
	json_u64(&j, "major", KCIDB_MAJOR);
	json_u64(&j, "minor", KCIDB_MINOR);
	json_object_end(&j);
	json_array_start(&j, "tests");
	for (size_t i = 0; i < nres; i++)
		result_records(&j, res[i], build_id);
	for (size_t i = 0; i < ncmps; i++)
		cmp_record(&j, &cmps[i], build_id);
	json_array_end(&j);
	json_object_end(&j);
	if (fflush(f) || ferror(f))
		return -1;
	return 0;
}
