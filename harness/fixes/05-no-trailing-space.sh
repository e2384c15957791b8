#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Test of one fix of the series (make fixes-check):
# "cgroup/rdma: Drop the trailing space from rdma.max and rdma.current"
# (on 7.3, which has rdma.peak too:
# "cgroup/rdma: Drop the trailing space from rdma.max, rdma.current and rdma.peak")
#
# Before the fix every line of rdma.max and rdma.current ends with a space
# ("siw0 hca_handle=2 hca_object=max \n"). The files must be exactly the
# lines below, byte for byte: without a limit, with one, and while a
# process holds a context and a PD; and rdma.peak after it, where the
# kernel has one.
# Environment: DEV (default siw0).

DEV=${DEV:-siw0}
CGROOT=/sys/fs/cgroup
CG=$CGROOT/fix05
TMP=${TMPDIR:-/tmp}/fix05.$$

. "$HLIB/tap.sh"
. "$HLIB/wait.sh"

worker=
# shellcheck disable=SC2317 # called by the EXIT trap
cleanup() {
	worker_stop
	rmdir "$CG" 2>/dev/null
	rm -rf "$TMP"
}
trap cleanup EXIT
mkdir -p "$TMP"

# exact FILE LINE: FILE is exactly LINE and a newline (only DEV is
# registered in this guest); the bytes of both are shown if not.
exact() {
	printf '%s\n' "$2" >"$TMP/want"
	try "$1 is exactly \"$2\\n\"" cmp -s "$TMP/want" "$1" ||
		{ echo "want (sed -n l, \$ marks the end of a line):"; sed -n l "$TMP/want"
		  echo "got:"; sed -n l "$1"; } | diag
}

# rdma.peak came with Linux 7.2: checked there and later, not planned on 6.12
# (a skipped check would prove nothing to make fixes-check)
case "$(uname -r)" in
[1-6].*) peak=0 ;;
*) peak=1 ;;
esac
echo "TAP version 13"
PLAN=$((5 + peak))
echo "1..$PLAN"

new_cg() { rmdir "$CG" 2>/dev/null; mkdir "$CG"; }
setup "cgroup $CG" new_cg

exact "$CG/rdma.max" "$DEV hca_handle=max hca_object=max"
echo "$DEV hca_handle=2" >"$CG/rdma.max"
exact "$CG/rdma.max" "$DEV hca_handle=2 hca_object=max"

touch "$TMP/hold"
verbs_worker -d "$DEV" -g "$CG" hold -c 1 -p 1 -w "$TMP/hold" -T 120 >"$TMP/out" 2>&1 &
worker=$!
if wait_hold "$TMP/out"; then
	exact "$CG/rdma.current" "$DEV hca_handle=1 hca_object=1"
else
	fail "$CG/rdma.current while a context and a PD are held # the worker did not report"
	diag <"$TMP/out"
fi
worker_stop
exact "$CG/rdma.current" "$DEV hca_handle=0 hca_object=0"
if [ "$peak" = 1 ]; then
	exact "$CG/rdma.peak" "$DEV hca_handle=1 hca_object=1"
fi

exit "$failed"
