#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The series, harness/series/BASE/NNNN-*.patch (git format-patch), is every
# kernel change; on the main base our in-tree files are its tip's copies.
#   series.sh work       build/BASE/patchwork: the pristine version of each
#                        touched file, tagged BASE_TAG, and the series by git am
#   series.sh intree     our in-tree files equal the tip
#   series.sh git        build/BASE/series-git: the whole pristine tree in
#                        git with the series on it, to rebase -i and --fixup
#   series.sh save       series-git back into the patches and in-tree files
# git am and git format-patch do the work; this keeps the files in step.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

WORK=$BUILD/patchwork
GITTREE=$BUILD/series-git
GIT_ID=(-c user.name="RDMA cgroup harness" -c user.email="harness@example.invalid"
	-c core.autocrlf=false -c commit.gpgsign=false -c am.threeWay=false)

# The patches, in order.
series_patches() {
	find "$SERIES" -maxdepth 1 -name '[0-9][0-9][0-9][0-9]-*.patch' ! -name '0000-*' |
		LC_ALL=C sort
}

# Every path (relative, -p1) that some patch of the series touches.
series_touched() {
	local p
	for p in $(series_patches); do
		sed -n 's#^diff --git a/\([^ ]*\) b/\([^ ]*\)$#\1\n\2#p' "$p"
	done | LC_ALL=C sort -u
}

# Make build/patchwork from the patches (see the head of this file).
make_work() {
	local f p n=0
	[ -f "$PRISTINE/Makefile" ] || die "no pristine tree: run harness/tree.sh first"
	rm -rf "$WORK"
	mkdir -p "$WORK"
	git -C "$WORK" init -q
	while IFS= read -r f; do
		if [ -f "$PRISTINE/$f" ]; then
			mkdir -p "$WORK/$(dirname "$f")"
			cp "$PRISTINE/$f" "$WORK/$f"
		fi
	done < <(series_touched)
	# diff=cpp and friends: hunk headers name functions as in a full tree
	cp "$PRISTINE/.gitattributes" "$WORK/.gitattributes"
	git -C "$WORK" add -A
	GIT_AUTHOR_DATE='2026-01-01T00:00:00Z' GIT_COMMITTER_DATE='2026-01-01T00:00:00Z' \
		git -C "$WORK" "${GIT_ID[@]}" commit -q --allow-empty \
		-m "Linux $BASE_VERSION (Debian linux-source-$BASE), the files the series touches"
	git -C "$WORK" tag "$BASE_TAG"
	for p in $(series_patches); do
		n=$((n + 1))
		if ! git -C "$WORK" "${GIT_ID[@]}" am -q --whitespace=error-all "$p" >"$LOGS/series-am.log" 2>&1; then
			cat "$LOGS/series-am.log" >&2
			die "$(basename "$p") does not apply with git am on the patches before it"
		fi
	done
	[ $n -gt 0 ] || die "no patches in $SERIES"
}

