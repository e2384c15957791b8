#!/bin/sh
set -x
rdma link add siw0 type siw netdev lo
rdma link show
ibv_devices
mkdir /sys/fs/cgroup/d
echo +rdma > /sys/fs/cgroup/cgroup.subtree_control
cat /sys/fs/cgroup/d/rdma.max
(echo $$ > /sys/fs/cgroup/d/cgroup.procs; exec ibv_rc_pingpong -d siw0 -g 0 -n 100) &
sleep 2
cat /sys/fs/cgroup/d/rdma.current
ibv_rc_pingpong -d siw0 -g 0 -n 100 127.0.0.1
wait
(echo $$ > /sys/fs/cgroup/d/cgroup.procs; exec ib_send_bw -d siw0 -R -n 1000) &
sleep 2
cat /sys/fs/cgroup/d/rdma.current
ib_send_bw -d siw0 -R -n 1000 127.0.0.1 &
sleep 1
cat /sys/fs/cgroup/d/rdma.current
wait
cat /sys/fs/cgroup/d/rdma.current
(echo $$ > /sys/fs/cgroup/d/cgroup.procs; exec ib_write_bw -d siw0 -R -n 1000) &
sleep 2
cat /sys/fs/cgroup/d/rdma.current
ib_write_bw -d siw0 -R -n 1000 127.0.0.1 
wait
cat /sys/fs/cgroup/d/rdma.current
(echo $$ > /sys/fs/cgroup/d/cgroup.procs; exec verbs_probe siw0 pd cq mr hold=3) &
sleep 1
cat /sys/fs/cgroup/d/rdma.current
wait
