// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "result.h"
#include "../base/util.h"

#define RESULT_MAX_SAMPLES	(16u << 20)

const char *better_str(enum better b)
{
	return b == BETTER_LOWER ? "lower" : b == BETTER_HIGHER ? "higher" : "none";
}

static const char *article(enum jr_type t)
{
	return t == JR_ARRAY || t == JR_OBJECT ? "an" : "a";
}

/* "@what@key is a string, not an object": -1 */
static int type_error(const char *what, const char *key, enum jr_type have,
		      enum jr_type want, char *err, size_t errlen)
{
	snprintf(err, errlen, "%s%s is %s %s, not %s %s", what, key, article(have),
		 jr_type_name(have), article(want), jr_type_name(want));
	return -1;
}

/*
 * Member @key of @obj (in @where: "run.", "metric NAME: ") when of type
 * @t: *@out is left as it is when the member is missing; a member of
 * another type is refused, never taken for a missing one. Numbers may
 * be null: the writer's non-finite number, taken as missing.
 */
static int member(const struct jr_value *obj, const char *where, const char *key,
		  enum jr_type t, const struct jr_value **out, char *err, size_t errlen)
{
	if (!jr_member(obj, key, t, t == JR_NUMBER, out))
		return 0;
	return type_error(where, key, jr_get(obj, key)->type, t, err, errlen);
}

/* A string member, @dflt when missing. */
static int string_member(const struct jr_value *obj, const char *where, const char *key,
			 const char *dflt, const char **out, char *err, size_t errlen)
{
	const struct jr_value *v;

	if (member(obj, where, key, JR_STRING, &v, err, errlen))
		return -1;
	*out = v ? v->string : dflt;
	return 0;
}

static int bool_member(const struct jr_value *obj, const char *where, const char *key,
		       bool *out, char *err, size_t errlen)
{
	const struct jr_value *v;

	if (member(obj, where, key, JR_BOOL, &v, err, errlen))
		return -1;
	*out = v && v->boolean;
	return 0;
}

/* A whole number member in [@lo, @hi]; *@out left as it is when missing. */
static int int_member(const struct jr_value *obj, const char *where, const char *key,
		      int lo, int hi, int *out, char *err, size_t errlen)
{
	const struct jr_value *v;

	if (member(obj, where, key, JR_NUMBER, &v, err, errlen))
		return -1;
	if (!v)
		return 0;
	if (v->number != floor(v->number) || v->number < lo || v->number > hi) {
		snprintf(err, errlen, "%s%s is %.17g, not a whole number from %d to %d",
			 where, key, v->number, lo, hi);
		return -1;
	}
	*out = (int)v->number;
	return 0;
}

/* Room for @n members of a JSON array (at least one), or NULL and why. */
static void *array_alloc(size_t n, size_t size, char *err, size_t errlen)
{
	void *p = calloc(n ? n : 1, size);

	if (!p)
		snprintf(err, errlen, "out of memory");
	return p;
}

/* A string member of an object read into a struct: its name and place. */
struct string_field {
	const char *key;
	size_t off;
};

#define STRING_FIELD(type, m) { #m, offsetof(type, m) }

/* The string members @fields of @obj into @dst, "" when missing. */
static int string_fields(const struct jr_value *obj, const char *where,
			 const struct string_field *fields, size_t n, void *dst,
			 char *err, size_t errlen)
{
	for (size_t i = 0; i < n; i++)
		if (string_member(obj, where, fields[i].key, "",
				  (const char **)((char *)dst + fields[i].off), err, errlen))
			return -1;
	return 0;
}

static int system_read(const struct jr_value *sys, struct result_system *s,
		       char *err, size_t errlen)
{
#define SYSTEM_STRING(m) STRING_FIELD(struct result_system, m)
	static const struct string_field strings[] = {
		SYSTEM_STRING(kernel_release), SYSTEM_STRING(kernel_version),
		SYSTEM_STRING(machine), SYSTEM_STRING(hostname), SYSTEM_STRING(cmdline),
		SYSTEM_STRING(cpu_model), SYSTEM_STRING(online), SYSTEM_STRING(isolated),
		SYSTEM_STRING(nohz_full), SYSTEM_STRING(hypervisor),
	};
#undef SYSTEM_STRING

	if (string_fields(sys, "system.", strings, ARRAY_SIZE(strings), s, err, errlen))
		return -1;
	return bool_member(sys, "system.", "emulated", &s->emulated, err, errlen) ||
	       bool_member(sys, "system.", "virtualized", &s->virtualized, err, errlen) ? -1 : 0;
}

