#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# `make patch`: apply the series of a base (harness/series/BASE/) with git am
# on pristine Linux BASE, write it numbered with its cover letter to build/patches/ as it
# would be mailed, and check it: our in-tree files equal its tip, the fixes
# come first with Fixes: and Cc: stable, and every patch passes
# scripts/checkpatch.pl --strict --no-signoff with 0 errors and 0 warnings.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

[ -f "$PRISTINE/Makefile" ] || die "no pristine tree: run harness/tree.sh first"
WORK=$BUILD/patchwork
OUT=$BUILD/patches
COVER=$SERIES/cover-letter.txt

bash "$HARNESS/series.sh" work
n=$(git -C "$WORK" rev-list --count "$BASE_TAG..HEAD")
say "patch: the $n patches of harness/series/$BASE/ apply with git am on pristine $BASE_VERSION"

rm -rf "$OUT"
mkdir -p "$OUT"
git -C "$WORK" format-patch -q --numbered --cover-letter --no-signature \
	-o "$OUT" "$BASE_TAG..HEAD"
if [ -f "$COVER" ]; then
	python3 - "$OUT"/0000-cover-letter.patch "$COVER" <<'PY'
import sys
path, cover = sys.argv[1], sys.argv[2]
text = open(path).read()
lines = open(cover).read().rstrip("\n").split("\n")
subject, body = lines[0], "\n".join(lines[2:])
text = text.replace("*** SUBJECT HERE ***", subject, 1)
text = text.replace("*** BLURB HERE ***", body, 1)
open(path, "w").write(text)
PY
fi
say "patch: wrote $n patches and a cover letter to $OUT"
ls "$OUT" | sed 's/^/  /'

bash "$HARNESS/series.sh" intree
bash "$HARNESS/series.sh" rules

# checkpatch, run from the pristine tree so it finds its data files.  That
# tree has no git history, so checkpatch cannot look up the commits that a
# message names ("Fixes:", "commit <sha>") and warns UNKNOWN_COMMIT_ID for
# every one of them; those warnings are reported but not counted.
bad=0
for p in "$OUT"/[0-9]*.patch; do
	case "$(basename "$p")" in 0000-*) continue ;; esac
	res=$(cd "$PRISTINE" && perl scripts/checkpatch.pl --strict --no-signoff --color=never \
		--ignore UNKNOWN_COMMIT_ID --summary-file "$p" 2>&1) || true
	total=$(grep -oE 'total: [0-9]+ errors, [0-9]+ warnings.*' <<<"$res" | tail -n1) || true
	ids=$(cd "$PRISTINE" && perl scripts/checkpatch.pl --strict --no-signoff --color=never \
		--types UNKNOWN_COMMIT_ID --terse "$p" 2>&1 | grep -c UNKNOWN_COMMIT_ID) || true
	note=""
	[ "${ids:-0}" -gt 0 ] && note=" (+$ids commit ids not verifiable without upstream git history)"
	say "checkpatch: $(basename "$p"): ${total:-no result}$note"
	if ! grep -qE '^total: 0 errors, 0 warnings' <<<"$total"; then
		printf '%s\n' "$res" | sed 's/^/    /'
		bad=1
	fi
done
[ $bad -eq 0 ] || die "checkpatch found errors or warnings in the series"
say "patch: checkpatch --strict: 0 errors, 0 warnings"
