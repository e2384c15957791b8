#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The narrated demo run by `make demo` in the release guest: a cgroup limits
# a real verbs workload (ibv_rc_pingpong) on a soft RDMA device.
#
# The device is rxe0 (soft-RoCE on lo): ibv_rc_pingpong connects its QPs with
# plain verbs, which RoCE allows; siw0 (soft-iWARP, used by the tests) needs
# the RDMA connection manager for that, and the CM cannot resolve loopback
# addresses on siw.  ibv_rc_pingpong holds exactly 1 verbs context and
# 4 verbs objects (PD, MR, CQ, QP), hence the limit below.

CG=/sys/fs/cgroup/demo
DEV=rxe0
ITERS=${ITERS:-2000}

step() {
	echo
	echo "=== $* ==="
}

# show CMD: print a shell command, then run it
show() {
	echo "# $*"
	sh -c "$*"
}

# incg CMD...: run CMD inside the demo cgroup
incg() {
	sh -c 'echo $$ > '"$CG"'/cgroup.procs && exec "$@"' incg "$@"
}

step "1. A soft RDMA device: RoCE (rxe) on the loopback interface"
show "rdma link add $DEV type rxe netdev lo"
show "rdma link show"
show "ibv_devices"

step "2. A cgroup allowed 1 verbs context and 4 verbs objects on $DEV"
show "echo +rdma > /sys/fs/cgroup/cgroup.subtree_control"
show "mkdir $CG"
show "echo '$DEV hca_handle=1 hca_object=4' > $CG/rdma.max"
show "cat $CG/rdma.max"
show "cat $CG/rdma.current"

step "3. A real verbs workload: ibv_rc_pingpong, server inside the cgroup, client outside"
echo "# (inside $CG) ibv_rc_pingpong -d $DEV -g 1 -n $ITERS &"
incg ibv_rc_pingpong -d $DEV -g 1 -n "$ITERS" >/tmp/server.log 2>&1 &
server=$!
i=0
until grep -q "hca_object=4" $CG/rdma.current 2>/dev/null || [ $i -ge 30 ]; do
	sleep 1
	i=$((i + 1))
done
echo "The server has opened the device and created its PD, MR, CQ and QP:"
show "cat $CG/rdma.current"
echo "# (outside) ibv_rc_pingpong -d $DEV -g 1 -n $ITERS 127.0.0.1 &"
ibv_rc_pingpong -d $DEV -g 1 -n "$ITERS" 127.0.0.1 >/tmp/client.log 2>&1 &
client=$!
sleep 3
echo "While the ping-pong runs:"
show "cat $CG/rdma.current"

step "4. The cgroup is at its limit: the next context is refused"
echo "# (inside $CG) verbs_probe $DEV     # opens the device, prints errno"
incg verbs_probe $DEV
echo "# (inside $CG) ibv_rc_pingpong -d $DEV -g 1 -p 18516    # a second instance"
incg ibv_rc_pingpong -d $DEV -g 1 -p 18516 2>&1
echo "(exit status $?)"

step "5. One more context allowed, but no more objects: the next object is refused"
show "echo '$DEV hca_handle=2 hca_object=4' > $CG/rdma.max"
echo "# (inside $CG) verbs_probe $DEV pd   # opens the device, allocates a PD"
incg verbs_probe $DEV pd
echo "# (inside $CG) ibv_rc_pingpong -d $DEV -g 1 -p 18516"
incg ibv_rc_pingpong -d $DEV -g 1 -p 18516 2>&1
echo "(exit status $?)"
show "cat $CG/rdma.current"
[ -f $CG/rdma.events ] && show "cat $CG/rdma.events"

step "6. The workload itself was not disturbed"
wait $server
echo "server (inside the cgroup), exit status $?:"
sed 's/^/  /' /tmp/server.log
wait $client
echo "client (outside), exit status $?:"
sed 's/^/  /' /tmp/client.log

step "7. Everything was given back"
show "cat $CG/rdma.current"
[ -f $CG/rdma.peak ] && show "cat $CG/rdma.peak"
echo
echo "=== demo done ==="
