#!/bin/busybox sh
# SPDX-License-Identifier: GPL-2.0
# busybox ash; shellcheck knows no ash, and dash is the nearest:
# shellcheck shell=dash
#
# /init of the isolbench test initramfs (see vm/run.sh, docs/vm.md).
#
# Runs on busybox alone.  Two ports (vm/arch.sh: ttyS0 and ttyS1 on x86,
# the UART ttyAMA0 and the virtio console hvc0 on arm64):
#   console  kernel messages and run.sh's stderr (host: console.log)
#   channel  protocol lines "@@isolbench-vm@@ NONCE WORD ..." and,
#          between the ktap-begin/ktap-end markers, run.sh's stdout; between
#          results-begin/results-end a base64 gzip tar of /results.
# The channel carries nothing else, so the host never has to untangle KTAP
# from kernel printk output.  The nonce (random per run) keeps program output
# from being mistaken for a marker.

/bin/busybox mkdir -p /bin /sbin /usr/bin /usr/sbin /proc /sys /dev /tmp /run
/bin/busybox --install -s
export PATH=/usr/local/bin:/bin:/sbin:/usr/bin:/usr/sbin

# shellcheck source=vm/guest-mounts.sh
. /etc/isolbench-mounts.sh
guest_mounts isolbench-vm

# shellcheck source=/dev/null
. /etc/isolbench-vm.conf	# NONCE, SUITE_DIR, CHANNEL

# the channel's drivers where the kernel has them as modules; a driver
# probes its device in the background, so the channel may open (its node
# may be there before, without a device behind it) a little later
while read -r ko; do
	insmod "/lib/modules/isolbench/$ko" || echo "isolbench-vm: insmod $ko failed" >/dev/console
done </etc/isolbench-vm.modules
channel_opens() { (: >"$CHANNEL") 2>/dev/null; }
i=0
while ! channel_opens && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
if ! channel_opens; then
	echo "isolbench-vm: the channel $CHANNEL does not open: the kernel has no driver for it" >/dev/console
	reboot -f
fi
exec 3>"$CHANNEL"
say() { echo "@@isolbench-vm@@ $NONCE $*" >&3; }

say boot "$(uname -r)"
for f in online possible nohz_full isolated; do
	say cpu "$f=$(cat /sys/devices/system/cpu/$f 2>/dev/null)"
done

# vm/run.sh --build: the kernel's build record, which the suite's result
# writer embeds in every result as "kernel_build" (lib/result/result_write.c).
if [ -f /etc/isolbench-build.json ]; then
	export ISOLBENCH_KERNEL_BUILD=/etc/isolbench-build.json
fi

# run.sh's arguments, one per line (written by the host).
set --
while IFS= read -r arg; do
	set -- "$@" "$arg"
done < /etc/isolbench-vm.args

mkdir -p /results/suite
cat /proc/cmdline > /results/cmdline.txt
for f in online possible present nohz_full isolated; do
	echo "$f $(cat /sys/devices/system/cpu/$f 2>/dev/null)"
done > /results/guest-cpus.txt

cd "$SUITE_DIR" || echo "isolbench-vm: no $SUITE_DIR" >&2
# vm/run.sh --guest-pre: a command before the suite (it may leave state)
if [ -f /etc/isolbench-vm.pre ]; then
	sh /etc/isolbench-vm.pre >/results/pre.txt 2>&1
	echo "exit $?" >>/results/pre.txt
fi
say ktap-begin
# stdout goes to the channel and to a file (the clean copy the host keeps);
# stderr goes to the console.  The status travels through a file because
# the pipeline's status is tee's.
{ ./run.sh -o /results/suite "$@" 2>/dev/console; echo $? > /tmp/run-status; } |
	tee /results/ktap.txt >&3
status=$(cat /tmp/run-status 2>/dev/null || echo 255)
say ktap-end "$status"

dmesg > /results/dmesg.txt
say results-begin
tar -C /results -czf - . | base64 >&3
say results-end
say exit "$status"
sync
# qemu runs with -no-reboot, so a reboot ends it.  A power-off would need
# ACPI power management in the kernel (a minimal --build kernel without it
# only halts: "Power off not available"); the reset works everywhere.  The
# host also stops a guest that is still up after its exit line.
reboot -f
