# SPDX-License-Identifier: GPL-2.0
#
# make vmtest: boot a kernel in qemu with CPUs isolated and run the suite
# inside (vm/run.sh; docs/vm.md).  The top-level Makefile includes this.
#
#   make vmtest                                  Debian 6.12, default isolation
#   make vmtest VM_ARGS="--debian 6.1" VMTEST_ARGS=--quick
#   make vmtest VM_ARGS="--kernel arch/x86/boot/bzImage --cpus 8 \
#                        --cmdline 'nohz_full=4-7 isolcpus=4-7'"
#
# VM_ARGS go to vm/run.sh, VMTEST_ARGS to run.sh in the guest.

VM_MK_DIR := $(patsubst %/,%,$(dir $(lastword $(MAKEFILE_LIST))))
VM_ARGS ?=
VMTEST_ARGS ?=

.PHONY: vmtest
vmtest:
	$(VM_MK_DIR)/run.sh --src $(abspath $(VM_MK_DIR)/..) $(VM_ARGS) -- $(VMTEST_ARGS)
