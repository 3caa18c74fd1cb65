#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# prove: alone (its verdicts hang on the host's timing: make check runs it by itself)
# Issue 11: nothing lost, nothing left behind, nothing silent. Results
# files replaced only when complete; interrupted runs end one way in
# every program; bad input refused at once.
. "$(dirname "$0")/lib.sh"

# --- results are never lost -------------------------------------------
good='{"schema": "isolbench-result", "kept": true}'
# no_tmp_left NAME: no temporary file .NAME.tmp-* of -o NAME in $TMP
no_tmp_left() { ! compgen -G "$TMP/.$1.tmp-*" >/dev/null; }
echo "$good" >"$TMP/r.json"
run_prog ipistorm --pairs 0:0 -o "$TMP/r.json"
[ $RC -eq 1 ] && [ "$(cat "$TMP/r.json")" = "$good" ]
ok $? "a rejected ipistorm run leaves an existing -o file as it was (rc=$RC)"
run_prog cid_scan -w hackbench -t 1 -o "$TMP/r.json"
[ $RC -eq 1 ] && [ "$(cat "$TMP/r.json")" = "$good" ]
ok $? "a rejected cid_scan run leaves an existing -o file as it was (rc=$RC)"

"$BIN/getpid_bench" -n 100000000 -r 3 -o "$TMP/r.json" >/dev/null 2>&1 &
pid=$!
sleep 1
kill -KILL $pid
wait $pid 2>/dev/null
[ "$(cat "$TMP/r.json")" = "$good" ]
ok $? "SIGKILL mid-run leaves the existing -o file as it was"
rm -f "$TMP"/.r.json.tmp-*

run_prog getpid_bench --quick -o "$TMP/r.json"
[ $RC -eq 0 ] && json_check "$TMP/r.json" 'd["program"] == "getpid_bench"' &&
	[ "$(stat -c %a "$TMP/r.json")" = "$(umask -S >/dev/null; printf '%o' $((0666 & ~$(umask))))" ] &&
	no_tmp_left r.json
ok $? "a finished run replaces it whole, with the usual mode, no temporary file left"

# a run that measured nothing (a skip before any measurement: --load with
# every CPU a target) never replaces an existing result; where there was
# none, it records the skip
cp "$TMP/r.json" "$TMP/measured.json"
all=$(cat /sys/devices/system/cpu/online)
run_prog getpid_bench --quick --load -c "$all" -o "$TMP/r.json"
[ $RC -eq 4 ] && cmp -s "$TMP/r.json" "$TMP/measured.json" &&
	grep -q "^# $TMP/r.json was left as it was: this run measured nothing" "$TMP/out"
ok $? "a run that measured nothing leaves an existing -o file as it was (rc=$RC)"
run_prog getpid_bench --quick --load -c "$all" -o "$TMP/new.json"
[ $RC -eq 4 ] && json_check "$TMP/new.json" 'd["run"]["exit_code"] == 4 and not any(m["samples"] for m in d["metrics"])'
ok $? "...and where there was no file, it writes the empty result (rc=$RC)"

# an argument of bytes that are not UTF-8 (a file name): the result is
# still valid JSON, which compare and Python read back
raw="$TMP/r$(printf '\377').json"
run_prog getpid_bench --quick -n 1000 -r 2 -o "$raw"
[ $RC -eq 0 ] && python3 -c 'import json, sys; d = json.load(open(sys.argv[1], encoding="utf-8")); sys.exit(not d["run"]["argv"][-1].endswith("r\ufffd.json"))' "$raw" &&
	"$BIN/compare" "$raw" "$raw" >/dev/null
ok $? "-o a non-UTF-8 name: the JSON records it as U+FFFD and reads back (rc=$RC)"

run_prog getpid_bench --quick -o /dev/full
[ $RC -eq 1 ] && grep -q 'writing /dev/full failed: No space left on device' "$TMP/err" &&
	! grep -q 'writing' "$TMP/out"
ok $? "-o /dev/full: a failed write is said on stderr and exits 1 (rc=$RC)"
expect_usage_error "-o /proc/version" getpid_bench --quick -o /proc/version
run_prog getpid_bench --quick -o /dev/null
ok $RC "-o /dev/null still works (rc=$RC)"

