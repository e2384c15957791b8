#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Finish one submission that git format-patch wrote (harness/patch.sh).

The cover letter gets its subject and text from COVER (first line the
subject, then an empty line, then the text); every file of the submission
gets To: and Cc:, and with a submitter the submitter's From:.  Then the
text is checked against the patches:
  - it lists every patch as "NN/MM: <subject>" (one line each, in order,
    the subject exactly as the patch has it), MM the number of patches;
  - a size written right after a listed subject, "(+A/-B)", is the
    patch's diffstat (A insertions, B deletions);
  - "N patches" anywhere in the text says MM.
Exit status 1 with one line per problem.
"""
import argparse
import glob
import os
import re
import sys

LISTED = re.compile(r"^\s*(\d+)/(\d+): (.*?)(?: \(\+(\d+)/-(\d+)\))?\s*$")


def subject_of(text):
    m = re.search(r"^Subject: (.*(?:\n .*)*)", text, re.M)
    subj = re.sub(r"\n ", " ", m.group(1)) if m else ""
    return re.sub(r"^\[[^\]]*\] ", "", subj)


def diffstat(text):
    m = re.search(r"^ \d+ files? changed(?:, (\d+) insertions?\(\+\))?(?:, (\d+) deletions?\(-\))?",
                  text, re.M)
    return (int(m.group(1) or 0), int(m.group(2) or 0)) if m else (0, 0)


def headers(text, frm, to, cc):
    head, sep, body = text.partition("\n\n")
    lines = []
    for x in head.split("\n"):  # one entry per header, folded lines joined
        if x.startswith((" ", "\t")) and lines and not lines[-1].startswith("From "):
            lines[-1] += "\n" + x
        else:
            lines.append(x)
    if frm:
        lines = ["From: " + frm if x.startswith("From: ") else x for x in lines]
    extra = []
    if to:
        extra.append("To: " + ",\n    ".join(to))
    if cc:
        extra.append("Cc: " + ",\n    ".join(cc))
    at = next(i for i, x in enumerate(lines) if x.startswith("Date: ")) + 1
    lines[at:at] = extra
    return "\n".join(lines) + sep + body


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--dir", required=True)
    ap.add_argument("--cover", required=True)
    ap.add_argument("--from", dest="frm", default="")
    ap.add_argument("--to", default="")
    ap.add_argument("--cc", default="")
    ap.add_argument("--base", default="", help="what the patches apply to")
    a = ap.parse_args()
    to = [x for x in a.to.split("\n") if x]
    cc = [x for x in a.cc.split("\n") if x]
    cover_path = os.path.join(a.dir, "0000-cover-letter.patch")
    patches = sorted(p for p in glob.glob(os.path.join(a.dir, "[0-9]*.patch")) if p != cover_path)
    texts = [open(p, encoding="utf-8").read() for p in patches]
    total = len(patches)
    lines = open(a.cover, encoding="utf-8").read().rstrip("\n").split("\n")
    subject, body = lines[0], "\n".join(lines[2:])
    name = os.path.basename(a.cover)
    bad = []

    seen = {}
    for line in body.split("\n"):
        m = LISTED.match(line)
        if not m:
            continue
        k, mm = int(m.group(1)), int(m.group(2))
        if mm != total:
            bad.append("%s: \"%s\" counts %d patches; the submission has %d" % (name, line.strip(), mm, total))
        if not 1 <= k <= total:
            bad.append("%s: lists patch %d; the submission has %d" % (name, k, total))
            continue
        if k in seen:
            bad.append("%s: lists patch %d twice" % (name, k))
        seen[k] = True
        want = subject_of(texts[k - 1])
        if m.group(3) != want:
            bad.append("%s: patch %d is \"%s\", not \"%s\"" % (name, k, want, m.group(3)))
        if m.group(4) is not None:
            ins, dels = diffstat(texts[k - 1])
            if (int(m.group(4)), int(m.group(5))) != (ins, dels):
                bad.append("%s: patch %d is +%d/-%d, not +%s/-%s"
                           % (name, k, ins, dels, m.group(4), m.group(5)))
    missing = [k for k in range(1, total + 1) if k not in seen]
    if missing:
        bad.append("%s: does not list patch%s %s" % (
            name, "es" if len(missing) > 1 else "", ", ".join(str(k) for k in missing)))
    order = [int(LISTED.match(x).group(1)) for x in body.split("\n") if LISTED.match(x)]
    if order != sorted(order):
        bad.append("%s: lists the patches out of order" % name)
    for m in re.finditer(r"\b(\d+) patches\b", body):
        if int(m.group(1)) != total:
            bad.append("%s: says \"%s\"; the submission has %d" % (name, m.group(0), total))

    text = open(cover_path, encoding="utf-8").read()
    text = text.replace("*** SUBJECT HERE ***", subject, 1)
    if a.base:
        body += "\n\nBased on: %s" % a.base
    text = text.replace("*** BLURB HERE ***", body, 1)
    with open(cover_path, "w", encoding="utf-8") as f:
        f.write(headers(text, a.frm, to, cc))
    for p, t in zip(patches, texts):
        with open(p, "w", encoding="utf-8") as f:
            f.write(headers(t, a.frm, to, cc))
    for b in bad:
        print("cover: " + b)
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
