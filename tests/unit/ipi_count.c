// SPDX-License-Identifier: GPL-2.0
/* Unit tests of lib/ipi.c: a counter that cannot be read counts nothing. */
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "lib/ipi.h"
#include "lib/ktap.h"

int main(void)
{
	struct ipi_count c;
	int ret;

	ksft_print_header();
	ksft_set_plan(2);
	/* /dev/zero reads as a counter at 0, /dev/null as a failed read */
	memset(&c, 0, sizeof(c));
	c.sent.fd = open("/dev/zero", O_RDONLY);
	c.sent_mask.fd = open("/dev/zero", O_RDONLY);
	c.elided.fd = open("/dev/zero", O_RDONLY);
	c.queued.fd = -1;
	ret = ipi_count_read(&c);
	ksft_test_result(!ret && !c.real && !c.elided_n, "readable counters: 0 calls counted");
	close(c.sent_mask.fd);
	c.sent_mask.fd = open("/dev/null", O_RDONLY);
	ret = ipi_count_read(&c);
	ksft_test_result(ret == -1 && !c.real && strstr(c.why, "ipi_send_cpumask"),
			 "failed read: not counted, reason '%s' (real %llu)", c.why,
			 (unsigned long long)c.real);
	ksft_finished();
}
