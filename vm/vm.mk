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

# make ab: a base and a patched kernel booted alternately, one table
# (vm/ab.sh; docs/vm.md "A/B").  AB_BASE and AB_PATCHED are vm/run.sh
# kernel options.
#
#   make ab AB_PATCHED="--build debian:6.12 --patch my.patch" \
#           VMTEST_ARGS="-t timer_softirq -- --phase quiet --quick"
AB_BASE ?= --build debian:6.12
AB_PATCHED ?=
AB_ROUNDS ?= 3
AB_ARGS ?=

.PHONY: ab check-kernels
ab: compare
	$(VM_MK_DIR)/ab.sh --base "$(AB_BASE)" --patched "$(AB_PATCHED)" \
		--rounds $(AB_ROUNDS) $(AB_ARGS) -- $(VMTEST_ARGS)

# The checks that build kernels (a build from linux-source-6.12, an A/B
# on a count metric, a git bisect that must name the planted commit, the
# reduced cid_scan batch matrix): minutes, not seconds, so not part of
# make check; .ci/run runs them after it (docs/vm.md has the times).
check-kernels: all
	prove -v $(VM_MK_DIR)/kernels.t $(VM_MK_DIR)/cid_batches.t

# make cid-batches: cid_scan on linux-source-6.12 unpatched and with the
# batch patch at batch 8, 16, 32 and scan off, cyclic and hackbench, in
# qemu; the table with the CID-batches thread's numbers (vm/cid_batches.sh;
# docs/cid_scan.md).  CID_BATCHES_ARGS go to the script (--markdown,
# --reduced, -D SECS, --base-kernel BZ --batch-kernel BZ, ...).
CID_BATCHES_ARGS ?=

.PHONY: cid-batches
cid-batches: all
	$(VM_MK_DIR)/cid_batches.sh $(CID_BATCHES_ARGS)