# --- interrupted runs end one way everywhere ---------------------------
# interrupt NAME SIG DELAY ARGS...: run, send SIG after DELAY s; rc in $RC
interrupt() {
	local p=$1 sig=$2 delay=$3
	shift 3
	rm -f "$TMP/i.json"	# a run cut before it measured anything writes only a new file
	"$BIN/$p" "$@" >"$TMP/out" 2>"$TMP/err" &
	local pid=$!
	sleep "$delay"
	kill -"$sig" $pid
	wait $pid
	RC=$?
}
# interrupted_ok SIGNUM JSON: the stream says so, nothing fails, no
# negative time, the JSON is saved and says interrupted
interrupted_ok() {
	[ $RC -eq $((128 + $1)) ] && grep -q "^# interrupted by signal $1" "$TMP/out" &&
		! grep -q '^not ok' "$TMP/out" && ! grep -q -- '-1\.000 s' "$TMP/out" &&
		json_check "$2" "d['run']['interrupted'] and d['run']['signal'] == $1 and d['run']['exit_code'] == $((128 + $1))"
}
interrupt getpid_bench TERM 1 -n 100000000 -r 3 -o "$TMP/i.json"
interrupted_ok 15 "$TMP/i.json"; ok $? "getpid_bench SIGTERM: reported, saved, exit 143 (rc=$RC)"
# the distribution phase, not started, skipped by the driver under its check's
# own name (lib/harness/phase.h): the farms key on it
interrupt getpid_bench INT 1 -d -n 100000000 -r 3 -o "$TMP/i.json"
interrupted_ok 2 "$TMP/i.json" && grep -q '^1\.\.5$' "$TMP/out" &&
	grep -q '^ok 3 every run completed # SKIP interrupted$' "$TMP/out" &&
	grep -q '^ok 5 per-call distribution of every call # SKIP interrupted$' "$TMP/out"
ok $? "getpid_bench -d SIGINT in the runs: the distribution phase SKIP interrupted under its check's name (rc=$RC)"
interrupt timer_softirq INT 1 -D 5 -o "$TMP/i.json"
interrupted_ok 2 "$TMP/i.json"; ok $? "timer_softirq SIGINT: reported, saved, exit 130 (rc=$RC)"
interrupt ipistorm INT 1 --watch 1 -D 30 --method procfs -o "$TMP/i.json"
interrupted_ok 2 "$TMP/i.json"; ok $? "ipistorm watch SIGINT: exit 130 (rc=$RC)"
interrupt ipistorm TERM 1 -m membarrier -n 100000000 -r 1 -o "$TMP/i.json"
interrupted_ok 15 "$TMP/i.json"; ok $? "ipistorm storm SIGTERM: exit 143 (rc=$RC)"
for d in 0.05 1.2; do
	interrupt cid_scan INT $d -D 1 --compaction-threads 4 -o "$TMP/i.json"
	interrupted_ok 2 "$TMP/i.json" &&
		grep -q '^ok [34] mm_cid invariants # SKIP interrupted$' "$TMP/out"
	ok $? "cid_scan SIGINT after $d s: phases cut short are SKIP interrupted, the invariants, not started, the driver's SKIP under its check's name, no -1.000 s, exit 130 (rc=$RC)"
done

# --- a closed stdout is not an interruption -----------------------------
# The reader of the report gone (`| head -1`, run.sh's tee killed): the
# run measures to the end and saves its whole result, judged, not
# interrupted, no temporary file left; then it ends by SIGPIPE (141).
closed_stdout() {	# closed_stdout NAME ARGS...: stdout read by `head -1`
	local p=$1
	shift
	rm -f "$TMP/c.json" "$TMP"/.c.json.tmp-*
	"$BIN/$p" "$@" -o "$TMP/c.json" 2>"$TMP/err" | head -1 >"$TMP/out"
	RC=${PIPESTATUS[0]}
}
# closed_ok ["C1, C2"]: the exit, the JSON whole (its exit_code the verdicts'
# code, one of those, 0 by default) and no temporary file
closed_ok() {
	[ "$RC" -eq 141 ] && [ "$(cat "$TMP/out")" = "KTAP version 1" ] &&
		json_check "$TMP/c.json" "not d['run']['interrupted'] and d['run']['exit_code'] in (${1:-0},) and d['verdicts'] and any(m['samples'] for m in d['metrics'])" &&
		no_tmp_left c.json
}
closed_stdout getpid_bench --quick
closed_ok && json_check "$TMP/c.json" "all(len(m['samples']) == 3 for m in d['metrics'])"
ok $? "getpid_bench --quick | head -1: measured to the end, saved whole, exit 141, no temporary file (rc=$RC)"
closed_stdout timer_softirq -D 0.5
closed_ok "0, 1"
ok $? "timer_softirq | head -1: saved whole, exit 141 (rc=$RC)"
closed_stdout ipistorm --watch 1 -D 2 --method procfs
closed_ok; ok $? "ipistorm --watch | head -1: saved whole, exit 141 (rc=$RC)"
closed_stdout ipistorm -m membarrier -n 100000 -r 2
closed_ok "0, 1"; ok $? "ipistorm storm | head -1: saved whole, exit 141 (rc=$RC)"
closed_stdout cid_scan -D 1
closed_ok "0, 1, 4"
ok $? "cid_scan | head -1: saved whole, exit 141 (rc=$RC)"
# SIGPIPE ignored and blocked by the parent (Python ignores it): the
# failed write is seen all the same, with the same end
closed_stdout_ignored() {
	rm -f "$TMP/c.json" "$TMP"/.c.json.tmp-*
	python3 -c 'import os, signal, sys
signal.signal(signal.SIGPIPE, signal.SIG_IGN)
signal.pthread_sigmask(signal.SIG_BLOCK, [signal.SIGPIPE])
os.execv(sys.argv[1], sys.argv[1:])' "$BIN/getpid_bench" --quick -o "$TMP/c.json" 2>"$TMP/err" | head -1 >"$TMP/out"
	RC=${PIPESTATUS[0]}
}
closed_stdout_ignored
closed_ok; ok $? "SIGPIPE ignored and blocked by the parent: the same end, exit 141 (rc=$RC)"
# a kernel without modules skips the kmod mode: the skip is saved the same way
closed_stdout ipistorm -m kmod -n 100
closed_ok || { [ "$RC" -eq 141 ] && json_check "$TMP/c.json" 'not d["run"]["interrupted"] and d["run"]["exit_code"] == 4 and d["verdicts"][0]["result"] == "skip"'; }
ok $? "ipistorm -m kmod | head -1: saved whole or its skip, exit 141 (rc=$RC)"

