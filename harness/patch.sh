#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# `make patch`: the series of a base (harness/series/BASE/, applied with
# git am on pristine BASE) as the submissions it is mailed in, by git
# format-patch with cover letters, in build/BASE/patches/NAME/.  The
# submissions: harness/series/BASE/submissions, a line each, "NAME FIRST
# LAST COVER PREFIX..." (patches FIRST-LAST, COVER's text, the subject
# prefix); To:/Cc: from get_maintainer.pl --nogit (maintainers and
# supporters To:).  Checked: the submissions cover the series in order,
# the in-tree files equal its tip, checkpatch --strict is clean on every
# patch, and the form (series-form.py).  Signed-off-by and author:
# SUBMITTER="Name <mail>" or git config, a person's address; DRAFT=1 (make
# check's lint): none.  What b4 would do needs a branch and a config per
# submission; this is git format-patch with the submissions' table.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

[ -f "$PRISTINE/Makefile" ] || die "no pristine tree: run harness/tree.sh first"
WORK=$BUILD/patchwork
OUT=$BUILD/patches
SUBS=$SERIES/submissions
DRAFT=${DRAFT:-0}

if [ "$DRAFT" != 1 ]; then
	if [ -z "${SUBMITTER:-}" ]; then
		name=$(git -C "$REPO" config user.name || true)
		mail=$(git -C "$REPO" config user.email || true)
		[ -n "$name" ] && [ -n "$mail" ] && SUBMITTER="$name <$mail>"
	fi
	[ -n "${SUBMITTER:-}" ] ||
		die "no submitter: set SUBMITTER=\"Name <mail>\" (or git config user.name and user.email) for Signed-off-by:, or DRAFT=1 for a draft without one"
	[[ $SUBMITTER =~ ^([^<>]+[^<> ])\ \<([^<>@ ]+@[^<> ]+)\>$ ]] ||
		die "SUBMITTER must read \"Name <mail>\", not \"$SUBMITTER\""
	SUB_NAME=${BASH_REMATCH[1]} SUB_MAIL=${BASH_REMATCH[2]}
	# a sign-off certifies the DCO: a person's address, not a placeholder
	case $SUB_MAIL in
	*noreply* | *.example | *.example.* | *.invalid | *.test | *.localhost)
		die "$SUB_MAIL is not a person's address: set SUBMITTER=\"Name <mail>\" to the person who certifies the DCO, or DRAFT=1 for a draft" ;;
	esac
fi

bash "$HARNESS/series.sh" work
n=$(git -C "$WORK" rev-list --count "$BASE_TAG..HEAD")
say "patch: the $n patches of harness/series/$BASE/ apply with git am on pristine $BASE_VERSION"
# the submitter is the author of every patch
[ "$DRAFT" = 1 ] || GIT_AUTHOR_NAME=$SUB_NAME GIT_AUTHOR_EMAIL=$SUB_MAIL \
	GIT_COMMITTER_NAME=$SUB_NAME GIT_COMMITTER_EMAIL=$SUB_MAIL git -C "$WORK" \
	rebase -q --exec 'git commit -q --amend --no-edit --reset-author' "$BASE_TAG"
mapfile -t commits < <(git -C "$WORK" rev-list --reverse "$BASE_TAG..HEAD")

[ -f "$SUBS" ] || die "no $SUBS"
[ -f "$SRC/MAINTAINERS" ] || bash "$HARNESS/tree.sh" >/dev/null

# get_maintainer.pl on the patches of a submission: "To: WHO" for
# maintainers and supporters, "Cc: WHO" for the rest.
maintainers() {
	(cd "$SRC" && perl scripts/get_maintainer.pl --nogit --nogit-fallback "$@") |
		python3 -c '
import re, sys
for line in sys.stdin:
    m = re.match(r"^(.*?) \((.*)\)$", line.strip())
    if m:
        roles = m.group(2).split(",")
        to = any(r.startswith(("maintainer:", "supporter:")) for r in roles)
        print("%s: %s" % ("To" if to else "Cc", m.group(1)))
'
}

# The cover letter's subject and text: COVER's first line, and the rest
# after the empty line; git wrote the shortlog and the diffstat below.
fill_cover() {
	python3 - "$1" "$2" "v$BASE_VERSION (Linux $BASE_VERSION as Debian's linux-source-$BASE has it)" <<'EOF'
import sys
letter, cover, base = sys.argv[1:]
subject, _, blurb = open(cover).read().rstrip("\n").partition("\n\n")
text = open(letter).read().replace("*** SUBJECT HERE ***", subject, 1)
text = text.replace("*** BLURB HERE ***", blurb + "\n\nBased on: " + base, 1)
open(letter, "w").write(text)
EOF
}

