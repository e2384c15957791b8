#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# crun (Debian's 1.8.1) as the OCI runtime, with the demo's bundle and
# container (guest/lib/runc.sh, RUNTIME=crun).  What it asserts is what
# crun's source (src/libcrun/cgroup-resources.c, cgroup-utils.c) does:
# it enables only the controllers it knows (cpuset cpu io memory hugetlb
# pids), never rdma; it ignores linux.resources.rdma; it writes each
# linux.resources.unified key to the file of that name, and fails `crun
# run` if that key's controller is not enabled; it has no `events`; it needs
# CONFIG_USER_NS.  The containers run one after the other in
# crun-parent/crun-test, where the root enables rdma and crun-parent at
# first does not:
#   A1  linux.resources.rdma {DEV: 1, 2}: nothing refused, charged to the parent
#   B0  unified rdma.* keys: crun run fails
#   A2  rdma enabled in crun-parent by hand; A1's resources: rdma.max stays max
#   A3  unified {"rdma.max": "DEV hca_handle=1 hca_object=2"}: refusals as runc's
#   B1  the demo's unified rdma.mr_mem.max and rdma.max: 48 KiB in, 32 KiB refused
# Environment: DEV (default siw0).

DEV=${DEV:-siw0}
CTR=crun-test
ROOTCG=/sys/fs/cgroup
PARENT=$ROOTCG/crun-parent
CGPATH=/crun-parent/$CTR
CG=$ROOTCG$CGPATH
# the controllers crun enables, if available (read_available_controllers)
CRUN_CONTROLLERS="cpuset cpu io memory hugetlb pids"
TMP=${TMPDIR:-/tmp}/84-crun.$$
PLAN=23
RUNTIME=crun

. "$HLIB/tap.sh"
. "$HLIB/wait.sh"
. "$HLIB/runc.sh"

gone() { if [ -d "$CG" ]; then echo "still there"; else echo gone; fi; }
rc_line() { grep "^$1 " "$2"; }

# ctr_start NAME WHAT HANDLES OBJECTS CGROUP ARG...: bundle $TMP/NAME and
# its container until verbs_probe holds (output in $TMP/NAME.out): passes
# WHAT, or fails it, skips the rest of the plan and exits.
ctr_start() {
	cs_dir=$TMP/$1 cs_what=$2
	shift 2
	cs_why=
	if ! runc_bundle "$cs_dir" "$DEV" "$@"; then
		cs_why="no uverbs node for $DEV"
	elif ! runc_start "$cs_dir" "$CTR" "$cs_dir.out"; then
		cs_why="verbs_probe in the container did not reach its wait (see the output below)"
	fi
	[ -z "$cs_why" ] && pass "$cs_what" || fail "$cs_what # $cs_why"
	[ -f "$cs_dir.out" ] && diag <"$cs_dir.out"
	[ -z "$cs_why" ] && return 0
	while [ "$n" -lt "$PLAN" ]; do skip "not run" "a container did not start"; done
	exit 1
}

# ctr_stop STATUS: the runtime exits with verbs_probe's STATUS, CG is gone.
ctr_stop() {
	runc_stop
	cs_rc=$?
	check "stdin closed: the container exits with verbs_probe's status $1, crun removes its cgroup" \
		"$1 gone" "$cs_rc $(gone)"
}

controllers=$(cat "$ROOTCG/cgroup.subtree_control")
# shellcheck disable=SC2317 # called by the EXIT trap
cleanup() {
	runc_cleanup "$CTR" "$CG" "$controllers" "$PARENT"
	rm -rf "$TMP"
}

echo "TAP version 13"
if ! command -v crun >/dev/null; then
	echo "1..0 # SKIP no crun in the guest"
	exit 0
fi
trap cleanup EXIT
mkdir -p "$TMP"
echo "1..$PLAN"

grep -qw rdma "$ROOTCG/cgroup.subtree_control" ||
	echo +rdma >"$ROOTCG/cgroup.subtree_control"
mkdir -p "$PARENT"

