# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# vm/stage-qemu.sh - vm/run.sh's third stage: boot the guest in qemu (KVM
# when it works, else TCG), read the serial channel while it runs (the
# KTAP streamed to stdout as it comes), stop it, and unpack the results
# it sent.  Sourced by vm/run.sh; docs/vm.md "How results come back" and
# "KVM or TCG".  vm/guest-init.sh is the other end of the channel.
#
# Input, the options as vm/run.sh parsed them (only read here): CPUS,
# MAX_CPUS, MEM, ISOL_CMDLINE, APPEND, TIMEOUT, QEMU, KEEP.
# A run is one associative array, its name given to each function (G
# below), which the caller fills with
#   kernel, initrd  what to boot
#   nonce           the channel's marker of this run (vm/guest-init.sh)
#   console         the console's log (RESULTS/console.log; vm/arch.sh)
#   channel         the channel's log (in the work directory)
#   results         the results directory (qemu-cmd.sh is saved there)
#   ktap            the file the streamed KTAP is copied to
#                   (RESULTS/ktap.txt; "" for none)
#   seconds         how long the run took (for vm-info.txt and the verdict)
# and these functions with what happened:
#   accel           kvm or tcg, the one that ran
#   status          run.sh's exit status in the guest; "" when none came
#   end             how qemu ended: guest (it exited, or was stopped
#                   after the guest's exit line), timeout, kvm-failed
#   booted          1 once the guest said so
#   qemu_log        qemu's own output
#   kvm_failure     why KVM did not work
#   chan_fd, chan_partial, chan_state  the channel reader's place
# A saved run (the results directory: vm-info.txt, channel.txt,
# console.log) is read back into such an array by guest_load, and
# guest_verdict judges either alike (vm/run.sh --judge).
# The one global: QEMU_PID, the running qemu, so that vm/run.sh's exit
# and signal traps stop it (qemu_stop).

readonly MARK=@@isolbench-vm@@
readonly KVM_BOOT_TIMEOUT=30
readonly GUEST_EXIT_GRACE=${ISOLBENCH_VM_EXIT_GRACE:-5}
QEMU=${QEMU:-}
QEMU_PID=

# qemu_check_tools: qemu for the guest's architecture (QEMU, unless the
# environment names one), busybox and cpio.
qemu_check_tools() {
	local pkg
	read -r QEMU pkg <<<"${QEMU:-$(arch_qemu)}"
	command -v "$QEMU" >/dev/null ||
		die "$QEMU not found (apt-get install ${pkg:-qemu})"
	! arch_native || [[ -x /bin/busybox ]] ||
		die "/bin/busybox not found (apt-get install busybox-static)"
	command -v cpio >/dev/null || die "cpio not found (apt-get install cpio)"
}

# A KVM that failed to boot a guest on this host since it last booted is
# remembered, so the next run goes straight to TCG instead of waiting again.
kvm_fail_stamp() {
	echo "$CACHE_DIR/kvm-failed.$(cat /proc/sys/kernel/random/boot_id 2>/dev/null || echo unknown)"
}

guest_cmdline() {
	local accel=$1
	local maxcpus=''
	[[ -z $MAX_CPUS ]] || maxcpus=maxcpus=$CPUS
	echo "console=$(arch_console) rdinit=/init panic=-1 quiet isolbench.vm=$accel $maxcpus $ISOL_CMDLINE $APPEND" |
		tr -s " " | sed "s/ $//"
}

# qemu_argv VAR G ACCEL: the qemu command that boots G with ACCEL, into
# the array VAR.
qemu_argv() {
	local -n qa_argv=$1 qa_g=$2
	local accel=$3 smp=$CPUS cpu accel_opt=$3
	# --max-cpus: all vCPUs present, the kernel brings only --cpus online
	# (maxcpus=); the rest are possible and can be onlined through sysfs.
	# qemu's own maxcpus hotplug slots did not become possible CPUs under
	# Debian 6.12 ("plus 0 hotplug CPUs"); present-but-offline ones do.
	[[ -z $MAX_CPUS ]] || smp=$MAX_CPUS
	if [[ $accel == kvm ]]; then
		cpu=host
	else
		cpu=max
		# Multi-threaded TCG crashed 2 of 8 boots here with "Oops: int3"
		# in code the kernel was live-patching (text_poke on one vCPU,
		# stale translation on another); one thread for all vCPUs: 0 of 8,
		# and no slower to boot on a 2-CPU host.
		accel_opt=tcg,thread=single
	fi
	# shellcheck disable=SC2034  # the caller's array, through the nameref
	qa_argv=("$QEMU" -nodefaults -no-user-config -display none -no-reboot
		-accel "$accel_opt" -cpu "$cpu" -smp "$smp" -m "$MEM"
		-kernel "${qa_g[kernel]}" -initrd "${qa_g[initrd]}"
		-append "$(guest_cmdline "$accel")")
	arch_qemu_args "$1" "$accel" "${qa_g[console]}" "${qa_g[channel]}"
}

