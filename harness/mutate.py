#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""make mutations: show that the tests guard what they claim to.

Each mutation below removes one mechanism of kernel/cgroup/rdma.c that a
KUnit case asserts.  For each in turn the script edits build/src, builds
the release kernel (incrementally, in build/obj-release), boots it under
QEMU without an initramfs so that only the KUnit suite built in runs
(cgroup_rdma, the only one in its configuration), and reads which test
cases failed.  It prints, per mutation, the cases that caught it; a
mutation that no case catches, or that no longer applies to the source,
fails the target (it is a missing test, or a stale entry here).  A first
boot without any mutation must pass every case.  build/src and the
kernel are restored at the end, whatever happened.

With --stale, only whether each mutation's text is in its file once
(make check: a mutation that no longer applies fails it in a second).

Usage: harness/mutate.py [NAME...]           (default: all mutations)
       harness/mutate.py --stale
"""

import os
import re
import subprocess
import sys
import time

HARNESS = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HARNESS)
sys.path.insert(0, HARNESS)
from base import BASE  # noqa: E402
BUILD = os.path.join(ROOT, "build", BASE)
SRC = os.path.join(BUILD, "src")
LOGS = os.path.join(BUILD, "logs")
KERNEL = os.path.join(BUILD, "obj-release", "arch/x86/boot/bzImage")

RDMA_C = "kernel/cgroup/rdma.c"

# name, file, text, replacement, what the mutation removes, cases that must
# catch it (at least one of them; others may catch it too)
MUTATIONS = [
    ("rollback", RDMA_C,
     "\t\t\tfor (q = pool; q != p->parent; q = q->parent)\n"
     "\t\t\t\tatomic_dec(&q->res[type].usage);\n",
     "",
     "giving the unit back to the levels below the one that refused it",
     ["rdmacg_test_hierarchy", "rdmacg_test_charge_limit", "rdmacg_test_model"]),
    ("unsigned", RDMA_C,
     "\t\tif ((unsigned int)atomic_inc_return(&r->usage) >\n"
     "\t\t    (unsigned int)READ_ONCE(r->max)) {",
     "\t\tif (atomic_inc_return(&r->usage) >\n\t\t    READ_ONCE(r->max)) {",
     "the unsigned comparison: a usage wrapped past INT_MAX passes every limit",
     ["rdmacg_test_int_max"]),
    ("attribution", RDMA_C,
     "\tatomic64_inc(&rdmacg_events(over, type)->local_max);",
     "\tatomic64_inc(&rdmacg_events(pool, type)->local_max);",
     "counting a refusal's max at the level whose limit refused it",
     ["rdmacg_test_hierarchy", "rdmacg_test_model"]),
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
     "\tlist_del_init(&dev->dev_node);\n\txa_for_each(&dev->pools, id, pool) {",
     "\txa_for_each(&dev->pools, id, pool) {",
     "taking an unregistered device off the list: writes still find it, "
     "and registering it again corrupts the list",
     ["rdmacg_test_unregister_device", "(crash)"]),
    ("not-unique", RDMA_C,
     "\t\tif (found)\n\t\t\treturn ERR_PTR(-ENOTUNIQ);\n",
     "",
     "refusing a name that several devices have, given without an index",
     ["rdmacg_test_write_index"]),
    ("mem-rollback", RDMA_C,
     "\t\t\t\tatomic_long_sub(npages, &q->mem.usage);\n",
     "",
     "giving pinned pages back to the levels below a refusal",
     ["rdmacg_test_mem_charge", "rdmacg_test_model"]),
    ("reset-loss", RDMA_C,
     "\trdmacg_marks_raise_locked(cg, pool, i, mine,\n"
     "\t\t\t\t  rdmacg_local_peak(pool, i));\n"
     "\trdmacg_marks_raise_locked(cg, pool, i, mine,\n"
     "\t\t\t\t  rdmacg_local_restart(pool, i));\n",
     "\trdmacg_local_restart(pool, i);\n",
     "raising the other files' marks to the local peak a reset ends: "
     "memory.peak's rule, which loses a mark reached between two resets",
     ["rdmacg_test_peak_reset", "rdmacg_test_model"]),
]


def say(msg):
    print("mutations: " + msg, flush=True)


def run(cmd, log, env=None):
    with open(log, "w") as f:
        return subprocess.call(cmd, stdout=f, stderr=subprocess.STDOUT, env=env)


def build(tag):
    log = os.path.join(LOGS, "mutate-%s-build.log" % tag)
    t0 = time.time()
    if run(["bash", os.path.join(HARNESS, "kernel.sh"), "release", "build"], log):
        say("%s: the kernel does not build (see %s)" % (tag, log))
        return False
    say("%s: built in %d s" % (tag, time.time() - t0))
    return True


def boot(tag):
    """The KTAP results of the suites: (passed, {failed case names})."""
    log = os.path.join(LOGS, "mutate-%s-console.log" % tag)
    t0 = time.time()
    # The suite ends within seconds of boot; a kernel that hangs in it is
    # a crash, found after 300 s rather than 900.
    cmd = ["timeout", "-k", "10", "300", "qemu-system-x86_64", "-accel",
           os.environ.get("ACCEL", "tcg,thread=multi"), "-m", "1G",
           "-smp", "2", "-nographic", "-no-reboot", "-nic", "none",
           "-kernel", KERNEL, "-append",
           "console=ttyS0 panic=-1"]
    run(cmd, log)
    passed, failed, ended = 0, set(), False
    with open(log, errors="replace") as f:
        for line in f:
            if re.search(r"\]\s+(not ok|ok) \d+ cgroup_rdma$", line.rstrip()):
                ended = True
            # a case that fails and then crashes the kernel in its
            # cleanup prints its failed expectation, not its result
            m = re.search(r"# (rdmacg_test_\w+): (EXPECTATION|ASSERTION) FAILED", line)
            if m:
                failed.add(m.group(1))
                continue
            m = re.search(r"\]\s+(not ok|ok) \d+ (\w+)", line)
            if not m or m.group(2) == "cgroup_rdma":
                continue
            if m.group(1) == "ok":
                passed += 1
            else:
                failed.add(m.group(2))
    if not ended:
        failed.add("(crash)")  # the suite did not end: the kernel died in it
    say("%s: booted in %d s: %d cases passed, %d failed%s" % (
        tag, time.time() - t0, passed, len(failed),
        (": " + ", ".join(sorted(failed))) if failed else ""))
    return passed, failed


def verdict(name, built, failed, expect, what):
    """The line of a mutation, and whether it went uncaught."""
    if not built:
        return "%-13s NOT RUN: the mutated kernel does not build" % name, 1
    if set(expect) & failed:
        return "%-13s caught by %s (removes %s)" % (
            name, ", ".join(sorted(failed)), what), 0
    return "%-13s NOT CAUGHT: failed %s, expected one of %s (removes %s)" % (
        name, sorted(failed) or "nothing", expect, what), 1


def write_src(path, text):
    """Replace a file of build/src, which is hardlinked to the pristine tree."""
    os.unlink(path)
    with open(path, "w") as f:
        f.write(text)


def restore(originals):
    """Put back the files of build/src a mutation changed, and rebuild."""
    for path, text in originals.items():
        if open(path).read() != text:
            write_src(path, text)
    build("restored")


def report(lines, what, bad):
    say("")
    for line in lines:
        say(line)
    say("%s, %s" % (what, "every one caught" if not bad else "FAILED"))
    return bad


def stale_main():
    """Each text a mutation replaces must be in its file exactly once (the
    series' tip in build/BASE/src, as make check's tree step leaves it):
    a second, without building or booting anything."""
    texts = [(m[0], m[1], m[2]) for m in MUTATIONS]
    bad = 0
    for name, rel, old in texts:
        path = os.path.join(SRC, rel)
        n = open(path).read().count(old) if os.path.exists(path) else 0
        if n != 1:
            say("%-13s STALE: its text is in %s %d times, not once" % (name, rel, n))
            bad = 1
    say("%d mutation texts, %s" % (len(texts), "some stale" if bad else "each once in its file"))
    return bad


def main():
    want = sys.argv[1:]
    if want[:1] == ["--stale"]:
        return stale_main()
    todo = [m for m in MUTATIONS if not want or m[0] in want]
    if want and len(todo) != len(want):
        say("unknown mutation in %s; known: %s" % (want, [m[0] for m in MUTATIONS]))
        return 2
    os.makedirs(LOGS, exist_ok=True)
    if subprocess.call(["bash", os.path.join(HARNESS, "tree.sh")],
                       stdout=subprocess.DEVNULL):
        return 1
    originals = {}
    for m in todo:
        path = os.path.join(SRC, m[1])
        originals.setdefault(path, open(path).read())

    write = write_src
    bad = 0
    lines = []
    try:
        if not build("none"):
            return 1
        passed, failed = boot("none")
        if failed or not passed:
            say("without mutation: %d passed, failed %s: fix that first" %
                (passed, sorted(failed)))
            return 1
        for name, rel, old, new, what, expect in todo:
            path = os.path.join(SRC, rel)
            text = originals[path]
            if text.count(old) != 1:
                lines.append("%-13s STALE: its text is in %s %d times, not once" %
                             (name, rel, text.count(old)))
                bad = 1
                continue
            write(path, text.replace(old, new))
            try:
                ok = build(name)
                passed, failed = boot(name) if ok else (0, set())
            finally:
                write(path, text)
            line, missed = verdict(name, ok, failed, expect, what)
            lines.append(line)
            bad |= missed
    finally:
        restore(originals)
    return report(lines, "%d mutations" % len(todo), bad)


if __name__ == "__main__":
    sys.exit(main())
