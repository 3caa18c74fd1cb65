// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <fnmatch.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "../base/cleanup.h"
#include "counters.h"
#include "../base/util.h"

static int perf_open(struct counter *c, struct perf_event_attr *attr,
		     pid_t pid, int cpu)
{
	attr->size = sizeof(*attr);
	attr->disabled = 1;
	attr->inherit = 0;
	c->fd = syscall(SYS_perf_event_open, attr, pid, cpu, -1,
			PERF_FLAG_FD_CLOEXEC);
	if (c->fd >= 0)
		return 0;
	if (errno == ENOENT || errno == EOPNOTSUPP || errno == ENODEV)
		snprintf(c->error, sizeof(c->error), "%s: not supported",
			 c->name);
	else if (errno == EACCES || errno == EPERM)
		snprintf(c->error, sizeof(c->error),
			 "%s: no permission (root or perf_event_paranoid <= 0 needed)",
			 c->name);
	else
		snprintf(c->error, sizeof(c->error), "%s: %s", c->name,
			 strerror(errno));
	return -1;
}

int counter_open_sw(struct counter *c, uint64_t config, pid_t pid, int cpu)
{
	struct perf_event_attr attr;

	memset(c, 0, sizeof(*c));
	memset(&attr, 0, sizeof(attr));
	snprintf(c->name, sizeof(c->name), "software event %llu",
		 (unsigned long long)config);
	attr.type = PERF_TYPE_SOFTWARE;
	attr.config = config;
	return perf_open(c, &attr, pid, cpu);
}

int counter_open_sw_sampling(struct counter *c, uint64_t config, pid_t pid, int cpu,
			     uint64_t freq_hz)
{
	struct perf_event_attr attr;

	memset(c, 0, sizeof(*c));
	memset(&attr, 0, sizeof(attr));
	snprintf(c->name, sizeof(c->name), "software event %llu at %llu Hz",
		 (unsigned long long)config, (unsigned long long)freq_hz);
	attr.type = PERF_TYPE_SOFTWARE;
	attr.config = config;
	attr.freq = 1;
	attr.sample_freq = freq_hz;
	attr.sample_type = PERF_SAMPLE_IP;
	return perf_open(c, &attr, pid, cpu);
}

int counter_open_hw(struct counter *c, uint64_t config, pid_t pid, int cpu)
{
	static const char *const names[] = {
		[PERF_COUNT_HW_CPU_CYCLES] = "cycles",
		[PERF_COUNT_HW_INSTRUCTIONS] = "instructions",
	};
	struct perf_event_attr attr;

	memset(c, 0, sizeof(*c));
	memset(&attr, 0, sizeof(attr));
	snprintf(c->name, sizeof(c->name), "%s",
		 config < ARRAY_SIZE(names) && names[config] ? names[config]
							     : "hardware event");
	attr.type = PERF_TYPE_HARDWARE;
	attr.config = config;
	return perf_open(c, &attr, pid, cpu);
}

static char tracefs_dir[64];

static void tracefs_unmount(void *arg)
{
	umount2((const char *)arg, MNT_DETACH);
}

const char *tracefs_path(void)
{
	static const char *const candidates[] = {
		"/sys/kernel/tracing", "/sys/kernel/debug/tracing",
	};
	char probe[128];

	if (tracefs_dir[0])
		return tracefs_dir;
	for (size_t i = 0; i < ARRAY_SIZE(candidates); i++) {
		snprintf(probe, sizeof(probe), "%s/events", candidates[i]);
		if (!access(probe, F_OK)) {
			snprintf(tracefs_dir, sizeof(tracefs_dir), "%s",
				 candidates[i]);
			return tracefs_dir;
		}
	}
	/* Not mounted: mount it for this run and take it away again after. */
	if (!mount("tracefs", candidates[0], "tracefs", 0, NULL)) {
		snprintf(tracefs_dir, sizeof(tracefs_dir), "%s", candidates[0]);
		cleanup_push(tracefs_unmount, (void *)candidates[0]);
		return tracefs_dir;
	}
	return NULL;
}

