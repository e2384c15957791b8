#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The TCG figures of each step of the rework, as a paragraph for its
commit message, from a make bench run with the step kernels
(BENCH_STEPS=1 or --kernels ...,steps: OUT/steps.json).

  harness/bench/step-figures.py OUT/steps.json BOOTS SAME [NAME]

SAME: the steps whose charge path is the same code (e.g. 14,15,16: their
instruction counts are equal); how far their medians lie apart, per
figure, is the noise between kernels (layout, boots), which the ranges
within a kernel's boots understate. NAME: how the messages call them.

Prints that noise, then per step "== N: subject" and the paragraph: the
step's figures and those of the kernel before it (upstream for the first
step), each the median of the per-boot medians with their range, and the
changes larger than the noise (the others are noise).
"""
import json
import sys
import textwrap

CELLS = [("warm_depth_1", "time at depth 1"), ("warm_depth_8", "time at depth 8"),
         ("warm_depth_16", "time at depth 16"), ("devices_128", "time with 128 devices"),
         ("par_siblings_2", "pairs a second in sibling cgroups"),
         ("par_same_2", "pairs a second in one cgroup")]


def num(v, rate):
    if rate:
        return f"{v / 1e6:.2f} M"
    return f"{v:,.0f}"


def fig(c, rate):
    lo, hi = min(c["boots"]), max(c["boots"])
    return f"{num(c['median'], rate)} ({num(lo, rate).replace(' M', '')}-{num(hi, rate)})"


def verdict(now, before, noise, rate):
    r = now["median"] / before["median"]
    if abs(r - 1) <= noise:
        return None
    return f"{r:.1f}x" if r >= 2 else f"{(r - 1) * 100:+.0f}%"


def paragraph(step, prev, boots, noise, same):
    f = lambda k, r=False: fig(step[k], r)
    b = lambda k, r=False: num(prev[k]["median"], r)
    who = "7.3.4" if prev["kernel"] == "upstream" else "before"
    text = (f"Timed under QEMU (TCG; 2 vCPUs on a 2-core host; {boots} boots of "
            f"each kernel, in turn with 7.3.4 and every step of this rework; "
            f"the median of the per-boot medians, their range in brackets), "
            f"a charge and uncharge of an hca_object at depth 1, 8 and 16 "
            f"takes {f('warm_depth_1')}, {f('warm_depth_8')} and "
            f"{f('warm_depth_16')} ns ({who}: {b('warm_depth_1')}, "
            f"{b('warm_depth_8')}, {b('warm_depth_16')}), and with 128 devices "
            f"{f('devices_128')} ns ({who}: {b('devices_128')}); 2 vCPUs do "
            f"{f('par_siblings_2', True)} pairs a second in sibling cgroups "
            f"and {f('par_same_2', True)} in one cgroup ({who}: "
            f"{b('par_siblings_2', True)}, {b('par_same_2', True)}).")
    out = []
    for key, label in CELLS:
        v = verdict(step[key], prev[key], noise[key], key.startswith("par"))
        if v:
            out.append(f"{label} {v}")
    pcts = [f"{noise[k] * 100:.0f}%" for k, _ in CELLS]
    text += (f" {same} run the same charge code, and their medians differ "
             f"by up to {', '.join(pcts[:-1])} and {pcts[-1]} in these six "
             f"figures; changes larger than that: ")
    text += (", ".join(out) + ".") if out else "none."
    # No line break inside "2.16 M" or a range.
    text = text.replace(" M", "\x00M")
    text = textwrap.fill(text, 72, break_on_hyphens=False)
    return text.replace("\x00", " ")


def main():
    rows = json.load(open(sys.argv[1]))
    boots, same = sys.argv[2], sys.argv[3].split(",")
    by = {r["kernel"]: r for r in rows}
    group = [by["step" + n] for n in same]
    noise = {}
    for key, label in CELLS:
        m = [g[key]["median"] for g in group]
        noise[key] = max(m) / min(m) - 1
        print(f"noise {label}: {noise[key] * 100:.1f}%")
    print()
    steps = [r for r in rows if r["kernel"].startswith("step")]
    prev = by["upstream"]
    names = sys.argv[4] if len(sys.argv) > 4 else f"Patches {same[0]}-{same[-1]}"
    for s in steps:
        print(f"== {s['kernel'][4:]}: {s['name']}")
        print(paragraph(s, prev, boots, noise, names))
        print()
        prev = s
    return 0


if __name__ == "__main__":
    sys.exit(main())
