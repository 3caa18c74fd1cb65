# SPDX-License-Identifier: GPL-2.0
#
# vm/lib.sh - what the host-side vm/ scripts share: their messages and
# option checks, prefixed with the script's $PROG. Sourced, not run.

die() {	# usage or setup error: one line, exit $DIE_STATUS (2 unless set)
	echo "$PROG: $*" >&2
	exit "${DIE_STATUS:-2}"
}

note() {
	echo "$PROG: $*" >&2
}

need_arg() {	# need_arg OPTION "$@": OPTION has a non-empty value
	[[ $# -ge 2 && -n $2 ]] || die "option $1 needs a value"
}