# shell_quote ARG...: each ARG as one word of shell (quoted only when it
# needs it), separated by blanks.
shell_quote() {
	local q="'\\''" a sep=''
	for a in "$@"; do
		if [[ $a =~ ^[A-Za-z0-9_@%+=:,./-]+$ ]]; then
			printf '%s%s' "$sep" "$a"
		else
			printf "%s'%s'" "$sep" "${a//\'/$q}"
		fi
		sep=' '
	done
}

# qemu_cmd_print ARG...: a qemu command as shell, each option on a line.
qemu_cmd_print() {
	local a
	shell_quote "$1"
	shift
	for a in "$@"; do
		if [[ $a == -* ]]; then
			printf ' \\\n\t'
		else
			printf ' '
		fi
		shell_quote "$a"
	done
	echo
}

# qemu_cmd_save G ARG...: the qemu command of G's run as a shell script
# in its results directory (qemu-cmd.sh), for a rerun by hand; its
# header says what the rerun needs that may be gone.
qemu_cmd_save() {
	local -n qc_g=$1
	local work=${qc_g[initrd]%/*}
	shift
	{
		echo "#!/bin/sh"
		echo "# vm/run.sh's qemu command for the run in this directory; rerun it with"
		echo "# sh ${qc_g[results]}/qemu-cmd.sh"
		echo "# kernel: ${qc_g[kernel]}"
		if ((KEEP)); then
			echo "# initramfs: ${qc_g[initrd]} (kept with --keep)"
		else
			echo "# initramfs: ${qc_g[initrd]}: removed with the work directory"
			echo "# $work when vm/run.sh ended; rerun vm/run.sh with --keep to keep it"
		fi
		echo "# The rerun writes the console to ${qc_g[console]}"
		echo "# and the channel to ${qc_g[channel]}, over this run's."
		qemu_cmd_print "$@"
	} >"${qc_g[results]}/qemu-cmd.sh"
}

# qemu_start G ACCEL: qemu in the background (QEMU_PID), with a fresh
# channel reader; its command saved first (qemu-cmd.sh).
qemu_start() {
	local -n qs_g=$1
	local accel=$2 fd=${qs_g[chan_fd]:-} argv=()
	: >"${qs_g[console]}"
	: >"${qs_g[channel]}"
	# A fresh channel: reopen the reader and forget the last attempt.
	[[ -z $fd ]] || exec {fd}<&-
	qs_g["chan_fd"]='' qs_g["chan_partial"]='' qs_g["chan_state"]=boot qs_g["status"]='' qs_g["booted"]=0
	qs_g["kvm_failure"]='' qs_g["qemu_log"]=${qs_g[channel]%/*}/qemu-$accel.log
	rm -f "${qs_g[ktap]}"
	qemu_argv argv "$1" "$accel"
	qemu_cmd_save "$1" "${argv[@]}"
	"${argv[@]}" </dev/null >"${qs_g[qemu_log]}" 2>&1 &
	QEMU_PID=$!
}

qemu_stop() {
	local pid=$QEMU_PID i
	[[ -n $pid ]] || return 0
	QEMU_PID=
	kill -TERM "$pid" 2>/dev/null || return 0
	for ((i = 0; i < 20; i++)); do
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.1
	done
	kill -KILL "$pid" 2>/dev/null || true
	wait "$pid" 2>/dev/null || true
}

qemu_running() {
	[[ -n $QEMU_PID ]] && kill -0 "$QEMU_PID" 2>/dev/null
}

# A guest with fewer possible CPUs than --max-cpus asked for would make
# tests about possible-but-offline CPUs vacuous: say so.
check_possible() {
	local kv=$1 last
	[[ -n $MAX_CPUS && $kv == possible=* ]] || return 0
	last=${kv##*[-,=]}
	if [[ $last =~ ^[0-9]+$ ]] && ((last + 1 < MAX_CPUS)); then
		note "warning: --max-cpus $MAX_CPUS but the guest has only $((last + 1)) possible CPUs"
	fi
}

# channel_line G LINE: a protocol line moves the reader's state; between
# ktap-begin and ktap-end, run.sh's stdout is shown and kept.
channel_line() {
	local -n cl_g=$1
	local line=${2%$'\r'} word rest
	if [[ $line == "$MARK ${cl_g[nonce]} "* ]]; then
		rest=${line#"$MARK ${cl_g[nonce]} "}
		word=${rest%% *}
		[[ $rest == *' '* ]] && rest=${rest#* } || rest=
		case $word in
		boot)		cl_g["booted"]=1; note "guest up: kernel $rest" ;;
		cpu)		note "guest cpu $rest"
				check_possible "$rest" ;;
		ktap-begin)	cl_g["chan_state"]=ktap ;;
		ktap-end)	cl_g["chan_state"]=ktap-done ;;
		results-begin)	cl_g["chan_state"]=results ;;
		results-end)	cl_g["chan_state"]=ktap-done ;;
		exit)		uint_in "$rest" 0 255 && cl_g["status"]=$rest
				cl_g["chan_state"]=finished ;;
		esac
		return 0
	fi
	if [[ ${cl_g[chan_state]} == ktap ]]; then
		# Live view, and a copy that survives a guest that dies mid-run
		# (the clean copy from the guest's results replaces it).
		printf '%s\n' "$line"
		[[ -z ${cl_g[ktap]} ]] || printf '%s\n' "$line" >>"${cl_g[ktap]}"
	fi
	return 0
}

# channel_drain G: every whole line written since the last call; a
# partial last line waits for the rest.
channel_drain() {
	local -n cd_g=$1
	local line fd=${cd_g[chan_fd]}
	if [[ -z $fd ]]; then
		exec {fd}<"${cd_g[channel]}"
		cd_g["chan_fd"]=$fd
	fi
	while :; do
		if IFS= read -r -u "$fd" line; then
			channel_line "$1" "${cd_g[chan_partial]}$line"
			cd_g["chan_partial"]=
		else
			cd_g["chan_partial"]+=$line
			break
		fi
	done
}

# guest_wait G DEADLINE BOOT_LIMIT: until qemu exits (0) or DEADLINE (2);
# with BOOT_LIMIT > 0, give up (1) if a KVM guest has not said "boot" by
# then, or at once when qemu reports a KVM failure (G's kvm_failure).
guest_wait() {
	local -n gw_g=$1
	local deadline=$2 boot_limit=$3 now done_at=
	while qemu_running; do
		channel_drain "$1"
		now=$SECONDS
		# The results are complete once the exit line is in: a guest
		# that halts instead of powering off is stopped after a grace.
		if [[ ${gw_g[chan_state]} == finished ]]; then
			[[ -n $done_at ]] || done_at=$now
			if ((now - done_at >= GUEST_EXIT_GRACE)); then
				note "the guest sent its results but did not power off; stopping it"
				qemu_stop
				return 0
			fi
		fi
		if [[ ${gw_g[qemu_log]} == *kvm* ]] && [[ ${gw_g[booted]} == 0 ]]; then
			if ((boot_limit > 0 && now >= boot_limit)); then
				gw_g["kvm_failure"]="the guest did not boot within ${KVM_BOOT_TIMEOUT}s"
				return 1
			fi
			# KVM failures show up on qemu's stderr (here: "KVM internal
			# error. Suberror: 1 ... emulation failure" and a register dump).
			if grep -qE 'KVM internal error|^EFER=' "${gw_g[qemu_log]}" 2>/dev/null; then
				gw_g["kvm_failure"]="qemu: $(grep -m1 -E 'KVM internal error|^EFER=' "${gw_g[qemu_log]}")"
				return 1
			fi
		fi
		((now < deadline)) || return 2
		sleep 0.2
	done
	wait "$QEMU_PID" 2>/dev/null || true
	QEMU_PID=
	channel_drain "$1"
	return 0
}

# accel_first WANT: the accelerator a run of --accel WANT boots with
# first (auto: KVM when it opens and has not failed since the host booted).
accel_first() {
	if [[ $1 != auto ]]; then
		echo "$1"
	elif kvm_usable && [[ ! -e $(kvm_fail_stamp) ]]; then
		echo kvm
	else
		echo tcg
	fi
}

# guest_run G ACCEL: boot with ACCEL (--accel: kvm, tcg, or auto: KVM
# falling back to TCG), and wait for the guest; G's accel says which
# ran, its end how qemu ended.  Returns guest_wait's status: 0, 1 (KVM
# failed under --accel kvm) or 2 (timeout; qemu stopped).
guest_run() {
	local -n gr_g=$1
	local want=$2 mode deadline rc=0 limit=0
	mode=$(accel_first "$want")
	if [[ $want == auto && $mode == tcg ]] && kvm_usable; then
		note "KVM failed to boot a guest earlier since this host booted; using TCG"
	fi
	deadline=$((SECONDS + TIMEOUT))
	if [[ $mode == kvm ]]; then
		note "booting with KVM: $(guest_cmdline kvm)"
		qemu_start "$1" kvm
		[[ $want != auto ]] || limit=$((SECONDS + KVM_BOOT_TIMEOUT))
		guest_wait "$1" "$deadline" "$limit" || rc=$?
		if ((rc == 1)) && [[ $want == kvm ]]; then
			qemu_stop
			note "KVM failed (${gr_g[kvm_failure]}); not falling back because of --accel kvm"
			sed 's/^/  | /' "${gr_g[qemu_log]}" | head -n 20 >&2
		elif ((rc == 1)) || [[ $rc == 0 && ${gr_g[booted]} == 0 && $limit != 0 ]]; then
			qemu_stop
			note "KVM did not work (${gr_g[kvm_failure]:-qemu exited before the guest booted}); falling back to TCG"
			mkdir -p "$CACHE_DIR" && touch "$(kvm_fail_stamp)"
			mode=tcg
		fi
	fi
	if [[ $mode == tcg ]]; then
		note "booting with TCG (software emulation; timings mean little): $(guest_cmdline tcg)"
		qemu_start "$1" tcg
		rc=0
		guest_wait "$1" "$deadline" 0 || rc=$?
	fi
	gr_g["accel"]=$mode
	case $rc in
	0) gr_g["end"]=guest ;;
	1) gr_g["end"]=kvm-failed ;;
	2)
		gr_g["end"]=timeout
		qemu_stop
		note "timeout: the guest ran longer than ${TIMEOUT}s; stopped it"
		;;
	esac
	return "$rc"
}

# show_console_tail CONSOLE [LINES]: the end of the guest's console.
show_console_tail() {
	local console=$1 lines=${2:-30}
	[[ -s $console ]] || { note "(the guest console is empty)"; return 0; }
	note "last $lines lines of the guest console ($console):"
	tail -n "$lines" "$console" | tr -d '\r' | sed 's/^/  | /' >&2
}

# guest_results G DEST: the results the guest sent (a base64 tar.gz
# between results-begin and results-end), unpacked into DEST; and the
# channel without them as DEST/channel.txt, to judge the run again.
guest_results() {
	local -n gres_g=$1
	local dest=$2 begin="$MARK ${gres_g[nonce]} results-begin" end="$MARK ${gres_g[nonce]} results-end"
	awk -v b="$begin" -v e="$end" '
		{ line = $0; sub(/\r$/, "", line) }
		line == e { on = 0 }
		!on { print }
		line == b { on = 1 }' "${gres_g[channel]}" >"$dest/channel.txt"
	grep -q "^$end" "${gres_g[channel]}" || {
		note "no results came back from the guest"
		return 0
	}
	awk -v b="$begin" -v e="$end" '
		{ sub(/\r$/, "") }
		$0 == b { on = 1; next }
		$0 == e { on = 0; exit }
		on { print }' "${gres_g[channel]}" | base64 -d | tar -xzf - -C "$dest" ||
		note "could not unpack the guest's results"
}

# guest_headers HEADERS KODIR: what module/ was built against, for
# vm-info.txt: the headers given or fetched, or with --build the
# kernel's own build tree, at build time (the .ko files it made).
guest_headers() {
	local kos=() ko
	if [[ -z $2 ]]; then
		echo "${1:-none}"
		return
	fi
	for ko in "$2"/*.ko; do
		[[ -e $ko ]] && kos+=("${ko##*/}")
	done
	echo "the kernel's build tree (module/ built with the kernel: ${kos[*]:-nothing built})"
}

