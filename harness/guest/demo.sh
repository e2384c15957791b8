#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The narrated demo (make demo; make check runs it too): a cgroup limits a
# real verbs workload (ibv_rc_pingpong) on rxe0; runc sets such a limit from
# linux.resources.rdma and reads it back; rdma.mr_mem.max refuses a
# registration past it, also set by runc through linux.resources.unified.
# TAP ("1..32", "ok N step S: WHAT"), then "demo: N passed, M failed",
# which harness/run.sh judges.  Nothing depends on timing: the ping-pong
# server holds its context and 4 objects while it waits for its client, so
# the refusals are shown at the limit; states are awaited with a bound
# (wait_for), and what could block runs under `timeout`.  rxe (soft-RoCE),
# not siw: ibv_rc_pingpong connects with plain verbs, siw needs the CM,
# which cannot resolve loopback addresses on siw.

. "$HLIB/wait.sh"
. "$HLIB/runc.sh"

CG=/sys/fs/cgroup/demo
CTR=demo-ctr			# the container, and its cgroup below the root
DEV=rxe0
PORT=18515			# ibv_rc_pingpong's default TCP port
ITERS=${ITERS:-500}
T=/tmp/demo

passed=0
failed=0
controllers=$(cat /sys/fs/cgroup/cgroup.subtree_control)
# shellcheck disable=SC2317 # called by the EXIT trap
cleanup() {
	runc_cleanup $CTR /sys/fs/cgroup/$CTR "$controllers"
	[ -d $CG ] && rmdir $CG
	[ -n "$made_dev" ] && rdma link delete $DEV
	rm -rf $T
}
trap cleanup EXIT
made_dev=
echo "TAP version 13"
echo "1..32"

