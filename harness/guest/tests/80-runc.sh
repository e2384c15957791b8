#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# A container runtime as the client: runc (Debian's package) runs a busybox
# container (guest/lib/runc.sh) twice, each time held by verbs_probe until
# its standard input is closed.
#   A  linux.resources.rdma {DEV: 1 context, 2 objects}; verbs_probe opens
#      DEV, allocates a PD and a CQ and asks for a second context and a
#      third object.  Checked: the limit in the container cgroup's
#      rdma.max, the refusals (EAGAIN), rdma.current and rdma.events, and
#      that runc reads our files back: `runc events --stats` runs without
#      error, and runc_stats (guest/src/runc_stats.go: the same
#      libcontainer code, GetStats) finds DEV's values and an entry for
#      every line.  runc's parser (libcontainer/cgroups/fscommon/rdma.go)
#      keeps only lines of exactly three fields "DEV hca_handle=N
#      hca_object=N": this proves the files still speak its format.
#   B  mr_mem: OCI has no field for pinned memory, but runc writes any
#      cgroup v2 file of linux.resources.unified:
#        "unified": { "rdma.mr_mem.max": "DEV 64K",
#                     "rdma.max": "DEV hca_handle=1 hca_object=3" }
#      verbs_probe registers 48 KiB (fits) and 32 KiB (refused: 80 > 64
#      KiB).  Checked: the limits runc wrote, the refusal, the usage and
#      rdma.events, runc's statistics.
# Each time the container exits with verbs_probe's status 1 (it saw
# refusals) and runc removes its cgroup.
#
# Environment: DEV (default siw0).

DEV=${DEV:-siw0}
CTR=runc-test
CG=/sys/fs/cgroup/$CTR
TMP=${TMPDIR:-/tmp}/80-runc.$$
PLAN=16

. "$HLIB/tap.sh"
. "$HLIB/wait.sh"
. "$HLIB/runc.sh"

# The line of DEV in file $1.
line() { grep "^$DEV " "$1"; }

echo "TAP version 13"
if ! command -v runc >/dev/null; then
	echo "1..0 # SKIP no runc in the guest"
	exit 0
fi
controllers=$(cat /sys/fs/cgroup/cgroup.subtree_control)
# shellcheck disable=SC2317 # called by the EXIT trap
cleanup() {
	runc_cleanup runc-test /sys/fs/cgroup/runc-test "$controllers"
	runc_cleanup runc-unified /sys/fs/cgroup/runc-unified "$controllers"
	rm -rf "$TMP"
}
trap cleanup EXIT
mkdir -p "$TMP"
echo "1..$PLAN"

# 1-9, A: linux.resources.rdma
ctr_start a "runc runs verbs_probe in a container limited to \"$DEV\": {hcaHandles: 1, hcaObjects: 2}" \
	1 2 "/$CTR" verbs_probe -k "$DEV" pd cq open cq wait
check "runc wrote the limit to the container's rdma.max" \
	"$DEV hca_handle=1 hca_object=2" "$(line "$CG/rdma.max")"
check "in the container: context, PD and CQ created; the 2nd context and the 3rd object refused with EAGAIN" \
	"ibv_open_device=ok ibv_alloc_pd=ok ibv_create_cq=ok ibv_open_device=EAGAIN ibv_create_cq=EAGAIN" \
	"$(probe_summary "$TMP/a.out")"
check "the container's rdma.current while it holds" \
	"$DEV hca_handle=1 hca_object=2" "$(line "$CG/rdma.current")"
check "the container's rdma.events: one context and one object refused by its limit" \
	"$DEV hca_handle.max=1 hca_handle.alloc_fail=1 hca_object.max=1 hca_object.alloc_fail=1 mr_mem.max=0 mr_mem.alloc_fail=0" \
	"$(line "$CG/rdma.events")"
# `runc events --stats` reads rdma.current and rdma.max but cannot print
# them (its event type has no RDMA field): runc_stats prints what the
# same code of runc's libcontainer read.
timeout 60 runc events --stats "$CTR" >"$TMP/events" 2>&1
rc=$?
check "runc events --stats reads the container's cgroup without error" \
	"0 stats" "$rc $(grep -o '^{"type":"[a-z]*"' "$TMP/events" | cut -d'"' -f4)"
[ "$rc" = 0 ] || diag <"$TMP/events"
timeout 60 runc_stats "$CG" >"$TMP/stats" 2>&1
diag <"$TMP/stats"
check "runc's parser (libcontainer GetStats) reads rdma.max and rdma.current of $DEV" \
	"{\"device\":\"$DEV\",\"hca_handles\":1,\"hca_objects\":2} {\"device\":\"$DEV\",\"hca_handles\":1,\"hca_objects\":2}" \
	"$(runc_stat rdma_limit "$DEV" "$TMP/stats") $(runc_stat rdma_current "$DEV" "$TMP/stats")"
check "runc's parser accepts every line of rdma.max and rdma.current" \
	"$(wc -l <"$CG/rdma.max") $(wc -l <"$CG/rdma.current")" \
	"$(runc_entries rdma_limit "$TMP/stats") $(runc_entries rdma_current "$TMP/stats")"
ctr_stop 1

# 10-16, B: mr_mem through linux.resources.unified, in a container of its own
CTR=runc-unified
CG=/sys/fs/cgroup/$CTR
max_value="$DEV hca_handle=1 hca_object=3"
RB_UNIFIED="\"rdma.mr_mem.max\": \"$DEV 64K\", \"rdma.max\": \"$max_value\""
ctr_start b "runc runs verbs_probe with linux.resources.unified {rdma.mr_mem.max: \"$DEV 64K\", rdma.max: \"$max_value\"}" \
	- - "/$CTR" verbs_probe -k "$DEV" pd mr=48K mr=32K wait
unified_mr_checks runc "$TMP/b.out"
timeout 60 runc events --stats "$CTR" >"$TMP/events" 2>&1
rc=$?
timeout 60 runc_stats "$CG" >"$TMP/stats" 2>&1
diag <"$TMP/stats"
check "runc events --stats works; runc's parser reads rdma.max and rdma.current of $DEV" \
	"0 stats {\"device\":\"$DEV\",\"hca_handles\":1,\"hca_objects\":3} {\"device\":\"$DEV\",\"hca_handles\":1,\"hca_objects\":2}" \
	"$rc $(grep -o '^{"type":"[a-z]*"' "$TMP/events" | cut -d'"' -f4) $(runc_stat rdma_limit "$DEV" "$TMP/stats") $(runc_stat rdma_current "$DEV" "$TMP/stats")"
ctr_stop 1

exit "$failed"
