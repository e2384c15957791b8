#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Build harness/bench/icount's driver against ours and upstream's controller,
# and upstream's with only an O(1) lookup (the ablation), where the base has one.
#   build.sh OUT UPSTREAM_TREE
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(cd "$HERE/../../.." && pwd)
OUT=$1 UP=$2
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
# The kernel's flags that shape the code: tinyconfig optimises for size
# (ICOUNT_OPT=-O2: as CONFIG_CC_OPTIMIZE_FOR_PERFORMANCE, what distributions
# build).
CFLAGS=(-std=gnu11 ${ICOUNT_OPT:--Os} -g -funsigned-char -fno-strict-aliasing
	-fno-omit-frame-pointer -DCONFIG_CGROUP_RDMA -Wall -Wno-unused-function
	-Wno-unused-variable -Wno-unused-but-set-variable)
# ablation: upstream's controller with only the O(1) lookup of
# harness/bench/ablation/BASE-slot-lookup.patch, under its own mutex.
kinds=(ours upstream)
ABL=$HERE/../ablation/${BASE:-7.3}-slot-lookup.patch
[ -f "$ABL" ] && kinds+=(ablation)
for k in "${kinds[@]}"; do
	mkdir -p "$OUT/$k/linux"
	case $k in
	ours)
		cp "$REPO/include/linux/cgroup_rdma.h" "$OUT/$k/linux/"
		src=("$REPO/kernel/cgroup/rdma.c" "$REPO/kernel/cgroup/rdma_parse.c")
		def=(-DICOUNT_OURS)
		;;
	upstream)
		cp "$UP/include/linux/cgroup_rdma.h" "$OUT/$k/linux/"
		src=("$UP/kernel/cgroup/rdma.c")
		def=()
		;;
	ablation)
		rm -rf "$OUT/ablation-src"
		mkdir -p "$OUT/ablation-src/kernel/cgroup" "$OUT/ablation-src/include/linux"
		cp "$UP/kernel/cgroup/rdma.c" "$OUT/ablation-src/kernel/cgroup/"
		cp "$UP/include/linux/cgroup_rdma.h" "$OUT/ablation-src/include/linux/"
		# not inside our repository: git would take its paths from there
		(cd "$OUT/ablation-src" && GIT_CEILING_DIRECTORIES="$OUT" git apply -p1 "$ABL")
		cmp -s "$UP/kernel/cgroup/rdma.c" "$OUT/ablation-src/kernel/cgroup/rdma.c" &&
			{ echo "icount: $ABL did not apply" >&2; exit 1; }
		cp "$OUT/ablation-src/include/linux/cgroup_rdma.h" "$OUT/$k/linux/"
		src=("$OUT/ablation-src/kernel/cgroup/rdma.c")
		def=()
		;;
	esac
	grep -q 'u32[[:space:]]*index;' "$OUT/$k/linux/cgroup_rdma.h" && def+=(-DICOUNT_HAS_INDEX)
	gcc "${CFLAGS[@]}" "${def[@]}" -I"$OUT/$k" -I"$HERE/include" \
		-I"$REPO/kernel/cgroup" -o "$OUT/icount-$k" "$HERE/shim.c" "${src[@]}"
done