# ours PATH...: the files of ours at their in-tree paths: the overlay, and
# those of PATH... that the series adds (pristine has no such file).
ours() {
	local f
	{
		overlay_files
		for f in "$@"; do
			case "$f" in kernel/* | include/* | drivers/* | tools/* | Documentation/*) ;; *) continue ;; esac
			[ -f "$PRISTINE/$f" ] || echo "$f"
		done
	} | LC_ALL=C sort -u
}

# Files the series adds (absent from pristine) and the files we keep
# in-tree: the tip must have the same content for every one of them.
intree() {
	local f bad=0 n=0
	[ -d "$WORK/.git" ] || die "run harness/series.sh work first"
	if [ "$BASE" != "$MAIN_BASE" ]; then
		say "intree: the in-tree files are the $MAIN_BASE series' tip; nothing to compare on $BASE"
		return 0
	fi
	for f in $(ours $(git -C "$WORK" ls-tree -r --name-only HEAD)); do
		n=$((n + 1))
		if ! git -C "$WORK" cat-file -e "HEAD:$f" 2>/dev/null; then
			say "intree: $f is in the repository but no patch of the series has it"
			bad=1
		elif [ ! -f "$REPO/$f" ]; then
			say "intree: the series adds $f, but the repository does not have it"
			bad=1
		elif ! git -C "$WORK" show "HEAD:$f" | cmp -s - "$REPO/$f"; then
			say "intree: $f differs from the series' tip:"
			git -C "$WORK" show "HEAD:$f" | diff -u --label "series/$f" --label "$f" - "$REPO/$f" |
				head -n 40 | sed 's/^/    /'
			bad=1
		fi
	done
	if [ $bad -ne 0 ]; then
		say "intree: edit the patch the change belongs to (make series-git,"
		say "intree: commit --fixup, rebase -i, make series-save); see docs/contributing.md"
		return 1
	fi
	say "intree: $n files of ours equal the series' tip"
}

# build/series-git: the whole kernel tree under git, the series on top.
make_git() {
	local p
	[ -f "$PRISTINE/Makefile" ] || die "no pristine tree: run harness/tree.sh first"
	if [ -e "$GITTREE" ] && [ "${FORCE:-}" != 1 ]; then
		die "$GITTREE exists (it may hold your work): save it first, then FORCE=1 make series-git"
	fi
	rm -rf "$GITTREE" "$GITTREE.tmp"
	say "series-git: copying the pristine tree (a plain copy: editors may write in place)"
	cp -a "$PRISTINE" "$GITTREE.tmp"
	git -C "$GITTREE.tmp" init -q
	# Debian's tarball ignores everything at its top level (its packaging
	# keeps the kernel elsewhere); that block goes, so that git sees the
	# tree. No patch touches .gitignore, so the series does not change.
	sed -i '/^# Debian packaging/,/^!\/debian\/$/d' "$GITTREE.tmp/.gitignore"
	say "series-git: committing the pristine tree (about a minute)"
	git -C "$GITTREE.tmp" add -A -f  # the tree as it is, dot files included
	GIT_AUTHOR_DATE='2026-01-01T00:00:00Z' GIT_COMMITTER_DATE='2026-01-01T00:00:00Z' \
		git -C "$GITTREE.tmp" "${GIT_ID[@]}" commit -q -m "Linux $BASE_VERSION (Debian linux-source-$BASE)"
	git -C "$GITTREE.tmp" tag "$BASE_TAG"
	for p in $(series_patches); do
		git -C "$GITTREE.tmp" "${GIT_ID[@]}" am -q "$p" ||
			die "$(basename "$p") does not apply"
	done
	mv "$GITTREE.tmp" "$GITTREE"
	say "series-git: $GITTREE has $(git -C "$GITTREE" rev-list --count "$BASE_TAG..HEAD") patches on $BASE_TAG."
	say "series-git: edit with git there (commit --fixup=<patch>, rebase -i --autosquash $BASE_TAG),"
	say "series-git: then run make series-save."
}

# Write build/series-git back into the repository.
save() {
	local out f n
	[ -d "$GITTREE/.git" ] || die "no $GITTREE: make series-git first"
	git -C "$GITTREE" diff --quiet HEAD && git -C "$GITTREE" diff --cached --quiet ||
		die "$GITTREE has uncommitted changes: commit them to the patch they belong to first"
	git -C "$GITTREE" rev-parse -q --verify "$BASE_TAG" >/dev/null || die "no tag $BASE_TAG in $GITTREE"
	out=$BUILD/series-save.tmp
	rm -rf "$out"
	git -C "$GITTREE" -c core.abbrev=12 format-patch -q --zero-commit --no-signature --no-numbered \
		-o "$out" "$BASE_TAG..HEAD"
	n=$(find "$out" -name '*.patch' | wc -l)
	[ "$n" -gt 0 ] || die "no commits on $BASE_TAG in $GITTREE"
	find "$SERIES" -maxdepth 1 -name '[0-9][0-9][0-9][0-9]-*.patch' ! -name '0000-*' -delete
	cp "$out"/*.patch "$SERIES/"
	rm -rf "$out"
	say "series-save: $n patches written to harness/series/$BASE/"
	if [ "$BASE" != "$MAIN_BASE" ]; then
		say "series-save: the in-tree files follow the $MAIN_BASE series; left as they are"
		return 0
	fi
	# The tip's version of the files we keep in-tree, and of the files the
	# series adds; files we kept that the tip no longer has go.
	for f in $(OVERLAY=tracked ours $(git -C "$GITTREE" diff --name-only "$BASE_TAG" HEAD)); do
		set_from_git "$GITTREE" HEAD "$f" "$REPO"
	done
	say "series-save: the in-tree files are the tip's; review with git status / git diff, then commit"
}

case "${1:-}" in
work) make_work ;;
intree) intree ;;
git) make_git ;;
save) save ;;
*) die "usage: series.sh work|intree|git|save" ;;
esac
