#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# tests/vm.t - the vm/ harness under prove (TAP).
#
# Fast checks that bad input is refused with exit 2 and one line on
# stderr, then one real boot: Debian's 6.12 kernel with the default
# isolation command line, checking that the guest saw it and that
# run.sh's KTAP came back whole.
#
# Environment:
#   ISOLBENCH_VM_SUITE=DIR  boot this prebuilt suite (make install output)
#                           instead of building the repository's
#   ISOLBENCH_VM_ARGS="..." extra vm/run.sh options (e.g. --debian 6.1)

set -u

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
. "$TOP/tests/lib.sh"
VM=$TOP/vm/run.sh

needs "${QEMU:-qemu-system-x86_64}"

plan 12

# expect_bad_input DESC VM-ARGS...: exit 2 and exactly one line on stderr.
expect_bad_input() {
	local desc=$1 rc lines
	shift
	"$VM" "$@" >"$TMP/out" 2>"$TMP/err"
	rc=$?
	lines=$(wc -l <"$TMP/err")
	ok $((rc != 2 || lines != 1)) "$desc: exit 2 (got $rc), one line on stderr (got $lines)"
	if [ "$rc" -ne 2 ] || [ "$lines" -ne 1 ]; then sed "s/^/# /" "$TMP/err"; fi
}

expect_bad_input "missing kernel image" --kernel "$TMP/no-such-bzImage"
expect_bad_input "non-kernel image (an ELF program)" --kernel /bin/sh
printf 'not a kernel' >"$TMP/fake-bzImage"
expect_bad_input "file without HdrS magic" --kernel "$TMP/fake-bzImage"
expect_bad_input "isolating all CPUs" --cmdline "nohz_full=0-3 isolcpus=0-3"
expect_bad_input "more isolated CPUs than vCPUs" --cpus 2
QEMU=/nonexistent/qemu expect_bad_input "no qemu"

# The real boot.  The suite: a prebuilt one if given, else the
# repository's own (vm/run.sh runs make install), else a stand-in that
# prints a KTAP stream the way run.sh does (for a tree without the suite).
suite_args=()
run_args=(--quick)
if [ -n "${ISOLBENCH_VM_SUITE:-}" ]; then
	suite_args=(--suite "$ISOLBENCH_VM_SUITE")
elif [ -f "$TOP/Makefile" ] && [ -f "$TOP/run.sh" ]; then
	# One short program keeps make check quick under emulation; CI runs
	# the whole suite through vm/run.sh separately.
	run_args=(--quick -t getpid_bench)
else
	mkdir -p "$TMP/suite"
	cat >"$TMP/suite/run.sh" <<'EOF'
#!/bin/sh
echo "TAP version 13"
echo "1..1"
echo "# stand-in for isolbench's run.sh"
echo "ok 1 selftests: isolbench: stand-in"
EOF
	chmod +x "$TMP/suite/run.sh"
	suite_args=(--suite "$TMP/suite")
	echo "# no suite in $TOP: booting a stand-in run.sh"
fi

res=$TMP/results
start=$(date +%s)
# shellcheck disable=SC2086
"$VM" --debian 6.12 --timeout 600 -o "$res" "${suite_args[@]}" ${ISOLBENCH_VM_ARGS:-} \
	-- "${run_args[@]}" >"$TMP/out" 2>"$TMP/err"
rc=$?
echo "# vm/run.sh --debian 6.12 exited $rc after $(($(date +%s) - start))s"
# exit 0: run.sh passed in the guest; 1 is a failed suite, 2 a setup
# error, 3 no status (hang, panic): all failures here
ok $((rc != 0)) "guest ran run.sh and it passed (exit $rc)"
if [ "$rc" -ne 0 ]; then tail -n 30 "$TMP/err" | sed "s/^/# /"; fi

nohz=$(sed -n 's/^nohz_full //p' "$res/guest-cpus.txt" 2>/dev/null)
isol=$(sed -n 's/^isolated //p' "$res/guest-cpus.txt" 2>/dev/null)
ok "$([ "$nohz" = 2-3 ] && [ "$isol" = 2-3 ]; echo $?)" \
	"guest saw nohz_full=2-3 isolated=2-3 (got nohz_full='$nohz' isolated='$isol')"

grep -qE 'isolbench\.vm=(kvm|tcg)' "$res/cmdline.txt" 2>/dev/null
ok $? "guest command line records the accelerator ($(grep -oE 'isolbench\.vm=[a-z]+' "$res/cmdline.txt" 2>/dev/null))"

# KTAP whole: a plan 1..N, N top-level result lines, on stdout and in
# the results directory alike.
plan=$(sed -n 's/^1\.\.\([0-9][0-9]*\)$/\1/p' "$TMP/out" | head -n1)
results=$(grep -cE '^(not )?ok [0-9]+ ' "$TMP/out")
ok "$([ -n "$plan" ] && [ "$plan" -gt 0 ] && [ "$plan" -eq "$results" ] &&
	grep -q '^TAP version 13$' "$TMP/out"; echo $?)" \
	"KTAP came back whole on stdout (plan ${plan:-none}, $results result lines)"
if [ -z "$plan" ] || [ "$plan" -ne "$results" ]; then head -n 40 "$TMP/out" | sed "s/^/# /"; fi

cmp -s <(grep -E '^(TAP version|1\.\.|(not )?ok [0-9]+ )' "$TMP/out") \
	<(grep -E '^(TAP version|1\.\.|(not )?ok [0-9]+ )' "$res/ktap.txt" 2>/dev/null)
ok $? "results/ktap.txt holds the same KTAP as stdout"

# The failing case of the exit check above: a guest suite that fails
# must come back as exit 1 (the old test passed on it).
mkdir -p "$TMP/failing"
printf '%s\n' '#!/bin/sh' 'echo "TAP version 13"' 'echo "1..1"' \
	'echo "not ok 1 selftests: isolbench: stand-in that fails"' 'exit 1' \
	>"$TMP/failing/run.sh"
chmod +x "$TMP/failing/run.sh"
"$VM" --debian 6.12 --timeout 300 -o "$TMP/res-fail" --suite "$TMP/failing" \
	>"$TMP/out-fail" 2>"$TMP/err-fail"
rc=$?
ok $((rc != 1)) "a failing guest suite makes vm/run.sh exit 1 (got $rc), which the check above fails on"
