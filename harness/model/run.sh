#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Check the whole RDMA controller against a reference model, in user space.
#
#   harness/model/run.sh [SECONDS]        (default 60)
#   harness/model/run.sh --replay FILE    (a sequence written on a failure)
#
# Builds kernel/cgroup/rdma.c and rdma_parse.c as they are, against the
# stand-in kernel headers of harness/bench/icount/include (KSHIM_MODEL
# flavour), with the driver, the stand-ins and the model of harness/model/
# and the rdma.max parser model of harness/fuzz/model.c, under
# AddressSanitizer and UndefinedBehaviorSanitizer (clang-14, installed as
# harness/fuzz/run.sh does), into build/model/. Then runs seeds 1, 2, ...
# (3,000 random operations each, then everything undone) until SECONDS
# have passed, and prints the operations covered. A failing seed's
# sequence is reduced and written to build/model/fail-SEED.ops.
#
# Exits non-zero on any disagreement, sanitizer report, leak or WARN; the
# last line is "model: N ops, S seeds, F failures in T s".
#
# Environment: MODEL_OUT (default build/model), MODEL_RDMA_C (the rdma.c to
# build, default the tree's: harness/mutate.py --model passes a mutated
# copy), MODEL_OPS (operations per seed), MODEL_SEEDS (seeds to run, instead
# of 1, 2, ...).
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)
OUT=${MODEL_OUT:-$REPO/build/model}
RDMA_C=${MODEL_RDMA_C:-$REPO/kernel/cgroup/rdma.c}
CLANG=clang-14
PKGS=(clang-14 llvm-14)

. "$REPO/harness/lib.sh"
say() { printf 'model: %s\n' "$*"; }
die() { printf 'model: error: %s\n' "$*" >&2; exit 2; }

replay=
case "${1:-}" in
--replay) replay=${2:?usage: $0 --replay FILE}; DURATION=0 ;;
'') DURATION=60 ;;
*[!0-9]*) echo "usage: $0 [SECONDS] | --replay FILE" >&2; exit 2 ;;
*) DURATION=$1 ;;
esac

# --- packages ------------------------------------------------------------------
need_packages "${PKGS[@]}"
command -v $CLANG >/dev/null || die "$CLANG not found after install"

# --- build ---------------------------------------------------------------------
[ -f "$RDMA_C" ] || die "$RDMA_C not found"
mkdir -p "$OUT/include/linux"
# Only this header of include/: the rest of include/linux would replace the
# stand-ins.
cp "$REPO/include/linux/cgroup_rdma.h" "$OUT/include/linux/"
# -funsigned-char as the kernel (since 6.2).
CFLAGS=(-std=gnu11 -g -O2 -funsigned-char -fno-strict-aliasing
	-fno-omit-frame-pointer -fsanitize=address,undefined
	-fno-sanitize-recover=all -DCONFIG_CGROUP_RDMA -DKSHIM_MODEL
	-Wall -Werror -Wno-unused-function)
KFLAGS=(-I"$OUT/include" -I"$REPO/harness/bench/icount/include"
	-I"$REPO/kernel/cgroup" -I"$HERE")
$CLANG "${CFLAGS[@]}" "${KFLAGS[@]}" -o "$OUT/rdmacg_model" \
	"$HERE/fuzz.c" "$HERE/model.c" "$REPO/harness/fuzz/model.c" \
	"$HERE/sut.c" "$HERE/shim.c" "$RDMA_C" "$REPO/kernel/cgroup/rdma_parse.c" ||
	die "building the model fuzzer against $RDMA_C failed"

SYMBOLIZER=/usr/lib/llvm-14/bin/llvm-symbolizer
[ -x "$SYMBOLIZER" ] && export ASAN_SYMBOLIZER_PATH=$SYMBOLIZER
export ASAN_OPTIONS=abort_on_error=1:halt_on_error=1:detect_leaks=1
export UBSAN_OPTIONS=halt_on_error=1:abort_on_error=1:print_stacktrace=1

if [ -n "$replay" ]; then
	exec "$OUT/rdmacg_model" --replay "$replay"
fi
args=(-t "$DURATION" -o "$OUT")
[ -n "${MODEL_OPS:-}" ] && args+=(-n "$MODEL_OPS")
# shellcheck disable=SC2206
[ -n "${MODEL_SEEDS:-}" ] && args+=($MODEL_SEEDS)
say "built $OUT/rdmacg_model from $RDMA_C; running for $DURATION s"
exec "$OUT/rdmacg_model" "${args[@]}"
