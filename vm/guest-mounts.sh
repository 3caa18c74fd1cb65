# SPDX-License-Identifier: GPL-2.0
# busybox ash; shellcheck knows no ash, and dash is the nearest:
# shellcheck shell=dash
#
# The filesystems and console level both guest inits set up
# (vm/guest-init.sh, lava/guest-init.sh): vm/stage-initramfs.sh installs
# this file as /etc/isolbench-mounts.sh in every initramfs.

# guest_mounts WHO: /dev, /proc, /sys, tracefs, debugfs and /tmp mounted;
# WHO names the init in what it says
guest_mounts() {
	mount -t devtmpfs devtmpfs /dev
	mount -t proc proc /proc
	mount -t sysfs sysfs /sys
	# Not fatal: a kernel without them still reports (or gets its shell),
	# and the suite skips what needs them and says why.
	mount -t tracefs tracefs /sys/kernel/tracing 2>/dev/null ||
		echo "$1: cannot mount tracefs" >&2
	mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null ||
		echo "$1: cannot mount debugfs" >&2
	mount -t tmpfs tmpfs /tmp
	# Only emergencies on the console from here on (dmesg keeps the rest):
	# kernel messages would split the lines a host or LAVA reads there.
	dmesg -n 1
}
