#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# `make bench`: the RDMA controller's charge and uncharge cost, ours against
# the pristine base (BASE, see harness/lib.sh), in one run.
#   harness/bench/run.sh [--smoke] [--rounds N] [--reps N] [--cases LIST]
#                        [--kernels LIST]
#
# Builds four kernels with the same configuration (harness/bench/build.sh):
# ours, the pristine base, the ablation (the pristine base with only an O(1)
# pool lookup under its mutex: harness/bench/ablation/BASE-slot-lookup.patch,
# where the base has one) and ours with CONFIG_CGROUP_RDMA=n; boots them in
# turn under QEMU (TCG: ours, upstream, ablation, nocg, ours, ...), N rounds
# (default 5), each boot running the cases of harness/bench/guest/init; then
# takes per case the median over all repetitions of all boots and writes to
# build/bench/:
#   results.json, results.csv   one record per case and parameter
#   summary.md                  the table, with date and machine
#   bench.png                   cost against depth and against devices
#   raw/KERNEL-ROUND.txt        what each guest reported
#   console/KERNEL-ROUND.log    each guest's console
# --smoke builds ours and upstream, boots each once with one short case and
# fails if the benchmark does not work (not if it is slow).
# BENCH_BEFORE=BZIMAGE adds a fourth kernel, "before": a bzImage of ours
# built earlier by this script (e.g. a copy of k/ours/obj-release/arch/x86/
# boot/bzImage saved before a change), booted in turn with the others and
# not rebuilt, so that summary.md compares ours with it in the same run.
#
# BENCH_STEPS=1 (or "steps" in --kernels) adds a kernel for each step of
# the rework (build.sh steps: the tree after each of those patches), booted
# in turn with the others with the cases calib, warm, devices, cold and par
# (or those --cases names); summary.md then has a row per step (and
# build/bench/steps.json). BENCH_STEPS_GIT and BENCH_STEPS_REVS take the
# steps from another branch (build.sh): the reader storm of controller v2,
#   BENCH_STEPS_GIT=build/7.3/series-git BENCH_STEPS_REVS="v2~4 v2~3 v2" \
#   harness/bench/run.sh --kernels upstream,steps --cases storm
#
# BENCH_OTHER=B (B: the other base, 6.12 on 7.3) adds ours and upstream
# of base B as the kernels ours-B and upstream-B (built by build.sh with
# BASE=B, in build/B/bench/k/), booted in turn with the others with every
# case; summary.md then has a row for each (kernel names of that form in
# --kernels do the same).
#
# BENCH_LOCKSTAT=1 adds ours and upstream built with CONFIG_LOCK_STAT
# (harness/bench/lockstat.config), booted once, after the rounds, with the
# parallel cases only: summary.md then lists the contentions, acquisitions
# and wait time of the controllers' locks in each parallel case (their
# timings, with lock debugging, are not compared).
#
# BENCH_ICOUNT=1 boots every guest with -icount shift=0,sleep=off (one
# vCPU thread, 1 ns of guest time per instruction): the times are then
# instruction counts of the whole guest path, which neither host load nor
# TCG's cost per instruction (text layout, atomics) moves; for the
# end-to-end cases (--cases e2e,e2emix), where the controller is a small
# part of what is timed. Not for par: vCPUs take turns.
#
# Build steps and boots hold build/.lock: concurrent builds would disturb the
# measurement on two cores. BENCH_SMP (default 4) vCPUs per guest.
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
	kernels=(ours upstream)
	[ -f "$HARNESS/bench/ablation/$BASE-slot-lookup.patch" ] && kernels+=(ablation)
	kernels+=(nocg)
	[ "${BENCH_STEPS:-0}" = 1 ] && kernels+=(steps)
	[ -n "${BENCH_OTHER:-}" ] && kernels+=("ours-$BENCH_OTHER" "upstream-$BENCH_OTHER")
	if [ -n "${BENCH_BEFORE:-}" ]; then
		[ -f "$BENCH_BEFORE" ] || die "BENCH_BEFORE: no file $BENCH_BEFORE"
		kernels+=(before)
	fi
	if ! command -v gnuplot >/dev/null; then
		step deps-gnuplot "30s" apt-get -o DPkg::Lock::Timeout=600 install -y -q \
			--no-install-recommends gnuplot-nox || die "gnuplot is needed: apt-get install gnuplot-nox"
	fi
fi

lockstat=()
[ "${BENCH_LOCKSTAT:-0}" = 1 ] && [ $smoke -eq 0 ] && lockstat=(ours-lockstat upstream-lockstat)
if [ -n "$only" ]; then
	# --kernels ours,upstream,...: a subset, in the order given
	IFS=, read -r -a kernels <<<"$only"
fi

# other_base KERNEL: for a kernel of another base (ours-6.12), that base;
# nothing for the kernels of BASE.
other_base() {
	case $1 in
	*-6.12 | *-7.3) [ "${1##*-}" != "$BASE" ] && echo "${1##*-}" ;;
	esac
	return 0
}

# kimage KERNEL: the bzImage a guest of KERNEL boots.
kimage() {
	local b
	b=$(other_base "$1")
	if [ -n "$b" ]; then
		echo "$BUILD_TOP/$b/bench/k/${1%-"$b"}/obj-release/arch/x86/boot/bzImage"
	else
		echo "$K/$1/obj-release/arch/x86/boot/bzImage"
	fi
}

# build_other KERNEL: the tree of the other base, then its kernel, under
# that base's own lock (build/B/.lock).
build_other() {
	local b
	b=$(other_base "$1")
	env BASE="$b" BUILD= HARNESS_LOCKED= bash "$HARNESS/tree.sh" &&
		env BASE="$b" BUILD= HARNESS_LOCKED= bash "$HARNESS/bench/build.sh" "${1%-"$b"}"
}

take_lock
step tree "5s; 1 min the first time" bash "$HARNESS/tree.sh" || exit 1
for k in "${kernels[@]}" "${lockstat[@]}"; do
	[ "$k" = before ] && continue
	if [ -n "$(other_base "$k")" ]; then
		step "bench-build-$k" "1-2 min; 12-15 min the first time" build_other "$k" || exit 1
		continue
	fi
	case $k in
	upstream | ablation) est="30s; 3 min the first time (ccache has most of ours)" ;;
	steps) est="1-2 min per step; 3-5 min per step the first time" ;;
	*) est="1-2 min; 12-15 min the first time" ;;
	esac
	step "bench-build-$k" "$est" bash "$HARNESS/bench/build.sh" "$k" || exit 1
done
if [ -n "${BENCH_BEFORE:-}" ]; then
	mkdir -p "$K/before/obj-release/arch/x86/boot"
	cp "$BENCH_BEFORE" "$K/before/obj-release/arch/x86/boot/bzImage"
fi
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
	case $k in *-lockstat) kcases=par,e2epar,e2emix ;; esac
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
for k in "${lockstat[@]}"; do
	step "bench-boot-$k" "30s-1 min" boot "$k" 1 || failed=1
done
t_booted=$(date +%s)

step bench-report "2s" python3 "$HARNESS/bench/report.py" --out "$OUT" --base "$BASE_VERSION" \
	$([ $smoke -eq 1 ] && echo --smoke) $([ "${BENCH_ICOUNT:-0}" = 1 ] && echo --icount) ||
	failed=1
[ -f "$LOGS/bench-report.log" ] && cat "$LOGS/bench-report.log"
say "bench: builds $((t_built - t_start))s, boots $((t_booted - t_built))s, total $(($(date +%s) - t_start))s; results in $OUT/"
exit $failed
