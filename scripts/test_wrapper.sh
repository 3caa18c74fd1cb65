#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# run.sh's table (NAME [PROGRAM ARGS...]) for the Makefile:
#   test_wrapper.sh --tests     every test's NAME, in run order
#   test_wrapper.sh NAME        the script that runs such a test: the
#                               kselftest runner runs one file per test
set -eu
table=$(dirname "$0")/../run.sh

rows() {
	awk '/^(readonly )?TEST_TABLE="/ { t = 1; next } t && /^"/ { exit } t && NF' "$table"
}

case "$1" in
--tests)
	rows | awk '{ print $1 }' ;;
*)
	cmd=$(rows | awk -v n="$1" '$1 == n && NF > 1 { $1 = ""; sub(/^ /, ""); print }')
	if [ -z "$cmd" ]; then
		echo "test_wrapper.sh: $1 is not a test with arguments in $table" >&2
		exit 1
	fi
	cat <<SH
#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# run.sh's test $1, for the kselftest runner (made by scripts/test_wrapper.sh)
exec "\$(dirname "\$0")/${cmd%% *}" ${cmd#* } "\$@"
SH
esac
