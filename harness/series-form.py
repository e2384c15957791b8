#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The form of a series, as a maintainer reads it (harness/patch.sh).

For each patch of build/BASE/patchwork (the series applied with git am):
  - its size: lines added and removed in code (C, headers, Kconfig,
    Makefiles), in tests (KUnit files, selftests) and in documentation;
  - which earlier patches of the series it rewrites: lines that an
    earlier patch added and this one removes or changes (git blame of the
    parent on every removed line).
A patch of more than LIMIT (400) lines of code, added + removed, or one
that rewrites MIN (20) or more lines of one earlier patch (a later patch
may add an argument or a field to what an earlier one wrote, not redo
it), is a finding.  Prints a table and the findings.  And the rules,
enforced (exit status 1): the fixes come first, each with a Fixes: tag
and either Cc: stable or a message that says why it is "not marked for
stable" (a change of format, say); no later patch has a Fixes: tag.

    series-form.py WORKDIR BASE_TAG
"""
import re
import subprocess
import sys

LIMIT, MIN = 400, 20


def git(repo, *args):
    return subprocess.run(["git", "-C", repo] + list(args), check=True,
                          stdout=subprocess.PIPE, text=True).stdout


def kind(path):
    if path.startswith("Documentation/") or path == "MAINTAINERS":
        return "doc"
    if "/tests/" in path or path.startswith("tools/testing/") or path.endswith("_kunit.c"):
        return "test"
    return "code"


def removed_ranges(repo, c, path):
    """Line ranges of path at c~1 that c removes: [(start, count)]."""
    diff = git(repo, "diff", "-U0", c + "~1", c, "--", path)
    out = []
    for m in re.finditer(r"^@@ -(\d+)(?:,(\d+))? \+", diff, re.M):
        start, count = int(m.group(1)), int(m.group(2) if m.group(2) is not None else 1)
        if count:
            out.append((start, count))
    return out


def main():
    repo, base = sys.argv[1:3]
    commits = git(repo, "rev-list", "--reverse", base + "..HEAD").split()
    number = {c: i + 1 for i, c in enumerate(commits)}
    findings, broken, others = [], [], 0
    print("patch  code +/-      tests +/-     docs +/-      rewrites (patch: lines)  subject")
    for c in commits:
        n = number[c]
        subj = git(repo, "log", "-1", "--format=%s", c).strip()
        msg = git(repo, "log", "-1", "--format=%B", c)
        if re.search(r'^Fixes: [0-9a-f]{12,} \("', msg, re.M):
            if others:
                broken.append("patch %d is a fix after a patch that is not: %s" % (n, subj))
            if not re.search(r"^Cc: stable@vger\.kernel\.org$", msg, re.M) and \
                    "not marked for stable" not in msg:
                broken.append("patch %d is a fix without Cc: stable and without saying why it "
                              "is \"not marked for stable\": %s" % (n, subj))
        else:
            others += 1
        size = {"code": [0, 0], "test": [0, 0], "doc": [0, 0]}
        for line in git(repo, "diff", "--numstat", c + "~1", c).splitlines():
            a, d, path = line.split("\t")
            if a == "-":
                continue
            size[kind(path)][0] += int(a)
            size[kind(path)][1] += int(d)
        rewrites = {}
        for path in git(repo, "diff", "--name-only", "--diff-filter=MD", c + "~1", c).split():
            for start, count in removed_ranges(repo, c, path):
                blame = git(repo, "blame", "--porcelain", "-L", "%d,+%d" % (start, count),
                            c + "~1", "--", path)
                for m in re.finditer(r"^([0-9a-f]{40}) \d+ \d+", blame, re.M):
                    if m.group(1) in number:
                        rewrites[number[m.group(1)]] = rewrites.get(number[m.group(1)], 0) + 1
        code = size["code"][0] + size["code"][1]
        rw = ", ".join("%d: %d" % (k, v) for k, v in sorted(rewrites.items()))
        print("%5d  %-12s  %-12s  %-12s  %-23s  %s" % (
            n, "+%d/-%d" % tuple(size["code"]), "+%d/-%d" % tuple(size["test"]),
            "+%d/-%d" % tuple(size["doc"]), rw or "-", subj))
        if code > LIMIT:
            findings.append("patch %d changes %d lines of code (more than %d): %s" % (n, code, LIMIT, subj))
        big = {k: v for k, v in rewrites.items() if v >= MIN}
        if big:
            findings.append("patch %d rewrites %s: %s" % (
                n, ", ".join("%d lines of patch %d" % (v, k) for k, v in sorted(big.items())), subj))
    for f in findings:
        print("form: " + f)
    print("form: %d patches, %d findings" % (len(commits), len(findings)))
    if others == len(commits):
        broken.append("the series does not start with a fix")
    for b in broken:
        print("form: BROKEN RULE: " + b)
    print("form: %d fixes first, then %d patches" % (len(commits) - others, others))
    return 1 if broken else 0


if __name__ == "__main__":
    sys.exit(main())