# The controllers of the parent that crun knows, in the kernel's order:
# its subtree_control once crun has enabled them.
crun_knows() {
	for ck_c in $(cat "$PARENT/cgroup.controllers"); do
		case " $CRUN_CONTROLLERS " in *" $ck_c "*) echo "$ck_c" ;; esac
	done | paste -sd' '
}

probe_all_ok="ibv_open_device=ok ibv_alloc_pd=ok ibv_create_cq=ok ibv_open_device=ok ibv_create_cq=ok"
probe_refused="ibv_open_device=ok ibv_alloc_pd=ok ibv_create_cq=ok ibv_open_device=EAGAIN ibv_create_cq=EAGAIN"
no_events="$DEV hca_handle.max=0 hca_handle.alloc_fail=0 hca_object.max=0 hca_object.alloc_fail=0 mr_mem.max=0 mr_mem.alloc_fail=0"
unified_mr="\"rdma.mr_mem.max\": \"$DEV 64K\", \"rdma.max\": \"$DEV hca_handle=1 hca_object=3\""

RB_UNIFIED=''

# 1-4, A1: linux.resources.rdma, the rdma controller not enabled in the parent
ctr_start a1 "crun runs verbs_probe with linux.resources.rdma \"$DEV\": {hcaHandles: 1, hcaObjects: 2}, rdma not enabled in the parent" \
	1 2 "$CGPATH" verbs_probe -k "$DEV" pd cq open cq wait
check "crun enabled in the parent only the controllers it knows (not rdma): the container's cgroup has no rdma.max" \
	"$(crun_knows)|$(crun_knows)|no rdma.max" \
	"$(cat "$PARENT/cgroup.subtree_control")|$(cat "$CG/cgroup.controllers")|$([ -e "$CG/rdma.max" ] || echo no) rdma.max"
check "in the container nothing is refused: its 2 contexts and 3 objects are charged to the parent, which has no limit" \
	"$probe_all_ok|$DEV hca_handle=2 hca_object=3|$DEV hca_handle=max hca_object=max" \
	"$(probe_summary "$TMP/a1.out")|$(rc_line "$DEV" "$PARENT/rdma.current")|$(rc_line "$DEV" "$PARENT/rdma.max")"
ctr_stop 0

# 5, B0: unified rdma.* keys, the rdma controller still not enabled: no
# verbs_probe line may appear (its exit status alone would not tell).  crun
# leaves the container's cgroup behind, empty (libcrun_cgroup_enter fails
# before it hands the cgroup back, and `crun delete` knows no such
# container): the test removes it.
RB_UNIFIED=$unified_mr
if runc_bundle "$TMP/b0" "$DEV" - - "$CGPATH" verbs_probe -k "$DEV" pd mr=48K mr=32K wait; then
	timeout 60 crun run --no-pivot --bundle "$TMP/b0" "$CTR" </dev/null >"$TMP/b0.out" 2>&1
	rc=$?
else
	rc="no bundle"
fi
diag <"$TMP/b0.out"
left="$(gone), $(wc -l 2>/dev/null <"$CG/cgroup.procs") processes"
if rmdir "$CG" 2>/dev/null; then left="$left, removed by the test"; fi
check "unified rdma.* keys without the rdma controller: crun run fails, the container never runs, its cgroup is left behind" \
	"1|the requested cgroup controller \`rdma\` is not available|0 verbs_probe lines|still there, 0 processes, removed by the test" \
	"$rc|$(grep -v '^verbs_probe' "$TMP/b0.out" | tail -n1)|$(grep -c '^verbs_probe' "$TMP/b0.out") verbs_probe lines|$left"

# 6: what an administrator must do for crun
echo +rdma >"$PARENT/cgroup.subtree_control"
check "the rdma controller enabled in the parent's subtree_control by hand, as crun does not" \
	"rdma" "$(grep -ow rdma "$PARENT/cgroup.subtree_control")"

# 7-10, A2: linux.resources.rdma with the rdma controller enabled
RB_UNIFIED=
ctr_start a2 "crun runs verbs_probe with linux.resources.rdma \"$DEV\": {hcaHandles: 1, hcaObjects: 2}, rdma enabled" \
	1 2 "$CGPATH" verbs_probe -k "$DEV" pd cq open cq wait
