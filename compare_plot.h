/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ministat-style ASCII plot of a few sets of samples on one axis: per
 * set, its samples stacked as symbols, then |__A__M__| for mean +-1
 * stddev, mean and median; a legend line below.
 */
#ifndef ISOLBENCH_COMPARE_PLOT_H
#define ISOLBENCH_COMPARE_PLOT_H

#include <stddef.h>
#include <stdio.h>

#include "lib/base/stats.h"

#define PLOT_MAX_WIDTH	200

struct plot_series {
	const char *label;
	const double *samples;
	size_t n;
	const struct stats *st;	/* of the samples; NULL or n == 0: left out */
};

/* @width columns in all (frame included), at most PLOT_MAX_WIDTH. */
void compare_plot_ascii(FILE *f, const struct plot_series *s, size_t ns, int width);

#endif
