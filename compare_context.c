// SPDX-License-Identifier: GPL-2.0
/*
 * compare: the context above the tables: what ran where, each side's
 * kernel build, and the differences that make a comparison suspect.
 */
#include <stdio.h>
#include <string.h>

#include "compare_common.h"
#include "lib/base/util.h"

static const char *or_unknown(const char *s)
{
	return s[0] ? s : "?";
}

static const char *isolation_of(const struct result *r)
{
	return or_unknown(r->cpus_isolation);
}

/*
 * The @k-th result read for side @s: each test's first, then the runs
 * pooled into them.
 */
static const struct result *side_result(const struct side *s, size_t k)
{
	return k < s->nres ? &s->res[k] : &s->more[k - s->nres];
}

static const char *file_name(const char *path)
{
	const char *slash = strrchr(path, '/');

	return or_unknown(slash ? slash + 1 : path);
}

static bool build_files_same(const struct result_build_file *a, size_t na,
			     const struct result_build_file *b, size_t nb)
{
	if (na != nb)
		return false;
	for (size_t i = 0; i < na; i++)
		if (strcmp(file_name(a[i].file), file_name(b[i].file)) ||
		    strcmp(a[i].sha256, b[i].sha256))
			return false;
	return true;
}

/*
 * Whether @a and @b record one build: every member compare reads, a
 * file by its name and content (the same patch from another checkout
 * is the same patch).
 */
static bool build_same(const struct result_kernel_build *a,
		       const struct result_kernel_build *b)
{
	if (a->present != b->present)
		return false;
	return !a->present ||
	       (!strcmp(a->source, b->source) && !strcmp(a->source_id, b->source_id) &&
		!strcmp(a->key, b->key) && !strcmp(a->release, b->release) &&
		!strcmp(a->compiler, b->compiler) &&
		!strcmp(a->config_sha256, b->config_sha256) &&
		build_files_same(a->patches, a->npatches, b->patches, b->npatches) &&
		build_files_same(a->config_fragments, a->nconfig_fragments,
				 b->config_fragments, b->nconfig_fragments));
}

/* "patch: NAME SHA256" per file (12 digits of it), or "patches: none". */
static void build_files_print(const char *md, const char *one, const char *all,
			      const struct result_build_file *f, size_t n)
{
	char lead[48], text[512];

	if (!n)
		printf("%s          %s: none\n", md, all);
	for (size_t i = 0; i < n; i++) {
		snprintf(lead, sizeof(lead), "%s          %s: ", md, one);
		snprintf(text, sizeof(text), "%s %.12s", file_name(f[i].file),
			 or_unknown(f[i].sha256));
		compare_wrapped(lead, text, 2, -1);
	}
}

/*
 * One build after @lead: its source and source_id (@where: the result
 * it was read from, and how many more of the side's results share it),
 * then its patches and config fragments.
 */
static void build_print(const char *md, const char *lead,
			const struct result_kernel_build *b, const char *where)
{
	char text[4400];
	size_t n;

	if (b->present)
		n = snprintf(text, sizeof(text), "%s, %s", or_unknown(b->source),
			     or_unknown(b->source_id));
	else
		n = snprintf(text, sizeof(text), "none recorded");
	if (where && n < sizeof(text))
		snprintf(text + n, sizeof(text) - n, " (%s)", where);
	compare_wrapped(lead, text, 3, -1);
	if (!b->present)
		return;
	build_files_print(md, "patch", "patches", b->patches, b->npatches);
	build_files_print(md, "config", "config fragments", b->config_fragments,
			  b->nconfig_fragments);
}

/* Whether no result before the @k-th of @s has its build. */
static bool build_first(const struct side *s, size_t k)
{
	for (size_t j = 0; j < k; j++)
		if (build_same(&side_result(s, j)->build, &side_result(s, k)->build))
			return false;
	return true;
}

/*
 * The kernel build of side @s when its results carry it: one, or each
 * of the builds its results disagree on (pooled runs of other builds,
 * or some without the record), never one of them for all.
 */
