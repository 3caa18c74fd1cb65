// SPDX-License-Identifier: GPL-2.0
/* Unit tests of the cpulist and hex bitmask parsers and the formatter, bad input included. */
#include <string.h>

#include "lib/base/cpu.h"
#include "lib/base/ktap.h"

static void parse_ok(const char *in, const char *want, int count)
{
	cpu_mask_t m;
	char err[160], out[256];
	int ret = cpu_mask_parse(in, &m, err, sizeof(err));

	cpu_mask_format(&m, out, sizeof(out));
	ksft_test_result(!ret && !strcmp(out, want) && CPU_COUNT(&m) == count,
			 "parse '%s' -> '%s' (%d CPUs), got '%s' (%d)", in, want,
			 count, ret ? err : out, CPU_COUNT(&m));
}

/* A cpumask as the trace prints it ("%*pb"), to the cpulist @want; NULL: refused. */
static void parse_hex(const char *in, const char *want)
{
	cpu_mask_t m;
	char out[256];
	int ret = cpu_mask_parse_hex(in, strlen(in), &m);

	cpu_mask_format(&m, out, sizeof(out));
	if (!want)
		ksft_test_result(ret == -1, "hex '%s' refused", in);
	else
		ksft_test_result(!ret && !strcmp(out, want), "hex '%s' -> '%s', got '%s'",
				 in, want, ret ? "refused" : out);
}

static void parse_bad(const char *in)
{
	cpu_mask_t m;
	char err[160] = "";

	ksft_test_result(cpu_mask_parse(in, &m, err, sizeof(err)) == -1 && err[0],
			 "reject '%s' (%s)", in, err);
}

int main(void)
{
	static const char *const bad[] = {
		"", "x", "1-", "-1", "3-1", "1,,2", "1,", ",1", "1 2", "0x3",
		"1-4:0/2", "1-4:3/2", "1-4:1", "2000", "1-99999", "1-3/2",
	};
	struct cpu_sets sets;
	cpu_mask_t one;
	char err[160];
	const char *reason;
	int cpu;

	ksft_print_header();
	ksft_set_plan(11 + sizeof(bad) / sizeof(bad[0]) + 7 + 3);

	parse_ok("0", "0", 1);
	parse_ok("2-5,8", "2-5,8", 5);
	parse_ok("8,2-5", "2-5,8", 5);
	parse_ok("0-3,2-5", "0-5", 6);
	parse_ok("0-15:2/4", "0-1,4-5,8-9,12-13", 8);
	parse_ok("1023", "1023", 1);
	parse_ok("0,2,4,6", "0,2,4,6", 4);
	parse_ok("5-5", "5", 1);
	parse_ok("0-9:1/1", "0-9", 10);
	parse_ok("3,1", "1,3", 2);
	parse_ok("0-1023", "0-1023", 1024);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		parse_bad(bad[i]);
	/* the trace's cpumask: CPUs 2 and 3 are "c", not CPU 12 or a list */
	parse_hex("c", "2-3");
	parse_hex("00000000,0000000c", "2-3");
	parse_hex("2", "1");
	parse_hex("00000001,80000000", "31-32");
	parse_hex("0", "");
	parse_hex("0-3", NULL);
	parse_hex("", NULL);

	/* The default target rule on a synthetic machine of 8 CPUs. */
	memset(&sets, 0, sizeof(sets));
	cpu_mask_parse("0-7", &sets.online, err, sizeof(err));
	sets.allowed = sets.online;
	cpu = cpu_target_default(&sets, &reason);
	ksft_test_result(cpu == 7, "no isolation: highest online CPU 7 (got %d, %s)",
			 cpu, reason);
	cpu_mask_parse("4-7", &sets.isolated, err, sizeof(err));
	cpu_mask_parse("5-7", &sets.nohz_full, err, sizeof(err));
	cpu = cpu_target_default(&sets, &reason);
	ksft_test_result(cpu == 5, "first nohz_full CPU 5 wins (got %d, %s)", cpu,
			 reason);
	CPU_ZERO(&one);
	CPU_SET(5, &one);
	cpu_housekeeping_default(&sets, &one, &one);
	{
		char buf[64];

		cpu_mask_format(&one, buf, sizeof(buf));
		ksft_test_result(!strcmp(buf, "0-3"),
				 "housekeeping excludes targets and isolated CPUs: '%s'",
				 buf);
	}
	ksft_finished();
}