check "crun ignores linux.resources.rdma: the container's rdma.max stays at max" \
	"$DEV hca_handle=max hca_object=max" "$(rc_line "$DEV" "$CG/rdma.max")"
check "nothing refused; the container's rdma.current counts 2 contexts and 3 objects, rdma.events no refusal" \
	"$probe_all_ok|$DEV hca_handle=2 hca_object=3|$no_events" \
	"$(probe_summary "$TMP/a2.out")|$(rc_line "$DEV" "$CG/rdma.current")|$(rc_line "$DEV" "$CG/rdma.events")"
ctr_stop 0

# 11-17, A3: the limit of A1 through linux.resources.unified (and
# linux.resources.rdma, which crun still ignores)
RB_UNIFIED="\"rdma.max\": \"$DEV hca_handle=1 hca_object=2\""
ctr_start a3 "crun runs verbs_probe with linux.resources.unified {rdma.max: \"$DEV hca_handle=1 hca_object=2\"}" \
	1 2 "$CGPATH" verbs_probe -k "$DEV" pd cq open cq wait
check "crun wrote the limit to the container's rdma.max" \
	"$DEV hca_handle=1 hca_object=2" "$(rc_line "$DEV" "$CG/rdma.max")"
check "in the container: context, PD and CQ created; the 2nd context and the 3rd object refused with EAGAIN" \
	"$probe_refused" "$(probe_summary "$TMP/a3.out")"
check "the container's rdma.current while it holds" \
	"$DEV hca_handle=1 hca_object=2" "$(rc_line "$DEV" "$CG/rdma.current")"
check "the container's rdma.events: one context and one object refused by its limit" \
	"$DEV hca_handle.max=1 hca_handle.alloc_fail=1 hca_object.max=1 hca_object.alloc_fail=1 mr_mem.max=0 mr_mem.alloc_fail=0" \
	"$(rc_line "$DEV" "$CG/rdma.events")"
# runc's `events --stats` reads rdma.max and rdma.current (demo.sh);
# crun has no such command: its statistics are the cgroup's files
timeout 60 crun state "$CTR" >"$TMP/state" 2>&1
rc=$?
timeout 60 crun events --stats "$CTR" >"$TMP/events" 2>&1
rc2=$?
diag <"$TMP/events"
check "crun state: running; crun has no events (stats) command" \
	"0 running|1 unknown command events" \
	"$rc $(sed -n 's/.*"status": *"\([a-z]*\)".*/\1/p' "$TMP/state")|$rc2 $(cat "$TMP/events")"
ctr_stop 1

# 18-23, B1: rdma.mr_mem.max and rdma.max through unified
RB_UNIFIED=$unified_mr
ctr_start b1 "crun runs verbs_probe with linux.resources.unified {$unified_mr}" \
	- - "$CGPATH" verbs_probe -k "$DEV" pd mr=48K mr=32K wait
check "crun wrote rdma.mr_mem.max and rdma.max" \
	"$DEV 65536|$DEV hca_handle=1 hca_object=3" \
	"$(rc_line "$DEV" "$CG/rdma.mr_mem.max")|$(rc_line "$DEV" "$CG/rdma.max")"
check "in the container: the 48 KiB MR registered, the 32 KiB one refused with EAGAIN" \
	"ibv_open_device=ok ibv_alloc_pd=ok ibv_reg_mr(49152)=ok ibv_reg_mr(32768)=EAGAIN" \
	"$(probe_summary "$TMP/b1.out")"
check "the container's rdma.mr_mem.current and rdma.current while it holds" \
	"$DEV 49152|$DEV hca_handle=1 hca_object=2" \
	"$(rc_line "$DEV" "$CG/rdma.mr_mem.current")|$(rc_line "$DEV" "$CG/rdma.current")"
check "the container's rdma.events: the MR refused by its mr_mem limit" \
	"$DEV hca_handle.max=0 hca_handle.alloc_fail=0 hca_object.max=0 hca_object.alloc_fail=0 mr_mem.max=1 mr_mem.alloc_fail=1" \
	"$(rc_line "$DEV" "$CG/rdma.events")"
ctr_stop 1

exit "$failed"
