#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The documentation's examples, run as written: rst.py turned each shell
# example of cgroup-v2.rst's RDMA section (v2: run in a new cgroup
# docex-v2) and of docs/rdma-cgroup-guide.rst (guide: from /) into scripts
# in $GUEST/docex, a TAP test per command comparing its output exactly.
# The documents' machine has one device, rxe0 on lo: siw0 is removed meanwhile.

DOCEX=$GUEST/docex
CG=/sys/fs/cgroup/docex-v2

. "$HLIB/tap.sh"


made_siw=
had_rdma=$(grep -ow rdma /sys/fs/cgroup/cgroup.subtree_control)
# shellcheck disable=SC2317 # called by the EXIT trap
cleanup() {
	cd /
	echo $$ >/sys/fs/cgroup/cgroup.procs 2>/dev/null
	[ -d "$CG" ] && rmdir "$CG"
	[ -d /sys/fs/cgroup/job ] && rmdir /sys/fs/cgroup/job
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
for s in v2 guide; do
	plan=$((plan + $(sed -n 's/^# plan //p' "$DOCEX/$s.sh")))
done
echo "1..$((plan + 1))"

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

exit "$failed"
