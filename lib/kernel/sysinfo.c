// SPDX-License-Identifier: GPL-2.0
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>

#include "../base/arch.h"
#include "../base/clock.h"
#include "sysinfo.h"
#include "../base/topo.h"
#include "../base/util.h"

#if defined(__x86_64__) || defined(__i386__)
/* x86 names its hypervisor in CPUID: qemu's TCG signs as "TCGTCGTCGTCG". */
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
#else
/*
 * Elsewhere nothing signs. A CPU whose MIDR names implementer 0 ("for
 * software use") is a software model: qemu's TCG "max" CPU. Otherwise the
 * firmware tells a virtual board: a Xen node in the device tree, qemu's
 * "linux,dummy-virt" board, or DMI's vendor under UEFI; which accelerator
 * runs a qemu board the guest cannot tell.
 */
const char *sysinfo_hypervisor(bool *emulated)
{
	char buf[128];
	char *compat;
	size_t len;
	bool virt;

	*emulated = false;
	if (read_file_line("/sys/devices/system/cpu/cpu0/regs/identification/midr_el1",
			   buf, sizeof(buf)) > 0 && !(strtoull(buf, NULL, 0) >> 24 & 0xff)) {
		*emulated = true;
		return "tcg";
	}
	if (!access("/proc/device-tree/hypervisor", F_OK))
		return "xen";
	compat = read_file_all("/proc/device-tree/compatible", &len);
	/* a list of NUL-terminated strings: its first is the board */
	virt = compat && len && !strcmp(compat, "linux,dummy-virt");
	free(compat);
	if (virt || (read_file_line("/sys/class/dmi/id/sys_vendor", buf, sizeof(buf)) > 0 &&
		     !strcmp(buf, "QEMU")))
		return "qemu";
	return "none";
}
#endif
/* arm64's cpuinfo has no model name: its MIDR fields instead. */
static void cpu_model_arm(const char *info, char *buf, size_t len)
{
	const char *impl = strstr(info, "CPU implementer"), *part = strstr(info, "CPU part");

	impl = impl ? strchr(impl, ':') : NULL;
	part = part ? strchr(part, ':') : NULL;
	if (impl && part)
		snprintf(buf, len, "implementer %.*s part %.*s",
			 (int)strcspn(impl + 2, "\n"), impl + 2,
			 (int)strcspn(part + 2, "\n"), part + 2);
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
	else
		cpu_model_arm(info, buf, len);
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
	bool tsc = bench_clock.use_counter && !strcmp(bench_clock.source, "tsc");

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
	json_double(j, "clock_hz", bench_clock.counter_hz);
	json_string(j, "clock_hz_source", bench_clock.hz_source);
	/* the same by x86's older names, for the TSC only */
	json_double(j, "tsc_hz", tsc ? bench_clock.counter_hz : 0);
	json_string(j, "tsc_hz_source", tsc ? bench_clock.hz_source : "");
	json_double(j, "clock_overhead_ns", bench_clock.overhead_ns);
	json_string(j, "hypervisor", hv);
	json_bool(j, "virtualized", strcmp(hv, "none") != 0);
	json_bool(j, "emulated", emulated);
	mitigations_json(j);
	json_object_end(j);
}
