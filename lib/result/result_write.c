// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../base/json_read.h"
#include "../base/ktap.h"
#include "result_write.h"
#include "../base/util.h"

void metric_init(struct metric *m, const char *name, const char *unit,
		 enum better better, const char *aggregate)
{
	memset(m, 0, sizeof(*m));
	snprintf(m->name, sizeof(m->name), "%s", name);
	m->unit = unit;
	m->better = better;
	snprintf(m->aggregate, sizeof(m->aggregate), "%s", aggregate);
	metric_sample_noun(m, "run", "runs");
}

void metric_sample_noun(struct metric *m, const char *one, const char *many)
{
	m->noun = one;
	m->nouns = many;
}

void metric_add(struct metric *m, double v)
{
	if (m->n == m->cap) {
		size_t cap = m->cap ? 2 * m->cap : 16;
		double *s = realloc(m->samples, cap * sizeof(*s));

		if (!s)
			return;	/* keep what we have; reported as n */
		m->samples = s;
		m->cap = cap;
	}
	m->samples[m->n++] = v;
}

void metric_add_rates(struct metric *m, size_t n, const void *arg,
		      double (*count)(const void *arg, size_t i, double *span))
{
	for (size_t i = 0; i < n; i++) {
		double span = 0, c = count(arg, i, &span);

		metric_add(m, span > 0 ? c / span : NAN);
	}
}

void metric_name_part(char *dst, size_t len, const char *name, size_t max)
{
	size_t i = 0;

	for (; *name && i + 1 < len && i < max; name++)
		dst[i++] = (*name >= 'a' && *name <= 'z') || (*name >= '0' && *name <= '9') ?
			   *name : (*name >= 'A' && *name <= 'Z') ? *name - 'A' + 'a' : '_';
	if (len)
		dst[i] = '\0';
}

void metric_kind(struct metric *m, enum metric_kind kind)
{
	m->kind = kind;
}

void metric_family(struct metric *m, const char *family)
{
	m->family = family;
}

void metric_extra(struct metric *m, const char *key, double value)
{
	for (int i = 0; i < m->nextras; i++) {
		if (!strcmp(m->extras[i].key, key)) {
			m->extras[i].value = value;
			return;
		}
	}
	if (m->nextras < METRIC_MAX_EXTRAS)
		m->extras[m->nextras++] = (struct metric_extra){ key, value };
}

void metric_summary(struct metric *m, const char *label,
		    const char *context_fmt, ...)
{
	va_list ap;

	snprintf(m->summary_label, sizeof(m->summary_label), "%s", label);
	va_start(ap, context_fmt);
	vsnprintf(m->summary_context, sizeof(m->summary_context), context_fmt, ap);
	va_end(ap);
}

/* Enough digits to compare, not more: 270.4, 12.35, 1.234 */
static int summary_decimals(double v)
{
	v = fabs(v);
	return v >= 100 ? 1 : v >= 10 ? 2 : 3;
}

/* "getpid: cpu 3 (nohz_full) 10000000 calls, avg 270.4 ns (median ...)" */
void metric_report(struct metric *m)
{
	const struct stats *s = &m->st;
	double ci;
	int d;

	if (m->n)
		stats_compute(m->samples, m->n, &m->st);
	if (!m->summary_label[0] || !m->n)
		return;
	ci = s->mean ? 100 * (s->ci95_mean_hi - s->mean) / fabs(s->mean) : 0;
	d = summary_decimals(s->mean);
	if (m->n == 1) {
		ksft_print_msg("%s: %s, %.*f %s (1 %s)\n", m->summary_label,
			       m->summary_context, d, s->mean, m->unit, m->noun);
		return;
	}
	ksft_print_msg("%s: %s, avg %.*f %s (median %.*f, 95%% CI +-%.1f%%, %zu %s)\n",
		       m->summary_label, m->summary_context, d, s->mean, m->unit,
		       d, s->median, ci, m->n, m->nouns);
}

static const char *verdict_str(int code)
{
	return code == KSFT_PASS ? "pass" : code == KSFT_SKIP ? "skip" : "fail";
}

static void stats_json(struct json *j, const struct stats *s)
{
	json_object_start(j, "summary");
	json_u64(j, "n", s->n);
	json_double(j, "min", s->min);
	json_double(j, "max", s->max);
	json_double(j, "mean", s->mean);
	json_double(j, "median", s->median);
	json_double(j, "stddev", s->stddev);
	json_double(j, "cov", s->cov);
	json_double(j, "p50", s->p50);
	json_double(j, "p90", s->p90);
	json_double(j, "p99", s->p99);
	json_double(j, "p99_9", s->p999);
	json_array_start(j, "ci95_mean");
	json_double(j, NULL, s->ci95_mean_lo);
	json_double(j, NULL, s->ci95_mean_hi);
	json_array_end(j);
	json_array_start(j, "ci95_median");
	json_double(j, NULL, s->ci95_median_lo);
	json_double(j, NULL, s->ci95_median_hi);
	json_array_end(j);
	json_double(j, "ci_median_confidence", s->ci_median_confidence);
	json_object_end(j);
}

static void hist_json(struct json *j, const struct hist *h)
{
	json_object_start(j, "histogram");
	json_double(j, "lo", h->lo);
	json_double(j, "width", h->width);
	json_u64(j, "underflow", h->under);
	json_u64(j, "overflow", h->over);
	json_u64(j, "count", h->count);
	json_double(j, "min", h->min);
	json_double(j, "max", h->max);
	json_double(j, "p50", hist_quantile(h, 0.5));
	json_double(j, "p90", hist_quantile(h, 0.9));
	json_double(j, "p99", hist_quantile(h, 0.99));
	json_double(j, "p99_9", hist_quantile(h, 0.999));
	/* sparse: [bucket index, count] pairs of the non-empty buckets */
	json_array_start(j, "buckets");
	for (size_t i = 0; i < h->nbuckets; i++) {
		if (!h->buckets[i])
			continue;
		json_array_start(j, NULL);
		json_u64(j, NULL, i);
		json_u64(j, NULL, h->buckets[i]);
		json_array_end(j);
	}
	json_array_end(j);
	json_object_end(j);
}

