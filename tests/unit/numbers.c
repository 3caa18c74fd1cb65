// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of lib/base/util.c's number parsing: one syntax for every
 * option, whole numbers in it exactly ("1e3" is 1000, "1.5" is refused).
 */
#include <stdint.h>

#include "lib/base/ktap.h"
#include "lib/base/util.h"

struct whole_case {
	const char *in;
	int ret;
	int64_t want;
};

int main(void)
{
	static const struct whole_case cases[] = {
		{ "0", 0, 0 }, { "1000", 0, 1000 }, { "1e3", 0, 1000 },
		{ "1E3", 0, 1000 }, { "2.5e3", 0, 2500 }, { "1e+3", 0, 1000 },
		{ "-4", 0, -4 }, { "-0", 0, 0 }, { "0.0", 0, 0 }, { "0e-5", 0, 0 },
		{ "1000e-3", 0, 1 }, { "12.50e1", 0, 125 }, { "007", 0, 7 },
		{ "10000000000000e-13", 0, 1 }, { "1e12", 0, 1000000000000LL },
		{ "9223372036854775807", 0, INT64_MAX },
		{ "-9223372036854775808", 0, INT64_MIN },
		{ "1.5", NUM_FRACTION, 0 }, { "1e-3", NUM_FRACTION, 0 },
		{ "0.5", NUM_FRACTION, 0 }, { "2.55e1", NUM_FRACTION, 0 },
		{ "1000000000000.0000001", NUM_FRACTION, 0 },
		{ "123456789012345678901.5", NUM_FRACTION, 0 },
		{ "9223372036854775808", NUM_RANGE, 0 }, { "1e19", NUM_RANGE, 0 },
		{ "1e999999999999", NUM_RANGE, 0 },
		{ "", NUM_SYNTAX, 0 }, { "+5", NUM_SYNTAX, 0 }, { " 1", NUM_SYNTAX, 0 },
		{ "1 ", NUM_SYNTAX, 0 }, { "0x10", NUM_SYNTAX, 0 }, { "1e", NUM_SYNTAX, 0 },
		{ "e3", NUM_SYNTAX, 0 }, { "inf", NUM_SYNTAX, 0 }, { "nan", NUM_SYNTAX, 0 },
		{ "1,000", NUM_SYNTAX, 0 }, { "--1", NUM_SYNTAX, 0 },
	};
	int good = 0;
	uint64_t u;
	double d;

	ksft_print_header();
	ksft_set_plan(4);
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		int64_t v = -12345;
		int ret = parse_whole(cases[i].in, &v);

		if (ret == cases[i].ret && (ret || v == cases[i].want))
			good++;
		else
			ksft_print_msg("parse_whole('%s'): %d, %lld; want %d, %lld\n",
				       cases[i].in, ret, (long long)v, cases[i].ret,
				       (long long)cases[i].want);
	}
	ksft_test_result(good == (int)ARRAY_SIZE(cases),
			 "parse_whole: %d of %zu cases", good, ARRAY_SIZE(cases));
	ksft_test_result(!parse_double("2.5e3", &d) && d == 2500 &&
			 parse_double("+1", &d) && parse_double("1e", &d),
			 "parse_double: the same syntax");
	/* kernel files and CPU numbers stay digits only */
	ksft_test_result(!parse_u64("42", &u) && u == 42 && parse_u64("1e3", &u) &&
			 parse_u64("-1", &u), "parse_u64: digits only");
	ksft_test_result(parse_whole(NULL, &(int64_t){ 0 }) == NUM_SYNTAX,
			 "parse_whole: NULL is not a number");
	ksft_finished();
}
