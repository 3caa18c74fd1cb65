// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of lib/base/clock.c's counter calibration: the choice among
 * the windows' rates resists one disturbed window on either side (the old
 * "lowest of three" took a window stretched by a delay between its two
 * reads), and on this machine the calibration agrees with the counter's
 * rate as the CPU states it (arm64's CNTFRQ_EL0), else the kernel's (x86's
 * TSC), else a long window's.
 */
#include <math.h>
#include <stdlib.h>

#include "lib/base/clock.h"
#include "lib/base/ktap.h"

int main(void)
{
	/* 2.0 GHz; one window lost ticks to a delay, one gained */
	double low[] = { 2.0e9, 2.0e9, 1.6e9, 2.0e9, 2.0e9 };
	double high[] = { 2.0e9, 2.4e9, 2.0e9, 2.0e9, 2.0e9 };
	double both[] = { 1.7e9, 2.0e9, 2.3e9, 2.0e9, 2.0e9 };
	double rates[CLOCK_CAL_WINDOWS], one[1], ref_hz, hz;
	const char *ref;

	ksft_print_header();
	ksft_set_plan(5);
	ksft_test_result(clock_counter_rate_choose(low, 5) == 2.0e9,
			 "a window with too few ticks is not chosen");
	ksft_test_result(clock_counter_rate_choose(high, 5) == 2.0e9,
			 "a window with too many ticks is not chosen");
	ksft_test_result(clock_counter_rate_choose(both, 5) == 2.0e9,
			 "one disturbed window on each side: the middle is chosen");

	if (!HAVE_COUNTER || !counter_usable()) {
		ksft_test_result_code(KSFT_SKIP, "no constant-rate counter", "calibration runs");
		ksft_test_result_code(KSFT_SKIP, "no constant-rate counter",
				      "calibration agrees with the reference rate within 0.1%%");
		ksft_finished();
	}
	hz = clock_counter_calibrate(rates, CLOCK_CAL_WINDOWS, CLOCK_CAL_WINDOW_NS);
	/* TSCs tick at GHz; arm64's counters from about 1 MHz (qemu's at 62.5) */
	ksft_print_msg("calibration gives %.0f Hz\n", hz);
	ksft_test_result(hz > 1e6 && hz < 1e11, "calibration runs");
	/*
	 * The reference: the rate the CPU states, else the kernel's own
	 * scaling where it publishes it, else one long (0.5 s) bracketed
	 * window, whose endpoint errors weigh 25 times less than a 20 ms
	 * window's.
	 */
	ref_hz = counter_hz_arch();
	ref = "the CPU's stated";
	if (!ref_hz) {
		ref_hz = clock_counter_hz_kernel();
		ref = "the kernel's";
	}
	if (!ref_hz) {
		ref_hz = clock_counter_calibrate(one, 1, 500000000ULL);
		ref = "a 0.5 s window's";
	}
	ksft_print_msg("calibrated %.0f Hz against %s %.0f Hz (%+.4f%%)\n",
		       hz, ref, ref_hz, 100 * (hz / ref_hz - 1));
	ksft_test_result(fabs(hz / ref_hz - 1) < 1e-3,
			 "calibration agrees with the reference rate within 0.1%%");
	ksft_finished();
}
