// SPDX-License-Identifier: GPL-2.0
/* Unit test of metric_add_rates(): one sample per window, a count per span. */
#include <math.h>
#include <stdlib.h>

#include "lib/base/ktap.h"
#include "lib/result/result_write.h"

struct window {
	double count, seconds;
};

static double window_count(const void *arg, size_t i, double *span)
{
	const struct window *w = arg;

	*span = w[i].seconds;
	return w[i].count;
}

int main(void)
{
	const struct window w[] = { { 10, 2 }, { 3, 0.5 }, { 7, 0 }, { 0, 1 } };
	struct metric m;

	ksft_print_header();
	ksft_set_plan(4);
	metric_init(&m, "x_per_s", "x/s", BETTER_LOWER, "x per second of one window");
	metric_add_rates(&m, 4, w, window_count);
	ksft_print_msg("samples: %zu\n", m.n);
	ksft_test_result(m.n == 4, "one sample per window");
	ksft_test_result(m.n == 4 && m.samples[0] == 5 && m.samples[1] == 6,
			 "each window's count over its own span, in window order");
	ksft_test_result(m.n == 4 && isnan(m.samples[2]), "a window of no span is NAN, not a rate");
	ksft_test_result(m.n == 4 && m.samples[3] == 0, "a window of no count is 0");
	free(m.samples);
	ksft_finished();
}
