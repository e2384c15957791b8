#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The documentation's examples, run as written.  harness/docexamples.py
# turned every shell example ("# command" and the output it shows) of the
# RDMA section of cgroup-v2.rst, of admin-guide/rdma-cgroup.rst and of
# cgroup-v1/rdma.rst into the scripts in /lib/harness/docex; each command
# is one TAP test that compares its output, exactly, with the text of the
# document.  The documents promise a machine whose only RDMA device is a
# soft-RoCE device rxe0: siw0 is deleted for the test and rxe0 made on lo,
# and siw0 comes back at the end.
#   v2     in a new cgroup /sys/fs/cgroup/docex-v2, its working directory
#          (the section's file names are relative);
#   guide  from /, as the guide makes and removes its cgroup itself;
#   v1     once no cgroup of the v2 hierarchy uses the controller (the
#          mount needs it), after which the v1 hierarchy is unmounted and
#          the controller enabled on v2 again.

DOCEX=/lib/harness/docex
CG=/sys/fs/cgroup/docex-v2
V1=/mnt/rdma-v1

. /lib/harness/tap.sh
. /lib/harness/wait.sh

# The number of rdma cgroups the kernel knows, the roots included.
rdma_cgroups() { awk '$1 == "rdma" { print $3 }' /proc/cgroups; }
# Whether the hierarchy of the controller has no cgroup left but its root.
only_root_left() { [ "$(rdma_cgroups)" = 1 ]; }

made_siw=
had_rdma=$(grep -ow rdma /sys/fs/cgroup/cgroup.subtree_control)
# shellcheck disable=SC2317 # called by the EXIT trap
cleanup() {
	cd /
	echo $$ >/sys/fs/cgroup/cgroup.procs 2>/dev/null
	[ -d "$CG" ] && rmdir "$CG"
	[ -d /sys/fs/cgroup/job ] && rmdir /sys/fs/cgroup/job
	if grep -q " $V1 " /proc/mounts; then
		echo $$ >"$V1/cgroup.procs"
		[ -d "$V1/tenant1" ] && rmdir "$V1/tenant1"
		# umount destroys the hierarchy only if its root has no child
		# left, and a removed cgroup stays a child until it is released
		wait_for 30 only_root_left
		umount "$V1"
	fi
	# the v1 hierarchy lets go of rdma asynchronously: wait until the v2
	# root has it again (the tests after this one need it), then the
	# root's controllers as they were
	wait_for 30 grep -qw rdma /sys/fs/cgroup/cgroup.controllers
	if [ -n "$had_rdma" ]; then
		echo +rdma >/sys/fs/cgroup/cgroup.subtree_control
	else
		echo -rdma >/sys/fs/cgroup/cgroup.subtree_control
	fi
	rdma link show rxe0/1 >/dev/null 2>&1 && rdma link delete rxe0
	[ -n "$made_siw" ] && rdma link add siw0 type siw netdev lo
}
trap cleanup EXIT

echo "TAP version 13"
plan=0
for s in v2 guide v1; do
	plan=$((plan + $(sed -n 's/^# plan //p' "$DOCEX/$s.sh")))
done
echo "1..$((plan + 2))"

if rdma link show siw0/1 >/dev/null 2>&1; then
	rdma link delete siw0 && made_siw=1
fi
rdma link show rxe0/1 >/dev/null 2>&1 || rdma link add rxe0 type rxe netdev lo
check "the machine of the documents: one RDMA device, rxe0" "rxe0" \
	"$(ls /sys/class/infiniband | tr '\n' ' ' | sed 's/ $//')"

echo +rdma >/sys/fs/cgroup/cgroup.subtree_control
mkdir "$CG"
cd "$CG" || exit 1
. "$DOCEX/v2.sh"
cd /
rmdir "$CG"

. "$DOCEX/guide.sh"
cd /

# v1: the controller must leave the v2 hierarchy first
echo -rdma >/sys/fs/cgroup/cgroup.subtree_control
if wait_for 30 only_root_left; then
	pass "no cgroup of the v2 hierarchy uses the controller"
else
	fail "no cgroup of the v2 hierarchy uses the controller # rdma cgroups: $(rdma_cgroups)"
fi
. "$DOCEX/v1.sh"
exit "$failed"