# guest_info G KERNEL: vm-info.txt in G's results directory; KERNEL
# names the kernel stage's array.
guest_info() {
	local -n gi_g=$1 gi_kern=$2
	{
		echo "accel ${gi_g[accel]}"
		echo "arch $VM_ARCH"
		echo "seconds ${gi_g[seconds]}"
		echo "kernel ${gi_kern[image]}"
		echo "release ${gi_kern[release]:-unknown}"
		echo "cpus $CPUS"
		echo "max_cpus ${MAX_CPUS:-$CPUS}"
		echo "mem_mb $MEM"
		echo "cmdline $(guest_cmdline "${gi_g[accel]}")"
		echo "qemu $("$QEMU" --version | head -n1)"
		echo "headers $(guest_headers "${gi_kern[headers]}" "${gi_kern[kodir]}")"
		echo "build ${gi_kern[key]:-none}"
		echo "status ${gi_g[status]:-none}"
		echo "end ${gi_g[end]}"
		echo "nonce ${gi_g[nonce]}"
	} >"${gi_g[results]}/vm-info.txt"
}

# guest_verdict G: the run's summary and verdict on stderr; returns
# vm/run.sh's exit status, run.sh's in the guest or 3 when none came.
guest_verdict() {
	local -n gv_g=$1
	note "accelerator: ${gv_g[accel]}; ${gv_g[seconds]}s; results in ${gv_g[results]}"
	if [[ -z ${gv_g[status]} ]]; then
		case ${gv_g[end]} in
		timeout)	note "the guest reported no status before the timeout" ;;
		kvm-failed)	note "the guest reported no status: KVM failed under --accel kvm" ;;
		*)		note "the guest stopped without reporting a status (panic or crash?)" ;;
		esac
		show_console_tail "${gv_g[console]}"
		return 3
	fi
	if [[ ${gv_g[status]} != 0 ]]; then
		# run.sh's own complaints (a bad option, say) went to the console.
		note "run.sh exited ${gv_g[status]} in the guest"
		show_console_tail "${gv_g[console]}" 10
	fi
	return "${gv_g[status]}"
}