rm -rf "$OUT"
mkdir -p "$OUT"
next=1 bad=0 subs=0
while read -r name first last cover prefix; do
	case "$name" in '' | '#'*) continue ;; esac
	subs=$((subs + 1))
	[ "$first" = "$next" ] || die "$SUBS: $name starts at patch $first, not at $next"
	[ "$last" -ge "$first" ] && [ "$last" -le "$n" ] || die "$SUBS: $name: bad range $first-$last (the series has $n)"
	[ -f "$SERIES/$cover" ] || die "$SUBS: $name: no cover letter $SERIES/$cover"
	next=$((last + 1))
	dir=$OUT/$name
	range="${commits[$((first - 1))]}~1..${commits[$((last - 1))]}"
	opts=(--numbered --cover-letter --no-signature --subject-prefix="$prefix" -o "$dir")
	id=()
	if [ "$DRAFT" != 1 ]; then
		opts+=(--signoff)
		id=(-c user.name="$SUB_NAME" -c user.email="$SUB_MAIL")
	fi
	git -C "$WORK" format-patch -q --stdout "$range" >"$LOGS/patch-$name.mbox"
	who=$(maintainers "$LOGS/patch-$name.mbox")
	mapfile -t to < <(sed -n 's/^To: //p' <<<"$who")
	mapfile -t cc < <(sed -n 's/^Cc: //p' <<<"$who")
	git -C "$WORK" "${id[@]}" format-patch -q "${opts[@]}" "${to[@]/#/--to=}" "${cc[@]/#/--cc=}" "$range"
	fill_cover "$dir/0000-cover-letter.patch" "$SERIES/$cover"
	say "patch: $name: patches $first-$last, $((last - first + 1)) and a cover letter in $dir"
	say "patch:   To: $(printf '%s, ' "${to[@]}" | sed 's/, $//')"
	say "patch:   Cc: $(printf '%s, ' "${cc[@]}" | sed 's/, $//')"
done <"$SUBS"
[ $((next - 1)) -eq "$n" ] || die "$SUBS: the submissions end at patch $((next - 1)); the series has $n"
[ "$DRAFT" = 1 ] && say "patch: a draft: no Signed-off-by (set SUBMITTER or git config for one)"

bash "$HARNESS/series.sh" intree
# the form (series-form.py): sizes and rewrites reported, fixes first enforced
python3 "$HARNESS/series-form.py" "$WORK" "$BASE_TAG" >"$LOGS/series-form.log" || bad=1
grep '^form: ' "$LOGS/series-form.log"

# checkpatch from the pristine tree, which has no git history: it cannot
# look up a Fixes: commit (UNKNOWN_COMMIT_ID ignored); a stable backport's
# "commit <sha> upstream." line, which the stable rules ask for, is hidden
# from it; the added files are under directories MAINTAINERS covers
# (FILE_PATH_CHANGES ignored).
cp_opts=(--strict --color=never --ignore UNKNOWN_COMMIT_ID,FILE_PATH_CHANGES)
[ "$DRAFT" = 1 ] && cp_opts+=(--no-signoff)
cp_in=$(mktemp)
trap 'rm -f "$cp_in"' EXIT
for p in "$OUT"/*/[0-9]*.patch; do
	case "$(basename "$p")" in 0000-*) continue ;; esac
	rel=${p#"$OUT"/}
	grep -v '^commit [0-9a-f]\{40\} upstream\.$' "$p" >"$cp_in" || true
	res=$(cd "$PRISTINE" && perl scripts/checkpatch.pl "${cp_opts[@]}" --summary-file "$cp_in" 2>&1) || true
	total=$(grep -oE 'total: [0-9]+ errors, [0-9]+ warnings.*' <<<"$res" | tail -n1) || true
	say "checkpatch: $rel: ${total:-no result}"
	if ! grep -qE '^total: 0 errors, 0 warnings' <<<"$total"; then
		printf '%s\n' "$res" | sed 's/^/    /'
		bad=1
	fi
done
[ $bad -eq 0 ] || die "the series' form or checkpatch found problems (above)"
say "patch: $subs submissions, checkpatch --strict: 0 errors, 0 warnings"