static bool ends_with(const char *s, const char *tail)
{
	size_t n = strlen(s), t = strlen(tail);

	return n >= t && !strcmp(s + n - t, tail);
}

/*
 * A timing is a duration, a cycle count or a rate per unit of time: what
 * emulation stretches.  A count (softirqs per tick, IPIs delivered, scan
 * calls per walk) does not depend on the speed of the machine.  The
 * optional "kind" member says it; without it the unit and name do.
 */
static int metric_kind_read(const struct jr_value *m, const char *where,
			    struct result_metric *rm, char *err, size_t errlen)
{
	static const char *const time_units[] = { "ns", "us", "ms", "s", "cycles" };
	const char *kind;

	if (string_member(m, where, "kind", NULL, &kind, err, errlen))
		return -1;
	if (kind) {
		if (strcmp(kind, "timing") && strcmp(kind, "count")) {
			snprintf(err, errlen, "metric %s: kind is '%.32s', not timing or count",
				 rm->name, kind);
			return -1;
		}
		rm->timing = !strcmp(kind, "timing");
		return 0;
	}
	for (size_t i = 0; i < ARRAY_SIZE(time_units); i++)
		if (!strcmp(rm->unit, time_units[i]))
			rm->timing = true;
	if (ends_with(rm->unit, "/s") || ends_with(rm->unit, "/min") ||
	    ends_with(rm->name, "_per_s") || ends_with(rm->name, "_per_min"))
		rm->timing = true;
	return 0;
}

/* The members of a metric but its samples. */
static int metric_head_read(const struct jr_value *m, size_t idx,
			    struct result_metric *rm, char *err, size_t errlen)
{
	const char *better;
	char where[96];

	snprintf(where, sizeof(where), "metric %zu", idx + 1);
	if (m->type != JR_OBJECT)
		return type_error(where, "", m->type, JR_OBJECT, err, errlen);
	strcat(where, ": ");
	if (string_member(m, where, "name", NULL, &rm->name, err, errlen))
		return -1;
	if (!rm->name || !rm->name[0]) {
		snprintf(err, errlen, "metric %zu has no name", idx + 1);
		return -1;
	}
	snprintf(where, sizeof(where), "metric %.64s: ", rm->name);
	if (string_member(m, where, "unit", "", &rm->unit, err, errlen) ||
	    string_member(m, where, "label", NULL, &rm->label, err, errlen) ||
	    string_member(m, where, "aggregate", "", &rm->aggregate, err, errlen) ||
	    string_member(m, where, "family", NULL, &rm->family, err, errlen) ||
	    string_member(m, where, "better", "none", &better, err, errlen))
		return -1;
	if (!strcmp(better, "none"))
		rm->better = BETTER_NONE;
	else if (!strcmp(better, "lower"))
		rm->better = BETTER_LOWER;
	else if (!strcmp(better, "higher"))
		rm->better = BETTER_HIGHER;
	else {
		snprintf(err, errlen, "metric %s: better is '%.32s', not lower, higher or none",
			 rm->name, better);
		return -1;
	}
	return metric_kind_read(m, where, rm, err, errlen);
}

static int metric_read(const struct jr_value *m, size_t idx,
		       struct result_metric *rm, char *err, size_t errlen)
{
	const struct jr_value *samples;