static int tracepoint_id(const char *event, char *err, size_t errlen)
{
	const char *tfs = tracefs_path();
	char path[256], sys[64], buf[32];
	const char *colon = strchr(event, ':');
	uint64_t id;

	if (!colon || colon - event >= (long)sizeof(sys)) {
		snprintf(err, errlen, "bad tracepoint name '%s'", event);
		return -1;
	}
	if (!tfs) {
		snprintf(err, errlen, "%s: tracefs not available (%s)", event,
			 strerror(errno));
		return -1;
	}
	memcpy(sys, event, colon - event);
	sys[colon - event] = '\0';
	snprintf(path, sizeof(path), "%s/events/%s/%s/id", tfs, sys, colon + 1);
	if (read_file_line(path, buf, sizeof(buf)) <= 0 || parse_u64(buf, &id)) {
		snprintf(err, errlen, "%s: no such tracepoint on this kernel",
			 event);
		return -1;
	}
	return (int)id;
}

int tracepoint_exists(const char *event)
{
	char err[160];

	return tracepoint_id(event, err, sizeof(err)) >= 0;
}

int counter_open_tracepoint(struct counter *c, const char *event,
			    const char *filter, pid_t pid, int cpu)
{
	struct perf_event_attr attr;
	int id;

	memset(c, 0, sizeof(*c));
	memset(&attr, 0, sizeof(attr));
	snprintf(c->name, sizeof(c->name), "%s", event);
	id = tracepoint_id(event, c->error, sizeof(c->error));
	if (id < 0) {
		c->fd = -1;
		return -1;
	}
	attr.type = PERF_TYPE_TRACEPOINT;
	attr.config = id;
	if (perf_open(c, &attr, pid, cpu))
		return -1;
	if (filter && ioctl(c->fd, PERF_EVENT_IOC_SET_FILTER, filter)) {
		int e = errno;	/* EINVAL: a filter this kernel cannot parse */

		snprintf(c->error, sizeof(c->error), "%s: filter '%s' rejected: %s",
			 event, filter, strerror(e));
		counter_close(c);
		errno = e;
		return -1;
	}
	return 0;
}

int counter_enable(struct counter *c)
{
	if (ioctl(c->fd, PERF_EVENT_IOC_RESET, 0))
		return -1;
	return ioctl(c->fd, PERF_EVENT_IOC_ENABLE, 0);
}

int counter_disable(struct counter *c)
{
	return ioctl(c->fd, PERF_EVENT_IOC_DISABLE, 0);
}

uint64_t counter_read(struct counter *c)
{
	uint64_t v;

	if (c->fd < 0 || read(c->fd, &v, sizeof(v)) != sizeof(v))
		return UINT64_MAX;
	return v;
}

void counter_close(struct counter *c)
{
	if (c->fd >= 0)
		close(c->fd);
	c->fd = -1;
}

/* Header "           CPU0       CPU1" gives the CPU of each column. */
static int irq_header_parse(char *line, struct irq_table *t)
{
	char *tok, *save;
	int n = 0;

	t->cpu_of_col = calloc(strlen(line) / 4 + 1, sizeof(int));
	if (!t->cpu_of_col)
		return -1;
	for (tok = strtok_r(line, " \t\n", &save); tok;
	     tok = strtok_r(NULL, " \t\n", &save)) {
		uint64_t cpu;

		if (strncmp(tok, "CPU", 3) || parse_u64(tok + 3, &cpu))
			return -1;
		t->cpu_of_col[n++] = (int)cpu;
	}
	t->ncpus = n;
	return n ? 0 : -1;
}

static int irq_row_parse(char *line, struct irq_table *t, struct irq_row *r)
{
	char *p = line, *colon = strchr(line, ':');
	size_t namelen;

	if (!colon)
		return -1;
	while (*p == ' ')
		p++;
	namelen = colon - p;
	if (namelen >= sizeof(r->name))
		namelen = sizeof(r->name) - 1;
	memcpy(r->name, p, namelen);
	r->name[namelen] = '\0';
	r->count = calloc(t->ncpus, sizeof(*r->count));
	if (!r->count)
		return -1;
	p = colon + 1;
	/* Rows such as ERR and MIS carry one number only. */
	for (int i = 0; i < t->ncpus; i++) {
		char *end;

		while (*p == ' ')
			p++;
		if (*p < '0' || *p > '9')
			break;
		r->count[i] = strtoull(p, &end, 10);
		p = end;
	}
	while (*p == ' ')
		p++;
	snprintf(r->desc, sizeof(r->desc), "%.*s", (int)strcspn(p, "\n"), p);
	return 0;
}

