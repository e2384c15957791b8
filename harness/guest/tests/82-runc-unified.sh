#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# mr_mem through a container runtime.  OCI has no field for pinned memory;
# runc writes any cgroup v2 file given in linux.resources.unified, and so
# reaches rdma.mr_mem.max, and rdma.max of one device (a write of these
# files sets one device).  runc (Debian's) runs a busybox container whose
# config has no linux.resources.rdma but
#   "unified": { "rdma.mr_mem.max": "DEV 64K",
#                "rdma.max": "DEV hca_handle=1 hca_object=3" }
# In the container, verbs_probe opens DEV,
# allocates a PD, registers 48 KiB (fits) and 32 KiB (refused: 80 > 64
# KiB), and holds.  The test checks the limits runc wrote, the refusal
# with EAGAIN inside the container, rdma.mr_mem.current and rdma.events,
# that runc still reads our files for its statistics, and the exit.
#
# Environment: DEV (default siw0).

DEV=${DEV:-siw0}
CTR=runc-unified
CG=/sys/fs/cgroup/$CTR
TMP=${TMPDIR:-/tmp}/82-runc-unified.$$
PLAN=7

. /lib/harness/tap.sh
. /lib/harness/wait.sh
. /lib/harness/verbs.sh
. /lib/harness/runc.sh

controllers=$(cat /sys/fs/cgroup/cgroup.subtree_control)
# shellcheck disable=SC2317 # called by the EXIT trap
cleanup() {
	runc_cleanup "$CTR" "$CG" "$controllers"
	rm -rf "$TMP"
}
trap cleanup EXIT
mkdir -p "$TMP"

echo "TAP version 13"
echo "1..$PLAN"

max_value="$DEV hca_handle=1 hca_object=3"

# 1: the container holding its verbs resources
why=
if ! command -v runc >/dev/null; then
	why="no runc in the guest"
elif ! RB_UNIFIED="\"rdma.mr_mem.max\": \"$DEV 64K\", \"rdma.max\": \"$max_value\"" \
		runc_bundle "$TMP/bundle" "$DEV" - - "/$CTR" verbs_probe -k "$DEV" pd mr=48K mr=32K wait; then
	why="no uverbs node for $DEV"
else
	runc_start "$TMP/bundle" "$CTR" "$TMP/out" ||
		why="verbs_probe in the container did not reach its wait (see the output below)"
fi
if [ -z "$why" ]; then
	pass "runc runs verbs_probe with linux.resources.unified {rdma.mr_mem.max: \"$DEV 64K\", rdma.max: \"$max_value\"}"
	diag <"$TMP/out"
else
	fail "runc runs verbs_probe with linux.resources.unified # $why"
	[ -f "$TMP/out" ] && diag <"$TMP/out"
	while [ "$n" -lt "$PLAN" ]; do skip "not run" "the container did not start"; done
	exit 1
fi

# 2-5: while the container holds
unified_mr_checks runc "$TMP/out"

# 6: runc still reads our files for its statistics
timeout 60 runc events --stats "$CTR" >"$TMP/events" 2>&1
rc=$?
timeout 60 runc_stats "$CG" >"$TMP/stats" 2>&1
diag <"$TMP/stats"
check "runc events --stats works; runc's parser reads rdma.max and rdma.current of $DEV" \
	"0 stats {\"device\":\"$DEV\",\"hca_handles\":1,\"hca_objects\":3} {\"device\":\"$DEV\",\"hca_handles\":1,\"hca_objects\":2}" \
	"$rc $(grep -o '^{"type":"[a-z]*"' "$TMP/events" | cut -d'"' -f4) $(runc_stat rdma_limit "$DEV" "$TMP/stats") $(runc_stat rdma_current "$DEV" "$TMP/stats")"

# 7: release
runc_stop
rc=$?
check "stdin closed: the container exits with verbs_probe's status 1, runc removes its cgroup" \
	"1 gone" "$rc $([ -d "$CG" ] && echo still there || echo gone)"

exit "$failed"