	if (metric_head_read(m, idx, rm, err, errlen))
		return -1;
	samples = jr_get(m, "samples");
	if (!samples || samples->type != JR_ARRAY) {
		snprintf(err, errlen, "metric %s has no samples array", rm->name);
		return -1;
	}
	if (samples->count > RESULT_MAX_SAMPLES) {
		snprintf(err, errlen, "metric %s: %zu samples, more than %u",
			 rm->name, samples->count, RESULT_MAX_SAMPLES);
		return -1;
	}
	rm->samples = array_alloc(samples->count, sizeof(*rm->samples), err, errlen);
	if (!rm->samples)
		return -1;
	for (const struct jr_value *v = samples->child; v; v = v->next) {
		if (v->type == JR_NULL) {
			rm->dropped++;
			continue;
		}
		if (v->type != JR_NUMBER) {
			snprintf(err, errlen, "metric %s: a sample is %s %s, not a number",
				 rm->name, article(v->type), jr_type_name(v->type));
			return -1;
		}
		rm->samples[rm->n++] = v->number;
	}
	if (rm->n)
		stats_compute(rm->samples, rm->n, &rm->st);
	/* finite samples whose sum or spread overflows a double */
	if (rm->n && (!isfinite(rm->st.mean) || !isfinite(rm->st.stddev) ||
		      !isfinite(rm->st.ci95_mean_lo) || !isfinite(rm->st.ci95_mean_hi))) {
		snprintf(err, errlen, "metric %s: samples too large to summarise (their statistics overflow)",
			 rm->name);
		return -1;
	}
	return 0;
}

static int array_of(const struct jr_value *root, const char *key,
		    const struct jr_value **out, char *err, size_t errlen)
{
	const struct jr_value *a = jr_get(root, key);

	if (!a || a->type != JR_ARRAY) {
		snprintf(err, errlen, "no \"%s\" array%s%s", key, a ? ": it is a " : "",
			 a ? jr_type_name(a->type) : "");
		return -1;
	}
	*out = a;
	return 0;
}

/* The run: its CPUs, arguments and how it ended. */
static int run_read(const struct jr_value *run, struct result *r, char *err, size_t errlen)
{
	const struct jr_value *v;
	size_t i = 0;

	if (string_member(run, "run.", "finished", "", &r->finished, err, errlen) ||
	    string_member(run, "run.", "cpus", "", &r->cpus, err, errlen) ||
	    string_member(run, "run.", "cpus_isolation", "", &r->cpus_isolation, err, errlen) ||
	    member(run, "run.", "argv", JR_ARRAY, &r->argv, err, errlen) ||
	    member(run, "run.", "duration_s", JR_NUMBER, &v, err, errlen) ||
	    int_member(run, "run.", "exit_code", 0, 255, &r->exit_code, err, errlen) ||
	    bool_member(run, "run.", "interrupted", &r->interrupted, err, errlen) ||
	    int_member(run, "run.", "signal", 0, 127, &r->signal, err, errlen))
		return -1;
	if (v)
		r->duration_s = v->number;
	for (v = r->argv ? r->argv->child : NULL; v; v = v->next, i++) {
		if (v->type != JR_STRING) {
			char what[48];

			snprintf(what, sizeof(what), "run.argv: argument %zu", i);
			return type_error(what, "", v->type, JR_STRING, err, errlen);
		}
	}
	return 0;
}

/* The frame: schema, version, program, system and run. */
static int header_read(const struct jr_value *root, struct result *r,
		       char *err, size_t errlen)
{
	const char *schema = jr_get_string(root, "schema");
	const struct jr_value *version, *sys, *run;

	if (!schema || strcmp(schema, RESULT_SCHEMA)) {
		snprintf(err, errlen, "not an isolbench result (schema %s%.40s%s, expected \"%s\")",
			 schema ? "\"" : "", schema ? schema : "missing",
			 schema ? "\"" : "", RESULT_SCHEMA);
		return -1;
	}
	if (member(root, "", "schema_version", JR_NUMBER, &version, err, errlen))
		return -1;
	if (!version) {
		snprintf(err, errlen, "no schema_version");
		return -1;
	}
	if (version->number != RESULT_VERSION) {
		snprintf(err, errlen, "schema_version %.17g, this reader knows %d",
			 version->number, RESULT_VERSION);
		return -1;
	}
	if (string_member(root, "", "program", NULL, &r->program, err, errlen) ||
	    string_member(root, "", "test", NULL, &r->test, err, errlen) ||
	    string_member(root, "", "isolbench_version", "", &r->isolbench_version,
			  err, errlen) ||
	    member(root, "", "system", JR_OBJECT, &sys, err, errlen) ||
	    member(root, "", "run", JR_OBJECT, &run, err, errlen))
		return -1;
	if (!r->program || !r->program[0]) {
		snprintf(err, errlen, "no program name");
		return -1;
	}
	if (!r->test || !r->test[0])
		r->test = r->program;	/* written before tests had names */
	if (system_read(sys, &r->sys, err, errlen))
		return -1;
	return run_read(run, r, err, errlen);
}