# guest_load G DIR: G as the run whose results directory DIR is
# (vm-info.txt, channel.txt, console.log), or whose work directory DIR
# is (kept with --keep: its link "results"), its channel read again as
# it came: the KTAP on stdout, the guest's notes on stderr.
guest_load() {
	local -n gl_g=$1
	local dir=$2 f key val
	[[ -d $dir ]] || die "--judge '$dir': no such directory"
	# a work directory kept with --keep names its run's results
	[[ ! -L $dir/results ]] || dir=$dir/results
	dir=$(realpath -- "$dir")
	for f in vm-info.txt channel.txt console.log; do
		[[ -f $dir/$f ]] ||
			die "--judge '$dir' is not a results directory of vm/run.sh (no $f)"
	done
	gl_g=([results]=$dir [console]=$dir/console.log [channel]=$dir/channel.txt
		[ktap]='' [chan_fd]='' [chan_partial]='' [chan_state]=boot
		[status]='' [booted]=0 [nonce]='' [accel]='' [seconds]='' [end]='')
	while read -r key val; do
		case $key in
		accel|seconds|end|nonce) gl_g["$key"]=$val ;;
		esac
	done <"$dir/vm-info.txt"
	[[ -n ${gl_g[nonce]} ]] ||
		die "--judge '$dir' is not a results directory of vm/run.sh (no nonce in vm-info.txt)"
	channel_drain "$1"
	f=${gl_g[chan_fd]}
	exec {f}<&-
}