# A signal that finds the reader gone (a signal to run.sh's group kills
# tee too): the writes of the report fail, the run still saves and ends
# by the signal it was sent. Stopped while the reader leaves and the
# signal is queued, so that the signal comes first.
mkfifo "$TMP/fifo"
for sig in TERM HUP; do
	rm -f "$TMP/s.json"
	"$BIN/getpid_bench" -n 10000000 -r 20 -o "$TMP/s.json" >"$TMP/fifo" 2>/dev/null &
	pid=$!
	head -1 "$TMP/fifo" >/dev/null
	kill -STOP "$pid"
	kill -"$sig" "$pid"
	kill -CONT "$pid"
	wait "$pid"
	RC=$?
	num=$(kill -l "$sig")
	[ "$RC" -eq $((128 + num)) ] &&
		json_check "$TMP/s.json" "d['run']['signal'] == $num and d['run']['exit_code'] == $((128 + num))" &&
		no_tmp_left s.json
	ok $? "SIG$sig with the reader gone: saved, ends by SIG$sig (rc=$RC)"
done

# The reader gone first, the run going on: a signal then still stops it,
# saved as interrupted, ended by that signal.
rm -f "$TMP/s.json"
"$BIN/getpid_bench" -n 10000000 -r 20 -o "$TMP/s.json" >"$TMP/fifo" 2>/dev/null &
pid=$!
head -1 "$TMP/fifo" >/dev/null
sleep 1
kill -0 "$pid" 2>/dev/null && kill -TERM "$pid"
wait "$pid"
RC=$?
[ "$RC" -eq 143 ] &&
	json_check "$TMP/s.json" "d['run']['interrupted'] and d['run']['signal'] == 15 and d['run']['exit_code'] == 143" &&
	no_tmp_left s.json
ok $? "SIGTERM a second after the reader left: the run was still going, saved as interrupted, ends by SIGTERM (rc=$RC)"

# stdout a full disk: the report is lost, the result is not; a pass is not a pass
"$BIN/getpid_bench" --quick -o "$TMP/f.json" >/dev/full 2>"$TMP/err"
RC=$?
[ "$RC" -eq 1 ] && grep -qx 'getpid_bench: writing the report to stdout failed: No space left on device' "$TMP/err" &&
	json_check "$TMP/f.json" 'd["run"]["exit_code"] == 1 and not d["run"]["interrupted"] and all(m["samples"] for m in d["metrics"])'
ok $? "stdout /dev/full: the result saved whole, the lost report said on stderr, exit 1 (rc=$RC)"

