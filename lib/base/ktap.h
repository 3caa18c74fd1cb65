/* SPDX-License-Identifier: GPL-2.0 */
/*
 * KTAP output with the names and exit codes of the kernel's kselftest.h,
 * written for isolbench: a program prints a header, a plan, one result
 * line per check and exits with ksft_exit_*().
 */
#ifndef ISOLBENCH_KTAP_H
#define ISOLBENCH_KTAP_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdnoreturn.h>

#define KSFT_PASS	0
#define KSFT_FAIL	1
#define KSFT_XFAIL	2
#define KSFT_XPASS	3
#define KSFT_SKIP	4

#define __ktap_printf(a, b) __attribute__((format(printf, a, b)))

void ksft_print_header(void);
void ksft_set_plan(unsigned int plan);
unsigned int ksft_test_num(void);
void ksft_print_msg(const char *fmt, ...) __ktap_printf(1, 2);

void ksft_test_result_pass(const char *fmt, ...) __ktap_printf(1, 2);
void ksft_test_result_fail(const char *fmt, ...) __ktap_printf(1, 2);
void ksft_test_result_skip(const char *fmt, ...) __ktap_printf(1, 2);
void ksft_test_result_xfail(const char *fmt, ...) __ktap_printf(1, 2);
/* Pass when @cond holds, fail otherwise; returns @cond. */
int ksft_test_result(int cond, const char *fmt, ...) __ktap_printf(2, 3);
/* One result per outcome code (KSFT_PASS, KSFT_FAIL, KSFT_SKIP). */
void ksft_test_result_code(int code, const char *reason,
			   const char *fmt, ...) __ktap_printf(3, 4);

unsigned int ksft_get_fail_cnt(void);

/*
 * The error of the first write of the report (stdout) that failed, 0
 * when every one so far succeeded (it flushes stdout first).
 */
int ktap_report_errno(void);
/*
 * That error was EPIPE: stdout's reader left. Not an interruption: the
 * run goes on, its report to /dev/null, and exits by SIGPIPE at the end.
 */
bool ktap_reader_gone(void);

/* Exit with the code the counted results call for. */
noreturn void ksft_finished(void);
noreturn void ksft_exit_pass(void);
noreturn void ksft_exit_fail(void);
noreturn void ksft_exit_fail_msg(const char *fmt, ...) __ktap_printf(1, 2);
noreturn void ksft_exit_skip(const char *fmt, ...) __ktap_printf(1, 2);

/*
 * A usage error: one line on stderr, exit KSFT_FAIL. Never 2 or 3, which
 * the kselftest runner would read as XFAIL and XPASS.
 */
noreturn void ksft_exit_usage(const char *prog, const char *fmt, ...)
	__ktap_printf(2, 3);

/*
 * The same line with another exit status, for the tools that are not
 * kselftests (compare: 2, or 255 under --bisect).
 */
noreturn void exit_usage_status(int status, const char *prog,
				const char *fmt, va_list ap) __ktap_printf(3, 0);

#endif
