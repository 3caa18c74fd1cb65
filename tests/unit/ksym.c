// SPDX-License-Identifier: GPL-2.0
/* Unit tests of kallsyms lookups: a symbol by name, the function an address lies in (lib/kernel/ksym.h). */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/base/ktap.h"
#include "lib/kernel/ksym.h"

/* A kallsyms as the kernel writes it, out of order as modules come last. */
static const char kallsyms[] =
	"ffffffff81000000 T _stext\n"
	"ffffffff81000000 T startup_64\n"
	"ffffffff81001000 t process_timeout\n"
	"ffffffff81001080 T tick_nohz_handler\n"
	"ffffffff81001c00 W weak_fn\n"
	"ffffffff81001e00 t $x\n"
	"ffffffff81002000 D jiffies\n"
	"0000000000000100 A abs_sym\n"
	"ffffffffc0001000 t mod_fn\t[mymod]\n"
	"ffffffff81001800 T schedule\n"
	"ffffffff81005000 t helper.cold\n"
	"0000000000000000 T hidden\n"
	"junk\n"
	"ffffffff81003000 T last_no_newline";

static int name_is(const struct ksym_table *t, unsigned long long addr, const char *want)
{
	const char *got = ksym_table_name(t, addr);

	if (!got || !want)
		return got == want;
	return !strcmp(got, want);
}

/* ksym_find: what @sym finds in @path (-1: nothing), its address in *@addr. */
static int found(const char *path, const char *sym, bool clones, unsigned long long want)
{
	unsigned long long addr = ~0ULL;

	return !ksym_find(path, sym, clones, &addr) && addr == want;
}

static void find_checks(const char *path)
{
	unsigned long long addr;

	ksft_test_result(found(path, "process_timeout", false, 0xffffffff81001000ULL) &&
			 found(path, "mod_fn", false, 0xffffffffc0001000ULL),
			 "a symbol by its name, a module's too, with its address");
	ksft_test_result(ksym_find(path, "helper", false, &addr) == -1 &&
			 found(path, "helper", true, 0xffffffff81005000ULL),
			 "a compiler clone found only when asked");
	ksft_test_result(ksym_find(path, "process", true, &addr) == -1 &&
			 ksym_find(path, "timeout", true, &addr) == -1 &&
			 ksym_find(path, "nosuch", true, &addr) == -1,
			 "a part of a name never matches");
	ksft_test_result(found(path, "hidden", false, 0) &&
			 found(path, "last_no_newline", false, 0xffffffff81003000ULL),
			 "a hidden address is 0; a last line without a newline read");
}

int main(void)
{
	char path[] = "/tmp/isolbench-ksym-XXXXXX";	/* mkstemp() fills in the Xs */
	struct ksym_table *t;
	int fd = mkstemp(path);

	ksft_print_header();
	ksft_set_plan(12);
	if (fd < 0 || write(fd, kallsyms, strlen(kallsyms)) != (ssize_t)strlen(kallsyms))
		ksft_exit_fail_msg("cannot write %s\n", path);
	close(fd);
	find_checks(path);
	t = ksym_table_load(path);
	unlink(path);
	if (!t)
		ksft_exit_fail_msg("ksym_table_load failed\n");
	ksft_test_result(name_is(t, 0xffffffff81001000ULL, "process_timeout") &&
			 name_is(t, 0xffffffff81001040ULL, "process_timeout"),
			 "an address at or inside a function names it");
	ksft_test_result(name_is(t, 0xffffffff81001900ULL, "schedule"),
			 "lines out of address order sorted");
	ksft_test_result(name_is(t, 0xffffffff81000000ULL, "_stext"),
			 "of two names of one address, the first listed");
	ksft_test_result(name_is(t, 0xffffffff81002010ULL, NULL) && name_is(t, 4295000000ULL, NULL),
			 "data and numbers below the first symbol name no function");
	ksft_test_result(name_is(t, 0xffffffffc0001010ULL, "mod_fn") &&
			 name_is(t, 0xffffffffc0001000ULL + (2ULL << 20), NULL),
			 "a module's function without its module; the last one's reach bounded");
	ksft_test_result(name_is(t, 0xffffffff81001c10ULL, "weak_fn") &&
			 name_is(t, 0xffffffff81001e10ULL, "weak_fn") &&
			 name_is(t, 0x180ULL, NULL),
			 "a weak function named; mapping and absolute symbols bound nothing");
	ksft_test_result(name_is(t, 0xffffffff81003010ULL, "last_no_newline"),
			 "a last line without a newline read");
	ksft_test_result(ksym_table_load("/nonexistent/kallsyms") == NULL,
			 "an unreadable file: no table");
	ksym_table_free(t);
	ksft_finished();
}
