#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Derive the 6.12.117 series from the mainline (7.3.4) series.

One source of truth: the controller's patches are written once, on
mainline (harness/series/7.3/).  Their 6.12 versions are made from them by
this script, never edited by hand.  What is 6.12's own stays in
harness/series/6.12/: the fixes (each base has its own bugs) and the driver
patches whose code differs (ib_umem_get() is ib_umem_get_va() on 7.3).
A derived patch carries a "[ 6.12.117 backport: ... ]" note; a patch of
harness/series/6.12/ without one is 6.12's own.

For every mainline patch that is neither a fix (no Fixes: tag) nor one
that 6.12 has its own version of (same subject, ib_umem_get_va() read as
ib_umem_get()), in order, each file the patch changes gets its 6.12
version by the first rule that applies:
  1. 6.12 has what mainline had before the patch (after the 7.3-only API
     is rewritten, see to_612()), or the file is wholly the controller's
     (WHOLE): it becomes mainline's version after the patch, rewritten;
  2. the controller's part of a shared file (SECTIONS: the RDMA section of
     cgroup-v2.rst, the CGROUP_RDMA entries of init/Kconfig): mainline's
     part replaces 6.12's (the patch may change nothing outside it);
  3. a hand-made 6.12 diff in harness/backport/6.12/SLUG/PATH.diff, if
     there is one (SLUG: the patch's subject as format-patch names it);
  4. the patch's own diff of the file, applied with git's 3-way merge.
Anything else stops the script with what to do.  Mainline patches listed
in harness/backport/6.12/FOLD are not patches of their own on 6.12: they
start from 7.3's controller, which 6.12 lacks, so the next patch carries
their change too, with the message in harness/backport/6.12/SLUG/message.

    backport.py          derive, and write harness/series/6.12/
    backport.py --check  derive into build/6.12/backport only and say
                         whether harness/series/6.12/ equals the result
    backport.py record PATH...  after a stop on a conflict, resolved by
                         hand in build/6.12/backport: keep the resolution
"""
import os
import re
import shutil
import subprocess
import sys
import textwrap

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
HARNESS = os.path.join(REPO, "harness")
sys.path.insert(0, HARNESS)
import base  # noqa: E402
MAIN, BACK = base.ROWS[0][0], base.ROWS[1][0]
MAIN_TAG, BACK_TAG = base.tag(MAIN), base.tag(BACK)
BACK_VERSION = base.VERSION[BACK]
BACK_SERIES = os.path.join(HARNESS, "series", BACK)
RESOLVED = os.path.join(HARNESS, "backport", BACK)
MAIN_WORK = os.path.join(REPO, "build", BACK, "mainline-work")
MAIN_PRISTINE = os.path.join(REPO, "build", MAIN, "pristine", "linux-source-" + MAIN)
BACK_PRISTINE = os.path.join(REPO, "build", BACK, "pristine", "linux-source-" + BACK)
DST = os.path.join(REPO, "build", BACK, "backport")
NOTE = "[ %s backport:" % BACK_VERSION
GIT_ID = ["-c", "user.name=RDMA cgroup harness",
          "-c", "user.email=harness@example.invalid",
          "-c", "core.autocrlf=false", "-c", "commit.gpgsign=false",
          "-c", "am.threeWay=false", "-c", "core.abbrev=12"]
FIXED_DATE = "2026-01-01T00:00:00Z"

# Files that are the controller's own once a patch of the series has
# changed them: 6.12's version is mainline's, whatever each had before.
WHOLE = {
    "kernel/cgroup/rdma.c",
    "include/linux/cgroup_rdma.h",
    "drivers/infiniband/core/cgroup.c",
}


def die(msg):
    sys.stderr.write("backport: error: %s\n" % msg)
    sys.exit(1)


def say(msg):
    print("backport: " + msg, flush=True)


def git(repo, *args, data=None, check=True, text=True):
    res = subprocess.run(["git", "-C", repo] + GIT_ID + list(args), input=data,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         text=text, env=dict(os.environ, GIT_AUTHOR_DATE=FIXED_DATE,
                                             GIT_COMMITTER_DATE=FIXED_DATE))
    if check and res.returncode != 0:
        die("git %s: %s" % (" ".join(args[:3]), res.stderr.strip()))
    return res


def show(repo, rev, path):
    res = git(repo, "show", "%s:%s" % (rev, path), check=False)
    return res.stdout if res.returncode == 0 else None


# --- the 7.3-only API, as 6.12 spells it --------------------------------

def _kzalloc_obj(m):
    args = m.group(1).rsplit(",", 1)
    if len(args) == 1 or not re.fullmatch(r"\s*(GFP|__GFP)[A-Z_| ]*", args[1]):
        return "kzalloc(sizeof(%s), GFP_KERNEL)" % m.group(1).strip()
    return "kzalloc(sizeof(%s), %s)" % (args[0].strip(), args[1].strip())


def to_612(text):
    """Mainline's text as 6.12 has to say it; idempotent on 6.12's own."""
    if text is None:
        return None
    text = re.sub(r"\bkzalloc_obj\(((?:[^()]|\([^()]*\))*)\)", _kzalloc_obj, text)
    return _rename_call(text, "ib_umem_get_va(", "ib_umem_get(")


def _indent(col):
    """Kernel indentation to column col: tabs, then spaces."""
    return "\t" * (col // 8) + " " * (col % 8)


def _rename_call(text, old, new):
    """Rename a call, and realign the lines that continue its arguments
    under the open parenthesis, as checkpatch wants them."""
    lines = text.split("\n")
    for i, line in enumerate(lines):
        at = line.find(old)
        if at < 0 or not re.match(r"\b", line[at:]) or (at and re.match(r"\w", line[at - 1])):
            continue
        col = len(line[:at + len(old)].expandtabs(8))
        lines[i] = line.replace(old, new)
        depth = line[at:].count("(") - line[at:].count(")")
        j = i + 1
        while depth > 0 and j < len(lines):
            head = len(lines[j]) - len(lines[j].lstrip("\t "))
            if len(lines[j][:head].expandtabs(8)) == col:
                lines[j] = _indent(col - len(old) + len(new)) + lines[j][head:]
            depth += lines[j].count("(") - lines[j].count(")")
            j += 1
    return "\n".join(lines)


def what_changed(before, after):
    """The rewrites to_612() made, for the patch's note."""
    said = []
    if before and after and before != after:
        if "kzalloc_obj(" in before:
            said.append("kzalloc_obj() is kzalloc(sizeof(...)) on 6.12")
        if "ib_umem_get_va(" in before:
            said.append("ib_umem_get_va() is ib_umem_get() on 6.12")
    return said


# --- the controller's sections of shared files -------------------------

def rst_span(text):
    """(start, end) of cgroup-v2.rst's RDMA section: its title to the next
    title of the same level."""
    m = re.search(r"^RDMA\n-{4,}\n", text, re.M)
    if not m:
        return None
    n = re.search(r"^\S[^\n]*\n-{3,}\n", text[m.end():], re.M)
    return m.start(), (m.end() + n.start() if n else len(text))


TOC = re.compile(r"^( +)(\d+-\d+)\. RDMA\n(?:\1  \2-\d+\. [^\n]*\n)*", re.M)


def rst_toc_span(text):
    """(start, end) of the RDMA entries of cgroup-v2.rst's contents."""
    m = TOC.search(text)
    return (m.start(), m.end()) if m else None


def rst_toc_fit(part, into):
    """Mainline's contents entries, numbered as 6.12 numbers the section."""
    mine, theirs = TOC.search(into).group(2), TOC.search(part).group(2)
    return part.replace(theirs + ".", mine + ".").replace(theirs + "-", mine + "-")


def kconfig_span(text):
    """(start, end) of init/Kconfig's CGROUP_RDMA* entries."""
    m = re.search(r"^config CGROUP_RDMA\n", text, re.M)
    if not m:
        return None
    n = re.search(r"^config (?!CGROUP_RDMA)", text[m.end():], re.M)
    return m.start(), (m.end() + n.start() if n else len(text))


SECTIONS = {
    "Documentation/admin-guide/cgroup-v2.rst": [(rst_span, None), (rst_toc_span, rst_toc_fit)],
    "init/Kconfig": [(kconfig_span, None)],
}


def splice_section(spans, into, frm):
    """into with each of its parts replaced by frm's, last part first."""
    parts = []
    for span, fit in spans:
        a, b = span(into), span(frm)
        if not a or not b:
            return None
        part = frm[b[0]:b[1]]
        parts.append((a, fit(part, into) if fit else part))
    for (a0, a1), part in sorted(parts, reverse=True):
        into = into[:a0] + part + into[a1:]
    return into


def outside_section(spans, text):
    cuts = sorted((span(text) for span, _ in spans if span(text)), reverse=True)
    for a0, a1 in cuts:
        text = text[:a0] + text[a1:]
    return text


# --- the series --------------------------------------------------------

def patch_message(path):
    """(subject, is_derived) of a format-patch file."""
    subj, body, in_hdr, lines = None, [], True, open(path, encoding="utf-8").read().split("\n")
    for i, line in enumerate(lines):
        if in_hdr and line.startswith("Subject: "):
            subj = line[len("Subject: "):]
            j = i + 1
            while j < len(lines) and lines[j].startswith(" "):
                subj += lines[j]
                j += 1
        if in_hdr and line == "":
            in_hdr = False
            continue
        if not in_hdr:
            if line == "---":
                break
            body.append(line)
    subj = re.sub(r"^\[PATCH[^\]]*\] ", "", subj or "")
    return subj, any(line.startswith(NOTE) for line in body)


def norm_subject(s):
    return s.replace("ib_umem_get_va()", "ib_umem_get()")


def slug(repo, rev):
    return git(repo, "log", "-1", "--format=%f", rev).stdout.strip()


def add_note(msg, items):
    """Insert the backport note before the trailers of a commit message."""
    msg = msg.rstrip("\n")
    paras = msg.split("\n\n")
    trailer = re.compile(r"^[A-Za-z][A-Za-z0-9-]*: \S")
    note = textwrap.fill("%s %s. ]" % (NOTE, "; ".join(items) or "applies as it is"),
                         72, subsequent_indent="  ", break_long_words=False,
                         break_on_hyphens=False)
    if len(paras) > 1 and all(trailer.match(x) for x in paras[-1].split("\n")):
        paras.insert(len(paras) - 1, note)
    else:
        paras.append(note)
    return "\n\n".join(paras) + "\n"


def prepare(own):
    """DST: the pristine 6.12 files that either series touches, 6.12's own
    patches applied, mainline's patchwork fetched for its objects."""
    touched = set()
    for p in own:
        touched |= set(re.findall(r"^diff --git a/(\S+) b/", open(p).read(), re.M))
    touched |= set(git(MAIN_WORK, "diff", "--name-only", MAIN_TAG, "HEAD").stdout.split())
    touched.add(".gitattributes")  # diff=cpp: hunk headers as in a full tree
    shutil.rmtree(DST, ignore_errors=True)
    os.makedirs(DST)
    git(DST, "init", "-q")
    for f in sorted(touched):
        src = os.path.join(BACK_PRISTINE, f)
        if os.path.isfile(src):
            os.makedirs(os.path.dirname(os.path.join(DST, f)), exist_ok=True)
            shutil.copy(src, os.path.join(DST, f))
    git(DST, "add", "-A")
    git(DST, "commit", "-q", "--allow-empty", "-m",
        "Linux %s (Debian linux-source-%s), the files the series touches" % (BACK_VERSION, BACK))
    git(DST, "tag", BACK_TAG)
    for p in own:
        res = git(DST, "am", "-q", "--whitespace=error-all", p, check=False)
        if res.returncode:
            die("%s does not apply to %s: %s" % (os.path.basename(p), BACK_VERSION, res.stderr))
    git(DST, "fetch", "-q", MAIN_WORK, "HEAD:refs/mainline")


def derive_file(c, path, sl, notes):
    """Put path as patch c leaves it into DST's work tree (rules above)."""
    pre, post = show(MAIN_WORK, c + "~1", path), show(MAIN_WORK, c, path)
    dst = os.path.join(DST, path)
    cur = open(dst, encoding="utf-8").read() if os.path.exists(dst) else None
    fix = os.path.join(RESOLVED, sl, path + ".diff")
    span = SECTIONS.get(path)

    def put(text):
        if text is None:
            if os.path.exists(dst):
                os.remove(dst)
            return
        os.makedirs(os.path.dirname(dst), exist_ok=True)
        with open(dst, "w", encoding="utf-8") as f:
            f.write(text)

    if to_612(pre) == cur or path in WHOLE:
        put(post)
        if to_612(pre) != cur:
            notes.append("%s as on mainline" % path)
    elif span and pre and post and cur and all(f(cur) and f(post) for f, _ in span):
        if outside_section(span, pre) != outside_section(span, post):
            die("%s: %s changes %s outside the controller's part" % (c[:12], sl, path))
        put(splice_section(span, cur, post))
        notes.append("the controller's part of %s as on mainline" % path)
    elif os.path.exists(fix):
        res = git(DST, "apply", "--whitespace=error-all", fix, check=False)
        if res.returncode:
            die("%s no longer applies: %s\n  make the patch's 6.12 version again by hand "
                "in build/%s/backport and keep it with harness/backport.py record %s"
                % (os.path.relpath(fix, REPO), res.stderr, BACK, path))
        notes.append("%s adapted to 6.12" % path)
    else:
        diff = git(MAIN_WORK, "diff", c + "~1", c, "--", path).stdout
        res = git(DST, "apply", "-3", data=diff, check=False)
        if res.returncode:
            die("%s (%s) does not apply to 6.12's %s: %s\n  resolve it in %s, then run "
                "harness/backport.py record %s (writes %s) and run again"
                % (c[:12], sl, path, res.stderr.strip(), DST, path, os.path.relpath(fix, REPO)))
        git(DST, "reset", "-q")
        if to_612(pre) != cur:
            notes.append("%s merged with 6.12's" % path)
    # 6.12's spelling of the 7.3-only API, whichever rule made the file
    if os.path.exists(dst):
        text = open(dst, encoding="utf-8").read()
        notes.extend(what_changed(text, to_612(text)))
        put(to_612(text))


def fold_subjects():
    """Mainline patches that 6.12 carries inside the patch after them
    (RESOLVED/FOLD, one subject a line): steps that start from 7.3's
    controller, which 6.12 does not have."""
    path = os.path.join(RESOLVED, "FOLD")
    if not os.path.exists(path):
        return []
    return [l.strip() for l in open(path, encoding="utf-8")
            if l.strip() and not l.startswith("#")]


def derive(own_subjects):
    commits = git(MAIN_WORK, "rev-list", "--reverse", MAIN_TAG + "..HEAD").stdout.split()
    fold = fold_subjects()
    folded, fold_notes = [], []
    n = 0
    for c in commits:
        msg = git(MAIN_WORK, "log", "-1", "--format=%B", c).stdout
        subj = msg.split("\n", 1)[0]
        if re.search(r"^Fixes: ", msg, re.M):
            continue  # each base has its own fixes
        if norm_subject(subj) in own_subjects:
            continue
        sl = slug(MAIN_WORK, c)
        # for harness/backport.py record, should a file need a hand
        with open(os.path.join(DST, ".git", "backport-slug"), "w") as f:
            f.write(sl + "\n")
        notes = []
        paths = git(MAIN_WORK, "diff", "--no-renames", "--name-only", c + "~1", c).stdout.split()
        for path in paths:
            derive_file(c, path, sl, notes)
        if subj in fold:
            folded.append(subj)
            fold_notes.extend(notes)
            continue
        if folded:
            # The patch that carries them has a message of its own on 6.12.
            own = os.path.join(RESOLVED, sl, "message")
            if not os.path.exists(own):
                die("%s carries folded patches on 6.12: write its message in %s"
                    % (sl, os.path.relpath(own, REPO)))
            msg = open(own, encoding="utf-8").read()
            notes = ["also what mainline does in the %d patches before this one "
                     "(%s), which start from 7.3's controller" %
                     (len(folded), "; ".join('"%s"' % re.sub(r"^cgroup/rdma: ", "", f)
                                            for f in folded))] + fold_notes + notes
            folded, fold_notes = [], []
        git(DST, "add", "-A")
        if git(DST, "diff", "--cached", "--quiet", check=False).returncode == 0:
            die("%s (%s) changes nothing on 6.12" % (c[:12], sl))
        seen = list(dict.fromkeys(notes))  # in order, each once
        author = git(MAIN_WORK, "log", "-1", "--format=%an <%ae>%n%aI", c).stdout.split("\n")
        res = subprocess.run(["git", "-C", DST] + GIT_ID + ["commit", "-q", "-F", "-",
                              "--author", author[0]], input=add_note(msg, seen), text=True,
                             env=dict(os.environ, GIT_AUTHOR_DATE=author[1],
                                      GIT_COMMITTER_DATE=FIXED_DATE))
        if res.returncode:
            die("commit of %s failed" % sl)
        n += 1
    return n


def record(paths):
    """Keep the hand-made 6.12 version of paths, as resolved in DST."""
    sl = open(os.path.join(DST, ".git", "backport-slug")).read().strip()
    for path in paths:
        diff = git(DST, "diff", "HEAD", "--", path).stdout
        if "<<<<<<<" in diff or not diff:
            die("%s: %s" % (path, "still has conflict markers" if diff else "no change"))
        fix = os.path.join(RESOLVED, sl, path + ".diff")
        os.makedirs(os.path.dirname(fix), exist_ok=True)
        with open(fix, "w") as f:
            f.write(diff)
        say("wrote %s" % os.path.relpath(fix, REPO))


def main():
    if sys.argv[1:2] == ["record"]:
        record(sys.argv[2:])
        return
    check = "--check" in sys.argv[1:]
    for base, d in ((MAIN, MAIN_PRISTINE), (BACK, BACK_PRISTINE)):
        if not os.path.isfile(os.path.join(d, "Makefile")):
            say("no pristine %s tree yet: installing and unpacking it" % base)
            for script in ("source.sh", "tree.sh"):
                subprocess.run(["bash", os.path.join(HARNESS, script)], check=True,
                               env=dict(os.environ, BASE=base), stdout=subprocess.DEVNULL)
    subprocess.run(["bash", os.path.join(HARNESS, "series.sh"), "work"], check=True,
                   env=dict(os.environ, BASE=MAIN, SERIES_WORK=MAIN_WORK),
                   stdout=subprocess.DEVNULL)
    patches = sorted(os.path.join(BACK_SERIES, p) for p in os.listdir(BACK_SERIES)
                     if re.match(r"\d{4}-.*\.patch$", p) and not p.startswith("0000-"))
    own, own_subjects = [], set()
    for p in patches:
        subj, derived = patch_message(p)
        if not derived:
            own.append(p)
            own_subjects.add(norm_subject(subj))
    prepare(own)
    n = derive(own_subjects)
    out = os.path.join(REPO, "build", BACK, "backport.out")
    shutil.rmtree(out, ignore_errors=True)
    git(DST, "format-patch", "-q", "--zero-commit", "--no-signature", "--no-numbered",
        "-o", out, BACK_TAG + "..HEAD")
    made = sorted(os.listdir(out))
    say("%d patches of 6.12's own, %d derived from the mainline series" % (len(own), n))
    if check:
        old = sorted(os.path.basename(p) for p in patches)
        same = old == made and all(
            open(os.path.join(out, f), "rb").read() == open(os.path.join(BACK_SERIES, f), "rb").read()
            for f in made)
        if not same:
            say("harness/series/6.12/ is not what the mainline series derives; "
                "run harness/backport.py and commit")
            sys.exit(1)
        say("harness/series/6.12/ equals what the mainline series derives")
        return
    for p in patches:
        os.remove(p)
    for f in made:
        shutil.copy(os.path.join(out, f), os.path.join(BACK_SERIES, f))
    say("wrote %d patches to harness/series/%s/" % (len(made), BACK))


if __name__ == "__main__":
    main()
