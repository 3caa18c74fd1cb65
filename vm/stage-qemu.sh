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
# MAX_CPUS, MEM, ISOL_CMDLINE, APPEND, TIMEOUT, QEMU.
# A run is one associative array, its name given to each function (G
# below), which the caller fills with
#   kernel, initrd  what to boot
#   nonce           the channel's marker of this run (vm/guest-init.sh)
#   console         ttyS0's log (RESULTS/console.log)
#   channel         ttyS1's log (in the work directory)
#   results         the results directory (ktap.txt is streamed there)
# and these functions with what happened:
#   accel           kvm or tcg, the one that ran
#   status          run.sh's exit status in the guest; "" when none came
#   booted          1 once the guest said so
#   qemu_log        qemu's own output
#   kvm_failure     why KVM did not work
#   chan_fd, chan_partial, chan_state  the channel reader's place
# The one global: QEMU_PID, the running qemu, so that vm/run.sh's exit
# and signal traps stop it (qemu_stop).

readonly MARK=@@isolbench-vm@@
readonly KVM_BOOT_TIMEOUT=30
readonly GUEST_EXIT_GRACE=${ISOLBENCH_VM_EXIT_GRACE:-5}
QEMU=${QEMU:-qemu-system-x86_64}
QEMU_PID=

qemu_check_tools() {
	command -v "$QEMU" >/dev/null ||
		die "$QEMU not found (apt-get install qemu-system-x86)"
	[[ -x /bin/busybox ]] ||
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
	echo "console=ttyS0 rdinit=/init panic=-1 quiet isolbench.vm=$accel $maxcpus $ISOL_CMDLINE $APPEND" |
		tr -s " " | sed "s/ $//"
}

# qemu_start G ACCEL: qemu in the background (QEMU_PID), with a fresh
# channel reader.
qemu_start() {
	local -n qs_g=$1
	local accel=$2 smp=$CPUS cpu fd=${qs_g[chan_fd]:-}
	# --max-cpus: all vCPUs present, the kernel brings only --cpus online
	# (maxcpus=); the rest are possible and can be onlined through sysfs.
	# qemu's own maxcpus hotplug slots did not become possible CPUs under
	# Debian 6.12 ("plus 0 hotplug CPUs"); present-but-offline ones do.
	[[ -z $MAX_CPUS ]] || smp=$MAX_CPUS
	local accel_opt=$accel
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
	: >"${qs_g[console]}"
	: >"${qs_g[channel]}"
	# A fresh channel: reopen the reader and forget the last attempt.
	[[ -z $fd ]] || exec {fd}<&-
	qs_g["chan_fd"]='' qs_g["chan_partial"]='' qs_g["chan_state"]=boot qs_g["status"]='' qs_g["booted"]=0
	qs_g["kvm_failure"]='' qs_g["qemu_log"]=${qs_g[channel]%/*}/qemu-$accel.log
	rm -f "${qs_g[results]}/ktap.txt"
	"$QEMU" -nodefaults -no-user-config -display none -no-reboot \
		-accel "$accel_opt" -cpu "$cpu" -smp "$smp" -m "$MEM" \
		-kernel "${qs_g[kernel]}" -initrd "${qs_g[initrd]}" \
		-append "$(guest_cmdline "$accel")" \
		-chardev file,id=con,path="${qs_g[console]}" -serial chardev:con \
		-chardev file,id=chan,path="${qs_g[channel]}" -serial chardev:chan \
		</dev/null >"${qs_g[qemu_log]}" 2>&1 &
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
		exit)		cl_g["status"]=$rest; cl_g["chan_state"]=finished ;;
		esac
		return 0
	fi
	if [[ ${cl_g[chan_state]} == ktap ]]; then
		# Live view, and a copy that survives a guest that dies mid-run
		# (the clean copy from the guest's results replaces it).
		printf '%s\n' "$line"
		printf '%s\n' "$line" >>"${cl_g[results]}/ktap.txt"
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

# guest_run G ACCEL: boot with ACCEL (--accel: kvm, tcg, or auto: KVM
# falling back to TCG), and wait for the guest; G's accel says which ran.  Returns guest_wait's status: 0, 1 (KVM failed under
# --accel kvm) or 2 (timeout; qemu stopped).
guest_run() {
	local -n gr_g=$1
	local want=$2 mode=$2 deadline rc=0 limit=0
	if [[ $mode == auto ]]; then
		mode=tcg
		if kvm_usable; then
			if [[ -e $(kvm_fail_stamp) ]]; then
				note "KVM failed to boot a guest earlier since this host booted; using TCG"
			else
				mode=kvm
			fi
		fi
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
	if ((rc == 2)); then
		qemu_stop
		note "timeout: the guest ran longer than ${TIMEOUT}s; stopped it"
	fi
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
# between results-begin and results-end), unpacked into DEST.
guest_results() {
	local -n gres_g=$1
	local dest=$2 begin="$MARK ${gres_g[nonce]} results-begin" end="$MARK ${gres_g[nonce]} results-end"
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

# guest_info G KERNEL SECONDS: vm-info.txt in G's results directory;
# KERNEL names the kernel stage's array.
guest_info() {
	local -n gi_g=$1 gi_kern=$2
	{
		echo "accel ${gi_g[accel]}"
		echo "seconds $3"
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
	} >"${gi_g[results]}/vm-info.txt"
}