int irq_table_read(const char *path, struct irq_table *t)
{
	char *buf = read_file_all(path, NULL), *line, *save;
	int cap = 64;

	memset(t, 0, sizeof(*t));
	if (!buf)
		return -1;
	line = strtok_r(buf, "\n", &save);
	if (!line || irq_header_parse(line, t))
		goto fail;
	t->rows = calloc(cap, sizeof(*t->rows));
	while (t->rows && (line = strtok_r(NULL, "\n", &save))) {
		if (t->nrows == cap) {
			struct irq_row *n = realloc(t->rows, 2 * cap * sizeof(*n));

			if (!n)
				goto fail;
			t->rows = n;
			cap *= 2;
		}
		if (!irq_row_parse(line, t, &t->rows[t->nrows]))
			t->nrows++;
	}
	free(buf);
	return t->rows ? 0 : -1;
fail:
	free(buf);
	irq_table_free(t);
	return -1;
}

void irq_table_free(struct irq_table *t)
{
	for (int i = 0; i < t->nrows; i++)
		free(t->rows[i].count);
	free(t->rows);
	free(t->cpu_of_col);
	memset(t, 0, sizeof(*t));
}

/*
 * The rows x86 names RES, CAL, IWI and LOC have numbers elsewhere: arm64
 * lists its IPIs as IPI0, IPI1, ... with the same descriptions, and its
 * tick is the generic timer's interrupt, "GICv3  27 Level  arch_timer".
 */
static const struct {
	const char *name, *desc;	/* desc: fnmatch() pattern */
} irq_row_kinds[] = {
	{ "RES", "Rescheduling interrupts" },
	{ "CAL", "Function call interrupts" },
	{ "IWI", "IRQ work interrupts" },
	{ "LOC", "* arch_timer" },
};

static const char *irq_row_kind_desc(const char *name)
{
	for (size_t i = 0; i < ARRAY_SIZE(irq_row_kinds); i++)
		if (!strcmp(irq_row_kinds[i].name, name))
			return irq_row_kinds[i].desc;
	return NULL;
}

static int irq_table_col(const struct irq_table *t, int cpu)
{
	for (int c = 0; c < t->ncpus; c++)
		if (t->cpu_of_col[c] == cpu)
			return c;
	return -1;
}

/* The row named @name, else the sum of the rows its kind's description matches. */
int64_t irq_table_count(const struct irq_table *t, const char *name, int cpu)
{
	const char *desc = irq_row_kind_desc(name);
	int col = irq_table_col(t, cpu);
	int64_t sum = -1;

	if (col < 0)
		return -1;
	for (int r = 0; r < t->nrows; r++)
		if (!strcmp(t->rows[r].name, name))
			return (int64_t)t->rows[r].count[col];
	for (int r = 0; desc && r < t->nrows; r++)
		if (!fnmatch(desc, t->rows[r].desc, 0))
			sum = (sum < 0 ? 0 : sum) + (int64_t)t->rows[r].count[col];
	return sum;
}

int64_t irq_table_delta(const struct irq_table *before,
			const struct irq_table *after, const char *name,
			int cpu)
{
	int64_t a = irq_table_count(before, name, cpu);
	int64_t b = irq_table_count(after, name, cpu);

	return a < 0 || b < 0 ? -1 : b - a;
}

int cpu_steal_ns(int cpu, uint64_t *ns)
{
	char *txt = read_file_all("/proc/stat", NULL), key[24];
	unsigned long long f[8];
	const char *l;
	long hz = sysconf(_SC_CLK_TCK);
	int ret = -1;

	snprintf(key, sizeof(key), "cpu%d ", cpu);
	for (l = txt; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
		if (strncmp(l, key, strlen(key)))
			continue;
		/* user nice system idle iowait irq softirq steal */
		if (sscanf(l + strlen(key), "%llu %llu %llu %llu %llu %llu %llu %llu", &f[0], &f[1],
			   &f[2], &f[3], &f[4], &f[5], &f[6], &f[7]) == 8 && hz > 0) {
			*ns = f[7] * (1000000000ULL / hz);
			ret = 0;
		}
		break;
	}
	free(txt);
	return ret;
}