static int metrics_read(const struct jr_value *root, struct result *r,
			char *err, size_t errlen)
{
	const struct jr_value *metrics;
	size_t i = 0;

	if (array_of(root, "metrics", &metrics, err, errlen))
		return -1;
	if (metrics->count > RESULT_MAX_METRICS) {
		snprintf(err, errlen, "%zu metrics, more than %u: not a result file",
			 metrics->count, RESULT_MAX_METRICS);
		return -1;
	}
	r->metrics = array_alloc(metrics->count, sizeof(*r->metrics), err, errlen);
	if (!r->metrics)
		return -1;
	for (const struct jr_value *m = metrics->child; m; m = m->next, i++) {
		r->nmetrics = i + 1;
		if (metric_read(m, i, &r->metrics[i], err, errlen))
			return -1;
		for (size_t k = 0; k < i; k++) {
			if (!strcmp(r->metrics[k].name, r->metrics[i].name)) {
				snprintf(err, errlen, "metric %s appears twice",
					 r->metrics[i].name);
				return -1;
			}
		}
	}
	return 0;
}

static int verdicts_read(const struct jr_value *root, struct result *r,
			 char *err, size_t errlen)
{
	const struct jr_value *verdicts;

	if (member(root, "", "verdicts", JR_ARRAY, &verdicts, err, errlen))
		return -1;
	if (!verdicts)
		return 0;
	r->verdicts = array_alloc(verdicts->count, sizeof(*r->verdicts), err, errlen);
	if (!r->verdicts)
		return -1;
	for (const struct jr_value *v = verdicts->child; v; v = v->next) {
		struct result_verdict *rv = &r->verdicts[r->nverdicts++];
		char where[48];

		snprintf(where, sizeof(where), "verdict %zu", r->nverdicts);
		if (v->type != JR_OBJECT)
			return type_error(where, "", v->type, JR_OBJECT, err, errlen);
		strcat(where, ": ");
		if (string_member(v, where, "name", "", &rv->name, err, errlen) ||
		    string_member(v, where, "result", "", &rv->result, err, errlen) ||
		    string_member(v, where, "reason", "", &rv->reason, err, errlen))
			return -1;
		if (strcmp(rv->result, "pass") && strcmp(rv->result, "fail") &&
		    strcmp(rv->result, "skip")) {
			snprintf(err, errlen, "verdict %zu: result is '%.32s', not pass, fail or skip",
				 r->nverdicts, rv->result);
			return -1;
		}
	}
	return 0;
}

/* "families": the families of counts complete in this result. */
static int families_read(const struct jr_value *root, struct result *r,
			 char *err, size_t errlen)
{
	const struct jr_value *families;

	if (member(root, "", "families", JR_ARRAY, &families, err, errlen))
		return -1;
	if (!families)
		return 0;
	r->families = array_alloc(families->count, sizeof(*r->families), err, errlen);
	if (!r->families)
		return -1;
	for (const struct jr_value *v = families->child; v; v = v->next) {
		struct result_family *f = &r->families[r->nfamilies++];
		int samples = -1;
		char where[48];

		snprintf(where, sizeof(where), "family %zu", r->nfamilies);
		if (v->type != JR_OBJECT)
			return type_error(where, "", v->type, JR_OBJECT, err, errlen);
		strcat(where, ": ");
		if (string_member(v, where, "name", "", &f->name, err, errlen) ||
		    string_member(v, where, "pattern", NULL, &f->pattern, err, errlen) ||
		    string_member(v, where, "unit", NULL, &f->unit, err, errlen) ||
		    int_member(v, where, "samples", 0, (int)RESULT_MAX_SAMPLES, &samples,
			       err, errlen))
			return -1;
		if (!f->name[0] || samples < 0) {
			snprintf(err, errlen, "family %zu has no %s", r->nfamilies,
				 f->name[0] ? "samples" : "name");
			return -1;
		}
		if (!f->pattern != !f->unit) {
			snprintf(err, errlen, "family %zu has a %s and no %s", r->nfamilies,
				 f->pattern ? "pattern" : "unit", f->pattern ? "unit" : "pattern");
			return -1;
		}
		f->samples = samples;
	}
	return 0;
}

