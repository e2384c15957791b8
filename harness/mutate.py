#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""make mutations: show that the race tests guard what they claim to.

Each mutation below removes one mechanism that a concurrency argument of
kernel/cgroup/rdma.c (or the accounting of drivers/infiniband/core/umem.c)
rests on. For each in turn the script edits build/src, builds the release
kernel (incrementally, in build/obj-release), boots it under QEMU without
an initramfs so that only the KUnit suites built in run (cgroup_rdma and
ib_umem, the only ones in its configuration),
and reads which test cases failed. It prints, per mutation, the cases that
caught it; a mutation that no case catches, or that no longer applies to
the source, fails the target (it is a missing test, or a stale entry here).
A first boot without any mutation must pass every case. build/src and the
kernel are restored at the end, whatever happened.

With --model, the mutations of MODEL_MUTATIONS, and those of MUTATIONS
in rdma.c, are checked by the model fuzzer instead (harness/model/): in
user space, without a kernel: each is applied to a copy of rdma.c in
build/model-mutate/NAME/, the fuzzer is built against it and must fail,
and its reduced sequence is printed. A run without mutation must pass
first. Those of MODEL_MUTATIONS and MODEL_ALSO must be caught; the others
need two threads, which the fuzzer does not have, and are only reported.

With --guest, the mutations of GUEST_MUTATIONS, which only a guest test
can catch (a cgroup freed too early shows in cgroup.stat, not in KUnit):
each is applied to build/src, the release kernel is built and booted with
its initramfs, KUnit off and only the named guest test running, and one
of the expected TAP results must fail. A run without mutation must pass
first.

With --stale, only whether each mutation's text is in its file once
(make check: a mutation that no longer applies fails it in a second).

Usage: harness/mutate.py [NAME...]           (default: all mutations)
       harness/mutate.py --stale
       harness/mutate.py --model [NAME...]   (about 1 minute each)
       harness/mutate.py --guest [NAME...]   (about 3 minutes each)