# step "N. TITLE": a heading; the verdicts that follow name step N
step() {
	cur=${1%%.*}
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

# run_in_cg LOG NOTE CMD...: show CMD, run it in $CG (output in $T/LOG.log,
# then shown; status in rc).
run_in_cg() {
	ri_log=$T/$1.log
	ri_note=$2
	shift 2
	echo "# (inside $CG) $*${ri_note:+   # $ri_note}"
	incg "$@" >"$ri_log" 2>&1
	rc=$?
	cat "$ri_log"
}

# expect WHAT WANT GOT: one verdict line; GOT must equal WANT
expect() {
	if [ "$3" = "$2" ]; then
		passed=$((passed + 1))
		echo "ok $((passed + failed)) step $cur: $1"
	else
		failed=$((failed + 1))
		echo "not ok $((passed + failed)) step $cur: $1: expected '$2', got '$3'"
	fi
}

# line FILE: the line of DEV in an rdma.* file
line() { grep "^$DEV " "$1"; }

# is_line FILE WANT: DEV's line in FILE is WANT (for wait_for)
is_line() { [ "$(line "$1")" = "$2" ]; }

# listening PORT: a TCP socket listens on PORT (IPv4 or IPv6)
listening() {
	awk -v p="$(printf ':%04X' "$1")" '$4 == "0A" && substr($2, length($2) - 4) == p { f = 1 }
		END { exit !f }' /proc/net/tcp /proc/net/tcp6 2>/dev/null
}

# result FILE RC: a command's output on one line, and its exit status
result() { echo "$(tr '\n' '|' <"$1" | sed 's/|$//') (exit $2)"; }

mkdir -p $T

step "1. A soft RDMA device: RoCE (rxe) on the loopback interface"
show "rdma link add $DEV type rxe netdev lo" && made_dev=1
show "rdma link show"
show "ibv_devices"
expect "$DEV is registered" "yes" "$([ -d /sys/class/infiniband/$DEV ] && echo yes || echo no)"

step "2. A cgroup allowed 1 verbs context and 4 verbs objects on $DEV"
show "echo +rdma > /sys/fs/cgroup/cgroup.subtree_control"
show "mkdir $CG"
show "echo '$DEV hca_handle=1 hca_object=4' > $CG/rdma.max"
show "cat $CG/rdma.max"
expect "rdma.max has the limit" "$DEV hca_handle=1 hca_object=4" "$(line $CG/rdma.max)"

step "3. A real verbs workload: ibv_rc_pingpong; its server, inside the cgroup, waits for its client"
echo "# (inside $CG) timeout 120 ibv_rc_pingpong -d $DEV -g 1 -n $ITERS &"
incg timeout 120 ibv_rc_pingpong -d $DEV -g 1 -n "$ITERS" >$T/server.log 2>&1 &
server=$!
echo "Waiting (at most 60 s) until it listens on port $PORT for its client ..."
wait_for 60 listening $PORT
echo "It holds a context and its PD, MR, CQ and QP until the client comes:"
show "cat $CG/rdma.current"
expect "rdma.current while the server waits: 1 context, 4 objects" \
	"$DEV hca_handle=1 hca_object=4" "$(line $CG/rdma.current)"

step "4. The cgroup is at its limit: the next context is refused"
run_in_cg probe1 "opens the device, prints errno" timeout 30 verbs_probe $DEV
expect "verbs_probe: the context is refused with EAGAIN" \
	"ibv_open_device=EAGAIN (exit 1)" "$(probe_summary $T/probe1.log) (exit $rc)"
run_in_cg pp2 "a second instance" timeout 30 ibv_rc_pingpong -d $DEV -g 1 -p 18516
expect "a second ibv_rc_pingpong fails: no context" \
	"Couldn't get context for $DEV (exit 1)" "$(result $T/pp2.log $rc)"

step "5. One more context allowed, but no more objects: the next object is refused"
show "echo '$DEV hca_handle=2 hca_object=4' > $CG/rdma.max"
run_in_cg probe2 "opens the device, allocates a PD" timeout 30 verbs_probe $DEV pd
expect "verbs_probe: a context, then the PD is refused with EAGAIN" \
	"ibv_open_device=ok ibv_alloc_pd=EAGAIN (exit 1)" "$(probe_summary $T/probe2.log) (exit $rc)"
run_in_cg pp3 "" timeout 30 ibv_rc_pingpong -d $DEV -g 1 -p 18516
expect "a second ibv_rc_pingpong fails: no PD" \
	"Couldn't allocate PD (exit 1)" "$(result $T/pp3.log $rc)"
wait_for 10 is_line $CG/rdma.current "$DEV hca_handle=1 hca_object=4"
show "cat $CG/rdma.current"
expect "rdma.current: the refused requests took nothing" \
	"$DEV hca_handle=1 hca_object=4" "$(line $CG/rdma.current)"
show "cat $CG/rdma.events"
expect "rdma.events: 2 contexts and 2 objects refused by this cgroup's limit" \
	"$DEV hca_handle.max=2 hca_handle.alloc_fail=2 hca_object.max=2 hca_object.alloc_fail=2 mr_mem.max=0 mr_mem.alloc_fail=0" \
	"$(line $CG/rdma.events)"

step "6. The client starts, outside the cgroup, and the ping-pong runs to the end"
echo "# (outside) timeout 120 ibv_rc_pingpong -d $DEV -g 1 -n $ITERS 127.0.0.1"
timeout 120 ibv_rc_pingpong -d $DEV -g 1 -n "$ITERS" 127.0.0.1 >$T/client.log 2>&1
client_rc=$?
wait $server
server_rc=$?
echo "server (inside the cgroup), exit status $server_rc:"
sed 's/^/  /' $T/server.log
echo "client (outside), exit status $client_rc:"
sed 's/^/  /' $T/client.log
expect "the ping-pong ran to the end on both sides" \
	"server: exit 0, $ITERS iters; client: exit 0, $ITERS iters" \
	"server: exit $server_rc, $(grep -o "^$ITERS iters" $T/server.log); client: exit $client_rc, $(grep -o "^$ITERS iters" $T/client.log)"

step "7. Everything was given back"
wait_for 10 is_line $CG/rdma.current "$DEV hca_handle=0 hca_object=0"
show "cat $CG/rdma.current"
expect "rdma.current back at 0" "$DEV hca_handle=0 hca_object=0" "$(line $CG/rdma.current)"
show "cat $CG/rdma.peak"
expect "rdma.peak: 2 contexts (step 5) and 4 objects" \
	"$DEV hca_handle=2 hca_object=4" "$(line $CG/rdma.peak)"

step "8. A container runtime sets the limit: runc with linux.resources.rdma"
runc_bundle $T/bundle $DEV 1 2 /$CTR verbs_probe -k $DEV pd cq open cq wait
echo "An OCI bundle: a busybox container that runs"
echo "  verbs_probe -k $DEV pd cq open cq wait   # holds what it got until its stdin closes"
echo "limited in its config.json to 1 context and 2 objects:"
show "grep -A2 '\"rdma\"' $T/bundle/config.json"
echo "# timeout 120 runc run --no-pivot --bundle $T/bundle $CTR < $T/ctr.log.stdin &"
runc_start $T/bundle $CTR $T/ctr.log
echo "Inside the container:"
sed 's/^/  /' $T/ctr.log
expect "in the container: a context, a PD and a CQ; the next context and object refused with EAGAIN" \
	"ibv_open_device=ok ibv_alloc_pd=ok ibv_create_cq=ok ibv_open_device=EAGAIN ibv_create_cq=EAGAIN" \
	"$(probe_summary $T/ctr.log)"
show "cat /sys/fs/cgroup/$CTR/rdma.max"
expect "runc wrote the limit to the container's rdma.max" \
	"$DEV hca_handle=1 hca_object=2" "$(line /sys/fs/cgroup/$CTR/rdma.max)"
show "cat /sys/fs/cgroup/$CTR/rdma.current"
expect "the container's rdma.current: 1 context, 2 objects" \
	"$DEV hca_handle=1 hca_object=2" "$(line /sys/fs/cgroup/$CTR/rdma.current)"
echo "# timeout 30 runc events --stats $CTR"
timeout 30 runc events --stats $CTR >$T/events.json 2>&1
rc=$?
cat $T/events.json
expect "runc events --stats reads the container's cgroup without error" \
	"0 stats" "$rc $(grep -o '^{"type":"[a-z]*"' $T/events.json | cut -d'"' -f4)"
echo "runc reads rdma.current and rdma.max for these statistics, but its event type"
echo "has no field for RDMA, so they are not printed.  runc_stats calls the same code"
echo "(libcontainer's cgroup v2 GetStats, from the source of this runc) and prints them:"
show "timeout 30 runc_stats /sys/fs/cgroup/$CTR | tee $T/stats.json"
expect "runc's parser reads our rdma.max and rdma.current of $DEV" \
	"{\"device\":\"$DEV\",\"hca_handles\":1,\"hca_objects\":2} {\"device\":\"$DEV\",\"hca_handles\":1,\"hca_objects\":2}" \
	"$(runc_stat rdma_limit $DEV $T/stats.json) $(runc_stat rdma_current $DEV $T/stats.json)"
expect "runc's parser accepts every line of both files" \
	"$(wc -l </sys/fs/cgroup/$CTR/rdma.max) $(wc -l </sys/fs/cgroup/$CTR/rdma.current)" \
	"$(runc_entries rdma_limit $T/stats.json) $(runc_entries rdma_current $T/stats.json)"
echo "Closing the container's stdin: verbs_probe exits (status 1: it saw refusals), runc removes the container."
runc_stop
rc=$?
expect "the container exited with verbs_probe's status 1 and its cgroup is gone" \
	"1 gone" "$rc $([ -d /sys/fs/cgroup/$CTR ] && echo still there || echo gone)"

step "9. Pinned memory: the cgroup may pin at most 64 KiB of memory for $DEV"
echo "The RDMA core pins the pages of an MR (on real adapters also queue buffers)."
echo "rdma.mr_mem.max limits, per device, the bytes the cgroup's processes pin, in"
echo "whole pages, as VmPin counts them; rdma.max and rdma.current keep their three"
echo "fields, which container runtimes parse."
show "echo '$DEV 64K' > $CG/rdma.mr_mem.max"
show "cat $CG/rdma.mr_mem.max"
expect "rdma.mr_mem.max has the limit, in bytes" "$DEV 65536" "$(line $CG/rdma.mr_mem.max)"
mkfifo $T/mr-stdin
echo "# (inside $CG) timeout 60 verbs_probe -k $DEV pd mr=48K mr=32K wait < $T/mr-stdin &"
echo "#   (a PD, an MR of 48 KiB, one of 32 KiB; then it holds what it got)"
incg timeout 60 verbs_probe -k $DEV pd mr=48K mr=32K wait <$T/mr-stdin >$T/mr.log 2>&1 &
mrp=$!
exec 4>$T/mr-stdin
wait_for 30 grep -q '^verbs_probe: holding' $T/mr.log
cat $T/mr.log
expect "verbs_probe: the 48 KiB MR registered, the 32 KiB one refused with EAGAIN (48 + 32 > 64 KiB)" \
	"ibv_open_device=ok ibv_alloc_pd=ok ibv_reg_mr(49152)=ok ibv_reg_mr(32768)=EAGAIN" \
	"$(probe_summary $T/mr.log)"
show "cat $CG/rdma.mr_mem.current"
expect "rdma.mr_mem.current: the 49152 bytes registered; the 32768 refused took nothing" \
	"$DEV 49152" "$(line $CG/rdma.mr_mem.current)"
vmpin=0
for p in $(cat $CG/cgroup.procs); do
	kb=$(sed -n 's/^VmPin:[[:space:]]*\([0-9]*\) kB$/\1/p' /proc/$p/status 2>/dev/null)
	vmpin=$((vmpin + ${kb:-0}))
done
echo "# VmPin of the cgroup's processes ($(cat $CG/cgroup.procs | tr '\n' ' ')): $vmpin kB"
expect "the VmPin of the cgroup's processes adds up to the same 48 KiB" "48" "$vmpin"
show "cat $CG/rdma.current"
expect "rdma.current: a context, the PD and one MR (the refused MR left no object)" \
	"$DEV hca_handle=1 hca_object=2" "$(line $CG/rdma.current)"
show "cat $CG/rdma.events"
expect "rdma.events: the refused MR counted by this cgroup's mr_mem limit" \
	"$DEV hca_handle.max=2 hca_handle.alloc_fail=2 hca_object.max=2 hca_object.alloc_fail=2 mr_mem.max=1 mr_mem.alloc_fail=1" \
	"$(line $CG/rdma.events)"
echo "Closing verbs_probe's stdin: it exits (status 1: it saw a refusal), which deregisters its MR."
exec 4>&-
wait $mrp
rc=$?
wait_for 10 is_line $CG/rdma.mr_mem.current "$DEV 0"
show "cat $CG/rdma.mr_mem.current $CG/rdma.mr_mem.peak"
expect "verbs_probe's status 1; rdma.mr_mem.current back at 0; rdma.mr_mem.peak 49152" \
	"1 $DEV 0 $DEV 49152" \
	"$rc $(line $CG/rdma.mr_mem.current) $(line $CG/rdma.mr_mem.peak)"

step "10. A container runtime limits pinned memory: runc with linux.resources.unified"
echo "OCI has no field for pinned memory; runc writes any cgroup v2 file named in"
echo "linux.resources.unified, rdma.mr_mem.max included. A container that runs"
echo "  verbs_probe -k $DEV pd mr=48K mr=32K wait"
echo "with, in its config.json:"
RB_UNIFIED="\"rdma.mr_mem.max\": \"$DEV 64K\"" \
	runc_bundle $T/ubundle $DEV - - /$CTR verbs_probe -k $DEV pd mr=48K mr=32K wait
show "grep -A2 '\"unified\"' $T/ubundle/config.json"
echo "# timeout 120 runc run --no-pivot --bundle $T/ubundle $CTR < $T/uctr.log.stdin &"
runc_start $T/ubundle $CTR $T/uctr.log
echo "Inside the container:"
sed 's/^/  /' $T/uctr.log
show "cat /sys/fs/cgroup/$CTR/rdma.mr_mem.max"
expect "runc wrote the container's rdma.mr_mem.max" \
	"$DEV 65536" "$(line /sys/fs/cgroup/$CTR/rdma.mr_mem.max)"
expect "in the container: the 48 KiB MR registered, the 32 KiB one refused with EAGAIN" \
	"ibv_open_device=ok ibv_alloc_pd=ok ibv_reg_mr(49152)=ok ibv_reg_mr(32768)=EAGAIN" \
	"$(probe_summary $T/uctr.log)"
show "cat /sys/fs/cgroup/$CTR/rdma.mr_mem.current"
expect "the container's rdma.mr_mem.current: the 48 KiB it holds" \
	"$DEV 49152" "$(line /sys/fs/cgroup/$CTR/rdma.mr_mem.current)"
echo "# timeout 30 runc events --stats $CTR"
timeout 30 runc events --stats $CTR >$T/uevents.json 2>&1
rc=$?
expect "runc events --stats still reads the container's cgroup without error" \
	"0 stats" "$rc $(grep -o '^{"type":"[a-z]*"' $T/uevents.json | cut -d'"' -f4)"
echo "Closing the container's stdin: verbs_probe exits, runc removes the container."
runc_stop
rc=$?
expect "the container exited with verbs_probe's status 1 and its cgroup is gone" \
	"1 gone" "$rc $([ -d /sys/fs/cgroup/$CTR ] && echo still there || echo gone)"

step "11. The kernel logged no warning, bug or oops meanwhile"
dmesg | grep -E -f "$HLIB/splat.ere" >$T/splats
expect "no kernel splat in dmesg" "" "$(head -n3 $T/splats | tr '\n' '|')"

echo
echo "=== demo done ==="
echo "demo: $passed passed, $failed failed"
exit "$failed"
