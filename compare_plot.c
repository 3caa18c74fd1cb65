// SPDX-License-Identifier: GPL-2.0
#include <math.h>
#include <string.h>

#include "compare_plot.h"

#define PLOT_ROWS	4	/* samples stacked at most this high */

static const char plot_symbols[] = "x+o*#@%&";

static int plot_col(double v, double lo, double hi, int w)
{
	if (!(hi > lo))
		return w / 2;
	return (int)lround((v - lo) / (hi - lo) * (w - 1));
}

static void plot_series_rows(FILE *f, const struct plot_series *s, char sym,
			     double lo, double hi, int w)
{
	int count[PLOT_MAX_WIDTH] = { 0 }, top = 0;
	char line[PLOT_MAX_WIDTH + 1];

	line[w] = '\0';
	for (size_t k = 0; k < s->n; k++) {
		int col = plot_col(s->samples[k], lo, hi, w);

		if (++count[col] > top)
			top = count[col];
	}
	for (int row = top < PLOT_ROWS ? top : PLOT_ROWS; row >= 1; row--) {
		for (int x = 0; x < w; x++) {
			line[x] = count[x] >= row ? sym : ' ';
			/* a column taller than the plot shows its count */
			if (row == PLOT_ROWS && count[x] > PLOT_ROWS && count[x] < 10)
				line[x] = '0' + count[x];
		}
		fprintf(f, "|%s|\n", line);
	}
	memset(line, ' ', w);
	if (s->n > 1) {
		int a = plot_col(fmax(lo, s->st->mean - s->st->stddev), lo, hi, w);
		int b = plot_col(fmin(hi, s->st->mean + s->st->stddev), lo, hi, w);

		for (int x = a; x <= b; x++)
			line[x] = '_';
		line[a] = line[b] = '|';
	}
	line[plot_col(s->st->median, lo, hi, w)] = 'M';
	line[plot_col(s->st->mean, lo, hi, w)] = 'A';
	fprintf(f, "|%s|\n", line);
}

void compare_plot_ascii(FILE *f, const struct plot_series *s, size_t ns, int width)
{
	int w = (width > PLOT_MAX_WIDTH ? PLOT_MAX_WIDTH : width) - 2;
	double lo = INFINITY, hi = -INFINITY;
	char frame[PLOT_MAX_WIDTH + 1];

	if (w < 8)
		return;
	for (size_t i = 0; i < ns; i++)
		for (size_t k = 0; s[i].st && k < s[i].n; k++) {
			lo = fmin(lo, s[i].samples[k]);
			hi = fmax(hi, s[i].samples[k]);
		}
	if (!isfinite(lo) || !isfinite(hi))
		return;
	memset(frame, '-', w);
	frame[w] = '\0';
	fprintf(f, "+%s+\n", frame);
	for (size_t i = 0; i < ns; i++)
		if (s[i].st && s[i].n)
			plot_series_rows(f, &s[i], plot_symbols[i % (sizeof(plot_symbols) - 1)],
					 lo, hi, w);
	fprintf(f, "+%s+\n", frame);
	for (size_t i = 0; i < ns; i++)
		fprintf(f, "%s%c %s", i ? "  " : "",
			plot_symbols[i % (sizeof(plot_symbols) - 1)], s[i].label);
	fprintf(f, "   (A mean, M median, |_| +-1 stddev)\n");
}