"""

import itertools
import os
import re
import subprocess
import sys
import time

HARNESS = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HARNESS)
# The base's build folder (see harness/lib.sh): BASE, else the default.
with open(os.path.join(HARNESS, "default-base")) as _f:
    BASE = os.environ.get("BASE") or _f.read().strip()
BUILD = os.path.join(ROOT, "build", BASE)
SRC = os.path.join(BUILD, "src")
LOGS = os.path.join(BUILD, "logs")
KERNEL = os.path.join(BUILD, "obj-release", "arch/x86/boot/bzImage")

RDMA_C = "kernel/cgroup/rdma.c"
UMEM_C = "drivers/infiniband/core/umem.c"

# name, file, text, replacement, what the mutation removes, cases that must
# catch it (at least one of them; others may catch it too)
MUTATIONS = [
    ("recheck", RDMA_C,
     "\tif (unlikely(usage >= atomic_read(&c->max))) {",
     "\tif (0) {",
     "the second read of the limit after the cmpxchg: a charge that read the "
     "old limit keeps its unit after a lowering write has returned",
     ["rdmacg_test_race_lowered"]),
    ("early-peak", RDMA_C,
     "\tusage[level++] = got;\n\tfor (pool = from->parent;",
     "\tusage[level++] = got;\n\trdmacg_raise_peak(from, type, got);\n"
     "\tfor (pool = from->parent;",
     "raising peaks only once every level accepted: a charge refused above "
     "shows in the peaks below",
     ["rdmacg_test_race_lowered_above", "rdmacg_test_race_ancestor_filled"]),
    ("peak-reread", RDMA_C,
     "usage[level] : rdmacg_usage(pool, type));",
     "rdmacg_usage(pool, type) : rdmacg_usage(pool, type));",
     "raising peaks with the usage each level's cmpxchg produced: peaks read "
     "again after the charge miss what was freed meanwhile",
     ["rdmacg_test_race_deep_peak"]),
    ("attribution", RDMA_C,
     "\t*limited = pool->cg;",
     "\t*limited = leaf->cg;",
     "naming the level whose limit refused: the refusal is counted at the "
     "asking cgroup's limit instead",
     ["rdmacg_test_race_lowered_above", "rdmacg_test_race_ancestor_filled"]),
    ("rollback", RDMA_C,
     "\tfor (; leaf != pool; leaf = leaf->parent)\n"
     "\t\trdmacg_sub(leaf, type, amount);\n",
     "",
     "giving the levels below a refusal their amount back",
     ["rdmacg_test_race_lowered_above", "rdmacg_test_race_ancestor_filled"]),
    ("grace-period", RDMA_C,
     "\trdmacg_race(RDMACG_RACE_UNREGISTER, dev);\n\tsynchronize_rcu();\n",
     "\trdmacg_race(RDMACG_RACE_UNREGISTER, dev);\n",
     "unregistration's wait for the lockless charges and uncharges that "
     "hold its pools",
     ["rdmacg_test_race_unregister"]),
    ("umem-recount", UMEM_C,
     "\tatomic64_sub(umem->pinned_pages, &umem->owning_mm->pinned_vm);\n"
     "\tib_rdmacg_uncharge_pinned(&umem->cg, umem->ibdev,\n"
     "\t\t\t\t  umem->pinned_pages);",
     "\tatomic64_sub(ib_umem_num_pages(umem), &umem->owning_mm->pinned_vm);\n"
     "\tib_rdmacg_uncharge_pinned(&umem->cg, umem->ibdev,\n"
     "\t\t\t\t  ib_umem_num_pages(umem));",
     "returning the pinned pages as stored at the pin: the release "
     "recounts them from an iova the driver moved",
     ["umem_test_iova_moved"]),
]

# name, [(file, text, replacement), ...], what the mutation removes, the
# guest test to run (honly= of harness/guest/init), the TAP results of which
# one at least must fail (--guest).
GUEST_MUTATIONS = [
    ("obj-ref",
     [(RDMA_C,
       "\t\tif (!ret && *rdmacg == ctx_cg)\n\t\t\tcss_put(&ctx_cg->css);",
       "\t\tif (!ret)\n\t\t\tcss_put(&(*rdmacg)->css);"),
      (RDMA_C,
       "\trdmacg_uncharge_amount(cg, dev, RDMACG_RESOURCE_HCA_OBJECT, 1);\n"
       "\tif (cg != ctx_cg)\n\t\tcss_put(&cg->css);",
       "\trdmacg_uncharge_amount(cg, dev, RDMACG_RESOURCE_HCA_OBJECT, 1);")],
     "the css reference of an object charged in the cgroup its creator moved "
     "to, away from its context's: that cgroup is freed under the object",
     "test_rdma", ["test_rdma_object_moved"]),
]

# name, text of rdma.c, replacement, what the mutation removes: caught by
# the model fuzzer, a sequential driver of the whole controller, without a
# kernel (--model).
MODEL_MUTATIONS = [
    ("peaks-reserve",
     "\tif (rdmacg_peaks_find(peaks, pool))\n\t\treturn 0;\n"
     "\tmark = rdmacg_peaks_find(peaks, NULL);\n",
     "\tif (rdmacg_peaks_find(peaks, pool) || rdmacg_peaks_find(peaks, NULL))\n"
     "\t\treturn 0;\n\tmark = NULL;\n",
     "a reset claiming its entry in each reader's saved peaks for each pool "
     "(the bug fixed in 625693b): a free entry counted as room without being "
     "claimed, so that two pools share it and one has none"),
    ("ext-leak", "\tkfree(pool->ext);\n\tkfree(pool);\n", "\tkfree(pool);\n",
     "freeing a pool's ext with the pool: the fuzzer's leak check"),
    ("key-index",
     "\t\t\tseq_printf(seq, \" index=%u\", dev->index);\n\t\t\treturn;\n",
     "\t\t\treturn;\n",
     "the \" index=N\" of the key of a device whose name another registered "
     "device has: the files show two lines of the same key"),
    ("find-index",
     "\t\tif (has_index) {\n\t\t\tif (dev->index == index)\n"
     "\t\t\t\treturn dev;\n\t\t\tcontinue;\n\t\t}\n",
     "",
     "the lookup by index of a write's device: a name with an index is "
     "refused as not unique, or set on a device of another index"),
    ("not-unique",
     "\t\tif (found)\n\t\t\treturn ERR_PTR(-ENOTUNIQ);\n",
     "",
     "refusing a name several devices share given without an index "
     "(-ENOTUNIQ): the write sets the limit of the last one listed"),
]

# Mutations of MUTATIONS that the model fuzzer must catch too: each breaks a
# charge that fails or succeeds alone. The others take effect only when
# another thread acts between two steps of a charge or an unregistration.
MODEL_ALSO = ["rollback", "attribution", "early-peak"]
MODEL_SECONDS = int(os.environ.get("MODEL_SECONDS", "60"))


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
    cmd = ["timeout", "-k", "10", "900", "qemu-system-x86_64", "-accel",
           os.environ.get("ACCEL", "tcg,thread=multi"), "-m", "1G",
           "-smp", "2", "-nographic", "-no-reboot", "-nic", "none",
           "-kernel", KERNEL, "-append",
           "console=ttyS0 panic=-1"]
    run(cmd, log)
    passed, failed = 0, set()
    with open(log, errors="replace") as f:
        for line in f:
            m = re.search(r"\]\s+(not ok|ok) \d+ (\w+)", line)
            if not m or m.group(2) in ("cgroup_rdma", "ib_umem"):
                continue
            if m.group(1) == "ok":
                passed += 1
            else:
                failed.add(m.group(2))
    say("%s: booted in %d s: %d cases passed, %d failed%s" % (
        tag, time.time() - t0, passed, len(failed),
        (": " + ", ".join(sorted(failed))) if failed else ""))
    return passed, failed


def model_run(tag, rdma_c):
    """Run the model fuzzer on @rdma_c: (exit status, its output)."""
    out = os.path.join(BUILD, "model-mutate", tag)
    os.makedirs(out, exist_ok=True)
    env = dict(os.environ, MODEL_RDMA_C=rdma_c, MODEL_OUT=out)
    log = os.path.join(out, "run.log")
    t0 = time.time()
    rc = run(["bash", os.path.join(HARNESS, "model", "run.sh"),
              str(MODEL_SECONDS)], log, env)
    with open(log, errors="replace") as f:
        text = f.read()
    say("%s: model fuzzer exit %d in %d s (%s)" % (tag, rc, time.time() - t0, log))
    return rc, text


def model_main(want):
    rdma = os.path.join(ROOT, RDMA_C)
    todo = [(m[0], m[1], m[2], m[3], True) for m in MODEL_MUTATIONS]
    todo += [(m[0], m[2], m[3], m[4], m[0] in MODEL_ALSO)
             for m in MUTATIONS if m[1] == RDMA_C]
    if want:
        todo = [m for m in todo if m[0] in want]
        if len(todo) != len(want):
            say("unknown mutation in %s" % want)
            return 2
    rc, text = model_run("none", rdma)
    if rc:
        say("without mutation the model fuzzer fails: fix that first\n" + text[-3000:])
        return 1
    source = open(rdma).read()
    bad, lines = 0, []
    for name, old, new, what, must in todo:
        if source.count(old) != 1:
            lines.append("%-13s STALE: its text is in %s %d times, not once" %
                         (name, RDMA_C, source.count(old)))
            bad = 1
            continue
        path = os.path.join(BUILD, "model-mutate", name, "rdma.c")
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as f:
            f.write(source.replace(old, new))
        rc, text = model_run(name, path)
        # The reduced sequence: the indented lines after "reduced to".
        seq = []
        if "model: reduced to" in text:
            tail = text.split("model: reduced to", 1)[1].splitlines()[1:]
            seq = list(itertools.takewhile(lambda l: l.startswith("    "), tail))
        where = re.search(r"model: (seed \d+ FAILED at step \d+)", text)
        if rc == 1 and where:
            lines.append("%-13s caught: %s, reduced to %d operations (removes %s):\n%s" % (
                name, where.group(1), len(seq), what, "\n".join(seq)))
        elif rc == 0:
            lines.append("%-13s %s: %d s of the model fuzzer passed (removes %s)" % (
                name, "NOT CAUGHT" if must else "not caught, needs concurrency",
                MODEL_SECONDS, what))
            bad |= must
        else:
            lines.append("%-13s NOT RUN: the model fuzzer exited %d (build?)" % (name, rc))
            bad = 1
    say("")
    for line in lines:
        say(line)
    say("%d mutations, %s" % (len(todo), "every one that must be caught was" if not bad
                               else "FAILED"))
    return bad


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


def guest_boot(tag, honly):
    """The TAP results of guest test @honly: (passed, {failed names})."""
    results = os.path.join(LOGS, "results-release.log")
    log = os.path.join(LOGS, "mutate-%s-boot.log" % tag)
    env = dict(os.environ, BOOT_TIMEOUT="900",
               BOOT_APPEND="kunit.enable=0 honly=%s" % honly)
    t0 = time.time()
    with open(log, "w") as f:
        subprocess.call(["bash", os.path.join(HARNESS, "boot.sh"), "release",
                         "check"], stdout=f, stderr=subprocess.STDOUT, env=env)
    passed, failed = 0, set()
    if os.path.exists(results):
        with open(results, errors="replace") as f:
            for line in f:
                m = re.match(r"(not ok|ok) \d+ (\S+)", line)
                if m and m.group(1) == "ok":
                    passed += 1
                elif m:
                    failed.add(m.group(2))
    say("%s: booted in %d s: %d results passed, %d failed%s" % (
        tag, time.time() - t0, passed, len(failed),
        (": " + ", ".join(sorted(failed))) if failed else ""))
    return passed, failed


def guest_main(want):
    todo = [m for m in GUEST_MUTATIONS if not want or m[0] in want]
    if want and len(todo) != len(want):
        say("unknown mutation in %s; known: %s" % (
            want, [m[0] for m in GUEST_MUTATIONS]))
        return 2
    os.makedirs(LOGS, exist_ok=True)
    if subprocess.call(["bash", os.path.join(HARNESS, "tree.sh")],
                       stdout=subprocess.DEVNULL):
        return 1
    bad, lines, originals = 0, [], {}
    write = write_src
    try:
        if not build("none") or subprocess.call(
                ["bash", os.path.join(HARNESS, "initramfs.sh"), "release"],
                stdout=subprocess.DEVNULL):
            return 1
        # Every guest test a mutation needs must pass unmutated first.
        for honly in sorted({m[3] for m in todo}):
            passed, failed = guest_boot("none", honly)
            if failed or not passed:
                say("without mutation: %s: %d passed, failed %s: fix that first" %
                    (honly, passed, sorted(failed)))
                return 1
        for name, edits, what, honly, expect in todo:
            texts = {}
            for rel, old, new in edits:
                path = os.path.join(SRC, rel)
                originals.setdefault(path, open(path).read())
                text = texts.get(path, originals[path])
                if text.count(old) != 1:
                    break
                texts[path] = text.replace(old, new)
            else:
                for path, text in texts.items():
                    write(path, text)
                try:
                    ok = build(name)
                    passed, failed = guest_boot(name, honly) if ok else (0, set())
                finally:
                    for path in texts:
                        write(path, originals[path])
                line, missed = verdict(name, ok, failed, expect, what)
                lines.append(line)
                bad |= missed
                continue
            lines.append("%-13s STALE: a text of it is not once in %s" % (name, rel))
            bad = 1
    finally:
        restore(originals)
    return report(lines, "%d guest mutations" % len(todo), bad)


def stale_main():
    """Each text a mutation replaces must be in its file exactly once (the
    series' tip in build/BASE/src, as make check's tree step leaves it):
    a second, without building or booting anything."""
    texts = [(m[0], m[1], m[2]) for m in MUTATIONS]
    texts += [(m[0], f, old) for m in GUEST_MUTATIONS for f, old, _ in m[1]]
    texts += [(m[0], RDMA_C, m[1]) for m in MODEL_MUTATIONS]
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
    if want[:1] == ["--model"]:
        return model_main(want[1:])
    if want[:1] == ["--guest"]:
        return guest_main(want[1:])
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
