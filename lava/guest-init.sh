#!/bin/busybox sh
# SPDX-License-Identifier: GPL-2.0
# busybox ash; shellcheck knows no ash, and dash is the nearest:
# shellcheck shell=dash
#
# /init of the initramfs a LAVA qemu job boots (lava/qemu-job.sh builds
# it from vm/'s stages; docs/farms.md).  Where vm/guest-init.sh runs the
# suite itself, this one only makes a machine LAVA can drive: the
# filesystems the suite needs mounted, then a root shell on the console,
# whose prompt the job's boot action waits for.  LAVA then sends its
# commands to that shell: the overlay it added to this ramdisk
# (/lava-JOBID) runs the test definition.

/bin/busybox mkdir -p /bin /sbin /usr/bin /usr/sbin /proc /sys /dev /tmp /run
/bin/busybox --install -s
export PATH=/usr/local/bin:/bin:/sbin:/usr/bin:/usr/sbin
export HOME=/root

# shellcheck source=vm/guest-mounts.sh
. /etc/isolbench-mounts.sh
guest_mounts isolbench-lava
mkdir -p /root /run/lock
hostname isolbench

# The console is the shell's controlling terminal (cttyhack), so that
# the shell LAVA drives can be interrupted; a shell that ends is started
# again, since init must never exit.
export PS1='isolbench-lava:# '
while :; do
	setsid cttyhack sh -l
done
