#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# `make bench`: the controller's charge and uncharge cost, ours against
# pristine BASE ("upstream") and ours without the controller ("nocg", the
# end-to-end cases only), in one run:
#   harness/bench/run.sh [--smoke] [--rounds N] [--reps N] [--cases LIST]
#                        [--kernels LIST]
# The kernels (harness/bench/build.sh) boot in turn under QEMU, N rounds
# (default 5), each running harness/bench/guest/init; report.py takes per
# case the median of a boot's repetitions and per kernel the median and
# range over the boots: build/BASE/bench/{results.json,summary.md,raw/,console/}.
# --smoke: ours and upstream, one short boot each; fails only if the
# benchmark does not work.  "steps" in --kernels (or BENCH_STEPS=1) adds a
# kernel per cgroup/rdma patch, e.g. the reader storm of the controller's steps:
#   BENCH_STEPS_GIT=build/7.3/series-git BENCH_STEPS_REVS="HEAD~5 HEAD~4 HEAD" \
#   harness/bench/run.sh --kernels upstream,ours,steps --cases storm
# BENCH_ICOUNT=1: -icount shift=0,sleep=off (1 ns of guest time per
# instruction: the times are instruction counts; not for par, whose vCPUs
# then take turns).  BENCH_SMP (default 4) vCPUs.  No tool runs a benchmark
# across kernels and boots; this one holds build/BASE/.lock throughout.
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

take_lock
# the base's pristine tree and build/BASE/patchwork, which build.sh's trees use
step tree "5s; 1 min the first time" bash "$HARNESS/tree.sh" || exit 1
for k in "${kernels[@]}"; do
	step "bench-build-$k" "1-3 min a kernel; 15 min the first time" bash "$HARNESS/bench/build.sh" "$k" || exit 1
done
step bench-initramfs "30s" bash "$HARNESS/bench/build.sh" initramfs || exit 1
# "steps" stands for the kernels build.sh steps made, in series order.
mapfile -t kernels < <(for k in "${kernels[@]}"; do
	if [ "$k" = steps ]; then (cd "$K" && ls -d step[0-9]* | sort -V); else echo "$k"; fi
done)
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
		-kernel "$K/$k/bzImage" -initrd "$K/initramfs.cpio.gz" \
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
		step "bench-boot-$k-$r" "15s-2 min" boot "$k" "$r" || failed=1
	done
done
t_booted=$(date +%s)

step bench-report "2s" python3 "$HARNESS/bench/report.py" --out "$OUT" \
	$([ $smoke -eq 1 ] && echo --smoke) $([ "${BENCH_ICOUNT:-0}" = 1 ] && echo --icount) ||
	failed=1
[ -f "$LOGS/bench-report.log" ] && cat "$LOGS/bench-report.log"
say "bench: builds $((t_built - t_start))s, boots $((t_booted - t_built))s, total $(($(date +%s) - t_start))s; results in $OUT/"
exit $failed