# --- nothing left behind -----------------------------------------------
inst=/sys/kernel/tracing/instances
if is_root && [ -d $inst ]; then
	"$BIN/ipistorm" --watch 1 -D 30 >/dev/null 2>&1 &
	pid=$!
	sleep 2
	kill -KILL $pid
	wait $pid 2>/dev/null
	[ -d $inst/isolbench-ipistorm-$pid ]
	ok $? "SIGKILL leaves instances/isolbench-ipistorm-$pid (the kernel keeps it)"
	run_prog ipistorm --watch 1 -D 0.3
	[ ! -d $inst/isolbench-ipistorm-$pid ] &&
		grep -q "^# removed stale trace instance $inst/isolbench-ipistorm-$pid (pid $pid is gone)" "$TMP/out"
	ok $? "the next run removes it and says so (rc=$RC)"
	rmdir $inst/isolbench-ipistorm-$pid 2>/dev/null
	# a killed timer_softirq's instance, tracing on: any program's next
	# run removes it (the instance is made here, under a PID that is gone)
	sh -c 'exit 0' &
	gone=$!
	wait $gone
	mkdir $inst/isolbench-timer-$gone && echo 1 >$inst/isolbench-timer-$gone/tracing_on
	run_prog getpid_bench --quick -n 1000 -r 2
	[ ! -d $inst/isolbench-timer-$gone ] &&
		grep -q "^# removed stale trace instance $inst/isolbench-timer-$gone (pid $gone is gone)" "$TMP/out"
	ok $? "getpid_bench, too, removes a killed run's trace instance (rc=$RC)"
	rmdir $inst/isolbench-timer-$gone 2>/dev/null
else
	skip "needs root and tracefs" "SIGKILL leaves a trace instance"
	skip "needs root and tracefs" "the next run removes it"
	skip "needs root and tracefs" "getpid_bench, too, removes a killed run's trace instance"
fi

# --- two runs on one CPU -------------------------------------------------
"$BIN/timer_softirq" -c 1 -D 1.5 --phase quiet >"$TMP/first" 2>&1 &
pid=$!
sleep 0.7
run_prog timer_softirq -c 1 -D 0.5 --phase quiet -o "$TMP/lock.json"
[ $RC -eq 4 ] && grep -q "^1\.\.0 # SKIP cpu 1 is in use by timer_softirq (pid $pid)" "$TMP/out" &&
	json_check "$TMP/lock.json" 'd["verdicts"][0]["result"] == "skip"'
ok $? "a second run on the same CPU skips, naming the holder (rc=$RC)"
run_prog ipistorm --pairs 0:1 -n 1000 -r 1
[ $RC -eq 4 ] && grep -q "SKIP cpu 1 is in use by timer_softirq (pid $pid)" "$TMP/out"
ok $? "a storm onto that CPU skips too (rc=$RC)"
t0=$(date +%s.%N)
run_prog timer_softirq -c 1 -D 0.5 --phase quiet --wait
t1=$(date +%s.%N)
wait $pid
[ $RC -eq 0 ] && ! grep -q 'SKIP cpu 1 is in use' "$TMP/out" &&
	grep -q "^# waiting for cpu 1: in use by timer_softirq (pid $pid)" "$TMP/out" &&
	awk -v a="$t0" -v b="$t1" 'BEGIN { exit !(b - a > 1) }'
ok $? "--wait waits for the holder, then runs (rc=$RC)"
"$BIN/timer_softirq" -c 1 -D 30 --phase quiet >/dev/null 2>&1 &
pid=$!
sleep 0.7
kill -KILL $pid
wait $pid 2>/dev/null
run_prog timer_softirq -c 1 -D 0.3 --phase quiet
! grep -q 'in use' "$TMP/out"
ok $? "the lock of a SIGKILLed run is gone with it (rc=$RC)"

# --- a setting a SIGKILLed run left changed (the settings journal) --------
# A killed run's journal names a setting (here a file standing for
# current_tracer) and its old value; the next run of any program puts it
# back and says so. A live run's journal is left alone.
sleep 30 &
live=$!
sh -c 'exit 0' &
gone=$!
wait $gone
mkdir -p "$ISOLBENCH_STATE_DIR"
echo function_graph >"$TMP/tracer"
echo 0 >"$TMP/live_setting"
printf 'S\t1\t1\t%s\tnop\n' "$TMP/tracer" >"$ISOLBENCH_STATE_DIR/settings-$gone"
printf 'S\t0\t1\t%s\t1\n' "$TMP/live_setting" >"$ISOLBENCH_STATE_DIR/settings-$live"
run_prog getpid_bench --quick -n 1000 -r 2
[ $RC -eq 0 ] && [ "$(cat "$TMP/tracer")" = nop ] &&
	grep -q "^# settings journal: put back $TMP/tracer = 'nop', left changed by pid $gone (gone before its cleanups)" "$TMP/out" &&
	[ ! -e "$ISOLBENCH_STATE_DIR/settings-$gone" ]
ok $? "a killed run's setting is put back by the next run, its journal removed (rc=$RC)"
[ "$(cat "$TMP/live_setting")" = 0 ] && [ -e "$ISOLBENCH_STATE_DIR/settings-$live" ]
ok $? "a live run's journal is not touched"
kill $live
echo "1..$_n"
done_testing
