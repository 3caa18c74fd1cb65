// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of ipistorm_count.c: a counter that cannot be read counts nothing;
 * without CPUS{} filters a send to a CPU mask makes the count unusable;
 * the delivery check fails short counts and more deliveries than calls.
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ipistorm_count.h"
#include "lib/base/ktap.h"

/* A file that reads once as a counter at @v. */
static int counter_file(uint64_t v)
{
	char path[] = "/tmp/isolbench-counter-XXXXXX";
	int fd = mkstemp(path);

	if (fd < 0 || write(fd, &v, sizeof(v)) != sizeof(v) || lseek(fd, 0, SEEK_SET))
		ksft_exit_fail_msg("counter file\n");
	unlink(path);
	return fd;
}

int main(void)
{
	struct ipi_count c;
	int ret;

	ksft_print_header();
	ksft_set_plan(10);
	/* /dev/zero reads as a counter at 0, /dev/null as a failed read */
	memset(&c, 0, sizeof(c));
	c.have_mask = true;
	c.sent.fd = open("/dev/zero", O_RDONLY);
	c.sent_mask.fd = open("/dev/zero", O_RDONLY);
	c.elided.fd = open("/dev/zero", O_RDONLY);
	c.queued.fd = -1;
	ret = ipistorm_count_read(&c);
	ksft_test_result(!ret && !c.real && !c.elided_n, "readable counters: 0 calls counted");
	close(c.sent_mask.fd);
	c.sent_mask.fd = open("/dev/null", O_RDONLY);
	ret = ipistorm_count_read(&c);
	ksft_test_result(ret == -1 && !c.real && strstr(c.why, "ipi_send_cpumask"),
			 "failed read: not counted, reason '%s' (real %llu)", c.why,
			 (unsigned long long)c.real);
	/* 6.3-6.5: no CPUS{}, ipi_send_cpumask counts every mask of the sender */
	close(c.sent.fd);
	close(c.sent_mask.fd);
	close(c.elided.fd);
	c.have_mask = true;
	c.sent.fd = counter_file(4000);
	c.sent_mask.fd = counter_file(5);
	c.elided.fd = open("/dev/zero", O_RDONLY);
	ret = ipistorm_count_read(&c);
	ksft_test_result(!ret && c.real == 4005, "with CPUS{}: sends to dst and to masks with dst add up");
	c.have_mask = false;
	close(c.sent.fd);
	close(c.sent_mask.fd);
	c.sent.fd = counter_file(4000);
	c.sent_mask.fd = open("/dev/zero", O_RDONLY);
	ret = ipistorm_count_read(&c);
	ksft_test_result(!ret && c.real == 4000,
			 "without CPUS{}: no send to a mask, the sends to dst are exact");
	close(c.sent.fd);
	close(c.sent_mask.fd);
	c.sent.fd = counter_file(4000);
	c.sent_mask.fd = counter_file(5);
	ret = ipistorm_count_read(&c);
	ksft_test_result(ret == -1 && !c.real && strstr(c.why, "CPUS{"),
			 "without CPUS{}: 5 sends to masks of unknown CPUs, not counted: '%s'", c.why);
	ksft_test_result(ipistorm_delivery_judge(4000, 4000) == IPI_DELIVERY_OK,
			 "4000 of 4000 delivered: ok");
	ksft_test_result(ipistorm_delivery_judge(4000, 3960) == IPI_DELIVERY_OK,
			 "3960 of 4000 (99%%): ok");
	ksft_test_result(ipistorm_delivery_judge(4000, 3959) == IPI_DELIVERY_SHORT,
			 "3959 of 4000: short");
	ksft_test_result(ipistorm_delivery_judge(4000, 4001) == IPI_DELIVERY_EXCESS,
			 "4001 of 4000: flagged, not passed");
	ksft_test_result(ipistorm_delivery_judge(0, 0) == IPI_DELIVERY_NONE,
			 "no call: not a pass");
	ksft_finished();
}
