#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Two RDMA devices of one name, told apart by "index=N" in the rdma
# cgroup's files and writes.  Names are unique per network namespace only
# when ib_core keeps devices in one namespace each (netns mode
# "exclusive"): this test switches to it, creates a soft-RoCE device
# "dup0" on lo, moves it into a new network namespace, renames the
# soft-iWARP device siw0 that guest/init made on lo to "dup0" in the initial
# one (siw takes one device per network device; without siw0 it creates
# one), and checks
#   - rdma.max, rdma.current, rdma.events and rdma.mr_mem.max key both
#     lines "dup0 index=N", N as `rdma dev` gives it in each namespace;
#   - a write of "dup0 ..." fails with ENOTUNIQ and changes nothing, one
#     with "dup0 index=N ..." sets that device only, one with an index no
#     device of that name has fails with ENODEV;
#   - a charge through verbs on the siw device is shown on its line only,
#     and its refusal counted there;
#   - once the namespace's device is gone the name is unique again: no
#     index in the files, and a write without one works.
# Then everything is removed, siw0 named back and the netns mode set back
# to shared.

CGROOT=/sys/fs/cgroup
CG=$CGROOT/netns-index
NS=rdmacg-index
NSFILE=/run/netns/$NS

. "$HLIB/tap.sh"

renamed=0
# shellcheck disable=SC2317 # called by the EXIT trap
cleanup() {
	echo $$ >"$CGROOT/cgroup.procs" 2>/dev/null
	rmdir "$CG" 2>/dev/null
	[ -e "$NSFILE" ] && nsenter --net="$NSFILE" rdma link delete dup0 2>/dev/null
	if [ $renamed -eq 1 ]; then
		rdma dev set dup0 name siw0
	else
		rdma link delete dup0 2>/dev/null
	fi
	if [ -e "$NSFILE" ]; then
		umount "$NSFILE" 2>/dev/null
		rm -f "$NSFILE"
	fi
	rdma system set netns shared 2>/dev/null
}

echo "TAP version 13"
if ! grep -qw rdma "$CGROOT/cgroup.controllers" 2>/dev/null; then
	echo "1..0 # SKIP no rdma controller in $CGROOT"
	exit 0
fi
if [ ! -e /proc/self/ns/net ]; then
	echo "1..0 # SKIP no network namespaces (CONFIG_NET_NS)"
	exit 0
fi
if [ -e /sys/class/infiniband/dup0 ]; then
	echo "1..0 # SKIP a device dup0 exists already"
	exit 0
fi
if ! rdma system set netns exclusive 2>/tmp/netns.err; then
	echo "1..0 # SKIP netns mode exclusive refused: $(cat /tmp/netns.err)"
	exit 0
fi
trap cleanup EXIT

# setup_failed WHAT: a step of the set-up failed; one failed check, the end.
setup_failed() { echo "1..1"; fail "$1"; exit 1; }

# iproute2 looks for named namespaces in /run/netns (or /var/run/netns)
mkdir -p /run/netns
[ -e /var/run ] || { mkdir -p /var && ln -s /run /var/run; }
: >"$NSFILE"
unshare -n mount --bind /proc/self/ns/net "$NSFILE" ||
	setup_failed "create network namespace $NS"
rdma link add dup0 type rxe netdev lo || setup_failed "create rxe dup0"
if ! rdma dev set dup0 netns "$NS" 2>/tmp/move.err; then
	# 6.12 moves only devices that can disassociate their user contexts,
	# which rxe and siw cannot (EOPNOTSUPP); there, names are unique
	# across namespaces anyway (see the rename below).
	if grep -q "Operation not supported" /tmp/move.err; then
		echo "1..0 # SKIP this kernel cannot move rxe into another network namespace: $(cat /tmp/move.err)"
		exit 0
	fi
	setup_failed "move rxe dup0 into $NS: $(cat /tmp/move.err)"
fi
if [ -e /sys/class/infiniband/siw0 ]; then
	if ! rdma dev set siw0 name dup0 2>/tmp/rename.err; then
		# Before Linux 7.3 a name is unique across all namespaces
		# (6.12 refuses the rename with EEXIST): no name is ever
		# duplicated and no file needs an index.
		if grep -q "File exists" /tmp/rename.err; then
			echo "1..0 # SKIP this kernel keeps device names unique across network namespaces: $(cat /tmp/rename.err)"
			exit 0
		fi
		setup_failed "rename siw0 to dup0: $(cat /tmp/rename.err)"
	fi
	renamed=1
else
	rdma link add dup0 type siw netdev lo || setup_failed "create siw dup0"
