#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# crun (Debian's package, 1.8.1) as the container runtime, with the bundle
# and the busybox + verbs_probe container of the demo's runc steps
# (guest/lib/runc.sh, with RUNTIME=crun).  crun is not
# runc, and the test asserts what crun 1.8.1 does, which its source
# (src/libcrun/cgroup-resources.c, cgroup-utils.c) explains:
#   - it enables in the root's and the parent's cgroup.subtree_control
#     only the controllers it knows (cpuset, cpu, io, memory, hugetlb,
#     pids), never rdma: where nothing else enables rdma in the parent,
#     its containers have no rdma.* files and their verbs resources are
#     charged to the nearest ancestor that has them, without limit (runc
#     enables every available controller);
#   - it ignores linux.resources.rdma altogether: it parses it but writes
#     no rdma.max, even with the rdma controller enabled (runc writes it);
#   - it writes every linux.resources.unified key as one write of its value
#     to the file of that name, like runc, so rdma.max and rdma.mr_mem.max
#     are reached that way; but a key of a
#     controller that is not enabled makes `crun run` fail with "the
#     requested cgroup controller `rdma` is not available";
#   - it has no events or stats command (`crun events` is unknown);
#   - it needs a kernel with user namespaces (CONFIG_USER_NS), even for
#     containers without one: it reads /proc/self/uid_map and
#     /proc/self/setgroups, and fails without them.
# The containers run in cgroup crun-parent/crun-test, one after the
# other, each held by verbs_probe until its standard input is closed (but
# for B0, which crun refuses).  The root enables rdma (the test makes
# sure), crun-parent, made by the test, does not, as on a host where
# nothing but crun manages the containers' parent:
#   A1  linux.resources.rdma {DEV: 1 context, 2 objects}: crun enables pids
#       only in crun-parent, nothing is refused, and the container's verbs
#       resources are charged to crun-parent;
#   B0  linux.resources.unified with rdma.* keys, same state: crun run fails;
#   then the test enables rdma in crun-parent's subtree_control, as an
#   administrator must for crun:
#   A2  linux.resources.rdma as A1: rdma.max stays "max", nothing refused;
#   A3  the same limit through unified {"rdma.max": "DEV hca_handle=1
#       hca_object=2"}: it lands, the 2nd context and the 3rd object are
#       refused with EAGAIN, rdma.current and rdma.events as with runc;
#   B1  unified {"rdma.mr_mem.max": "DEV 64K", "rdma.max": "DEV
#       hca_handle=1 hca_object=3"} as the demo's runc: the limits land, 48 KiB
#       registered, 32 KiB refused with EAGAIN,
#       rdma.mr_mem.current and rdma.events.
#
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

# shellcheck source=harness/guest/lib/tap.sh
. "$HLIB/tap.sh"
# shellcheck source=harness/guest/lib/wait.sh
. "$HLIB/wait.sh"
# shellcheck source=harness/guest/lib/runc.sh
. "$HLIB/runc.sh"

# has FILE: "FILE" if the container's cgroup has it, "no FILE" if not.
has() { if [ -e "$CG/$1" ]; then echo "$1"; else echo "no $1"; fi; }
# gone: whether the container's cgroup was removed.
gone() { if [ -d "$CG" ]; then echo "still there"; else echo gone; fi; }

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


# The parent's subtree_control once crun has enabled the controllers it
# knows: those of the parent's cgroup.controllers that crun knows, in the
# kernel's order.
crun_knows() {
	ck_sep=''
	ck_all=$(cat "$PARENT/cgroup.controllers")
	for ck_c in $ck_all; do
		case " $CRUN_CONTROLLERS " in
		*" $ck_c "*) printf '%s%s' "$ck_sep" "$ck_c" && ck_sep=' ' ;;
		esac
	done
	echo
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
	"$(cat "$PARENT/cgroup.subtree_control")|$(cat "$CG/cgroup.controllers")|$(has rdma.max)"
check "in the container nothing is refused: its 2 contexts and 3 objects are charged to the parent, which has no limit" \
	"$probe_all_ok|$DEV hca_handle=2 hca_object=3|$DEV hca_handle=max hca_object=max" \
	"$(probe_summary "$TMP/a1.out")|$(rc_line "$DEV" "$PARENT/rdma.current")|$(rc_line "$DEV" "$PARENT/rdma.max")"
ctr_stop 0

# 5, B0: unified rdma.* keys, the rdma controller still not enabled.
# verbs_probe would see end of file at once and exit 1 after its refusal,
# so the status alone would not tell: no verbs_probe line may appear.
# crun leaves the container's cgroup behind, empty: when the write of a
# resource fails, libcrun_cgroup_enter returns before it hands the
# cgroup back, so crun's failure path kills the container's first process
# but has no cgroup to destroy, and `crun delete` knows no such container
# (its state is written later).  The test removes it.
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
unified_mr_checks crun "$TMP/b1.out"
ctr_stop 1

exit "$failed"
