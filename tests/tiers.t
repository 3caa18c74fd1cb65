#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The shape of the code (scripts/check_tiers.py, docs/design.md): lib/'s
# tiers use only those below them, programs use no other program's
# parts, a part does not reach up into its program's main header, no
# loop between files, no phase's part uses another's, parts export
# prefixed names. The tree as it is
# passes; a copy with each rule broken once fails, naming it.
. "$(dirname "$0")/lib.sh"

cd "$TOP" || exit 1
plan 10
# the symbols of the files a copy did not change: compiled once
export CHECK_TIERS_CACHE=$TMP/tiers-cache

tree_check check_tiers.py "the tree keeps its shape"

# broken DESCRIPTION PATTERN: check_tiers fails on the copy, saying PATTERN
broken() {
	local out rc
	out=$(python3 scripts/check_tiers.py "$TMP/t" 2>&1)
	rc=$?
	echo "$out" | sed '/^$/d; s/^/# /'
	[ $rc -eq 1 ] && echo "$out" | grep -q -- "$2"
	ok $? "$1"
}

tree_copy
sed -i '0,/#include "util.h"/s//#include "util.h"\n#include "..\/harness\/bench.h"/' "$TMP/t/lib/base/util.c"
broken "an include upward (base includes harness) fails" \
	'lib/base/util.c:[0-9]* includes "../harness/bench.h": base uses harness; base uses no other tier'

tree_copy
cat >>"$TMP/t/lib/kernel/tick.c" <<'EOF'

int tick_upward(void);
int tick_upward(void)
{
	return opts_upward_probe();
}
EOF
cat >>"$TMP/t/lib/harness/opts.c" <<'EOF'

int opts_upward_probe(void);
int opts_upward_probe(void)
{
	return 0;
}
EOF
broken "a call upward (kernel calls harness) fails" \
	'lib/kernel/tick.c uses opts_upward_probe(): kernel uses harness'

tree_copy
cat >>"$TMP/t/lib/base/clock.c" <<'EOF'

int clock_loop_a(void);
int clock_loop_b(void);
int clock_loop_a(void)
{
	return clock_loop_b();
}
EOF
cat >>"$TMP/t/lib/base/stats.c" <<'EOF'

int clock_loop_a(void);
int clock_loop_b(void);
int clock_loop_b(void)
{
	return clock_loop_a();
}
EOF
broken "two files that call each other (a loop in one tier) fail" \
	'^loop: .*lib/base/stats.c uses clock_loop_a()'

tree_copy
sed -i '0,/#include "ipistorm_common.h"/s//#include "ipistorm_common.h"\n#include "cid_scan_common.h"/' "$TMP/t/ipistorm_modes.c"
broken "a program that includes another program's part fails" \
	'ipistorm_modes.c:[0-9]* includes "cid_scan_common.h": ipistorm uses cid_scan.s part cid_scan_common$'

tree_copy
# timer_softirq.c keeps its own state in a header of its own, which a
# phase includes for it
cat >"$TMP/t/timer_softirq.h" <<'EOF'
/* SPDX-License-Identifier: GPL-2.0 */
#ifndef ISOLBENCH_TIMER_SOFTIRQ_H
#define ISOLBENCH_TIMER_SOFTIRQ_H
struct ts_main_state {
	int phases_done;
};
#endif
EOF
for f in timer_softirq.c timer_softirq_cyclic.c; do
	sed -i '0,/#include "timer_softirq_phases.h"/s//#include "timer_softirq_phases.h"\n#include "timer_softirq.h"/' "$TMP/t/$f"
done
broken "a part that includes its program's main header fails" \
	'timer_softirq_cyclic.c:[0-9]*: includes "timer_softirq.h", the header of the main file timer_softirq.c: a part reaches up'

tree_copy
# ipistorm's main file with a header of its own, which a storm mode
# includes for it (every program is held to the rule)
cat >"$TMP/t/ipistorm.h" <<'EOF'
/* SPDX-License-Identifier: GPL-2.0 */
#ifndef ISOLBENCH_IPISTORM_H
#define ISOLBENCH_IPISTORM_H
struct ipistorm_main_state {
	int pairs_done;
};
#endif
EOF
sed -i '0,/#include "ipistorm_common.h"/s//#include "ipistorm_common.h"\n#include "ipistorm.h"/' "$TMP/t/ipistorm_modes.c"
broken "an ipistorm part that includes ipistorm.h fails" \
	'ipistorm_modes.c:[0-9]*: includes "ipistorm.h", the header of the main file ipistorm.c: a part reaches up'

tree_copy
# the tick phase counts with a function of the quiet phase's part
cat >>"$TMP/t/timer_softirq_quiet.c" <<'EOF'

int timer_softirq_quiet_windows(void);
int timer_softirq_quiet_windows(void)
{
	return 3;
}
EOF
cat >>"$TMP/t/timer_softirq_tick.c" <<'EOF'

int timer_softirq_quiet_windows(void);
int timer_softirq_tick_windows(void);
int timer_softirq_tick_windows(void)
{
	return timer_softirq_quiet_windows();
}
EOF
broken "a phase's part that calls another phase's part fails" \
	'timer_softirq_tick.c uses timer_softirq_quiet_windows(): the phase timer_softirq_tick uses the phase timer_softirq_quiet'

tree_copy
cat >>"$TMP/t/cid_scan_run.c" <<'EOF'

int row_total(void);
int row_total(void)
{
	return 0;
}
EOF
broken "a part that exports a name without its program's prefix fails" \
	'cid_scan_run.c: exports row_total, not named cid_scan_\*'

tree_copy
mv "$TMP/t/lib/base/clock.c" "$TMP/t/lib/clock.c"
broken "a lib/ file outside the tier folders fails" \
	'lib/clock.c: in no tier folder'
done_testing
