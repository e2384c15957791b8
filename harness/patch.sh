#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Write the patch series defined in harness/series.conf to build/patches/ in
# `git format-patch` form, then check that it applies to the pristine 6.12
# tree with both `patch -p1` and `git apply`, that the result is exactly
# build/src's content for the touched files, and that every patch passes
# scripts/checkpatch.pl --strict --no-signoff with 0 errors and 0 warnings.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

[ -f "$PRISTINE/Makefile" ] || die "no pristine tree: run harness/tree.sh first"
CONF=$HARNESS/series.conf
WORK=$BUILD/patchwork
OUT=$BUILD/patches
AUTHOR_NAME=$(git -C "$REPO" config user.name || echo "RDMA cgroup developers")
AUTHOR_EMAIL=$(git -C "$REPO" config user.email || echo "rdma-cgroup@example.invalid")
G=(git -C "$WORK" -c user.name="$AUTHOR_NAME" -c user.email="$AUTHOR_EMAIL"
	-c core.autocrlf=false -c commit.gpgsign=false)

trim() { sed -e 's/^[[:space:]]*//' -e 's/[[:space:]]*$//' <<<"$1"; }

# expand GLOBS RELATIVE-TO: existing files matching the globs, relative.
expand() {
	local g f
	for g in $1; do
		for f in "$2"/$g; do
			[ -f "$f" ] && printf '%s\n' "${f#"$2"/}"
		done
	done
	return 0
}

# Which of our files and hunks count: the same as for build/src.
mapfile -t ours < <(overlay_files)
mapfile -t hunks_all < <(hunk_files)
declare -A is_ours=() is_hunk=()
for f in "${ours[@]}"; do is_ours[$f]=1; done
for h in "${hunks_all[@]}"; do is_hunk[$(basename "$h")]=1; done

msgs=() pfiles=() phunks=()
while IFS= read -r line; do
	line=${line%%#*}
	[ -n "$(trim "$line")" ] || continue
	IFS='|' read -r msg files hunks <<<"$line"
	msgs+=("$(trim "$msg")")
	sel=""
	for f in $(expand "$(trim "$files")" "$REPO"); do
		[ -n "${is_ours[$f]:-}" ] && sel+="$f "
	done
	pfiles+=("$sel")
	sel=""
	for h in $(expand "$(trim "$hunks")" "$HARNESS/hunks"); do
		[ -n "${is_hunk[$h]:-}" ] && sel+="$h "
	done
	phunks+=("$sel")
done <"$CONF"

# Every file of ours and every hunk must belong to exactly one patch.
declare -A claimed=()
for i in "${!msgs[@]}"; do
	for f in ${pfiles[$i]} ${phunks[$i]}; do claimed[$f]=1; done
done
for f in "${ours[@]}"; do
	[ -n "${claimed[$f]:-}" ] || die "$f is in no patch of harness/series.conf"
done
for h in "${hunks_all[@]}"; do
	[ -n "${claimed[$(basename "$h")]:-}" ] || die "hunk $(basename "$h") is in no patch of harness/series.conf"
done

# A scratch repository holding the pristine version of every touched file.
rm -rf "$WORK" "$OUT"
mkdir -p "$WORK" "$OUT"
touched=()
for i in "${!msgs[@]}"; do
	for f in ${pfiles[$i]}; do touched+=("$f"); done
	for h in ${phunks[$i]}; do
		mapfile -t -O ${#touched[@]} touched < <(patch_targets "$HARNESS/hunks/$h")
	done
done
"${G[@]}" init -q
for f in "${touched[@]}"; do
	if [ -f "$PRISTINE/$f" ] && [ ! -f "$WORK/$f" ]; then
		mkdir -p "$WORK/$(dirname "$f")"
		cp "$PRISTINE/$f" "$WORK/$f"
	fi
done
"${G[@]}" add -A
"${G[@]}" commit -q --allow-empty -m "linux-source-6.12 (pristine)"
base=$("${G[@]}" rev-parse HEAD)

n=0
for i in "${!msgs[@]}"; do
	msg=${msgs[$i]}
	if [ -z "${pfiles[$i]}${phunks[$i]}" ]; then
		say "patch: skipping \"$(head -n1 "$REPO/$msg" 2>/dev/null || echo "$msg")\": none of its files exist yet"
		continue
	fi
	[ -f "$REPO/$msg" ] || die "commit message $msg missing"
	for f in ${pfiles[$i]}; do
		mkdir -p "$WORK/$(dirname "$f")"
		cp "$REPO/$f" "$WORK/$f"
	done
	for h in ${phunks[$i]}; do
		patch -d "$WORK" -p1 --batch --forward --no-backup-if-mismatch -r - -s \
			<"$HARNESS/hunks/$h" || die "hunk $h does not apply in series order"
	done
	"${G[@]}" add -A
	if "${G[@]}" diff --cached --quiet; then
		say "patch: skipping \"$(head -n1 "$REPO/$msg")\": it changes nothing"
		continue
	fi
	"${G[@]}" commit -q -F "$REPO/$msg" --cleanup=strip
	n=$((n + 1))
done
[ $n -gt 0 ] || die "the series is empty"
"${G[@]}" format-patch -q -o "$OUT" "$base..HEAD"
say "patch: wrote $n patches to $OUT"
ls "$OUT" | sed 's/^/  /'

# Apply to pristine copies of the touched files, both ways, and compare
# with build/src (which has the same files and hunks).
for tool in patch git-apply; do
	t=$BUILD/patchcheck-$tool
	rm -rf "$t"
	mkdir -p "$t"
	for f in "${touched[@]}"; do
		if [ -f "$PRISTINE/$f" ] && [ ! -f "$t/$f" ]; then
			mkdir -p "$t/$(dirname "$f")"
			cp "$PRISTINE/$f" "$t/$f"
		fi
	done
	for p in "$OUT"/*.patch; do
		if [ $tool = patch ]; then
			patch -d "$t" -p1 --batch --forward --no-backup-if-mismatch -s <"$p" ||
				die "$(basename "$p") does not apply with patch -p1"
		else
			(cd "$t" && GIT_CEILING_DIRECTORIES=$BUILD git apply --whitespace=error-all "$p") ||
				die "$(basename "$p") does not apply with git apply"
		fi
	done
	for f in "${touched[@]}"; do
		if [ -f "$SRC/$f" ] && [ -f "$SRC/.harness-src" ] && ! cmp -s "$t/$f" "$SRC/$f"; then
			die "after $tool, $f differs from build/src/$f (run harness/tree.sh?)"
		fi
	done
	rm -rf "$t"
done
say "patch: the series applies to pristine 6.12 with patch -p1 and git apply"

# checkpatch, run from the pristine tree so it finds its data files.  That
# tree has no git history, so checkpatch cannot look up the commits that a
# message names ("Fixes:", "commit <sha>") and warns UNKNOWN_COMMIT_ID for
# every one of them; those warnings are reported but not counted.
bad=0
for p in "$OUT"/*.patch; do
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
