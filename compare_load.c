// SPDX-License-Identifier: GPL-2.0
/*
 * compare: the result files of each kernel read, the results of one
 * test on one kernel pooled, and every file and directory read kept so
 * that no output replaces one.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "compare_common.h"

/* Keep @path (owned) among the files read for @s. */
static const char *side_name(struct compare *c, struct side *s, const char *path)
{
	char **names = realloc(s->names, (s->nnames + 1) * sizeof(*names));

	if (!names)
		compare_die(c, "out of memory");
	s->names = names;
	names[s->nnames] = strdup(path);
	if (!names[s->nnames])
		compare_die(c, "out of memory");
	return s->names[s->nnames++];
}

/* Keep @path (stat as @st) among the inputs no output may be. */
static void input_add(struct compare *c, const char *path, const struct stat *st)
{
	struct compare_input *in = realloc(c->inputs, (c->ninputs + 1) * sizeof(*in));

	if (!in)
		compare_die(c, "out of memory");
	c->inputs = in;
	in[c->ninputs++] = (struct compare_input){ path, st->st_dev, st->st_ino,
						   S_ISDIR(st->st_mode) };
}

/*
 * A result pooled twice would count its samples twice and narrow the
 * interval: the same content (the same file, a copy) on one side again
 * is an argument error, also under --bisect (255, not the new run's 125).
 */
static void side_check_once(struct compare *c, const struct side *s,
			    const struct result *first, const struct result *r)
{
	const struct result *same = NULL;
	int eq = jr_equal(first->doc, r->doc);

	if (eq == 1)
		same = first;
	for (size_t k = 0; k < s->nmore && eq == 0; k++) {
		if (strcmp(s->more[k].test, r->test))
			continue;
		eq = jr_equal(s->more[k].doc, r->doc);
		if (eq == 1)
			same = &s->more[k];
	}
	if (eq < 0)
		compare_die(c, "out of memory");
	if (!same)
		return;
	c->error_exit = c->o.bisect ? BISECT_ERROR : EXIT_USAGE;
	compare_die(c, "kernel %s: %s and %s are the same result of %s: one run pooled twice",
		    s->label, same->path, r->path, r->test);
}

/* Where operand @path of a side starts in its results and pooled runs. */
struct operand {
	const char *path;
	size_t first_res, first_more;
};

/* Whether operand @op already gave side @s a result of @test. */
static const char *operand_has(const struct side *s, const struct operand *op, const char *test)
{
	for (size_t i = op->first_res; i < s->nres; i++)
		if (!strcmp(s->res[i].test, test))
			return s->res[i].path;
	for (size_t i = op->first_more; i < s->nmore; i++)
		if (!strcmp(s->more[i].test, test))
			return s->more[i].path;
	return NULL;
}

/*
 * One result file of operand @op of side @s: a test the side has not
 * seen yet, or another run of one it has from an earlier operand, pooled
 * into it. The same test twice in one operand is an error.
 */
static void side_add_file(struct compare *c, struct side *s, const struct operand *op,
			  const char *path)
{
	const char *name = side_name(c, s, path), *twice;
	struct result r, *more;
	char err[1024];

	struct stat st;

	if (result_load(name, &r, err, sizeof(err)))
		compare_die(c, "%s", err);
	if (!stat(name, &st))
		input_add(c, name, &st);
	twice = operand_has(s, op, r.test);
	if (twice)
		compare_die(c, "%s: two results of %s (%s and %s)", op->path, r.test, twice, r.path);
	for (size_t i = 0; i < s->nres; i++) {
		if (strcmp(s->res[i].test, r.test))
			continue;
		side_check_once(c, s, &s->res[i], &r);
		more = realloc(s->more, (s->nmore + 1) * sizeof(*more));
		if (!more)
			compare_die(c, "out of memory");
		s->more = more;
		s->more[s->nmore] = r;
		/* pooled results point into their own documents, not into s->more */
		if (result_pool(&s->res[i], &s->more[s->nmore], err, sizeof(err)))
			compare_die(c, "cannot pool the runs of %s as kernel %s: %s", r.test,
				    s->label, err);
		s->nmore++;
		return;
	}
	if (s->nres == MAX_RESULTS)
		compare_die(c, "%s: results of more than %d tests", s->path, MAX_RESULTS);
	s->res[s->nres++] = r;
}

bool compare_is_result_name(const char *name)
{
	size_t n = strlen(name);

	return n > 5 && !strcmp(name + n - 5, ".json") && name[0] != '.';
}

static int is_json(const struct dirent *e)
{
	return compare_is_result_name(e->d_name);
}

void compare_side_load(struct compare *c, struct side *s, const char *path)
{
	const struct operand op = { path, s->nres, s->nmore };
	struct dirent **list;
	struct stat st;
	int n;

	if (stat(path, &st))
		compare_die(c, "%s: %s", path, strerror(errno));
	if (!S_ISDIR(st.st_mode)) {
		side_add_file(c, s, &op, path);
		return;
	}
	input_add(c, path, &st);
	n = scandir(path, &list, is_json, alphasort);
	if (n < 0)
		compare_die(c, "%s: %s", path, strerror(errno));
	if (!n)
		compare_die(c, "%s: no result files (*.json) in this directory", path);
	for (int i = 0; i < n; i++) {
		char file[4096];

		snprintf(file, sizeof(file), "%s/%s", path, list[i]->d_name);
		side_add_file(c, s, &op, file);
		free(list[i]);
	}
	free(list);
}

void compare_sides_free(struct compare *c)
{
	for (size_t i = 0; i < c->nsides; i++) {
		struct side *s = &c->sides[i];

		for (size_t k = 0; k < s->nres; k++)
			result_free(&s->res[k]);
		for (size_t k = 0; k < s->nmore; k++)
			result_free(&s->more[k]);
		for (size_t k = 0; k < s->nnames; k++)
			free(s->names[k]);
		free(s->more);
		free(s->names);
	}
	free(c->inputs);
}
