#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Judge each test of the fixes in one guest run (make fixes-check).

  fixes-analyze.py --console LOG --results LOG TEST...

TEST: the names of the tests that should have run (harness/fixes/NN-name
without .sh).  Prints, for each, one line
  RESULT NAME PASS
  RESULT NAME FAIL reason
then the details.  A test passes when its section in the results log has
a plan and as many results, all "ok" and none skipped (a skipped check
proves nothing), it exited 0, and the console shows no kernel splat between
its begin and end markers.  A splat outside every test's markers fails every
test (it can not be attributed).  Uses analyze.py's patterns and rules.
"""
import argparse, os, sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import analyze  # noqa: E402


def splats(console, own):
    """name (None: outside every test) -> suspicious console lines"""
    found, cur = {}, None
    for i, l in enumerate(console):
        m = analyze.MARK.search(l)
        if m:
            cur = m.group(2) if m.group(1) == "begin" else None
        elif l.strip() not in own and analyze.SPLAT.search(l):
            found.setdefault(cur, []).append("console:%d: %s" % (i + 1, l))
    return found


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--console", required=True)
    ap.add_argument("--results", required=True)
    ap.add_argument("tests", nargs="+")
    a = ap.parse_args()
    console, results = analyze.read(a.console), analyze.read(a.results)
    secs, _ = analyze.sections(results)
    own = {l.strip() for s in secs.values() for l in s["lines"] if l.strip()}
    found = splats(console, own)
    details = []
    for name in a.tests:
        s = secs.get(name)
        why = None
        if s is None:
            why = "did not run (the guest crashed, hung or timed out before it)"
        elif s["rc"] is None:
            why = "never finished (the guest crashed, hung or timed out in it)"
        else:
            why = analyze.judge(name, s["rc"], s["plan"], s["seen"], s["fails"], s["skip_all"])
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
        if s is not None:
            for l in s["lines"]:
                if l.startswith("not ok") or (l.startswith("#") and s["fails"]):
                    details.append("%s: %s" % (name, l))
    for name, lines in found.items():
        for l in lines[:20]:
            details.append("splat (%s): %s" % (name or "outside the tests", l))
    for d in details[:200]:
        print("  " + d)


if __name__ == "__main__":
    main()