fi
echo "1..16"
# "N: dup0: node_type ..." in each namespace
a=$(rdma dev show dup0 | sed -n 's/^\([0-9]*\): dup0: .*/\1/p')
b=$(nsenter --net="$NSFILE" rdma dev show dup0 | sed -n 's/^\([0-9]*\): dup0: .*/\1/p')
if [ -n "$a" ] && [ -n "$b" ] && [ "$a" != "$b" ]; then
	pass "two devices dup0: siw index $a here, rxe index $b in $NS"
else
	fail "two devices dup0 with two indexes (got '$a' and '$b')"
	exit 1
fi

grep -qw rdma "$CGROOT/cgroup.subtree_control" ||
	echo +rdma >"$CGROOT/cgroup.subtree_control"
mkdir "$CG"

# line FILE KEY: the line of FILE that starts with KEY and a space
line() { grep "^$2 " "$CG/$1"; }
check "rdma.max: line of the siw device" \
	"dup0 index=$a hca_handle=max hca_object=max" "$(line rdma.max "dup0 index=$a")"
check "rdma.max: line of the rxe device in $NS" \
	"dup0 index=$b hca_handle=max hca_object=max" "$(line rdma.max "dup0 index=$b")"
check "rdma.mr_mem.max: both lines keyed with the index" \
	"dup0 index=$a max|dup0 index=$b max" \
	"$(grep '^dup0 ' "$CG/rdma.mr_mem.max" | sort -t= -k2n | paste -sd'|')"

err=$( (echo "dup0 hca_handle=1" >"$CG/rdma.max") 2>&1)
case "$err" in
*"not unique"*) pass "a write without index: ENOTUNIQ ($err)" ;;
*) fail "a write without index: ENOTUNIQ, got '$err'" ;;
esac
check "the refused write changed nothing" \
	"dup0 index=$a hca_handle=max hca_object=max|dup0 index=$b hca_handle=max hca_object=max" \
	"$(grep '^dup0 ' "$CG/rdma.max" | sort -t= -k2n | paste -sd'|')"
bad=$((a + b + 1))
err=$( (echo "dup0 index=$bad hca_handle=1" >"$CG/rdma.max") 2>&1)
case "$err" in
*"No such device"*) pass "a write with an index no dup0 has: ENODEV" ;;
*) fail "a write with an index no dup0 has: ENODEV, got '$err'" ;;
esac

if echo "dup0 index=$a hca_handle=1" >"$CG/rdma.max"; then
	check "a write with the siw device's index sets it only" \
		"dup0 index=$a hca_handle=1 hca_object=max|dup0 index=$b hca_handle=max hca_object=max" \
		"$(grep '^dup0 ' "$CG/rdma.max" | sort -t= -k2n | paste -sd'|')"
else
	fail "a write with the siw device's index"
fi

out=$(verbs_worker -d dup0 -g "$CG" hold -c 2 2>&1)
case "$out" in
*"ctx_ok=1 ctx_err=EAGAIN"*) pass "verbs on dup0: one context, the second refused" ;;
*) fail "verbs on dup0: one context, the second refused"; echo "$out" | diag ;;
esac
check "rdma.events: the refusal on the siw device's line" \
	"dup0 index=$a hca_handle.max=1 hca_handle.alloc_fail=1" \
	"$(line rdma.events "dup0 index=$a" | cut -d' ' -f1-4)"
check "rdma.events: nothing on the rxe device's line" \
	"dup0 index=$b hca_handle.max=0 hca_handle.alloc_fail=0" \
	"$(line rdma.events "dup0 index=$b" | cut -d' ' -f1-4)"
check "rdma.peak: the context on the siw device's line" \
	"dup0 index=$a hca_handle=1 hca_object=0" "$(line rdma.peak "dup0 index=$a")"

if nsenter --net="$NSFILE" rdma link delete dup0; then
	pass "delete rxe dup0 in $NS"
else
	fail "delete rxe dup0 in $NS"
fi
check "rdma.max: one dup0 left, without index" \
	"dup0 hca_handle=1 hca_object=max" "$(line rdma.max dup0)"
if echo "dup0 hca_handle=2" >"$CG/rdma.max"; then
	check "a write without index sets the one dup0" \
		"dup0 hca_handle=2 hca_object=max" "$(line rdma.max dup0)"
else
	fail "a write without index once the name is unique"
fi
check "the index still names it" "" \
	"$( (echo "dup0 index=$a hca_object=3" >"$CG/rdma.max") 2>&1)"
exit "$failed"