/*
 * A list of files of kernel_build (@key: "patches", each a @what
 * "patch"): {"file", "sha256"} each, in the order applied or merged.
 */
static int build_files_read(const struct jr_value *kb, const char *key, const char *what,
			    struct result_build_file **out, size_t *n, char *err, size_t errlen)
{
#define FILE_STRING(m) STRING_FIELD(struct result_build_file, m)
	static const struct string_field strings[] = { FILE_STRING(file), FILE_STRING(sha256) };
#undef FILE_STRING
	const struct jr_value *files;

	if (member(kb, "kernel_build.", key, JR_ARRAY, &files, err, errlen))
		return -1;
	if (!files)
		return 0;
	*out = array_alloc(files->count, sizeof(**out), err, errlen);
	if (!*out)
		return -1;
	for (const struct jr_value *v = files->child; v; v = v->next) {
		struct result_build_file *f = &(*out)[(*n)++];
		char where[96];

		snprintf(where, sizeof(where), "kernel_build.%s: %s %zu", key, what, *n);
		if (v->type != JR_OBJECT)
			return type_error(where, "", v->type, JR_OBJECT, err, errlen);
		strcat(where, ": ");
		if (string_fields(v, where, strings, ARRAY_SIZE(strings), f, err, errlen))
			return -1;
	}
	return 0;
}

/* "kernel_build": the record of how the kernel was built, when there is one. */
static int build_read(const struct jr_value *root, struct result_kernel_build *kb,
		      char *err, size_t errlen)
{
#define BUILD_STRING(m) STRING_FIELD(struct result_kernel_build, m)
	static const struct string_field strings[] = {
		BUILD_STRING(source), BUILD_STRING(source_id), BUILD_STRING(key),
		BUILD_STRING(release), BUILD_STRING(compiler), BUILD_STRING(config_sha256),
	};
#undef BUILD_STRING
	const struct jr_value *v;

	if (member(root, "", "kernel_build", JR_OBJECT, &v, err, errlen))
		return -1;
	if (!v)
		return 0;
	kb->present = true;
	if (string_fields(v, "kernel_build.", strings, ARRAY_SIZE(strings), kb, err, errlen) ||
	    build_files_read(v, "patches", "patch", &kb->patches, &kb->npatches,
			     err, errlen) ||
	    build_files_read(v, "config_fragments", "fragment", &kb->config_fragments,
			     &kb->nconfig_fragments, err, errlen))
		return -1;
	return 0;
}

int result_parse(const char *buf, size_t len, struct result *r,
		 char *err, size_t errlen)
{
	char jerr[160];

	memset(r, 0, sizeof(*r));
	r->exit_code = -1;
	r->doc = jr_parse(buf, len, jerr, sizeof(jerr));
	if (!r->doc) {
		snprintf(err, errlen, "malformed JSON: %s", jerr);
		return -1;
	}
	if (header_read(r->doc, r, err, errlen) ||
	    metrics_read(r->doc, r, err, errlen) ||
	    verdicts_read(r->doc, r, err, errlen) ||
	    families_read(r->doc, r, err, errlen) ||
	    build_read(r->doc, &r->build, err, errlen)) {
		result_free(r);
		return -1;
	}
	return 0;
}