static void metric_json(struct json *j, const struct metric *m)
{
	json_object_start(j, NULL);
	json_string(j, "name", m->name);
	json_string(j, "unit", m->unit);
	json_string(j, "better", better_str(m->better));
	if (m->kind != KIND_DERIVED)
		json_string(j, "kind", m->kind == KIND_COUNT ? "count" : "timing");
	if (m->family)
		json_string(j, "family", m->family);
	json_string(j, "aggregate", m->aggregate);
	if (m->summary_label[0])
		json_string(j, "label", m->summary_label);
	if (m->summary_context[0])
		json_string(j, "context", m->summary_context);
	json_array_start(j, "samples");
	for (size_t i = 0; i < m->n; i++)
		json_double(j, NULL, m->samples[i]);
	json_array_end(j);
	if (m->n)
		stats_json(j, &m->st);
	if (m->nextras) {
		json_object_start(j, "extra");
		for (int i = 0; i < m->nextras; i++)
			json_double(j, m->extras[i].key, m->extras[i].value);
		json_object_end(j);
	}
	if (m->hist && m->hist->count)
		hist_json(j, m->hist);
	json_object_end(j);
}

/* Containers nested in @v, @v included: 0 for a number or string. */
static int jr_depth(const struct jr_value *v)
{
	int max = 0;

	if (v->type != JR_ARRAY && v->type != JR_OBJECT)
		return 0;
	for (const struct jr_value *c = v->child; c; c = c->next) {
		int d = jr_depth(c);

		if (d > max)
			max = d;
	}
	return max + 1;
}

/*
 * The build record of the running kernel (vm/kbuild.sh's build.json,
 * which vm/guest-init.sh names in KERNEL_BUILD_ENV): a JSON object, or
 * NULL with the reason in @err.
 */
static struct jr_value *kernel_build_read(const char *path, char *err,
					  size_t errlen)
{
	struct jr_value *v;
	struct stat st;
	size_t len;
	char *buf;

	if (stat(path, &st)) {
		snprintf(err, errlen, "%s", strerror(errno));
		return NULL;
	}
	if (!S_ISREG(st.st_mode) || st.st_size > KERNEL_BUILD_MAX_BYTES) {
		snprintf(err, errlen, "not a regular file of at most %u KiB",
			 KERNEL_BUILD_MAX_BYTES >> 10);
		return NULL;
	}
	buf = read_file_all(path, &len);
	if (!buf) {
		snprintf(err, errlen, "%s", strerror(errno));
		return NULL;
	}
	v = jr_parse(buf, len, err, errlen);
	free(buf);
	if (!v)
		return NULL;
	if (v->type != JR_OBJECT)
		snprintf(err, errlen, "a JSON %s, not an object", jr_type_name(v->type));
	else if (jr_depth(v) > JSON_MAX_DEPTH - 2)	/* inside the document */
		snprintf(err, errlen, "nested deeper than %d levels", JSON_MAX_DEPTH - 2);
	else
		return v;
	jr_free(v);
	return NULL;
}

/*
 * "kernel_build": the build record as it is. One that cannot be read or
 * does not parse is named on stderr, and the result goes without it.
 */
static void kernel_build_json(struct json *j, const char *program)
{
	const char *path = getenv(KERNEL_BUILD_ENV);
	struct jr_value *v;
	char err[256];

	if (!path || !*path)
		return;
	v = kernel_build_read(path, err, sizeof(err));
	if (!v) {
		fflush(stdout);
		fprintf(stderr, "%s: %s '%s': %s; the result is written without kernel_build\n",
			program, KERNEL_BUILD_ENV, path, err);
		return;
	}
	json_value(j, "kernel_build", v);
	jr_free(v);
}

void result_write(FILE *f, const struct result_doc *d)
{
	struct json j;

	json_begin(&j, f);
	json_object_start(&j, NULL);
	json_string(&j, "schema", RESULT_SCHEMA);
	json_u64(&j, "schema_version", RESULT_VERSION);
	json_string(&j, "program", d->program);
	json_string(&j, "test", d->test);
	json_string(&j, "isolbench_version", isolbench_version());
	d->context(&j, d->arg);
	json_array_start(&j, "metrics");
	for (int i = 0; i < d->nmetrics; i++)
		metric_json(&j, &d->metrics[i]);
	json_array_end(&j);
	if (d->nfamilies) {
		json_array_start(&j, "families");
		for (int i = 0; i < d->nfamilies; i++) {
			json_object_start(&j, NULL);
			json_string(&j, "name", d->families[i].name);
			json_string(&j, "pattern", d->families[i].pattern);
			json_string(&j, "unit", d->families[i].unit);
			json_u64(&j, "samples", d->families[i].samples);
			json_object_end(&j);
		}
		json_array_end(&j);
	}
	json_array_start(&j, "verdicts");
	for (int i = 0; i < d->nverdicts; i++) {
		const struct verdict *v = &d->verdicts[i];

		json_object_start(&j, NULL);
		json_string(&j, "name", v->name);
		json_string(&j, "result", verdict_str(v->code));
		if (v->reason[0])
			json_string(&j, "reason", v->reason);
		json_object_end(&j);
	}
	json_array_end(&j);
	kernel_build_json(&j, d->program);
	json_object_end(&j);
}

const char *isolbench_version(void)
{
	return "0.1";
}
