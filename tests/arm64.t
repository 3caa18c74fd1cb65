#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The unit tests cross-built for arm64 (make CROSS_COMPILE=aarch64-linux-gnu-
# unit: UBSan, without the optional libraries) and run under qemu's
# user-mode emulator: the arm64 counter, the arm64 syscall and every
# parser on a CPU of the other architecture. ASan is left out here: its
# start costs about 3 s a program under the emulator (90 s for all, 5 s
# without), and tests/unit.t runs the same code under it on the host.
. "$(dirname "$0")/lib.sh"
needs aarch64-linux-gnu-gcc

qemu=$(command -v qemu-aarch64-static || command -v qemu-aarch64) ||
	{ echo "1..0 # SKIP needs qemu-aarch64-static (scripts/install-deps.sh --dev)"; exit 0; }

build=$TMP/build
if ! make -s -C "$TOP" -j2 CROSS_COMPILE=aarch64-linux-gnu- BUILD="$build" \
	SANITIZE=undefined unit >"$TMP/make.out" 2>&1; then
	plan 1
	sed 's/^/# /' "$TMP/make.out" | tail -20
	ok 1 "the unit tests cross-build for arm64"
	done_testing
fi
# The emulator finds the target's loader and libraries (UBSan's too) here.
export QEMU_LD_PREFIX=/usr/aarch64-linux-gnu
ISOLBENCH_BIN=$build/san UNIT_EXEC=$qemu UNIT_ARCH=arm64 "$TOP/tests/unit.t"
