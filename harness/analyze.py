#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Judge one guest run from its two logs.

  analyze.py --console LOG --results LOG --src TREE [--expect-kunit]
  analyze.py --console LOG --results LOG --fixes TEST...

console: the kernel console; results: what harness/guest/init wrote to its
standard output (harness/boot.sh).
Prints one line per finding and, last, "COUNTS passed failed skipped".
- KUnit: the KTAP printed before the first test began, parsed by the kernel's own
  tools/testing/kunit/kunit.py parse.
- Guest tests: TAP lines between "### harness: begin/end NAME" markers;
  each test must print one plan "1..N" and exactly N results ("1..0 #
  SKIP reason" skips the whole test), so that one that dies half way fails.
- Kernel splats anywhere in the console log (lines that are only a copy of
  a test's own output are not scanned).
--fixes (make fixes-check): instead, one line "RESULT TEST PASS" or
"RESULT TEST FAIL reason" for each TEST (harness/fixes/NN-name), then the
details.  A test passes when its section has a plan and as many results,
all "ok" and none skipped (a skipped check proves nothing), it exited 0,
and no splat shows between its markers; a splat outside every test's
markers fails every test (it can not be attributed).
"""
import argparse, os, re, subprocess, sys

# The one list of kernel splats, read by every judge of a log, host or
# guest.  A stack trace counts: fault injection prints none at verbose 1,
# which every test that injects faults sets.
with open(os.path.join(os.path.dirname(os.path.abspath(__file__)),
                       "guest", "lib", "splat.ere")) as _f:
    SPLAT = re.compile(_f.read().strip())
MARK = re.compile(r"### harness: (begin|end|done)\s*(\S*)(?:\s+rc=(\d+))?(?:\s+time=(\d+)s)?")
TAP = re.compile(r"^(not ok|ok)\b\s*\d*\s*(.*)$")
KSFT_SKIP = 4  # the exit code of a kselftest skipped as a whole
PLAN = re.compile(r"^1\.\.(\d+)\s*(#\s*SKIP\b.*)?$", re.I)


def read(path):
    if not os.path.exists(path):
        return []
    with open(path, errors="replace") as f:
        return [l.rstrip("\r\n").replace("\r", "") for l in f]


def kunit(console, src, expect):
    """Return (passed, failed, skipped) of the KUnit run."""
    pre = []
    for l in console:
        if "### harness:" in l:
            break
        pre.append(l)
    if not any(re.search(r"K?TAP version", l) for l in pre):
        if expect:
            print("kunit: FAIL: no KUnit output in the console log")
            return 0, 1, 0
        print("kunit: no KUnit suite in this kernel (yet)")
        return 0, 0, 0
    tool = os.path.join(src, "tools/testing/kunit/kunit.py")
    env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1")
    p = subprocess.run([sys.executable, tool, "parse"], input="\n".join(pre) + "\n",
                       capture_output=True, text=True, env=env)
    out = re.sub(r"\x1b\[[0-9;]*m", "", p.stdout)
    for l in out.splitlines():
        print("kunit: " + l)
    m = re.search(r"Ran (\d+) tests?:?(.*)", out)
    if not m:
        print("kunit: FAIL: kunit.py parse gave no summary (exit %d)" % p.returncode)
        return 0, 1, 0
    counts = dict((k, int(v)) for k, v in re.findall(r"(\w+): (\d+)", m.group(2)))
    passed, skipped = counts.get("passed", 0), counts.get("skipped", 0)
    failed = counts.get("failed", 0) + counts.get("crashed", 0)
    if counts.get("errors", 0) and not failed:
        print("kunit: FAIL: kunit.py parse reported errors in the KTAP")
        failed = 1
    if p.returncode != 0 and not failed:
        print("kunit: FAIL: kunit.py parse exited %d" % p.returncode)
        failed = 1
    return passed, failed, skipped


def judge(name, rc, plan, seen, fails, skip_all):
    """Return the failure of one guest test's section, or None."""
    if seen == 0 and not skip_all:
        return "%s printed no TAP result (exit %d)" % (name, rc)
    if plan is None:
        return "%s printed no TAP plan (exit %d)" % (name, rc)
    if plan == -1:
        return "%s printed more than one TAP plan" % name
    if seen != plan:
        return "%s planned %d results and printed %d (exit %d)" % (name, plan, seen, rc)
    if rc != 0 and fails == 0 and not (skip_all and rc == KSFT_SKIP):
        return "%s exited %d without a failing TAP line" % (name, rc)
    return None


def sections(results):
    """The guest tests of a results log, in run order: name -> dict(plan,
    seen, passed, fails, skips, skip_all, rc, time, lines); whether the
    guest reached the end of its list."""
    out, cur, done = {}, None, False
    for l in results:
        m = MARK.search(l)
        if m:
            if m.group(1) == "begin":
                name = m.group(2)
                if name in out:  # run twice: both count
                    name = "%s (run %d)" % (name, len(out) + 1)
                cur = out[name] = dict(plan=None, seen=0, passed=0, fails=0, skips=0,
                                             skip_all=False, rc=None, time=None, lines=[])
            elif m.group(1) == "end" and cur is not None:
                cur["rc"], cur["time"] = int(m.group(3) or 0), m.group(4)
                cur = None
            elif m.group(1) == "done":
                done = True
            continue
        if cur is None:
            continue
        cur["lines"].append(l)
        p = PLAN.match(l)
        if p:
            cur["plan"] = int(p.group(1)) if cur["plan"] is None else -1
            cur["skip_all"] = cur["plan"] == 0 and bool(p.group(2))
            continue
        t = TAP.match(l)
        if not t:
            continue
        cur["seen"] += 1
        if t.group(1) != "ok":
            cur["fails"] += 1
        elif re.search(r"#\s*SKIP", t.group(2), re.I):
            cur["skips"] += 1
        else:
            cur["passed"] += 1
    return out, done


def tap(results):
    passed = failed = skipped = 0
    secs, done = sections(results)
    for name, s in secs.items():
        if name == "kmemleak":
            continue
        passed += s["passed"]
        failed += s["fails"]
        skipped += s["skips"] + s["skip_all"]
        for l in s["lines"]:
            if l.startswith("not ok"):
                print("guest: FAIL: %s: %s" % (name, l))
            elif s["skip_all"] and PLAN.match(l):
                print("guest: %s: skipped: %s" % (name, l))
        if s["rc"] is None:
            print("guest: FAIL: %s never finished (guest hung, crashed or timed out)" % name)
            failed += 1
            continue
        why = judge(name, s["rc"], s["plan"], s["seen"], s["fails"], s["skip_all"])
        if why:
            print("guest: FAIL: " + why)
            failed += 1
        else:
            print("guest: %s: %d results, exit %d%s"
                  % (name, s["seen"], s["rc"], ", %ss" % s["time"] if s["time"] else ""))
    if not done:
        print("guest: FAIL: the guest did not reach the end of its test list")
        failed += 1
    return passed, failed, skipped


def splats(console, secs):
    """(section or None, line number, line) of every suspicious console
    line but the copies of the guest tests' own output; the kmemleak
    report's objects count too."""
    kml = [l for n, s in secs.items() if n.startswith("kmemleak") for l in s["lines"]]
    own = {l.strip() for n, s in secs.items() if not n.startswith("kmemleak")
           for l in s["lines"] if l.strip()}
    found, cur = [], None
    for i, l in enumerate(console):
        m = MARK.search(l)
        if m:
            cur = m.group(2) if m.group(1) == "begin" else None
        elif l.strip() not in own and SPLAT.search(l):
            found.append((cur, i + 1, l))
    return found + [("kmemleak", 0, "kmemleak: " + l) for l in kml if "unreferenced object" in l]


def fixes(console, results, names):
    """make fixes-check: the verdict of each fix's test (see the top)."""
    secs, _ = sections(results)
    found, details = {}, []
    for sec, n, l in splats(console, secs):
        found.setdefault(sec, []).append("console:%d: %s" % (n, l))
    for name in names:
        s = secs.get(name)
        if s is None:
            why = "did not run (the guest crashed, hung or timed out before it)"
        elif s["rc"] is None:
            why = "never finished (the guest crashed, hung or timed out in it)"
        else:
            why = judge(name, s["rc"], s["plan"], s["seen"], s["fails"], s["skip_all"])
            if why is None and s["fails"]:
                why = "%d of %d checks failed" % (s["fails"], s["seen"])
            if why is None and (s["skips"] or s["skip_all"]):
                why = "skipped checks prove nothing"
            if why is None and s["rc"] != 0:
                why = "exited %d" % s["rc"]
        if found.get(name):
            why = (why + "; " if why else "") + "kernel splat during the test: " + \
                found[name][0].split(": ", 1)[1].strip()
        if found.get(None):
            why = (why + "; " if why else "") + "kernel splat outside the tests"
        print("RESULT %s %s" % (name, "PASS" if why is None else "FAIL " + why))
        for l in s["lines"] if s else []:
            if l.startswith("not ok") or (l.startswith("#") and s["fails"]):
                details.append("%s: %s" % (name, l))
    for name, lines in found.items():
        details += ["splat (%s): %s" % (name or "outside the tests", l) for l in lines[:20]]
    for d in details[:200]:
        print("  " + d)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--console", required=True)
    ap.add_argument("--results", required=True)
    ap.add_argument("--src")
    ap.add_argument("--expect-kunit", action="store_true")
    ap.add_argument("--fixes", nargs="+")
    a = ap.parse_args()
    console, results = read(a.console), read(a.results)
    if a.fixes:
        return fixes(console, results, a.fixes)
    if not console:
        print("FAIL: empty console log %s" % a.console)
        print("COUNTS 0 1 0")
        return
    kp, kf, ks = kunit(console, a.src, a.expect_kunit)
    print("kunit: %d passed, %d failed, %d skipped" % (kp, kf, ks))
    gp, gf, gs = tap(results)
    print("guest: %d passed, %d failed, %d skipped" % (gp, gf, gs))
    found = splats(console, sections(results)[0])
    for sec, n, l in found[:40]:
        print("splat: %s:%d: %s" % (a.results if sec == "kmemleak" and not n else a.console, n, l))
    sp, sf = (0, 1) if found else (1, 0)
    print("splats: %s" % ("%d suspicious lines" % len(found) if found else "none"))
    print("COUNTS %d %d %d" % (kp + gp + sp, kf + gf + sf, ks + gs))


if __name__ == "__main__":
    main()
