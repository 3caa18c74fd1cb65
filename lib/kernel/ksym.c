// SPDX-License-Identifier: GPL-2.0
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../base/util.h"
#include "ksym.h"

/* Whether @name is @sym, or with @clones a compiler clone (@sym.cold, @sym.part.N). */
static bool name_matches(const char *name, size_t len, const char *sym, bool clones)
{
	size_t n = strlen(sym);

	if (len < n || strncmp(name, sym, n))
		return false;
	return len == n || (clones && name[n] == '.');
}

int ksym_find(const char *path, const char *sym, bool clones, unsigned long long *addr)
{
	char *all = read_file_all(path, NULL), *line, *next, *p;
	int ret = -1;

	/* "ADDR TYPE NAME[\t[MODULE]]" a line */
	for (line = all; line && *line && ret; line = next) {
		next = strchr(line, '\n');
		next = next ? next + 1 : line + strlen(line);
		p = memchr(line, ' ', next - line);
		if (!p || next - p < 4 || p[2] != ' ')
			continue;
		if (name_matches(p + 3, strcspn(p + 3, " \t\n"), sym, clones)) {
			*addr = strtoull(line, NULL, 16);
			ret = 0;
		}
	}
	free(all);
	return ret;
}

int ksym_addr(const char *sym, unsigned long long *addr)
{
	return !ksym_find("/proc/kallsyms", sym, false, addr) && *addr ? 0 : -1;
}

bool ksym_exists(const char *sym)
{
	unsigned long long addr;

	return !ksym_find("/proc/kallsyms", sym, true, &addr);
}

struct ksym {
	unsigned long long addr;
	const char *name;	/* NULL: no text symbol, the end of one before */
	size_t line;
};

struct ksym_table {
	char *text;		/* the file, its names cut out in place */
	struct ksym *syms;
	size_t n;
};

/* How far above the last symbol an address still lies in it. */
#define KSYM_LAST_REACH	(1ULL << 20)

static int by_addr(const void *a, const void *b)
{
	const struct ksym *x = a, *y = b;

	/* of the names of one address, the lookup takes the last: the first text one listed */
	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	if (!x->name != !y->name)
		return x->name ? 1 : -1;
	return x->line < y->line ? 1 : x->line > y->line ? -1 : 0;
}

/* One "ADDR TYPE NAME [MODULE]" line: its address and, if text, its name. */
static bool ksym_parse(char *line, struct ksym *s)
{
	char *p, *name;

	s->addr = strtoull(line, &p, 16);
	if (p == line || *p != ' ' || !p[1] || p[2] != ' ')
		return false;
	name = p + 3;
	name[strcspn(name, " \t")] = '\0';
	/* absolute values and arm's mapping symbols ($x, $d) bound nothing */
	if (p[1] == 'a' || p[1] == 'A' || name[0] == '$')
		return false;
	/* text, weak ones too (%ps names them); data ends the function below it */
	s->name = strchr("tTwW", p[1]) ? name : NULL;
	return s->addr != 0;
}

struct ksym_table *ksym_table_load(const char *path)
{
	struct ksym_table *t = calloc(1, sizeof(*t));
	size_t lines = 1;	/* the last one may have no newline */
	char *line, *nl, *next;

	if (!t)
		return NULL;
	/* one read and names cut in place: no allocation per symbol */
	t->text = read_file_all(path, NULL);
	for (line = t->text; line && (nl = strchr(line, '\n')); line = nl + 1)
		lines++;
	t->syms = t->text ? calloc(lines + 1, sizeof(*t->syms)) : NULL;
	if (!t->syms) {
		ksym_table_free(t);
		return NULL;
	}
	for (line = t->text; *line; line = next) {
		nl = strchr(line, '\n');
		next = nl ? nl + 1 : line + strlen(line);
		if (nl)
			*nl = '\0';
		t->syms[t->n].line = t->n;
		if (ksym_parse(line, &t->syms[t->n]))
			t->n++;
	}
	qsort(t->syms, t->n, sizeof(*t->syms), by_addr);
	return t;
}

const char *ksym_table_name(const struct ksym_table *t, unsigned long long addr)
{
	size_t lo = 0, hi = t->n;

	/* the last symbol at or below @addr */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (t->syms[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo || (lo == t->n && addr - t->syms[lo - 1].addr >= KSYM_LAST_REACH))
		return NULL;
	return t->syms[lo - 1].name;
}

void ksym_table_free(struct ksym_table *t)
{
	if (!t)
		return;
	free(t->syms);
	free(t->text);
	free(t);
}