int result_load(const char *path, struct result *r, char *err, size_t errlen)
{
	struct stat st;
	size_t len;
	char *buf;
	int fd, ret;

	memset(r, 0, sizeof(*r));
	/* O_NONBLOCK: a FIFO must be refused, not waited on */
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0 || fstat(fd, &st)) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	close(fd);
	if (!S_ISREG(st.st_mode)) {
		snprintf(err, errlen, "%s: not a regular file", path);
		return -1;
	}
	if ((unsigned long long)st.st_size > RESULT_MAX_BYTES) {
		snprintf(err, errlen, "%s: larger than %u MiB, not a result file",
			 path, RESULT_MAX_BYTES >> 20);
		return -1;
	}
	buf = read_file_all(path, &len);
	if (!buf) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	if (!len) {
		free(buf);
		snprintf(err, errlen, "%s: empty file", path);
		return -1;
	}
	ret = result_parse(buf, len, r, err, errlen);
	free(buf);
	if (ret) {
		char tmp[512];

		snprintf(tmp, sizeof(tmp), "%s: %s", path, err);
		snprintf(err, errlen, "%s", tmp);
		return -1;
	}
	r->path = path;
	return 0;
}

void result_free(struct result *r)
{
	for (size_t i = 0; i < r->nmetrics; i++)
		free(r->metrics[i].samples);
	free(r->metrics);
	free(r->verdicts);
	free(r->families);
	free(r->build.patches);
	free(r->build.config_fragments);
	jr_free(r->doc);
	memset(r, 0, sizeof(*r));
}

const struct result_metric *result_metric_find(const struct result *r,
					       const char *name)
{
	for (size_t i = 0; i < r->nmetrics; i++)
		if (!strcmp(r->metrics[i].name, name))
			return &r->metrics[i];
	return NULL;
}

int result_output_words(const char *a)
{
	if (!strcmp(a, "-o") || !strcmp(a, "--output"))
		return 2;
	if ((!strncmp(a, "-o", 2) && a[2]) || !strncmp(a, "--output=", 9))
		return 1;
	return 0;
}

size_t result_arg_list(const struct result *r, const char **args, size_t max)
{
	const struct jr_value *a = r->argv ? r->argv->child : NULL;
	size_t n = 0;
	int skip = 0;

	for (a = a ? a->next : NULL; a && n < max; a = a->next) {
		const char *s = a->type == JR_STRING ? a->string : "?";

		if (!skip)
			skip = result_output_words(s);
		if (skip) {
			skip--;
			continue;
		}
		args[n++] = s;
	}
	return n;
}

void result_args(const struct result *r, char *buf, size_t len)
{
	const char *args[RESULT_MAX_ARGS];
	size_t n = result_arg_list(r, args, RESULT_MAX_ARGS), off = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < n && off < len; i++)
		off += snprintf(buf + off, len - off, "%s%s", i ? " " : "", args[i]);
}

const char *result_incomplete(const struct result *r, char *buf, size_t len)
{
	if (r->interrupted || r->exit_code > 128) {
		int sig = r->signal ? r->signal : r->exit_code > 128 ? r->exit_code - 128 : 0;

		snprintf(buf, len, "%s was interrupted%s%s: it ran only in part",
			 r->test, sig ? " by " : "", sig ? strsignal(sig) : "");
		return buf;
	}
	if (r->exit_code == 4) {
		snprintf(buf, len, "%s was skipped", r->test);
		return buf;
	}
	return NULL;
}

/* @family complete in @r: its samples; else NULL */
static const struct result_family *family_find(const struct result *r, const char *family)
{
	for (size_t i = 0; family && i < r->nfamilies; i++)
		if (!strcmp(r->families[i].name, family))
			return &r->families[i];
	return NULL;
}

/* @n samples of 0 added to @m */
static int zeros_add(struct result_metric *m, size_t n)
{
	double *s = realloc(m->samples, (m->n + n ? m->n + n : 1) * sizeof(*s));

	if (!s)
		return -1;
	memset(s + m->n, 0, n * sizeof(*s));
	m->samples = s;
	m->n += n;
	if (m->n)
		stats_compute(m->samples, m->n, &m->st);
	return 0;
}

/* A copy of @like in @r, without samples: the new metric, or NULL. */
static struct result_metric *metric_add_like(struct result *r, const struct result_metric *like)
{
	struct result_metric *rm = realloc(r->metrics, (r->nmetrics + 1) * sizeof(*rm));

	if (!rm)
		return NULL;
	r->metrics = rm;
	rm = &r->metrics[r->nmetrics++];
	*rm = *like;
	rm->samples = NULL;
	rm->n = 0;
	rm->dropped = 0;
	return rm;
}

