#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Rebuild a patch series from tagged files: one state per patch.

A tagged file holds every line that some state of the series has, each
prefixed with a tag that says in which states it is present:

    TAG|line

    (empty)   in every state (the base's line that stays)
    F         from the patch of feature F on
    -F        until the patch of feature F, which removes it
    F-G       from F on, until G replaces it (a rewrite: keep them rare)

A plan (one feature a line, in series order: "FEATURE COMMIT-OR-MSGFILE")
orders the features. State k of a file has the lines whose tag holds once
features 1..k are in. The last state has to equal the tip.

  states.py mark GITDIR BASE TIP OUTDIR      tag every file BASE..TIP touches
        with the commit that added each line (its position in BASE..TIP,
        from 1) and, for lines TIP no longer has, -(the commit that
        removed it)
  states.py chain GITDIR BASE TIP OUTDIR PLAN   as mark, but lossless:
        walks the commits one by one, so that lines a commit adds and a
        later one removes are kept too (tagged F-G); features are named
        p1, p2, ... (commit order) and PLAN gets "pN COMMIT" lines, so
        that build takes each message from its commit. Every state is
        checked against its commit. This is how the tagged tree is
        rebuilt from the series alone (series.sh git, then chain)
  states.py retag OUTDIR MAP                 rewrite tags by MAP ("OLD NEW")
  states.py state OUTDIR PLAN FEATURE DEST   write state FEATURE into DEST
  states.py build OUTDIR PLAN GITDIR BASE BRANCH
        commit every state in plan order on BRANCH from BASE
  states.py check OUTDIR PLAN GITDIR TIP     the last state equals TIP
  states.py cut OUTDIR PLAN FEATURE PATH FILE
        make state FEATURE of PATH equal FILE, FEATURE being a new feature
        of the plan, right before the one (NEXT) that now makes the
        change: lines FILE lacks are removed by FEATURE; lines FILE adds
        that NEXT adds too are added by FEATURE instead; the others are
        FEATURE's intermediate lines, which NEXT replaces (FEATURE-NEXT)
  states.py uncut OUTDIR PLAN FEATURE   the reverse: NEXT makes FEATURE's
        change too (FEATURE's own lines go; take FEATURE out of the plan)
"""
import os
import re
import subprocess
import sys


def git(gitdir, *args, inp=None):
    return subprocess.run(['git', '-C', gitdir] + list(args), input=inp,
                          capture_output=True, check=True).stdout


def commits(gitdir, base, tip):
    out = git(gitdir, 'rev-list', '--reverse', f'{base}..{tip}').decode()
    return out.split()


def blame(gitdir, rev, path, reverse_from=None, since=None):
    """(commit, line number there from 0) of each line of path at rev: the
    commit that added it, or the boundary @since for older lines; with
    @reverse_from, the last commit that still had each line of path as
    it was at reverse_from."""
    args = ['blame', '--porcelain']
    if reverse_from:
        args += ['--reverse', f'{reverse_from}..{rev}']
        rev_spec = []
    else:
        # From @since on: older lines are the boundary's, numbered as there.
        rev_spec = [f'{since}..{rev}']
    out = git(gitdir, *args, *rev_spec, '--', path).decode('utf-8', 'replace')
    result = []
    for line in out.split('\n'):
        m = re.match(r'^([0-9a-f]{40}) (\d+) (\d+)', line)
        if m:
            result.append((m.group(1), int(m.group(2)) - 1))
    return result


def show(gitdir, rev, path):
    try:
        text = git(gitdir, 'show', f'{rev}:{path}').decode()
    except subprocess.CalledProcessError:
        return None
    if not text.endswith('\n'):
        sys.exit(f'states: {path} at {rev} does not end with a newline')
    return text.split('\n')[:-1]


def cmd_mark(gitdir, base, tip, outdir):
    order = commits(gitdir, base, tip)
    num = {c: str(i + 1) for i, c in enumerate(order)}
    nxt = {c: order[i + 1] for i, c in enumerate(order[:-1])}
    nxt[git(gitdir, 'rev-parse', base).decode().strip()] = order[0]
    paths = git(gitdir, 'diff', '--name-only', base, tip).decode().split()
    for path in paths:
        old = show(gitdir, base, path) or []
        new = show(gitdir, tip, path) or []
        added = blame(gitdir, tip, path, since=base) if new else []
        removed = blame(gitdir, tip, path, reverse_from=base) if old else []
        # Tip lines that blame gives to the base are the base's lines,
        # in order: they align the two.
        pairs = [(orig, j) for j, (c, orig) in enumerate(added)
                 if c not in num]
        out = []
        i = j = 0
        for pi, pj in pairs + [(len(old), len(new))]:
            for k in range(i, pi):
                gone = nxt.get(removed[k][0])
                if not gone:
                    # Reverse blame keeps it: the tip's copy is blamed on
                    # a later commit. Say the gap's first change removed it.
                    made = sorted(int(num[added[x][0]]) for x in range(j, pj))
                    gone = order[made[0] - 1 if made else 0]
                    print(f'states: {path}:{k + 1}: removal guessed: '
                          f'{num[gone]}', file=sys.stderr)
                out.append(('-' + num[gone], old[k]))
            for k in range(j, pj):
                out.append((num[added[k][0]], new[k]))
            if pi < len(old):
                out.append(('', old[pi]))
            i, j = pi + 1, pj + 1
        dest = os.path.join(outdir, path)
        os.makedirs(os.path.dirname(dest), exist_ok=True)
        with open(dest, 'w') as f:
            for t, l in out:
                f.write(f'{t}|{l}\n')
        # When the file exists: always, or from the commit that adds it.
        tag = ''
        if not old:
            made = git(gitdir, 'log', '--diff-filter=A', '--format=%H',
                       f'{base}..{tip}', '--', path).decode().split()
            tag = num[made[-1]]
        with open(dest + '.exists', 'w') as f:
            f.write(tag + '\n')
    with open(os.path.join(outdir, 'FILES'), 'w') as f:
        for path in paths:
            f.write(path + '\n')


def _tag(add, rm):
    if add is None:
        return f'-{rm}' if rm else ''
    return f'{add}-{rm}' if rm else add


def cmd_chain(gitdir, base, tip, outdir, plan):
    import difflib
    order = commits(gitdir, base, tip)
    names = [f'p{i + 1}' for i in range(len(order))]
    paths = sorted(set(git(gitdir, 'log', '--format=', '--name-only',
                           f'{base}..{tip}').decode().split()))
    for path in paths:
        old = show(gitdir, base, path)
        # Entries: [added by, removed by, text]; None: the base's / never.
        ent = [[None, None, l] for l in (old or [])]
        made = None if old is not None else ''
        for name, c in zip(names, order):
            new = show(gitdir, c, path)
            if new is None:
                if made not in (None, ''):
                    sys.exit(f'states: chain: {path} removed by {name}: '
                             'not supported')
                new = []
            elif made == '':
                made = name
            live = [e for e in ent if e[1] is None]
            sm = difflib.SequenceMatcher(None, [e[2] for e in live], new,
                                         autojunk=False)
            before = {}
            for op, i1, i2, j1, j2 in sm.get_opcodes():
                if op in ('delete', 'replace'):
                    for e in live[i1:i2]:
                        e[1] = name
                if op in ('insert', 'replace'):
                    before.setdefault(i2, []).extend(
                        [name, None, l] for l in new[j1:j2])
            out, a = [], 0
            was = {id(e) for e in live}
            for e in ent:
                if id(e) in was:
                    out.extend(before.pop(a, []))
                    a += 1
                out.append(e)
            out.extend(before.pop(a, []))
            ent = out
        dest = os.path.join(outdir, path)
        os.makedirs(os.path.dirname(dest), exist_ok=True)
        with open(dest, 'w') as f:
            for add, rm, l in ent:
                f.write(f'{_tag(add, rm)}|{l}\n')
        with open(dest + '.exists', 'w') as f:
            f.write((made or '') + '\n')
    with open(os.path.join(outdir, 'FILES'), 'w') as f:
        for path in paths:
            f.write(path + '\n')
    with open(plan, 'w') as f:
        for name, c in zip(names, order):
            f.write(f'{name:<8} {c}\n')
    rank = {name: i for i, name in enumerate(names)}
    bad = 0
    for k, c in enumerate(order):
        for path in paths:
            want = show(gitdir, c, path)
            want = None if want is None else ''.join(l + '\n' for l in want)
            if state_of(outdir, path, rank, k) != want:
                print(f'states: chain: {path} at {names[k]} differs from {c}')
                bad += 1
    print(f'states: chain: {len(paths)} files, {len(order)} states'
          f'{", all equal to their commits" if not bad else ""}')
    return 1 if bad else 0


def read_marked(outdir, path):
    lines = []
    with open(os.path.join(outdir, path)) as f:
        for raw in f.read().split('\n')[:-1]:
            tag, _, line = raw.partition('|')
            lines.append((tag.strip(), line))
    return lines


def read_plan(plan):
    feats = []
    with open(plan) as f:
        for line in f:
            line = line.split('#', 1)[0].strip()
            if line:
                name, _, rest = line.partition(' ')
                feats.append((name, rest.strip()))
    return feats


def present(tag, rank, k):
    """Whether a line tagged @tag is in state k (features ranked by @rank)."""
    if not tag:
        return True
    m = re.fullmatch(r'(-?)([^-\s]+)(?:-([^-\s]+))?', tag)
    if not m:
        raise ValueError(f'bad tag {tag!r}')
    neg, a, b = m.groups()
    for f in (a, b):
        if f and f not in rank:
            raise ValueError(f'tag {tag!r}: no feature {f!r} in the plan')
    if neg:
        return k < rank[a]
    if b:
        return rank[a] <= k < rank[b]
    return rank[a] <= k


def state_of(outdir, path, rank, k):
    """The text of path in state k, or None where the file does not exist
    (PATH.exists holds the tag of the file itself)."""
    lines = read_marked(outdir, path)
    kept = [l for t, l in lines if present(t, rank, k)]
    exists = open(os.path.join(outdir, path + '.exists')).read().strip()
    if not present(exists, rank, k):
        return None
    return '\n'.join(kept) + '\n' if kept else ''


def files(outdir):
    return open(os.path.join(outdir, 'FILES')).read().split()


def write_state(outdir, feats, k, dest):
    rank = {name: i for i, (name, _) in enumerate(feats)}
    for path in files(outdir):
        text = state_of(outdir, path, rank, k)
        target = os.path.join(dest, path)
        if text is None:
            if os.path.exists(target):
                os.unlink(target)
            continue
        os.makedirs(os.path.dirname(target), exist_ok=True)
        with open(target, 'w') as f:
            f.write(text)


def cmd_retag(outdir, mapfile):
    """MAP lines: "OLD NEW" or "GLOB OLD NEW"; the first that matches a
    path and a tag wins."""
    import fnmatch
    rules = []
    for line in open(mapfile):
        line = line.split('#', 1)[0].split()
        if len(line) == 2:
            rules.append(('*', line[0], line[1]))
        elif len(line) == 3:
            rules.append(tuple(line))

    def lookup(t):
        for glob, old, new in rules:
            if old == t and fnmatch.fnmatch(path, glob):
                return new
        return t
    def one(tag):
        m = re.fullmatch(r'(-?)([^-\s]+)(?:-([^-\s]+))?', tag)
        if not m:
            return tag
        neg, a, b = m.groups()
        a = lookup(a)
        b = lookup(b) if b else None
        return neg + a + ('-' + b if b else '')
    for path in files(outdir):
        lines = read_marked(outdir, path)
        with open(os.path.join(outdir, path), 'w') as f:
            for t, l in lines:
                f.write(f'{one(t) if t else ""}|{l}\n')
        ex = os.path.join(outdir, path + '.exists')
        tag = open(ex).read().strip()
        with open(ex, 'w') as f:
            f.write((one(tag) if tag else '') + '\n')


def cmd_build(outdir, plan, gitdir, base, branch):
    feats = read_plan(plan)
    ident = ['-c', 'user.name=RDMA cgroup harness',
             '-c', 'user.email=harness@example.invalid']
    git(gitdir, 'checkout', '-q', '-B', branch, base)
    for k, (name, msg) in enumerate(feats):
        write_state(outdir, feats, k, gitdir)
        git(gitdir, 'add', '-A')
        # The kernel ignores dot files (.kunitconfig) unless forced.
        git(gitdir, 'add', '-f', '--', *[p for p in files(outdir)
                                       if os.path.exists(os.path.join(gitdir, p))])
        if os.path.isfile(msg):
            message = open(msg, 'rb').read()
        else:
            message = git(gitdir, 'log', '-1', '--format=%B', msg)
        if not git(gitdir, 'diff', '--cached', '--name-only').strip():
            print(f'states: {name}: changes nothing', file=sys.stderr)
            continue
        git(gitdir, *ident, 'commit', '-q', '-F', '-', inp=message)
        print(f'states: {name}: committed')


def cmd_check(outdir, plan, gitdir, tip):
    feats = read_plan(plan)
    rank = {name: i for i, (name, _) in enumerate(feats)}
    bad = 0
    for path in files(outdir):
        want = show(gitdir, tip, path)
        got = state_of(outdir, path, rank, len(feats) - 1)
        want = None if want is None else ''.join(l + '\n' for l in want)
        if got is not None and want is not None and got == want:
            continue
        if got is None and want is None:
            continue
        print(f'states: {path}: last state differs from {tip}')
        bad += 1
    return 1 if bad else 0


def _cut_tag(tag, feature, nxt):
    """A line present before @feature that @feature removes: its new tag,
    and the tag of the copy that comes back with @nxt (or None)."""
    m = re.fullmatch(r'(-?)([^-\s]+)(?:-([^-\s]+))?', tag)
    neg, a, b = m.groups()
    if neg:
        return '-' + feature, (None if a == nxt else f'{nxt}-{a}')
    if not b:
        return f'{a}-{feature}', nxt
    return f'{a}-{feature}', (None if b == nxt else f'{nxt}-{b}')


def _cut_remove(ent, i, tag, feature, nxt):
    ent[i][0], copy = _cut_tag(tag, feature, nxt)
    if copy:
        ent.append([copy, ent[i][1], ent[i][2] + 1e-6])


def _future(tag, nxt):
    """Whether a line tagged @tag is added by @nxt (and stays, or goes)."""
    m = re.fullmatch(r'([^-\s]+)(?:-([^-\s]+))?', tag) if tag else None
    return bool(m) and m.group(1) == nxt


def _cut_order(ent, at, want, feature, nxt, names, rank, k):
    """Order the entries of a cut; unmatched lines of @want become new
    entries. Returns (order, entries left in a cycle)."""
    import heapq
    for j in range(len(want)):
        if at[j] is None:
            nxt_key = next((ent[at[x]][2] for x in range(j + 1, len(want))
                            if at[x] is not None), float(len(ent)))
            ent.append([f'{feature}-{nxt}', want[j], nxt_key - 0.25 + j * 1e-9])
            at[j] = len(ent) - 1
    n = len(ent)
    succ = [set() for _ in range(n)]
    indeg = [0] * n
    def chain(seq):
        for a, b in zip(seq, seq[1:]):
            if b not in succ[a]:
                succ[a].add(b)
                indeg[b] += 1
    for s in range(len(names)):
        if s == k:
            chain(at)
            continue
        seq = [e for e in range(n) if present(ent[e][0], rank, s)]
        seq.sort(key=lambda e: ent[e][2])
        chain(seq)
    heap = [(ent[e][2], e) for e in range(n) if indeg[e] == 0]
    heapq.heapify(heap)
    order = []
    while heap:
        _, e = heapq.heappop(heap)
        order.append(e)
        for f in succ[e]:
            indeg[f] -= 1
            if indeg[f] == 0:
                heapq.heappush(heap, (ent[f][2], f))
    left = [e for e in range(n) if indeg[e]]
    return order, _cycles(succ, left)


def _cycles(succ, nodes):
    """The nodes of @nodes that lie on a cycle (Tarjan, iteratively)."""
    nodes = set(nodes)
    index, low, onstack, stack, out = {}, {}, set(), [], []
    counter = 0
    for root in nodes:
        if root in index:
            continue
        work = [(root, iter(succ[root]))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        onstack.add(root)
        while work:
            v, it = work[-1]
            for w in it:
                if w not in nodes:
                    continue
                if w not in index:
                    index[w] = low[w] = counter
                    counter += 1
                    stack.append(w)
                    onstack.add(w)
                    work.append((w, iter(succ[w])))
                    break
                if w in onstack:
                    low[v] = min(low[v], index[w])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[v])
                if low[v] == index[v]:
                    comp = []
                    while True:
                        w = stack.pop()
                        onstack.discard(w)
                        comp.append(w)
                        if w == v:
                            break
                    if len(comp) > 1:
                        out.append(comp)
    return out


def cmd_cut(outdir, plan, feature, path, file):
    import difflib
    feats = read_plan(plan)
    names = [n for n, _ in feats]
    k = names.index(feature)
    nxt = names[k + 1]
    rank = {name: i for i, name in enumerate(names)}
    lines = read_marked(outdir, path)
    if any(re.fullmatch(rf'-?{feature}(-.*)?|.*-{feature}', t) for t, _ in lines):
        sys.exit(f'states: cut: {path} already has lines of {feature}')
    want = open(file).read().split('\n')[:-1]
    before = [state_of(outdir, path, rank, s) for s in range(len(names))]
    # Entries: [tag, text, key]; key orders them where nothing else does.
    # A base line is split in two for the cut, its copy before @feature
    # and its copy from @feature on, so that the cut may move it; the two
    # are joined again below where nothing lies between them.
    ent = [[t, l, float(i)] for i, (t, l) in enumerate(lines)]
    pair = {}
    for i, (t, l) in enumerate(lines):
        if not t:
            ent[i][0] = '-' + feature
            ent.append([feature, l, i + 1e-6])
            pair[i] = len(ent) - 1
    at = [None] * len(want)		# want line -> entry
    prev = [i for i, (t, _) in enumerate(lines) if present(t, rank, k)]
    sm = difflib.SequenceMatcher(None, [lines[i][1] for i in prev], want,
                                 autojunk=False)
    kept = set()
    for a, b, size in sm.get_matching_blocks():
        for x in range(size):
            i = prev[a + x]
            at[b + x] = pair.get(i, i)
            kept.add(i)
    for i in prev:
        if i in kept:
            continue
        if i in pair:		# a base line: its copy comes back with nxt
            ent[pair[i]][0] = nxt
        else:
            _cut_remove(ent, i, lines[i][0], feature, nxt)
    # The new lines of the cut: those the next feature adds, in its order,
    # as far as they go; the others are the cut's own, which it replaces.
    rest = [j for j in range(len(want)) if at[j] is None]
    fut = [i for i, (t, _) in enumerate(lines)
           if _future(t, nxt) and not present(t, rank, k)]
    sm = difflib.SequenceMatcher(None, [lines[i][1] for i in fut],
                                 [want[j] for j in rest], autojunk=False)
    for a, b, size in sm.get_matching_blocks():
        for x in range(size):
            i = fut[a + x]
            at[rest[b + x]] = i
            ent[i][0] = feature + lines[i][0][len(nxt):]
    # Lines matched against the order of another state (a blank line or a
    # brace that matched the wrong copy) become the cut's own lines.
    while True:
        order, left = _cut_order(ent, at, want, feature, nxt, names, rank, k)
        if not left:
            break
        # One matched line of each cycle, a trivial one if there is one.
        where = {e: j for j, e in enumerate(at)}
        undone = []
        for comp in left:
            cands = [where[e] for e in comp if e in where and
                     not ent[e][0].startswith(f'{feature}-{nxt}')]
            if cands:
                cands.sort(key=lambda j: (len(want[j].strip()) > 3, -j))
                undone.append(cands[0])
        if not undone:
            for e in [e for c in left for e in c][:12]:
                print(f'  {ent[e][2]:9.2f} {ent[e][0]:12} {ent[e][1]!r}',
                      file=sys.stderr)
            sys.exit(f'states: cut: {path}: {file} orders lines against '
                     'another state')
        for j in undone:
            e = at[j]
            # back to what it was: a future line of nxt, or a base copy
            # that nxt brings back
            if e in pair.values():
                ent[e][0] = nxt
            elif e in kept:
                _cut_remove(ent, e, lines[e][0], feature, nxt)
            else:
                ent[e][0] = nxt + ent[e][0][len(feature):]
            at[j] = None
    fg = sum(1 for t, _, _ in ent if t == f'{feature}-{nxt}')
    n = len(ent)
    # Join the two copies of a base line where no state tells them apart.
    pos = {e: x for x, e in enumerate(order)}
    drop = set()
    for i, c in pair.items():
        if ent[c][0] != feature:
            continue
        lo, hi = sorted((pos[i], pos[c]))
        between = order[lo + 1:hi]
        early = any(present(ent[e][0], rank, s) for e in between for s in range(k))
        late = any(present(ent[e][0], rank, s) for e in between
                   for s in range(k, len(names)))
        if not early:
            ent[c][0] = ''
            drop.add(i)
        elif not late:
            ent[i][0] = ''
            drop.add(c)
    order = [e for e in order if e not in drop]
    with open(os.path.join(outdir, path), 'w') as f:
        for e in order:
            f.write(f'{ent[e][0]}|{ent[e][1]}\n')
    for s in range(len(names)):
        got = state_of(outdir, path, rank, s)
        exp = '\n'.join(want) + '\n' if s == k else before[s]
        if got != exp:
            sys.exit(f'states: cut: {path}: state {names[s]} came out wrong')
    print(f'states: cut {path}: {fg} intermediate lines ({feature}-{nxt})')


def cmd_uncut(outdir, plan, feature):
    names = [n for n, _ in read_plan(plan)]
    nxt = names[names.index(feature) + 1]
    for path in files(outdir):
        out = []
        for t, l in read_marked(outdir, path):
            m = re.fullmatch(r'(-?)([^-\s]+)(?:-([^-\s]+))?', t) if t else None
            if m:
                neg, a, b = m.groups()
                if not neg and a == feature and b == nxt:
                    continue
                a = nxt if a == feature else a
                b = nxt if b == feature else b
                if b == a and not neg:
                    continue
                t = neg + a + ('-' + b if b else '')
            out.append((t, l))
        with open(os.path.join(outdir, path), 'w') as f:
            for t, l in out:
                f.write(f'{t}|{l}\n')
        ex = os.path.join(outdir, path + '.exists')
        tag = open(ex).read().strip()
        if tag == feature:
            with open(ex, 'w') as f:
                f.write(nxt + '\n')


def cmd_state(outdir, plan, feature, dest):
    feats = read_plan(plan)
    k = [n for n, _ in feats].index(feature)
    write_state(outdir, feats, k, dest)


def main():
    cmd, args = sys.argv[1], sys.argv[2:]
    if cmd == 'mark':
        cmd_mark(*args)
    elif cmd == 'chain':
        sys.exit(cmd_chain(*args))
    elif cmd == 'retag':
        cmd_retag(*args)
    elif cmd == 'state':
        cmd_state(*args)
    elif cmd == 'build':
        cmd_build(*args)
    elif cmd == 'uncut':
        cmd_uncut(*args)
    elif cmd == 'cut':
        cmd_cut(*args)
    elif cmd == 'check':
        sys.exit(cmd_check(*args))
    else:
        sys.exit(__doc__)


if __name__ == '__main__':
    main()
