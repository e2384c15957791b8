#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Summarise the benchmark guests' reports (harness/bench/run.sh).

Reads OUT/raw/KERNEL-ROUND.txt ("B CASE PARAM VALUE UNIT" lines), takes for
every (kernel, case, parameter) the median of each boot's repetitions, then
the median and the range of those over the boots, and writes
OUT/results.json and OUT/summary.md: one row per case and parameter, one
column per kernel, each kernel's ratio to upstream (> 1: better than
upstream), and "below" where its whole range is worse than upstream's.
With --smoke it only checks that ours and upstream reported sane numbers.
"""

import argparse
import glob
import json
import os
import platform
import re
import statistics
import subprocess
import sys
import time

# case -> (title, parameter label, lower is better)
CASES = {
    "calib": ("building blocks, the same code in both kernels (noise check)", "", True),
    "warm_depth": ("warm pools, charge+uncharge", "depth", True),
    "mr_mem_depth": ("mr_mem charge+uncharge of 64 KiB, warm pools (ours only)", "depth", True),
    "devices": ("registered devices, charging the last one (depth 1)", "devices", True),
    "cold_depth": ("a new chain of fresh cgroups for every pair", "depth", True),
    "unpinned_depth": ("a fresh cgroup, nothing else charged (upstream frees its pools)", "depth", True),
    "par_siblings": ("throughput, vCPUs in sibling cgroups below the root", "vCPUs", False),
    "par_siblings2": ("throughput, vCPUs in sibling cgroups below a shared parent", "vCPUs", False),
    "par_same": ("throughput, vCPUs in one cgroup", "vCPUs", False),
    "e2e": ("end to end through siw, depth 2: ibv_alloc_pd+ibv_dealloc_pd", "", True),
    "e2e_mr": ("end to end through siw, depth 2: ibv_reg_mr+ibv_dereg_mr of 64 KiB", "", True),
    "e2epar_siblings": ("ibv_alloc_pd+ibv_dealloc_pd through siw, sibling cgroups", "processes", False),
    "e2emix_siblings": ("rounds of a PD, a CQ and a 64 KiB MR through siw, sibling cgroups", "processes", False),
    "storm_p50": ("median PD round through siw, with or without a reader of 1,000 cgroups' files",
                  "agent", True),
    "storm_p99": ("99th percentile of the same rounds", "agent", True),
    "storm_rate": ("rate of the same rounds", "agent", False),
    "mem_pool": ("memory per (cgroup, device) pool", "", True),
    "mem_charged_device": ("memory of first charging a device at depth 1", "", True),
    "mem_cgroup": ("memory per cgroup with rdma enabled (files, css)", "", True),
}


def num_key(p):
    return (0, float(p)) if re.fullmatch(r"[0-9.]+", p) else (1, p)


def load(out):
    """{kernel: {(case, param): [per-boot medians]}}, units, infos, errors."""
    data, units, info, errors = {}, {}, {}, []
    for path in sorted(glob.glob(os.path.join(out, "raw", "*.txt"))):
        kernel = os.path.basename(path).rsplit("-", 1)[0]
        boot = {}
        with open(path, errors="replace") as f:
            for line in f:
                w = line.split()
                if len(w) == 5 and w[0] == "B":
                    try:
                        boot.setdefault((w[1], w[2]), []).append(float(w[3]))
                    except ValueError:
                        errors.append(f"{path}: bad value: {line.strip()}")
                    units[w[1]] = w[4]
                elif len(w) >= 3 and w[0] == "I":
                    info.setdefault(kernel, {})[w[1]] = " ".join(w[2:])
                elif w and w[0] == "E":
                    errors.append(f"{path}: {line.strip()}")
        for key, vals in boot.items():
            data.setdefault(kernel, {}).setdefault(key, []).append(statistics.median(vals))
    return data, units, info, errors


def fmt(v):
    if abs(v) >= 1000:
        return f"{v:,.0f}"
    return f"{v:.1f}" if abs(v) >= 10 else f"{v:.2f}"


def order(kernels):
    """upstream, ours, the steps in series order, then the rest."""
    def key(k):
        m = re.fullmatch(r"step(\d+)", k)
        return ({"upstream": 0, "ours": 1}.get(k, 3 if not m else 2), int(m.group(1)) if m else 0, k)
    return sorted(kernels, key=key)


def smoke(data, errors):
    ok = not errors
    for k, case in (("ours", "warm_depth"), ("upstream", "warm_depth"), ("ours", "mr_mem_depth")):
        v = data.get(k, {}).get((case, "1"))
        if not v or not all(x > 0 for x in v):
            print(f"smoke: no {case} 1 result from {k}")
            ok = False
        else:
            print(f"smoke: {k}: {case} 1: {fmt(v[0])} ns per charge+uncharge")
    print("smoke: ok (one short boot each: not a measurement)" if ok else "smoke: FAILED")
    return 0 if ok else 1


def header(out, info, nboots, icount):
    cpu = ""
    try:
        with open("/proc/cpuinfo") as f:
            cpu = next(l.split(":", 1)[1].strip() for l in f if l.startswith("model name"))
    except (OSError, StopIteration):
        pass
    qemu = subprocess.run(["qemu-system-x86_64", "--version"], capture_output=True,
                          text=True).stdout.split("\n")[0]
    loads = []
    for path in glob.glob(os.path.join(out, "raw", "*.load")):
        with open(path) as f:
            loads.append(float(f.read().split()[0]))
    lines = [f"Date: {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}  ",
             f"Host: {cpu}, {os.cpu_count()} CPUs, {platform.release()}; load average "
             f"{min(loads, default=0):.2f}-{max(loads, default=0):.2f} at the boots' start  ",
             f"Guest: {qemu}, TCG, {next(iter(info.values()), {}).get('cpus', '?')} vCPUs; boots: "
             f"{', '.join(f'{k} {n}' for k, n in nboots.items())}  "]
    if icount:
        lines.append("Guests under `-icount shift=0,sleep=off`: every ns is one guest instruction.  ")
    lines += ["Each cell: the median over boots of each boot's median, [the lowest-highest of "
              "those], and the ratio to upstream (> 1: better than upstream). \"below\": the "
              "kernel's whole range is worse than upstream's.", ""]
    return lines


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--smoke", action="store_true")
    ap.add_argument("--icount", action="store_true",
                    help="the guests ran under -icount: every ns is an instruction")
    args = ap.parse_args()

    data, units, info, errors = load(args.out)
    for e in errors:
        print("error:", e)
    if args.smoke:
        return smoke(data, errors)

    kernels = order(data)
    keys = sorted({key for d in data.values() for key in d},
                  key=lambda kp: (list(CASES).index(kp[0]) if kp[0] in CASES else 99, num_key(kp[1])))
    records, rows = [], []
    for case, param in keys:
        title, plabel, lower = CASES.get(case, (case, "", True))
        up = data.get("upstream", {}).get((case, param))
        rec = {"case": case, "parameter": param, "unit": units.get(case, ""),
               "lower_is_better": lower, "kernels": {}}
        cells = []
        for k in kernels:
            v = data[k].get((case, param))
            if not v:
                cells.append("")
                continue
            m, lo, hi = statistics.median(v), min(v), max(v)
            r = {"median": m, "low": lo, "high": hi, "boots": len(v)}
            cell = f"{fmt(m)} [{fmt(lo)}-{fmt(hi)}]"
            if up and k != "upstream" and m > 0 and statistics.median(up) > 0:
                um = statistics.median(up)
                r["ratio"] = round(um / m if lower else m / um, 3)
                r["below"] = lo > max(up) if lower else hi < min(up)
                cell += f" {r['ratio']:.2f}x" + (" below" if r["below"] else "")
            rec["kernels"][k] = r
            cells.append(cell)
        records.append(rec)
        label = f"{plabel} {param}".strip() if plabel else param
        rows.append(f"| {title} | {label} | " + " | ".join(cells) + f" | {rec['unit']} |")

    with open(os.path.join(args.out, "results.json"), "w") as f:
        json.dump(records, f, indent=1)
        f.write("\n")
    nboots = {k: max(len(v) for v in data[k].values()) for k in kernels}
    lines = header(args.out, info, nboots, args.icount)
    for k in kernels:
        subject = os.path.join(args.out, "k", k, "subject")
        if os.path.exists(subject):
            with open(subject) as f:
                lines.append(f"- {k}: the series up to \"{f.read().strip()}\"")
    lines += ["", "| case | parameter | " + " | ".join(kernels) + " | unit |",
              "|---|---|" + "---:|" * len(kernels) + "---|"] + rows
    below = [f"{r['case']} {r['parameter']}" for r in records
             if r["kernels"].get("ours", {}).get("below")]
    lines += ["", "Ours below upstream beyond the spread: " + (", ".join(below) or "none")]
    lines += [f"\nError: {e}" for e in errors]
    summary = "\n".join(lines) + "\n"
    with open(os.path.join(args.out, "summary.md"), "w") as f:
        f.write(summary)
    print(summary)
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