/* @like added to @r as counted 0 in each of @f's samples: 1, or -1 */
static int count_fill(struct result *r, const struct result_metric *like,
		      const struct result_family *f)
{
	struct result_metric *rm = metric_add_like(r, like);

	if (!rm || zeros_add(rm, f->samples))
		return -1;
	rm->filled = true;
	return 1;
}

int result_fill_count(struct result *r, const struct result_metric *like)
{
	const struct result_family *f = family_find(r, like->family);

	if (!f || result_metric_find(r, like->name))
		return 0;
	return count_fill(r, like, f);
}

int result_fill_count_named(struct result *r, const char *name)
{
	if (result_metric_find(r, name))
		return 0;
	for (size_t i = 0; i < r->nfamilies; i++) {
		const struct result_family *f = &r->families[i];
		const struct result_metric like = {
			.name = name, .unit = f->unit, .family = f->name,
			.aggregate = "a source of a complete family of counts no result has: 0",
			.better = BETTER_LOWER,
		};

		if (f->pattern && !fnmatch(f->pattern, name, 0))
			return count_fill(r, &like, f);
	}
	return 0;
}

/* The families complete in both runs stay so, with the samples of both. */
static void families_pool(struct result *r, const struct result *more)
{
	size_t k = 0;

	for (size_t i = 0; i < r->nfamilies; i++) {
		const struct result_family *f = family_find(more, r->families[i].name);

		if (!f)
			continue;
		r->families[k] = r->families[i];
		r->families[k++].samples += f->samples;
	}
	r->nfamilies = k;
}

static int pool_check(const struct result *r, const struct result *more, char *err, size_t errlen)
{
	char a[1024], b[1024];

	if (strcmp(r->test, more->test) || strcmp(r->program, more->program)) {
		snprintf(err, errlen, "%s is %s, %s is %s", r->path, r->test, more->path, more->test);
		return -1;
	}
	if (strcmp(r->sys.kernel_release, more->sys.kernel_release)) {
		snprintf(err, errlen, "%s ran on %s, %s on %s", r->path, r->sys.kernel_release,
			 more->path, more->sys.kernel_release);
		return -1;
	}
	result_args(r, a, sizeof(a));
	result_args(more, b, sizeof(b));
	if (strcmp(a, b)) {
		snprintf(err, errlen, "%s ran with '%s', %s with '%s'", r->path, a, more->path, b);
		return -1;
	}
	return 0;
}

int result_pool(struct result *r, const struct result *more, char *err, size_t errlen)
{
	size_t had = r->nmetrics;

	if (pool_check(r, more, err, errlen))
		return -1;
	/* a count absent from one run, its family complete there: 0s for that run */
	for (size_t i = 0; i < had; i++) {
		const struct result_family *f = family_find(more, r->metrics[i].family);

		if (f && !result_metric_find(more, r->metrics[i].name) &&
		    zeros_add(&r->metrics[i], f->samples))
			goto oom;
	}
	for (size_t i = 0; i < more->nmetrics; i++) {
		const struct result_metric *m = &more->metrics[i];
		struct result_metric *rm = (struct result_metric *)result_metric_find(r, m->name);
		double *s;

		if (!rm && result_fill_count(r, m) < 0)
			goto oom;
		rm = (struct result_metric *)result_metric_find(r, m->name);
		if (!rm)
			rm = metric_add_like(r, m);
		if (!rm)
			goto oom;
		rm->filled = false;
		s = realloc(rm->samples, (rm->n + m->n ? rm->n + m->n : 1) * sizeof(*s));
		if (!s)
			goto oom;
		memcpy(s + rm->n, m->samples, m->n * sizeof(*s));
		rm->samples = s;
		rm->n += m->n;
		rm->dropped += m->dropped;
		if (rm->n)
			stats_compute(rm->samples, rm->n, &rm->st);
	}
	families_pool(r, more);
	if (more->interrupted) {
		r->interrupted = true;
		r->signal = more->signal;
	}
	/* a failure or interruption of any part; a skip only of all */
	if (r->exit_code == 4 || (more->exit_code != 4 && more->exit_code > r->exit_code))
		r->exit_code = more->exit_code;
	r->pooled++;
	return 0;
oom:
	snprintf(err, errlen, "out of memory");
	return -1;
}
