#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Test of one fix of the series (make fixes-check):
# "RDMA/core: Drop the restrack task reference when GET_CONTEXT fails"
#
# Before the fix, every UVERBS_METHOD_GET_CONTEXT ioctl that fails in
# ib_init_ucontext() keeps a reference on the calling task, whose
# task_struct (with its signal_struct and credentials) is never freed once
# the process has exited: kmemleak reports them.  In a cgroup limited to
# "DEV hca_handle=1 hca_object=2", refuse_loop forks processes that hold
# one context and get GET_CONTEXT refused by the limit (ibv_open_device and
# a raw ioctl on a new fd: EAGAIN) and issued twice on one fd (EINVAL), and
# a third object (a PD, a CQ) refused with EAGAIN.
# Only what pristine upstream has is used (rdma.max, rdma.current).
# Environment: DEV (default siw0), REFUSE_ITERATIONS (default 20).

DEV=${DEV:-siw0}
ITER=${REFUSE_ITERATIONS:-20}
CGROOT=/sys/fs/cgroup
CG=$CGROOT/fix03
KML=/sys/kernel/debug/kmemleak
TMP=${TMPDIR:-/tmp}/fix03.$$
MIN_AGE=6	# kmemleak reports nothing younger than 5 s
TSLAB=/sys/kernel/slab/task_struct

. "$HLIB/tap.sh"
. "$HLIB/kmemleak.sh"
. "$HLIB/wait.sh"

# shellcheck disable=SC2317 # called by the EXIT trap
cleanup() {
	rmdir "$CG" 2>/dev/null
	rm -rf "$TMP"
}
trap cleanup EXIT
mkdir -p "$TMP"

echo "TAP version 13"
PLAN=5
echo "1..$PLAN"

# 1: the limit is in place (compared word by word: whether the line ends
# with a space is the trailing-space fix's business).
limit() {
	rmdir "$CG" 2>/dev/null
	mkdir "$CG" && echo "$DEV hca_handle=1 hca_object=2" >"$CG/rdma.max" &&
		[ "$(grep "^$DEV " "$CG/rdma.max" | xargs)" = "$DEV hca_handle=1 hca_object=2" ] ||
		{ diag <"$CG/rdma.max" 2>&1; return 1; }
}
setup "rdma.max \"$DEV hca_handle=1 hca_object=2\"" limit

# task_structs: the number of allocated objects of the cache, after
# flushing the per-CPU slabs into the node lists where they are counted.
task_structs() {
	echo 1 >"$TSLAB/shrink" 2>/dev/null || return 1
	read -r ts_n _ <"$TSLAB/objects" || return 1
	echo "$ts_n"
}
tasks_before=$(task_structs) || tasks_before=

kmemleak_start

# 2: every refusal is what it should be (EAGAIN, EINVAL on a used fd).
what="$ITER processes: GET_CONTEXT refused with EAGAIN by hca_handle=1 (ibv_open_device, raw ioctl) and with EINVAL on a used fd, a third object with EAGAIN"
refuse_loop -d "$DEV" -n "$ITER" -s orepc -g "$CG" >"$TMP/loop" 2>&1
try "$what" test $? = 0
head -n 20 "$TMP/loop" | diag

# 3: the charges are back to zero once the processes are gone.
zero() { [ "$(grep "^$DEV " "$CG/rdma.current" | xargs)" = "$DEV hca_handle=0 hca_object=0" ]; }
try "rdma.current back to \"$DEV hca_handle=0 hca_object=0\"" wait_for 10 zero ||
	diag <"$CG/rdma.current"

# 4: no task_struct (or anything else) leaked.
kmemleak_end fail

# 5: the task_structs of the processes are freed (through RCU: poll).
allowed=$((ITER / 2))
what="task_struct objects back to at most $allowed above the count before the $ITER processes"
tasks_back() {
	tasks_after=$(task_structs) || return 1
	[ "$tasks_after" -le $((tasks_before + allowed)) ]
}
if [ -z "$tasks_before" ]; then
	fail "$what # $TSLAB/objects not available"
else
	try "$what" wait_for 10 tasks_back
	echo "before $tasks_before, after $tasks_after" | diag
fi

exit "$failed"
