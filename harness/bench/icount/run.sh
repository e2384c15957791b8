#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Instructions per charge + uncharge, ours against upstream (the base): a
# deterministic measure beside make bench's timings under TCG, which vary
# from boot to boot by more than the differences they should show.
#   harness/bench/icount/run.sh OUT
# Builds harness/bench/icount/shim.c with each controller's rdma.c (ours
# from the tree, upstream's from the pristine base's tree) as user-space
# programs with the kernel's -Os (ICOUNT_OPT=-O2: as distributions build),
# runs each under callgrind with 1,000 and
# 11,000 pairs, and takes the difference / 10,000: the instructions of one
# pair, set-up excluded. Writes OUT/icount.json and OUT/icount.md.
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
. "$HERE/../../lib.sh"
OUT=$1
mkdir -p "$OUT"
command -v valgrind >/dev/null ||
	apt-get -o DPkg::Lock::Timeout=600 install -y -q --no-install-recommends valgrind >/dev/null ||
	die "valgrind is needed: apt-get install valgrind"
bash "$HERE/build.sh" "$OUT" "$PRISTINE"

# instr KERNEL DEPTH WHAT [DEVICES]: instructions of one pair
instr() {
	local n ir=()
	for n in 1000 11000; do
		valgrind --tool=callgrind --callgrind-out-file="$OUT/callgrind.out" \
			"$OUT/icount-$1" "$2" "$n" "$3" "${4:-1}" >/dev/null 2>"$OUT/valgrind.log" ||
			die "icount-$1 $2 $n $3 ${4:-1} failed (see $OUT/valgrind.log)"
		ir+=("$(awk '/^(summary|totals):/ { print $2; exit }' "$OUT/callgrind.out")")
	done
	echo $(((ir[1] - ir[0]) / 10000))
}

{
	echo "["
	sep=""
	for d in 1 2 4 8 16; do
		o=$(instr ours $d obj) u=$(instr upstream $d obj)
		c=$(instr ours $d ctxobj) m=$(instr ours $d mr_mem)
		# 128 devices, the pair on the last one registered; the
		# ablation (upstream + only an O(1) lookup) where the base has it
		o128=$(instr ours $d obj 128) u128=$(instr upstream $d obj 128)
		a=-1 a128=-1
		if [ -x "$OUT/icount-ablation" ]; then
			a=$(instr ablation $d obj) a128=$(instr ablation $d obj 128)
		fi
		printf '%s {"depth": %d, "ours": %d, "upstream": %d, "ctxobj": %d, "mr_mem": %d, "ablation": %d, "ours128": %d, "upstream128": %d, "ablation128": %d}\n' \
			"$sep" "$d" "$o" "$u" "$c" "$m" "$a" "$o128" "$u128" "$a128"
		sep=","
	done
	echo "]"
} >"$OUT/icount.json"
python3 - "$OUT" "${ICOUNT_OPT:--Os}" <<'PY'
import json, os, sys
out, opt = sys.argv[1], sys.argv[2]
rows = json.load(open(os.path.join(out, "icount.json")))
L = ["Instructions per charge + uncharge (callgrind, user-space build of each "
     f"rdma.c with {opt}; deterministic). obj: rdmacg_try_charge() + rdmacg_uncharge() "
     "of an hca_object in both; ctxobj: rdmacg_try_charge_obj() + "
     "rdmacg_uncharge_obj() (ours); mr_mem: 64 KiB of pinned memory (ours).", "",
     "| depth | ours obj | upstream obj | upstream/ours | ours ctxobj | upstream/ctxobj "
     "| ours mr_mem | mr_mem/obj |", "|---:|---:|---:|---:|---:|---:|---:|---:|"]
for r in rows:
    L.append(f"| {r['depth']} | {r['ours']} | {r['upstream']} | {r['upstream'] / r['ours']:.2f} | "
             f"{r['ctxobj']} | {r['upstream'] / r['ctxobj']:.2f} | {r['mr_mem']} | "
             f"{r['mr_mem'] / r['ours']:.2f} |")
L += ["", "With pools on 128 devices in every cgroup of the chain, the pair on the "
      "device registered last (upstream walks a list of pools per level; "
      "ablation: upstream with only an O(1) lookup by device slot, under its "
      "mutex, harness/bench/ablation/):", "",
      "| depth | ours | ablation | upstream | ablation/ours | upstream/ablation |",
      "|---:|---:|---:|---:|---:|---:|"]
for r in rows:
    ab = r["ablation128"]  # -1: the base has no ablation
    ratios = (f"{ab / r['ours128']:.2f} | {r['upstream128'] / ab:.2f}" if ab > 0 else "- | -")
    L.append(f"| {r['depth']} | {r['ours128']} | {ab if ab > 0 else '-'} | "
             f"{r['upstream128']} | {ratios} |")
if rows[0]["ablation"] >= 0:
    L += ["", "One device: ablation " + ", ".join(
        f"{r['ablation']} at depth {r['depth']}" for r in rows) +
        " (upstream: " + ", ".join(str(r["upstream"]) for r in rows) + ")."]
d1 = next(r for r in rows if r["depth"] == 1)
d16 = next(r for r in rows if r["depth"] == 16)
for k in ("ours", "upstream"):
    per = (d16[k] - d1[k]) / 15
    L.append("")
    L.append(f"{k}: {per:.1f} instructions per extra level, {d1[k] - per:.0f} fixed (depth 1 "
             f"minus one level).")
open(os.path.join(out, "icount.md"), "w").write("\n".join(L) + "\n")
print("\n".join(L))
PY
