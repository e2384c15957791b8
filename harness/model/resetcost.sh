#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build and run harness/model/resetcost.c: the cost of one write to
# rdma.peak, under rdmacg_registry_mutex, by number of devices and of open
# files written to before (see its head).
#
#   harness/model/resetcost.sh [FILES...]     (make reset-cost)
#
# Built from kernel/cgroup/rdma.c as it is, against the stand-ins the model
# fuzzer uses, at -O2 without sanitizers, into build/resetcost/.
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)
OUT=${RESETCOST_OUT:-$REPO/build/resetcost}
. "$REPO/harness/lib.sh"
need_packages clang-14
mkdir -p "$OUT/include/linux"
cp "$REPO/include/linux/cgroup_rdma.h" "$OUT/include/linux/"
clang-14 -std=gnu11 -O2 -funsigned-char -fno-strict-aliasing \
	-DCONFIG_CGROUP_RDMA -DKSHIM_MODEL -Wall -Werror -Wno-unused-function \
	-I"$OUT/include" -I"$REPO/harness/bench/icount/include" \
	-I"$REPO/kernel/cgroup" -I"$HERE" -o "$OUT/resetcost" \
	"$HERE/resetcost.c" "$HERE/shim.c" "$REPO/kernel/cgroup/rdma.c" \
	"$REPO/kernel/cgroup/rdma_parse.c"
exec "$OUT/resetcost" "$@"