static void print_builds(const char *md, const struct side *s)
{
	size_t n = s->nres + s->nmore, builds = 0, shown = 0;
	char lead[48], where[4200];

	for (size_t k = 0; k < n; k++)
		builds += build_first(s, k);
	if (builds == 1) {
		snprintf(lead, sizeof(lead), "%s          build: ", md);
		if (s->res[0].build.present)
			build_print(md, lead, &s->res[0].build, NULL);
		return;
	}
	printf("%s          build: its results disagree: %zu different kernel builds\n",
	       md, builds);
	for (size_t k = 0; k < n; k++) {
		const struct result *r = side_result(s, k);
		size_t more = 0;

		if (!build_first(s, k))
			continue;
		for (size_t j = k + 1; j < n; j++)
			more += build_same(&side_result(s, j)->build, &r->build);
		if (more)
			snprintf(where, sizeof(where), "%s and %zu more", r->path, more);
		else
			snprintf(where, sizeof(where), "%s", r->path);
		snprintf(lead, sizeof(lead), "%s          build %zu: ", md, ++shown);
		build_print(md, lead, &r->build, where);
	}
}

/* Once above the tables: what ran where, and what differs. */
void compare_context_print(const struct compare *c)
{
	const struct result *b = &c->sides[0].res[0];
	const char *md = "  ";

	if (c->o.markdown)
		printf("```\n");
	printf("%s%zu kernels, the first is the base. Statistics: mean, median,\n"
	       "CoV (stddev/mean); change of the mean with its 95%% CI and Welch's\n"
	       "t-test (* = significant, p < %.2f).\n\n",
	       c->o.markdown ? "" : "compare: ", c->nsides, CMP_ALPHA);
	for (size_t i = 0; i < c->nsides; i++) {
		const struct side *s = &c->sides[i];
		const struct result *r = &s->res[0];
		char lead[48], text[4400], more[32];

		snprintf(lead, sizeof(lead), "%s%-8s  ", md, s->label);
		if (s->noperands > 1)
			snprintf(more, sizeof(more), " and %zu more", s->noperands - 1);
		snprintf(text, sizeof(text), "%s%s (%s%s)", r->sys.kernel_release,
			 r->sys.emulated ? " [emulated]" : "", s->path,
			 s->noperands > 1 ? more : "");
		compare_wrapped(lead, text, 3, -1);
		printf("%s          cpu %s (%s), %s\n", md,
		       r->cpus, isolation_of(r), r->sys.cpu_model);
		if (i && !strcmp(r->sys.cmdline, b->sys.cmdline)) {
			printf("%s          cmdline: same as %s\n", md, c->sides[0].label);
		} else {
			snprintf(lead, sizeof(lead), "%s          cmdline: ", md);
			compare_wrapped(lead, or_unknown(r->sys.cmdline), 3, -1);
		}
		print_builds(md, s);
	}
	for (size_t i = 1; i < c->nsides; i++) {
		const struct result *r = &c->sides[i].res[0];
		const char *l = c->sides[i].label, *bl = c->sides[0].label;

		if (strcmp(r->sys.hostname, b->sys.hostname) ||
		    strcmp(r->sys.cpu_model, b->sys.cpu_model))
			compare_warn("%s and %s ran on different machines or CPUs", bl, l);
		if (strcmp(r->cpus, b->cpus) ||
		    strcmp(isolation_of(r), isolation_of(b)))
			compare_warn("%s measured cpu %s (%s), %s cpu %s (%s)", l,
			     r->cpus, isolation_of(r), bl, b->cpus, isolation_of(b));
		if (r->sys.emulated != b->sys.emulated)
			compare_warn("%s ran emulated (TCG), %s did not: emulated timings mean little",
			     r->sys.emulated ? l : bl, r->sys.emulated ? bl : l);
	}
	printf("%s\n", c->o.markdown ? "```" : "");
}
