#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Delegation of an rdma-limited sub-tree to an unprivileged user, following
# the cgroup v2 rules (Documentation/admin-guide/cgroup-v2.rst,
# "Delegation"; the errnos are those of kernel/cgroup/cgroup.c).
#
# root creates /sys/fs/cgroup/deleg, limits it in deleg/rdma.max, and chowns
# the directory and its cgroup.procs, cgroup.subtree_control and
# cgroup.threads (not rdma.max) to uid 1000.  As uid 1000 (cgtool runas:
# setgroups(0), setresgid, setresuid):
#   - creating sub-cgroups, moving itself into them, enabling rdma for them
#     works, and it owns the interface files of the cgroups it created;
#   - writing deleg/rdma.max fails at open with EACCES (mode 0644, owned by
#     root), and chmod of it with EPERM: it cannot raise its own limit;
#   - writing rdma.max of its own sub-cgroup works, but charges in there are
#     still refused by deleg's limit (verbs objects created by a uid 1000
#     process, the uverbs node made accessible with chmod 666), and
#     deleg/rdma.events.local says the limit hit was deleg's; a lower limit
#     in the sub-cgroup is enforced too;
#   - moving itself out of the delegated sub-tree fails: at open with EACCES
#     into a cgroup whose cgroup.procs it cannot write, and at write with
#     EACCES when it may write the destination's cgroup.procs but not the
#     common ancestor's (cgroup_procs_write_permission());
#   - with nsdelegate, in a cgroup namespace rooted at its sub-cgroup,
#     migrating to a cgroup outside the namespace fails with ENOENT even
#     where it owns both cgroup.procs files, and writing rdma.max of the
#     namespace root fails with EPERM even though it owns the file
#     (cgroup_file_write()).
# Everything is undone at the end, the mount options included.
#
# Environment: DEV (default siw0), DELEG_UID (default 1000).

DEV=${DEV:-siw0}
U=${DELEG_UID:-1000}
CGROOT=/sys/fs/cgroup
D=$CGROOT/deleg
OUTSIDE=$CGROOT/deleg-outside	# a sibling the delegatee has no rights on
OPEN=$CGROOT/deleg-open		# a sibling whose cgroup.procs it owns
TMP=${TMPDIR:-/tmp}/70-delegation.$$
LIMIT="$DEV hca_handle=2 hca_object=3"

. "$HLIB/tap.sh"

# as_user [-g CGROUP] [-N] CMD...: run CMD as uid/gid $U, placed by root in
# CGROUP first, in a new cgroup namespace with -N.
as_user() {
	au_opts=
	while :; do
		case "$1" in
		-g) au_opts="$au_opts -g $2"; shift 2 ;;
		-N) au_opts="$au_opts -N"; shift ;;
		*) break ;;
		esac
	done
	# shellcheck disable=SC2086
	cgtool runas $au_opts "$U" "$U" "$@"
}

# The rdma.current line of DEV in cgroup $1.
current() { grep "^$DEV " "$1/rdma.current"; }

uverbs=
uverbs_mode=
cg_flags=
# shellcheck disable=SC2317 # called by the EXIT trap
cleanup() {
	[ -e "$TMP/hold" ] && rm -f "$TMP/hold"
	wait
	[ -n "$cg_flags" ] && cgtool remount "$CGROOT" "${cg_flags#none}" >/dev/null
	for d in "$D/sub/inner" "$D/sub" "$D/sub2" "$D" "$OUTSIDE" "$OPEN"; do
		[ -d "$d" ] || continue
		# shellcheck disable=SC2013
		for p in $(cat "$d/cgroup.procs"); do
			echo "$p" >"$CGROOT/cgroup.procs"
		done 2>/dev/null
		rmdir "$d"
	done
	[ -n "$uverbs_mode" ] && chmod "$uverbs_mode" "$uverbs"
	rm -rf "$TMP"
}
trap cleanup EXIT
mkdir -p "$TMP"

echo "TAP version 13"
echo "1..18"

