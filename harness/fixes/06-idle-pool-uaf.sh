#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Test of one fix of the series (make fixes-check):
# "cgroup/rdma: Free idle pools when a cgroup goes offline"
# Moot on 7.3: rdmacg_css_free() frees every pool of the cgroup
#
# A pool that a limit write created and that never held a charge stayed on
# the device's list after its cgroup was freed; removing the device then
# unlinks it from the freed cgroup: a use-after-free that KASAN (or list
# debugging) reports.  Here: mkdir; a limit; rmdir; wait until the cgroup
# is really freed (its parent's cgroup.stat shows no dying descendant);
# then `rdma link delete DEV` must leave no splat in the kernel log.  The
# device is added back afterwards.  The harness also fails the test for a
# splat on the console between its markers.
# Environment: DEV (default siw0, a soft-iWARP device on lo).

DEV=${DEV:-siw0}
CGROOT=/sys/fs/cgroup
P=$CGROOT/fix06
TMP=${TMPDIR:-/tmp}/fix06.$$
MARK="fix06: start $$"

. "$HLIB/tap.sh"
. "$HLIB/wait.sh"
. "$HLIB/rdmacg.sh"

# shellcheck disable=SC2317 # called by the EXIT trap
cleanup() {
	[ -d "/sys/class/infiniband/$DEV" ] ||
		rdma link add "$DEV" type siw netdev lo 2>/dev/null
	rmdir "$P/idle" "$P" 2>/dev/null
	rm -rf "$TMP"
}
trap cleanup EXIT
mkdir -p "$TMP"

dying() { sed -n 's/^nr_dying_descendants //p' "$P/cgroup.stat"; }
freed() { [ "$(dying)" = 0 ]; }

echo "TAP version 13"
PLAN=4
echo "1..$PLAN"
echo "$MARK" >/dev/kmsg

# 1: an idle pool: a limit in a cgroup that never charges anything
idle_pool() {
	rmdir "$P/idle" "$P" 2>/dev/null
	mkdir "$P" && echo +rdma >"$P/cgroup.subtree_control" && mkdir "$P/idle" &&
		echo "$DEV hca_handle=1" >"$P/idle/rdma.max" &&
		grep -q "^$DEV hca_handle=1 " "$P/idle/rdma.max"
}
setup "idle pool in $P/idle (rdma.max \"$DEV hca_handle=1\")" idle_pool

# 2: rmdir, and the cgroup really freed (css_free has run: the parent's
# nr_dying_descendants drops only after that)
rmdir "$P/idle"
try "cgroup freed after rmdir ($P/cgroup.stat: nr_dying_descendants 0)" wait_for 60 freed ||
	echo "nr_dying_descendants is still $(dying) after 60 s" | diag

# 3: remove the device: every pool of it is freed
timeout 60 rdma link delete "$DEV" >"$TMP/del" 2>&1
try "rdma link delete $DEV" test ! -d "/sys/class/infiniband/$DEV" || diag <"$TMP/del"

# 4: without a use-after-free on the way
rdmacg_no_splat "$MARK" "$TMP/dmesg"

rdma link add "$DEV" type siw netdev lo ||
	echo "# could not add $DEV back" >&2
exit "$failed"
