#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Instructions per charge + uncharge at every step of the rework (the
# patches harness/backport/6.12/FOLD lists, and the one after them), beside
# the base's controller: the per-step rows of make bench, deterministic.
#   harness/bench/icount/steps.sh OUT
# Needs build/BASE/patchwork (make patch). Builds shim.c with each step's
# rdma.c, rdma_parse.c and cgroup_rdma.h as the base's controller is built
# (no ICOUNT_OURS: the steps have no mr_mem), runs each under callgrind with
# 1,000 and 11,000 pairs, and writes OUT/steps.md. A step whose program
# prints anything (a warning on the charge path) fails.
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
. "$HERE/../../lib.sh"
OUT=$1
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
WORK=$BUILD/patchwork
command -v valgrind >/dev/null ||
	apt-get -o DPkg::Lock::Timeout=600 install -y -q --no-install-recommends valgrind >/dev/null ||
	die "valgrind is needed: apt-get install valgrind"
[ -d "$WORK/.git" ] || die "no $WORK: run make patch first"
# -Os as tinyconfig; ICOUNT_OPT=-O2 as CONFIG_CC_OPTIMIZE_FOR_PERFORMANCE.
CFLAGS=(-std=gnu11 ${ICOUNT_OPT:--Os} -g -funsigned-char -fno-strict-aliasing
	-fno-omit-frame-pointer -DCONFIG_CGROUP_RDMA -DICOUNT_HAS_INDEX -Wall
	-Wno-unused-function -Wno-unused-variable -Wno-unused-but-set-variable)

# The steps (harness/bench/rework-steps.sh).
steps=() names=()
while read -r c s; do
	steps+=("$c")
	names+=("$s")
done < <(bash "$HERE/../rework-steps.sh")
[ ${#steps[@]} -gt 1 ] || exit 1

build() { # build NAME COMMIT-OR-EMPTY
	local d=$OUT/$1 src
	rm -rf "$d"
	mkdir -p "$d/linux" "$d/cg"
	if [ -n "$2" ]; then
		git -C "$WORK" show "$2:include/linux/cgroup_rdma.h" >"$d/linux/cgroup_rdma.h"
		git -C "$WORK" show "$2:kernel/cgroup/rdma.c" >"$d/cg/rdma.c"
		git -C "$WORK" show "$2:kernel/cgroup/rdma_parse.c" >"$d/cg/rdma_parse.c"
		git -C "$WORK" show "$2:kernel/cgroup/rdma_parse.h" >"$d/cg/rdma_parse.h"
	else
		cp "$PRISTINE/include/linux/cgroup_rdma.h" "$d/linux/"
		cp "$PRISTINE/kernel/cgroup/rdma.c" "$d/cg/"
	fi
	src=("$d/cg/rdma.c")
	grep -q '"rdma_parse.h"' "$d/cg/rdma.c" && src+=("$d/cg/rdma_parse.c")
	gcc "${CFLAGS[@]}" -I"$d" -I"$HERE/include" -I"$d/cg" -o "$d/icount" \
		"$HERE/shim.c" "${src[@]}"
}

instr() { # instr NAME DEPTH DEVICES
	local n ir=() out
	for n in 1000 11000; do
		out=$(valgrind --tool=callgrind --callgrind-out-file="$OUT/callgrind.out" \
			"$OUT/$1/icount" "$2" "$n" obj "$3" 2>"$OUT/valgrind.log") ||
			die "$1 $2 $n obj $3 failed (see $OUT/valgrind.log)"
		[ -z "$out" ] || die "$1 printed on the charge path: ${out%%$'\n'*}"
		ir+=("$(awk '/^(summary|totals):/ { print $2; exit }' "$OUT/callgrind.out")")
	done
	echo $(((ir[1] - ir[0]) / 10000))
}

{
	echo "| step | depth 1 | depth 8 | depth 16 | depth 1, 128 devices |"
	echo "| --- | ---: | ---: | ---: | ---: |"
	build base ""
	echo "| $BASE_VERSION | $(instr base 1 1) | $(instr base 8 1) | $(instr base 16 1) | $(instr base 1 128) |"
	for i in "${!steps[@]}"; do
		build "step$((i + 1))" "${steps[$i]}"
		n=step$((i + 1))
		echo "| ${names[$i]#cgroup/rdma: } | $(instr $n 1 1) | $(instr $n 8 1) | $(instr $n 16 1) | $(instr $n 1 128) |"
	done
} | tee "$OUT/steps.md"