# 1: setup by root
setup_ok=0
why=
for u in /sys/class/infiniband_verbs/uverbs*; do
	[ "$(cat "$u/ibdev" 2>/dev/null)" = "$DEV" ] && uverbs=/dev/infiniband/${u##*/}
done
if [ ! -d "/sys/class/infiniband/$DEV" ] || [ ! -c "$uverbs" ]; then
	why="no device $DEV or no uverbs node for it"
elif ! why=$(rdma_ready "$DEV"); then
	:
else
	for d in "$D/sub/inner" "$D/sub" "$D/sub2" "$D" "$OUTSIDE" "$OPEN"; do
		[ -d "$d" ] && rmdir "$d"
	done
	uverbs_mode=$(stat -c %a "$uverbs")
	if mkdir "$D" "$OUTSIDE" "$OPEN" &&
	   echo "$LIMIT" >"$D/rdma.max" &&
	   chown "$U:$U" "$D" "$D/cgroup.procs" "$D/cgroup.subtree_control" "$D/cgroup.threads" &&
	   chown "$U:$U" "$OPEN/cgroup.procs" &&
	   chmod 666 "$uverbs"; then
		setup_ok=1
	else
		why="creating the cgroups failed"
	fi
fi
if [ "$setup_ok" = 1 ]; then
	pass "setup: $D delegated to uid $U with \"$LIMIT\"; $uverbs mode 666 (was $uverbs_mode)"
	ls -ln "$D" | grep -E 'cgroup.(procs|subtree_control|threads)|rdma.max' | diag
else
	fail "setup # $why"
	while [ "$n" -lt 18 ]; do skip "not run" "setup failed"; done
	exit 1
fi

# 2: the delegatee creates sub-cgroups and owns their files
check "uid $U: mkdir $D/sub and $D/sub2" "ok ok" \
	"$(as_user cgtool mkdir "$D/sub") $(as_user cgtool mkdir "$D/sub2")"

# 3: it moves itself from deleg into deleg/sub (common ancestor: deleg)
check "uid $U: moves itself from deleg into deleg/sub" "ok 0::/deleg/sub" \
	"$(as_user -g "$D" sh -c 'cgtool write "$1/sub/cgroup.procs" $$; cat /proc/self/cgroup' sh "$D" | tr '\n' ' ' | sed 's/ $//')"

# 4: it enables rdma for its children; their rdma.max is its own
out=$(as_user cgtool write "$D/cgroup.subtree_control" +rdma)
owner=$(stat -c %u "$D/sub/rdma.max" 2>&1)
check "uid $U: enables +rdma in deleg/cgroup.subtree_control; deleg/sub/rdma.max is owned by uid $U" \
	"ok $U" "$out $owner"

# 5, 6: it cannot raise its own limit
check "uid $U: writing deleg/rdma.max fails with EACCES" "open EACCES" \
	"$(as_user cgtool write "$D/rdma.max" "$DEV hca_handle=max hca_object=max")"
check "uid $U: chmod of deleg/rdma.max fails with EPERM; deleg/rdma.max unchanged" \
	"EPERM $LIMIT" "$(as_user cgtool chmod "$D/rdma.max" 666) $(cat "$D/rdma.max")"

# 7: it may set its sub-cgroup's limit, above the parent's
check "uid $U: writing deleg/sub/rdma.max works" \
	"ok $DEV hca_handle=100 hca_object=100" \
	"$(as_user cgtool write "$D/sub/rdma.max" "$DEV hca_handle=100 hca_object=100") $(cat "$D/sub/rdma.max")"

# 8-10: but the parent's limit holds.  The worker is put in deleg/sub2 by
# root and moves itself into deleg/sub as uid $U.
touch "$TMP/hold"
as_user -g "$D/sub2" verbs_worker -d "$DEV" -g "$D/sub" hold -c 4 -p 5 \
	-w "$TMP/hold" -T 60 >"$TMP/out" 2>&1 &
for _ in $(seq 600); do
	grep -q '^hold:' "$TMP/out" && break
	sleep 0.1
done
check "uid $U in deleg/sub: 2 contexts and 3 PDs, then EAGAIN (deleg's limit)" \
	"hold: uid=$U ctx_ok=2 ctx_err=EAGAIN pd_ok=3 pd_err=EAGAIN cq_ok=0 cq_err=none mr_ok=0 mr_err=none mr_bytes=0 injected=0" \
	"$(grep -v '^#' "$TMP/out")"
check "rdma.current while held: deleg, deleg/sub, deleg/sub2" \
	"$DEV hca_handle=2 hca_object=3|$DEV hca_handle=2 hca_object=3|$DEV hca_handle=0 hca_object=0" \
	"$(current "$D")|$(current "$D/sub")|$(current "$D/sub2")"
check "rdma.events.local: the limit hit was deleg's, the failing charges deleg/sub's" \
	"$DEV hca_handle.max=1 hca_handle.alloc_fail=0 hca_object.max=1 hca_object.alloc_fail=0 mr_mem.max=0 mr_mem.alloc_fail=0|$DEV hca_handle.max=0 hca_handle.alloc_fail=1 hca_object.max=0 hca_object.alloc_fail=1 mr_mem.max=0 mr_mem.alloc_fail=0" \
	"$(grep "^$DEV " "$D/rdma.events.local")|$(grep "^$DEV " "$D/sub/rdma.events.local")"
rm -f "$TMP/hold"
wait

# 11: a lower limit of its own is enforced as well
as_user cgtool write "$D/sub/rdma.max" "$DEV hca_object=1" >"$TMP/w"
as_user -g "$D/sub" verbs_worker -d "$DEV" hold -c 1 -p 3 >"$TMP/out" 2>&1
check "uid $U: deleg/sub limited to hca_object=1 by the delegatee: 1 PD, then EAGAIN; charges back to 0" \
	"ok|hold: uid=$U ctx_ok=1 ctx_err=none pd_ok=1 pd_err=EAGAIN cq_ok=0 cq_err=none mr_ok=0 mr_err=none mr_bytes=0 injected=0|$DEV hca_handle=0 hca_object=0|$DEV hca_handle=0 hca_object=0" \
	"$(cat "$TMP/w")|$(grep -v '^#' "$TMP/out")|$(current "$D")|$(current "$D/sub")"

# 12-15: escaping the delegated sub-tree
move_self() {
	as_user -g "$1" sh -c 'cgtool write "$1" $$; cat /proc/self/cgroup' sh "$2" |
		tr '\n' ' ' | sed 's/ $//'
}
check "uid $U: into the root cgroup: EACCES at open, stays in deleg/sub" \
	"open EACCES 0::/deleg/sub" "$(move_self "$D/sub" "$CGROOT/cgroup.procs")"
check "uid $U: into a root-owned sibling: EACCES at open, stays in deleg/sub" \
	"open EACCES 0::/deleg/sub" "$(move_self "$D/sub" "$OUTSIDE/cgroup.procs")"
check "uid $U: into a sibling whose cgroup.procs it owns: EACCES at write (common ancestor not writable)" \
	"write EACCES 0::/deleg/sub" "$(move_self "$D/sub" "$OPEN/cgroup.procs")"
check "uid $U: within its sub-tree, deleg/sub to deleg/sub2, works" \
	"ok 0::/deleg/sub2" "$(move_self "$D/sub" "$D/sub2/cgroup.procs")"

# 16-18: with nsdelegate, from a cgroup namespace rooted at deleg/sub
cg_flags=$(awk '$2 == "/sys/fs/cgroup" && $3 == "cgroup2" { print $4 }' /proc/mounts |
	tr ',' '\n' | grep -E '^(nsdelegate|favordynmods|memory_localevents|memory_recursiveprot|memory_hugetlb_accounting|pids_localevents)$' |
	paste -sd, -)
cg_flags=none$cg_flags	# set: the cleanup restores these options
out=$(cgtool remount "$CGROOT" "$(echo "nsdelegate,${cg_flags#none}" | sed 's/,$//')")
if [ "$out" != ok ] || ! awk '$2 == "/sys/fs/cgroup" { print $4 }' /proc/mounts | grep -qw nsdelegate; then
	for t in "migrating to deleg/sub2 outside the namespace: ENOENT" \
		 "migrating to deleg (its own cgroup.procs) outside the namespace: ENOENT" \
		 "writing rdma.max of the namespace root deleg/sub: EPERM"; do
		skip "uid $U, nsdelegate: $t" "remount with nsdelegate: $out"
	done
else
	check "uid $U, nsdelegate: migrating to deleg/sub2 outside the namespace: ENOENT" \
		"write ENOENT 0::/" \
		"$(as_user -g "$D/sub" -N sh -c 'cgtool write "$1" $$; cat /proc/self/cgroup' sh "$D/sub2/cgroup.procs" | tr '\n' ' ' | sed 's/ $//')"
	check "uid $U, nsdelegate: migrating to deleg (its own cgroup.procs) outside the namespace: ENOENT" \
		"write ENOENT 0::/" \
		"$(as_user -g "$D/sub" -N sh -c 'cgtool write "$1" $$; cat /proc/self/cgroup' sh "$D/cgroup.procs" | tr '\n' ' ' | sed 's/ $//')"
	check "uid $U, nsdelegate: writing rdma.max of the namespace root deleg/sub (its own file): EPERM" \
		"write EPERM $DEV hca_handle=100 hca_object=1" \
		"$(as_user -g "$D/sub" -N cgtool write "$D/sub/rdma.max" "$DEV hca_handle=max hca_object=max") $(cat "$D/sub/rdma.max")"
	cgtool remount "$CGROOT" "${cg_flags#none}" >/dev/null
	awk '$2 == "/sys/fs/cgroup" { print "mount options restored: " $4 }' /proc/mounts | diag
	cg_flags=
fi

exit "$failed"
