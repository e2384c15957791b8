#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# A container runtime as the client: runc (Debian's package) runs a busybox
# container whose OCI config sets linux.resources.rdma for DEV to 1 context
# and 2 objects (guest/lib/runc.sh).  In the container, verbs_probe opens
# DEV, allocates a PD and a CQ, asks for a second context and a third
# object, and holds what it got until its standard input is closed.  While
# it holds, the test checks:
#   - the limit landed in the container cgroup's rdma.max;
#   - the second context and the third object were refused with EAGAIN;
#   - rdma.current and rdma.events of the container cgroup;
#   - runc reads our rdma.max and rdma.current: `runc events --stats` runs
#     without error, and runc_stats (guest/src/runc_stats.go: the same
#     libcontainer code, GetStats) finds DEV's values and an entry for every
#     line.  runc's parser (libcontainer/cgroups/fscommon/rdma.go) keeps only
#     lines of exactly three fields "DEV hca_handle=N hca_object=N", so this
#     is what proves that the files still speak its format.
# Then the container's stdin is closed: the container exits with
# verbs_probe's status 1 (it saw refusals) and runc removes its cgroup.
#
# Environment: DEV (default siw0).

DEV=${DEV:-siw0}
CTR=runc-test
CG=/sys/fs/cgroup/$CTR
TMP=${TMPDIR:-/tmp}/80-runc.$$
PLAN=9

. /lib/harness/tap.sh
. /lib/harness/wait.sh
. /lib/harness/verbs.sh
. /lib/harness/runc.sh

# The line of DEV in file $1.
line() { grep "^$DEV " "$1"; }

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

# 1: the bundle, and the container holding its verbs resources
why=
if ! command -v runc >/dev/null; then
	why="no runc in the guest"
elif ! runc_bundle "$TMP/bundle" "$DEV" 1 2 "/$CTR" verbs_probe -k "$DEV" pd cq open cq wait; then
	why="no uverbs node for $DEV"
else
	runc_start "$TMP/bundle" "$CTR" "$TMP/out" ||
		why="verbs_probe in the container did not reach its wait (see the output below)"
fi
if [ -z "$why" ]; then
	pass "runc runs verbs_probe in a container limited to \"$DEV\": {hcaHandles: 1, hcaObjects: 2}"
	diag <"$TMP/out"
else
	fail "runc runs verbs_probe in a container # $why"
	[ -f "$TMP/out" ] && diag <"$TMP/out"
	while [ "$n" -lt "$PLAN" ]; do skip "not run" "the container did not start"; done
	exit 1
fi

# 2-5: while the container holds a context, a PD and a CQ
check "runc wrote the limit to the container's rdma.max" \
	"$DEV hca_handle=1 hca_object=2" "$(line "$CG/rdma.max")"
check "in the container: context, PD and CQ created; the 2nd context and the 3rd object refused with EAGAIN" \
	"ibv_open_device=ok ibv_alloc_pd=ok ibv_create_cq=ok ibv_open_device=EAGAIN ibv_create_cq=EAGAIN" \
	"$(probe_summary "$TMP/out")"
check "the container's rdma.current while it holds" \
	"$DEV hca_handle=1 hca_object=2" "$(line "$CG/rdma.current")"
check "the container's rdma.events: one context and one object refused by its limit" \
	"$DEV hca_handle.max=1 hca_handle.alloc_fail=1 hca_object.max=1 hca_object.alloc_fail=1 mr_mem.max=0 mr_mem.alloc_fail=0" \
	"$(line "$CG/rdma.events")"

# 6-8: what runc reads back.  `runc events --stats` reads rdma.current and
# rdma.max but cannot print them (its event type has no RDMA field):
# runc_stats prints what the same code of runc's libcontainer read.
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

# 9: release
runc_stop
rc=$?
check "stdin closed: the container exits with verbs_probe's status 1, runc removes its cgroup" \
	"1 gone" "$rc $([ -d "$CG" ] && echo still there || echo gone)"

exit "$failed"
