#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Build harness/bench/icount's driver against ours and upstream's controller.
#   build.sh OUT UPSTREAM_TREE
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(cd "$HERE/../../.." && pwd)
OUT=$1 UP=$2
# The kernel's flags that shape the code: tinyconfig optimises for size.
CFLAGS=(-std=gnu11 -Os -g -funsigned-char -fno-strict-aliasing
	-fno-omit-frame-pointer -DCONFIG_CGROUP_RDMA -Wall -Wno-unused-function
	-Wno-unused-variable -Wno-unused-but-set-variable)
for k in ours upstream; do
	mkdir -p "$OUT/$k/linux"
	if [ $k = ours ]; then
		cp "$REPO/include/linux/cgroup_rdma.h" "$OUT/$k/linux/"
		src=("$REPO/kernel/cgroup/rdma.c" "$REPO/kernel/cgroup/rdma_parse.c")
		def=(-DICOUNT_OURS)
	else
		cp "$UP/include/linux/cgroup_rdma.h" "$OUT/$k/linux/"
		src=("$UP/kernel/cgroup/rdma.c")
		def=()
	fi
	gcc "${CFLAGS[@]}" "${def[@]}" -I"$OUT/$k" -I"$HERE/include" \
		-I"$REPO/kernel/cgroup" -o "$OUT/icount-$k" "$HERE/shim.c" "${src[@]}"
done
