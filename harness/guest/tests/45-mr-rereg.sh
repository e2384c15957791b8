#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Re-registration of a memory region against rdma.mr_mem, on soft-RoCE
# (rxe on lo; siw has no rereg): see harness/guest/src/mr_rereg.c for
# what each of the 5 checks shows.  The cgroups are mr-rereg/a, which
# registers the MR, and mr-rereg/b (rdma.mr_mem.max 0), from which the
# MR is re-registered and deregistered.  rxe0 is created if missing and
# removed again if this test created it.

DEV=rxe0
CGROOT=/sys/fs/cgroup
CG=$CGROOT/mr-rereg

. "$HLIB/tap.sh"

created=0
# shellcheck disable=SC2317 # called by the EXIT trap
cleanup() {
	echo $$ >"$CGROOT/cgroup.procs" 2>/dev/null
	rmdir "$CG/a" "$CG/b" "$CG" 2>/dev/null
	[ $created -eq 1 ] && rdma link delete "$DEV" 2>/dev/null
}
trap cleanup EXIT

echo "TAP version 13"
if [ ! -f "$CGROOT/cgroup.controllers" ] ||
   ! grep -qw rdma "$CGROOT/cgroup.controllers"; then
	echo "1..0 # SKIP no rdma controller in $CGROOT"
	exit 0
fi
if [ ! -d "/sys/class/infiniband/$DEV" ]; then
	if ! rdma link add "$DEV" type rxe netdev lo 2>/dev/null; then
		echo "1..0 # SKIP no $DEV and it cannot be created (CONFIG_RDMA_RXE)"
		exit 0
	fi
	created=1
fi
echo "1..5"
grep -qw rdma "$CGROOT/cgroup.subtree_control" ||
	echo +rdma >"$CGROOT/cgroup.subtree_control"
mkdir -p "$CG" && echo +rdma >"$CG/cgroup.subtree_control" &&
	mkdir -p "$CG/a" "$CG/b"

# mr_rereg prints "ok N ..." 1..5 itself (analyze.py fails a short run),
# in a subshell, so that its cgroup moves leave this shell where it is.
timeout 60 sh -c 'exec mr_rereg "$@"' mr_rereg "$DEV" "$CG/a" "$CG/b" 2>&1
