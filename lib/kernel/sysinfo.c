// SPDX-License-Identifier: GPL-2.0
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>

#include "../base/arch_x86.h"
#include "../base/clock.h"
#include "sysinfo.h"
#include "../base/topo.h"
#include "../base/util.h"

const char *sysinfo_hypervisor(bool *emulated)
{
	static const struct {
		const char *sig, *name;
	} known[] = {
		{ "KVMKVMKVM", "kvm" }, { "TCGTCGTCGTCG", "tcg" },
		{ "Microsoft Hv", "hyperv" }, { "VMwareVMware", "vmware" },
		{ "XenVMMXenVMM", "xen" }, { "VBoxVBoxVBox", "virtualbox" },
		{ "ACRNACRNACRN", "acrn" }, { "bhyve bhyve ", "bhyve" },
	};
	char sig[13];

	*emulated = false;
	cpu_hypervisor_signature(sig);
	if (!sig[0])
		return "none";
	for (size_t i = 0; i < ARRAY_SIZE(known); i++) {
		if (!strncmp(sig, known[i].sig, strlen(known[i].sig))) {
			*emulated = !strcmp(known[i].name, "tcg");
			return known[i].name;
		}
	}
	return "unknown";
}

static void cpu_model(char *buf, size_t len)
{
	char *info = read_file_all("/proc/cpuinfo", NULL), *p;

	snprintf(buf, len, "unknown");
	if (!info)
		return;
	p = strstr(info, "model name");
	if (p)
		p = strchr(p, ':');
	if (p)
		snprintf(buf, len, "%.*s", (int)strcspn(p + 2, "\n"), p + 2);
	free(info);
}

static void mask_json(struct json *j, const char *key, const cpu_mask_t *m)
{
	char buf[1024];

	json_string(j, key, cpu_mask_format(m, buf, sizeof(buf)));
}

static void mitigations_json(struct json *j)
{
	const char *dir = "/sys/devices/system/cpu/vulnerabilities";
	DIR *d = opendir(dir);
	struct dirent *e;

	json_object_start(j, "mitigations");
	while (d && (e = readdir(d))) {
		char path[512], val[256];

		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		if (read_file_line(path, val, sizeof(val)) >= 0)
			json_string(j, e->d_name, val);
	}
	if (d)
		closedir(d);
	json_object_end(j);
}

void sysinfo_json(struct json *j, const struct cpu_sets *sets, int target)
{
	struct cpu_topology topo;
	struct utsname u;
	char buf[4096], path[128];
	bool emulated;
	const char *hv = sysinfo_hypervisor(&emulated);

	uname(&u);
	json_object_start(j, "system");
	json_string(j, "kernel_release", u.release);
	json_string(j, "kernel_version", u.version);
	json_string(j, "machine", u.machine);
	json_string(j, "hostname", u.nodename);
	if (read_file_line("/proc/cmdline", buf, sizeof(buf)) >= 0)
		json_string(j, "cmdline", buf);
	cpu_model(buf, sizeof(buf));
	json_string(j, "cpu_model", buf);
	mask_json(j, "online", &sets->online);
	mask_json(j, "possible", &sets->possible);
	mask_json(j, "isolated", &sets->isolated);
	mask_json(j, "nohz_full", &sets->nohz_full);
	if (!cpu_topology_read(&topo)) {
		json_object_start(j, "topology");
		json_i64(j, "packages", topo.packages);
		json_i64(j, "numa_nodes", topo.numa_nodes);
		if (topo.llcs >= 0)
			json_i64(j, "llcs", topo.llcs);
		else
			json_null(j, "llcs");
		json_i64(j, "cores", topo.cores);
		json_i64(j, "pus", topo.pus);
		json_i64(j, "target_numa_node", cpu_numa_node(target));
		json_string(j, "source", topo.source);
		json_string(j, "numa_source", topo.numa_source);
		json_object_end(j);
	}
	if (read_file_line("/sys/devices/system/cpu/smt/active", buf, sizeof(buf)) > 0)
		json_bool(j, "smt_active", !strcmp(buf, "1"));
	else
		json_null(j, "smt_active");
	snprintf(path, sizeof(path),
		 "/sys/devices/system/cpu/cpu%d/cpufreq/scaling_governor", target);
	if (read_file_line(path, buf, sizeof(buf)) > 0)
		json_string(j, "governor", buf);
	else
		json_null(j, "governor");
	if (read_file_line("/sys/devices/system/clocksource/clocksource0/current_clocksource",
			   buf, sizeof(buf)) > 0)
		json_string(j, "clocksource", buf);
	json_string(j, "clock", bench_clock.source);
	json_double(j, "tsc_hz", bench_clock.use_tsc ? bench_clock.tsc_hz : 0);
	json_string(j, "tsc_hz_source", bench_clock.hz_source);
	json_double(j, "clock_overhead_ns", bench_clock.overhead_ns);
	json_string(j, "hypervisor", hv);
	json_bool(j, "virtualized", strcmp(hv, "none") != 0);
	json_bool(j, "emulated", emulated);
	mitigations_json(j);
	json_object_end(j);
}
