// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cleanup.h"
#include "ktap.h"

static struct {
	unsigned int plan;
	unsigned int num;
	unsigned int pass, fail, skip, xfail;
} ktap;
/* The first failed write of the report (stdout), 0 while none failed. */
static int report_errno;

/*
 * The reader gone: the rest of the report goes to /dev/null, so the run
 * measures and saves to the end without a write to the closed pipe.
 */
static void ktap_drop_report(void)
{
	int fd = open("/dev/null", O_WRONLY | O_CLOEXEC);

	if (fd < 0)
		return;
	dup2(fd, STDOUT_FILENO);
	close(fd);
	clearerr(stdout);
}

/* a printf() that filled the buffer may have failed first: errno is its */
static void ktap_flush(void)
{
	if ((fflush(stdout) || ferror(stdout)) && !report_errno) {
		report_errno = errno ? errno : EIO;
		if (report_errno == EPIPE)
			ktap_drop_report();
	}
}

int ktap_report_errno(void)
{
	ktap_flush();
	return report_errno;
}

bool ktap_reader_gone(void)
{
	return report_errno == EPIPE;
}

void ksft_print_header(void)
{
	printf("KTAP version 1\n");
	ktap_flush();
}

void ksft_set_plan(unsigned int plan)
{
	ktap.plan = plan;
	printf("1..%u\n", plan);
	ktap_flush();
}

unsigned int ksft_test_num(void)
{
	return ktap.num;
}

unsigned int ksft_get_fail_cnt(void)
{
	return ktap.fail;
}

void ksft_print_msg(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	printf("# ");
	vprintf(fmt, ap);
	va_end(ap);
	ktap_flush();
}

static void ktap_result(const char *status, const char *directive,
			const char *reason, const char *fmt, va_list ap)
{
	printf("%s %u ", status, ++ktap.num);
	vprintf(fmt, ap);
	if (directive)
		printf(" # %s%s%s", directive, reason ? " " : "",
		       reason ? reason : "");
	printf("\n");
	ktap_flush();
}

void ksft_test_result_pass(const char *fmt, ...)
{
	va_list ap;

	ktap.pass++;
	va_start(ap, fmt);
	ktap_result("ok", NULL, NULL, fmt, ap);
	va_end(ap);
}

void ksft_test_result_fail(const char *fmt, ...)
{
	va_list ap;

	ktap.fail++;
	va_start(ap, fmt);
	ktap_result("not ok", NULL, NULL, fmt, ap);
	va_end(ap);
}

/* The skip reason is the formatted text itself, as in kselftest.h. */
void ksft_test_result_skip(const char *fmt, ...)
{
	va_list ap;

	ktap.skip++;
	va_start(ap, fmt);
	printf("ok %u # SKIP ", ++ktap.num);
	vprintf(fmt, ap);
	printf("\n");
	ktap_flush();
	va_end(ap);
}

void ksft_test_result_xfail(const char *fmt, ...)
{
	va_list ap;

	ktap.xfail++;
	va_start(ap, fmt);
	ktap_result("ok", "XFAIL", NULL, fmt, ap);
	va_end(ap);
}

int ksft_test_result(int cond, const char *fmt, ...)
{
	va_list ap;

	if (cond)
		ktap.pass++;
	else
		ktap.fail++;
	va_start(ap, fmt);
	ktap_result(cond ? "ok" : "not ok", NULL, NULL, fmt, ap);
	va_end(ap);
	return cond;
}

void ksft_test_result_code(int code, const char *reason, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	switch (code) {
	case KSFT_PASS:
		ktap.pass++;
		ktap_result("ok", NULL, NULL, fmt, ap);
		break;
	case KSFT_SKIP:
		ktap.skip++;
		ktap_result("ok", "SKIP", reason, fmt, ap);
		break;
	default:
		ktap.fail++;
		ktap_result("not ok", NULL, NULL, fmt, ap);
		if (reason)
			ksft_print_msg("%s\n", reason);
		break;
	}
	va_end(ap);
}

/*
 * An interrupted run ends the way the signal would have ended it (exit
 * status 128 + signal in a shell), after reporting and saving what it
 * measured: see cleanup_exit_interrupted(). A run whose reader left ends
 * by SIGPIPE (141), as a shell pipeline's writer does, once it has
 * finished and saved. A pass or skip whose report could not be written
 * (stdout at a full disk) is not one: exit 1.
 */
static noreturn void ktap_exit(int code)
{
	int lost;

	cleanup_run_all();
	lost = ktap_report_errno();
	if (bench_stop)
		cleanup_exit_interrupted();
	if (ktap_reader_gone())
		cleanup_exit_by_signal(SIGPIPE);
	if (lost && (code == KSFT_PASS || code == KSFT_SKIP)) {
		fprintf(stderr, "%s: writing the report to stdout failed: %s\n",
			program_invocation_short_name, strerror(report_errno));
		code = KSFT_FAIL;
	}
	exit(code);
}

void ksft_finished(void)
{
	if (ktap.plan && ktap.num != ktap.plan)
		ksft_print_msg("planned %u tests but ran %u\n", ktap.plan,
			       ktap.num);
	printf("# Totals: pass:%u fail:%u xfail:%u xpass:0 skip:%u error:0\n",
	       ktap.pass, ktap.fail, ktap.xfail, ktap.skip);
	if (ktap.fail || (ktap.plan && ktap.num != ktap.plan))
		ktap_exit(KSFT_FAIL);
	if (ktap.skip && !ktap.pass && !ktap.xfail)
		ktap_exit(KSFT_SKIP);
	ktap_exit(KSFT_PASS);
}

void ksft_exit_pass(void)
{
	ktap_exit(KSFT_PASS);
}

void ksft_exit_fail(void)
{
	ktap_exit(KSFT_FAIL);
}

void ksft_exit_fail_msg(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	printf("Bail out! ");
	vprintf(fmt, ap);
	va_end(ap);
	ktap_exit(KSFT_FAIL);
}

/* A whole-program skip: plan of zero with the reason, as kselftest does. */
void ksft_exit_skip(const char *fmt, ...)
{
	va_list ap;

	if (!ktap.num && !ktap.plan)
		printf("1..0 # SKIP ");
	else
		printf("# SKIP ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	ktap_exit(KSFT_SKIP);
}

void exit_usage_status(int status, const char *prog, const char *fmt,
		       va_list ap)
{
	ktap_flush();
	fprintf(stderr, "%s: ", prog);
	vfprintf(stderr, fmt, ap);
	fprintf(stderr, "\n");
	ktap_exit(status);
}

void ksft_exit_usage(const char *prog, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	exit_usage_status(KSFT_FAIL, prog, fmt, ap);
}
