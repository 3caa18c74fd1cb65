#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The guest's channel drivers in the initramfs (vm/stage-initramfs.sh
# copy_channel_drivers): where the kernel has them as modules (Debian's
# 6.1 arm64 kernel: virtio_pci and virtio_console) they go in, with
# what they depend on, in load order; built in (6.12), nothing goes in;
# missing, the driver is named before anything boots. The modules are
# stand-ins: objects whose .modinfo says what they depend on.
. "$(dirname "$0")/lib.sh"

needs gcc modinfo xz
plan 6
cd "$TOP" || exit 1

# module DIR NAME DEPENDS: a stand-in module DIR/NAME.ko
module() {
	printf 'const char d[] __attribute__((section(".modinfo"), used)) = "depends=%s";\n' "$3" >"$TMP/m.c"
	mkdir -p "$1"
	gcc -c "$TMP/m.c" -o "$1/$2.ko"
}
M=$TMP/mods/kernel/drivers
module "$M/virtio" virtio_pci virtio_pci_modern_dev,virtio_pci_legacy_dev
module "$M/virtio" virtio_pci_modern_dev ""
module "$M/virtio" virtio_pci_legacy_dev ""
xz "$M/virtio/virtio_pci_legacy_dev.ko"
module "$M/char" virtio_console ""
: >"$TMP/mods/modules.builtin"

# staged ARCH MODULES_DIR: copy_channel_drivers into a fresh root in
# $TMP/root, as vm/run.sh sources it; its exit and stderr in $TMP/err
staged() {
	rm -rf "$TMP/root"
	mkdir -p "$TMP/root/etc"
	VM_ARCH=$1 bash -c 'PROG=vm/run.sh VM_DIR=$PWD/vm
		. vm/lib.sh; . vm/stage-initramfs.sh
		copy_channel_drivers "$1" "$2"' _ "$TMP/root" "$2" 2>"$TMP/err"
}

staged arm64 "$TMP/mods"
rc=$?
[ $rc -eq 0 ] && [ "$(tr '\n' ' ' <"$TMP/root/etc/isolbench-vm.modules")" = \
	"virtio_pci_modern_dev.ko virtio_pci_legacy_dev.ko virtio_pci.ko virtio_console.ko " ]
ok $? "arm64, drivers as modules: each after what it depends on ($(tr '\n' ' ' <"$TMP/root/etc/isolbench-vm.modules"), rc=$rc)"
[ "$(head -c4 "$TMP/root/lib/modules/isolbench/virtio_pci_legacy_dev.ko" | od -An -c | tr -d ' ')" = '177ELF' ]
ok $? "a compressed module goes in decompressed (busybox insmod reads plain ELF)"

printf '%s\n' kernel/drivers/virtio/virtio_pci.ko kernel/drivers/char/virtio_console.ko >"$TMP/mods/modules.builtin"
staged arm64 "$TMP/mods"
rc=$?
[ $rc -eq 0 ] && [ ! -s "$TMP/root/etc/isolbench-vm.modules" ] && [ ! -e "$TMP/root/lib/modules" ]
ok $? "arm64, drivers built in: no module goes in (rc=$rc)"

: >"$TMP/mods/modules.builtin"
rm "$M/char/virtio_console.ko"
staged arm64 "$TMP/mods"
rc=$?
[ $rc -eq 2 ] && [ "$(wc -l <"$TMP/err")" -eq 1 ] &&
	grep -q "^vm/run.sh: the kernel has no virtio_console, built in or as a module of $TMP/mods: the guest's channel /dev/hvc0 needs it$" "$TMP/err"
ok $? "arm64, a driver missing: named before anything boots, exit 2 (rc=$rc: $(cat "$TMP/err"))"

staged x86_64 "$TMP/mods"
rc=$?
[ $rc -eq 0 ] && [ -e "$TMP/root/etc/isolbench-vm.modules" ] && [ ! -s "$TMP/root/etc/isolbench-vm.modules" ]
ok $? "x86_64: the serial ports are built in, no module (rc=$rc)"

staged arm64 ""
rc=$?
[ $rc -eq 0 ] && [ ! -s "$TMP/root/etc/isolbench-vm.modules" ]
ok $? "arm64 without a modules directory (--kernel): nothing to copy, the guest names a channel that does not open (rc=$rc)"
done_testing
