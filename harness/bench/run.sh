#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# `make bench`: the RDMA controller's charge and uncharge cost, ours against
# the pristine base (BASE, see harness/lib.sh), in one run.
#   harness/bench/run.sh [--smoke] [--rounds N] [--reps N] [--cases LIST]
#                        [--kernels LIST]
#
# Builds ours, the pristine base ("upstream") and ours with
# CONFIG_CGROUP_RDMA=n ("nocg": the end-to-end cases only) with one
# configuration (harness/bench/build.sh); boots them in turn under QEMU
# (TCG: ours, upstream, nocg, ours, ...), N rounds (default 5), each boot
# running the cases of harness/bench/guest/init; then
# harness/bench/report.py takes per case the median of each boot's
# repetitions, and per kernel the median and range of those over the boots,
# into build/BASE/bench/: results.json, summary.md (the table, with date
# and machine), raw/KERNEL-ROUND.txt (what each guest reported) and
# console/KERNEL-ROUND.log.  --smoke: ours and upstream, one short boot
# each; fails if the benchmark does not work (not if it is slow).
#
# BENCH_STEPS=1 (or "steps" in --kernels) adds a kernel for each
# cgroup/rdma patch of the series (build.sh steps), booted in turn with the
# others; BENCH_STEPS_GIT and BENCH_STEPS_REVS take the steps from another
# branch, e.g. the reader storm of the controller's steps:
#   BENCH_STEPS_GIT=build/7.3/series-git BENCH_STEPS_REVS="HEAD~5 HEAD~4 HEAD" \
#   harness/bench/run.sh --kernels upstream,ours,steps --cases storm
#
# BENCH_ICOUNT=1 boots every guest with -icount shift=0,sleep=off (one vCPU
# thread, 1 ns of guest time per instruction): the times are then
# instruction counts of the whole guest path, which neither host load nor
# TCG's cost per instruction moves.  Not for par: vCPUs take turns.
#
# Build steps and boots hold build/BASE/.lock: concurrent builds would
# disturb the measurement on two cores.  BENCH_SMP (default 4) vCPUs per
# guest.
set -euo pipefail
. "$(dirname "$0")/../lib.sh"

smoke=0 rounds=5 reps=3 cases=all only=
while [ $# -gt 0 ]; do
	case "$1" in
	--smoke) smoke=1 ;;
	--rounds) rounds=$2; shift ;;
	--reps) reps=$2; shift ;;
	--cases) cases=$2; shift ;;
	--kernels) only=$2; shift ;;
	*) die "usage: run.sh [--smoke] [--rounds N] [--reps N] [--cases LIST] [--kernels LIST]" ;;
	esac
	shift
done

OUT=$BUILD/bench
K=$OUT/k
SMP=${BENCH_SMP:-4}
t_start=$(date +%s)

if [ $smoke -eq 1 ]; then
	kernels=(ours upstream)
	rounds=1 reps=1 cases=smoke
	OUT=$BUILD/bench/smoke
else
	kernels=(ours upstream nocg)
	[ "${BENCH_STEPS:-0}" = 1 ] && kernels+=(steps)
fi
# --kernels ours,upstream,...: a subset, in the order given
[ -z "$only" ] || IFS=, read -r -a kernels <<<"$only"
kimage() { echo "$K/$1/obj-release/arch/x86/boot/bzImage"; }

take_lock
step tree "5s; 1 min the first time" bash "$HARNESS/tree.sh" || exit 1
for k in "${kernels[@]}"; do
	case $k in
	upstream) est="30s; 3 min the first time (ccache has most of ours)" ;;
	steps) est="1-2 min per step; 3-5 min per step the first time" ;;
	*) est="1-2 min; 12-15 min the first time" ;;
	esac
	step "bench-build-$k" "$est" bash "$HARNESS/bench/build.sh" "$k" || exit 1
done
step bench-initramfs "30s" bash "$HARNESS/bench/build.sh" initramfs || exit 1
# "steps" stands for the kernels build.sh steps made, in series order.
expanded=()
for k in "${kernels[@]}"; do
	if [ "$k" = steps ]; then
		for d in $(cd "$K" && ls -d step[0-9]* | sort -V); do
			expanded+=("$d")
		done
	else
		expanded+=("$k")
	fi
done
kernels=("${expanded[@]}")
t_built=$(date +%s)

rm -rf "$OUT/raw" "$OUT/console"
mkdir -p "$OUT/raw" "$OUT/console"

# boot KERNEL ROUND: run the guest, its results in raw/KERNEL-ROUND.txt.
boot() {
	local k=$1 r=$2 kcases=$cases rc=0
	[ "$k" = nocg ] && kcases=e2e,e2emr
	case $k in step[0-9]*) [ "$cases" = all ] && kcases=calib,warm,devices,cold,par ;; esac
	local raw=$OUT/raw/$k-$r.txt con=$OUT/console/$k-$r.log
	rm -f "$raw" "$con"
	# Other work on the host disturbs TCG timings: keep the load with the results.
	cut -d' ' -f1-3 /proc/loadavg >"$OUT/raw/$k-$r.load"
	local accel=(-accel tcg,thread=multi)
	[ "${BENCH_ICOUNT:-0}" = 1 ] && accel=(-accel tcg -icount shift=0,sleep=off)
	timeout -k 10 "${BENCH_BOOT_TIMEOUT:-1200}" qemu-system-x86_64 \
		"${accel[@]}" -m 2G -smp "$SMP" -no-reboot -nic none \
		-kernel "$(kimage "$k")" -initrd "$K/initramfs.cpio.gz" \
		-append "console=ttyS0 panic=-1 oops=panic rdinit=/bench/init bcases=$kcases breps=$reps" \
		-display none -monitor none -serial "file:$con" -serial "file:$raw" </dev/null || rc=$?
	[ $rc -eq 0 ] || { say "qemu exited with $rc"; return 1; }
	grep -q '^DONE rc=0' "$raw" || { say "guest did not finish cleanly"; cat "$raw"; return 1; }
	if grep -nE -f "$HARNESS/guest/lib/splat.ere" "$con"; then
		say "kernel splat in $con"
		return 1
	fi
}

failed=0
for r in $(seq "$rounds"); do
	for k in "${kernels[@]}"; do
		case $k in
		nocg) est="15s" ;;
		step[0-9]*) est="30s" ;;
		*) est="1-2 min" ;;
		esac
		step "bench-boot-$k-$r" "$est" boot "$k" "$r" || failed=1
	done
done
t_booted=$(date +%s)

step bench-report "2s" python3 "$HARNESS/bench/report.py" --out "$OUT" \
	$([ $smoke -eq 1 ] && echo --smoke) $([ "${BENCH_ICOUNT:-0}" = 1 ] && echo --icount) ||
	failed=1
[ -f "$LOGS/bench-report.log" ] && cat "$LOGS/bench-report.log"
say "bench: builds $((t_built - t_start))s, boots $((t_booted - t_built))s, total $(($(date +%s) - t_start))s; results in $OUT/"
exit $failed
