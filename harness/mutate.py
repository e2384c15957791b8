#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""make mutations: show that the KUnit suite guards what it claims to.

Each mutation below removes one mechanism of kernel/cgroup/rdma.c that a
KUnit case asserts.  For each in turn the script edits build/BASE/src and
runs the suite with the kernel's own tools/testing/kunit/kunit.py on UML
(kernel/cgroup/tests/.kunitconfig, built incrementally in
build/BASE/kunit), then reads which cases failed from its JSON.  A
mutation that no expected case catches fails the target (a missing test).
A first run without any mutation must pass every case; a run that reports
fewer cases than that one died in the suite ("(crash)").  build/src is
restored at the end, whatever happened.

What no tool does for it: the table of mutations and the verdicts.

With --stale, only whether each mutation's text is in its file once
(make check: a mutation that no longer applies fails it in a second).

Usage: harness/mutate.py [NAME...]           (default: all mutations)
       harness/mutate.py --stale
"""

import json
import os
import subprocess
import sys
import time

HARNESS = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HARNESS)
with open(os.path.join(HARNESS, "bases")) as _f:
    MAIN = next(l.split()[0] for l in _f if l.strip() and not l.startswith("#"))
BUILD = os.path.join(ROOT, "build", os.environ.get("BASE") or MAIN)
SRC = os.path.join(BUILD, "src")
LOGS = os.path.join(BUILD, "logs")
KUNIT_DIR = os.path.join(BUILD, "kunit")

RDMA_C = "kernel/cgroup/rdma.c"

MUTATIONS = [
    ("rollback", RDMA_C,
     "\t\t\tfor (q = pool; q != p->parent; q = q->parent)\n"
     "\t\t\t\tatomic_dec(&q->res[type].usage);\n",
     "",
     "giving the unit back to the levels below the one that refused it",
     ["rdmacg_test_hierarchy", "rdmacg_test_charge_limit"]),
    ("unsigned", RDMA_C,
     "\t\tif ((unsigned int)usage > (unsigned int)READ_ONCE(r->max)) {",
     "\t\tif (usage > READ_ONCE(r->max)) {",
     "the unsigned comparison: a usage wrapped past INT_MAX passes every limit",
     ["rdmacg_test_int_max"]),
    ("mem-one-size", RDMA_C,
     "\t\t\tif (!mem || lim->set)\n",
     "\t\t\tif (!mem)\n",
     "refusing a second size in a write of rdma.mr_mem.max",
     ["rdmacg_test_write_mem_max"]),
    ("mem-range", RDMA_C,
     "\t\tif (!ret && check_shl_overflow(bytes, 10 * (unit - units + 1), &bytes))\n",
     "\t\tbytes <<= 10 * (unit - units + 1);\n\t\tif (0)\n",
     "refusing a size past 64 bits in rdma.mr_mem.max",
     ["rdmacg_test_write_mem_max"]),
    ("attribution", RDMA_C,
     "\tatomic64_inc(&rdmacg_events(over, type)->local_max);",
     "\tatomic64_inc(&rdmacg_events(pool, type)->local_max);",
     "counting a refusal's max at the level whose limit refused it",
     ["rdmacg_test_hierarchy"]),
    ("one-walk", RDMA_C,
     "\t\tupper = rdmacg_pool_find_locked(dev, p);\n",
     "\t\tupper = rdmacg_pool_find_locked(dev, p) ?:\n"
     "\t\t\trdmacg_pool_find_locked(dev, p);\n",
     "one lookup per level when a chain's pools are made",
     ["rdmacg_test_deep_chain"]),
    ("css-free", RDMA_C,
     "\t\tkfree(xa_erase(&dev->pools, css->id));\n",
     "",
     "erasing a freed cgroup's pools: the device's xarray keeps pools "
     "whose cgroup is gone, and unregistration touches freed memory",
     ["rdmacg_test_css_free", "(crash)"]),
    ("unregister", RDMA_C,
     "\tlist_del_init(&dev->dev_node);\n\tmutex_unlock(&rdmacg_mutex);\n",
     "\tmutex_unlock(&rdmacg_mutex);\n",
     "taking an unregistered device off the list: writes still find it, "
     "and registering it again corrupts the list",
     ["rdmacg_test_unregister_device", "(crash)"]),
    ("names-twice", RDMA_C,
     "\t\tif (__test_and_set_bit(b, names))\n"
     "\t\t\t__set_bit(RDMACG_NAME_BUCKETS + b, names);\n",
     "\t\t__set_bit(b, names);\n",
     "marking the hashes that two names share: two devices of one name "
     "print the same key",
     ["rdmacg_test_print_key"]),
    ("held", RDMA_C,
     "\treturn min(rdmacg_usage(pool, i), max(limit, rdmacg_peak(pool, i, false)));\n",
     "\treturn rdmacg_usage(pool, i);\n",
     "leaving out the unit a refusal is about to give back: a reset "
     "restarts above the limit, and a reader shows a peak above it",
     ["rdmacg_test_peak_floor", "rdmacg_test_peak_reset_in_flight"]),
    ("floor", RDMA_C,
     "\theld = rdmacg_held(pool, i);\n",
     "\theld = 0;\n",
     "showing a peak no lower than the usage, which a charge raises first",
     ["rdmacg_test_peak_floor", "rdmacg_test_peak_reset_in_flight"]),
    ("limit-lowered", RDMA_C,
     "\treturn min(rdmacg_usage(pool, i), max(limit, rdmacg_peak(pool, i, false)));\n",
     "\treturn min(rdmacg_usage(pool, i), limit);\n",
     "a write restarting from a usage that a limit was written under, not "
     "from the limit",
     ["rdmacg_test_peak_reset_in_flight"]),
    ("kind", RDMA_C,
     "\t\t\tfor (i = mem ? RDMACG_MEM : 0; i < RDMACG_MEM + mem; i++)\n",
     "\t\t\tfor (i = 0; i <= RDMACG_MEM; i++)\n",
     "a write of one peak file restarting its own kind's peaks only",
     ["rdmacg_test_peak_mem"]),
    ("prune", RDMA_C,
     "\t\trdmacg_marks_prune(files, pools, n);\n",
     "",
     "dropping the values of a pool that is gone: a file kept open grows "
     "with each device that comes and goes",
     ["rdmacg_test_peak_unregister"]),
    ("not-unique", RDMA_C,
     "\t\tif (found)\n\t\t\treturn ERR_PTR(-ENOTUNIQ);\n",
     "",
     "refusing a name that several devices have, given without an index",
     ["rdmacg_test_write_index"]),
    ("mem-refuser", RDMA_C,
     "\trdmacg_count_refusal(pool, container_of(fail, struct rdmacg_pool, mem.pc),\n",
     "\trdmacg_count_refusal(pool, pool,\n",
     "counting a refused pin at the level whose page_counter refused it",
     ["rdmacg_test_mem_charge"]),
    ("peer-raise", RDMA_C,
     "\t\tif (file == mine || m->peak[i] < usage)\n",
     "\t\tif (file == mine)\n",
     "raising the other written files' values to the usage at a write, "
     "as memory.peak does",
     ["rdmacg_test_peak_reset"]),
    ("serial", RDMA_C,
     "\t\tpool->serial = ++p->pool_serial;\n",
     "\t\tpool->serial = dev->index;\n",
     "a key that no later pool of the cgroup has: a device that comes back "
     "shows the values of the pool before",
     ["rdmacg_test_peak_unregister"]),
    ("stall", RDMA_C,
     "\t\tpool->serial = ++p->pool_serial;\n",
     "\t\tmutex_lock(&p->peak_lock);\n"
     "\t\tpool->serial = ++p->pool_serial;\n"
     "\t\tmutex_unlock(&p->peak_lock);\n",
     "making a pool without the cgroup's peak_lock: a first charge, with "
     "rdmacg_mutex held, waits for a peak file's write",
     ["rdmacg_test_peak_no_stall"]),
]


def say(msg):
    print("mutations: " + msg, flush=True)


def cases(group, out):
    """name -> status of every case in kunit.py's JSON (a parameterised
    case counts once, failed if any of its parameters failed)."""
    for c in group.get("test_cases", []):
        out[c["name"]] = c["status"]
    for g in group.get("sub_groups", []):
        if g.get("test_cases") and not g.get("sub_groups") and g["name"].startswith("rdmacg_test_"):
            bad = any(c["status"] not in ("PASS", "SKIP") for c in g["test_cases"])
            out[g["name"]] = "FAIL" if bad else "PASS"
        else:
            cases(g, out)
    return out


def kunit(tag):
    """Build and run the suite; (passed, {failed cases}) or None if the
    kernel does not build."""
    log = os.path.join(LOGS, "mutate-%s.log" % tag)
    js = os.path.join(LOGS, "mutate-%s.json" % tag)
    if os.path.exists(js):
        os.unlink(js)
    t0 = time.time()
    cmd = [sys.executable, "tools/testing/kunit/kunit.py", "run",
           "--kunitconfig=kernel/cgroup/tests", "--build_dir=" + KUNIT_DIR,
           "--jobs=%d" % os.cpu_count(), "--make_options=CC=ccache gcc",
           "--timeout=300", "--json=" + js,
           # UML's SMP: rdmacg_test_threads needs two CPUs
           "--kernel_args=ncpus=2", "--kernel_args=seccomp=on"]
    with open(log, "w") as f:
        subprocess.call(cmd, cwd=SRC, stdout=f, stderr=subprocess.STDOUT,
                        env=dict(os.environ, PYTHONDONTWRITEBYTECODE="1"))
    if not os.path.exists(js):
        say("%s: kunit.py gave no results (the kernel does not build? see %s)" % (tag, log))
        return None
    got = cases(json.load(open(js)), {})
    passed = sum(1 for s in got.values() if s == "PASS")
    # kunit.py names the cases a crash kept from running ""
    failed = {n or "(crash)" for n, s in got.items() if s not in ("PASS", "SKIP")}
    say("%s: %d s: %d cases passed, %d failed%s" % (
        tag, time.time() - t0, passed, len(failed),
        (": " + ", ".join(sorted(failed))) if failed else ""))
    return passed, failed


def stale():
    """The mutations whose text is not exactly once in its file (the
    series' tip in build/BASE/src, as make check's tree step leaves it)."""
    bad = []
    for name, rel, old, *_ in MUTATIONS:
        path = os.path.join(SRC, rel)
        n = open(path).read().count(old) if os.path.exists(path) else 0
        if n != 1:
            bad.append("%-13s STALE: its text is in %s %d times, not once" % (name, rel, n))
    return bad


def write_src(path, text):
    """Replace a file of build/src, which is hardlinked to the pristine tree."""
    os.unlink(path)
    with open(path, "w") as f:
        f.write(text)


def main():
    want = sys.argv[1:]
    if want[:1] != ["--stale"] and subprocess.call(
            ["bash", os.path.join(HARNESS, "tree.sh")], stdout=subprocess.DEVNULL):
        return 1
    bad = stale()
    for line in bad:
        say(line)
    if want[:1] == ["--stale"] or bad:
        say("%d mutation texts, %s" % (len(MUTATIONS), "some stale" if bad else "each once in its file"))
        return 1 if bad else 0
    todo = [m for m in MUTATIONS if not want or m[0] in want]
    if want and len(todo) != len(want):
        say("unknown mutation in %s; known: %s" % (want, [m[0] for m in MUTATIONS]))
        return 2
    os.makedirs(LOGS, exist_ok=True)
    base = kunit("none")
    if not base or base[1] or not base[0]:
        say("without mutation: %s: fix that first" % (base,))
        return 1
    lines = []
    for name, rel, old, new, what, expect in todo:
        path = os.path.join(SRC, rel)
        text = open(path).read()
        write_src(path, text.replace(old, new))
        try:
            res = kunit(name)
        finally:
            write_src(path, text)
        if res is None:
            lines.append("%-13s NOT RUN: the mutated kernel does not build" % name)
            bad.append(name)
            continue
        failed = res[1] | ({"(crash)"} if res[0] + len(res[1]) < base[0] else set())
        if set(expect) & failed:
            lines.append("%-13s caught by %s (removes %s)" % (name, ", ".join(sorted(failed)), what))
        else:
            lines.append("%-13s NOT CAUGHT: failed %s, expected one of %s (removes %s)" % (
                name, sorted(failed) or "nothing", expect, what))
            bad.append(name)
    say("")
    for line in lines:
        say(line)
    say("%d mutations, %s" % (len(todo), "FAILED" if bad else "every one caught"))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
