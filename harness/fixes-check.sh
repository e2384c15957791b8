#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# `make fixes-check`: prove each fix of the series on its own.
#
# The series of a base starts with k fixes of upstream bugs (the leading patches
# with a Fixes: tag).  They are applied with `git am` on the pristine base
# versions of the files they touch (build/fixes-work, one commit per fix),
# and for i = 0..k the tree "pristine + fixes 1..i" is built with the debug
# configuration in build/src-fixes and build/obj-fixes (file by file between
# steps, so every step after the first is an incremental build) and booted
# with an initramfs whose /init runs the tests of the fixes instead of the
# normal tests (hmode=fixes): the harness/fixes/*.sh that names a fix's
# subject tests it.  A test
# passes when all its checks pass and no kernel splat shows on the console
# while it runs (harness/fixes-analyze.py).
#
# Then one line per fix:
#   fix N SUBJECT: FAIL before (tree N-1), PASS after (tree N)
# and the exit status is non-zero unless every fix's test fails on the tree
# just before it and passes on the tree with it, and every test passes on
# the last tree (the fixes alone).  make check runs the same tests on the
# whole series.  Logs: build/BASE/logs/fixes-*.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
take_lock

FIXES=$HARNESS/fixes
WORK=$BUILD/fixes-work
FSRC=$BUILD/src-fixes
NAME=fixes # obj-fixes, cfg-fixes, initramfs-fixes.cpio.gz (kernel.sh)

GIT_ID=(-c user.name="RDMA cgroup harness" -c user.email="harness@example.invalid"
	-c core.autocrlf=false -c commit.gpgsign=false -c am.threeWay=false)
t_start=$(date +%s)
# a guest runs the five tests in 2-4 minutes
export BOOT_TIMEOUT=${FIXES_BOOT_TIMEOUT:-900}

# build/BASE/pristine (and build/BASE/src, which make check builds anyway)
step tree "5s; 1-2 min the first time" bash "$HARNESS/tree.sh" || exit 1

# The fixes: the leading patches of the series with a Fixes: tag.
fixes=()
for p in $(find "$SERIES" -maxdepth 1 -name '[0-9][0-9][0-9][0-9]-*.patch' ! -name '0000-*' | LC_ALL=C sort); do
	grep -q '^Fixes: [0-9a-f]\{12,\} ("' "$p" || break
	fixes+=("$p")
done
k=${#fixes[@]}
[ "$k" -gt 0 ] || die "the series does not start with a fix (a patch with a Fixes: tag)"

# build/fixes-work: the pristine files the fixes touch, then git am of each.
say "==> git am of fixes 1..$k on the pristine $BASE_VERSION files they touch ($WORK)"
rm -rf "$WORK"
mkdir -p "$WORK"
git -C "$WORK" init -q
for f in $(sed -n 's#^diff --git a/\([^ ]*\) b/\([^ ]*\)$#\1\n\2#p' "${fixes[@]}" | LC_ALL=C sort -u); do
	if [ -f "$PRISTINE/$f" ]; then
		mkdir -p "$WORK/$(dirname "$f")"
		cp "$PRISTINE/$f" "$WORK/$f"
	fi
done
git -C "$WORK" add -A
GIT_AUTHOR_DATE='2026-01-01T00:00:00Z' GIT_COMMITTER_DATE='2026-01-01T00:00:00Z' \
	git -C "$WORK" "${GIT_ID[@]}" commit -q --allow-empty -m "Linux $BASE_VERSION (Debian linux-source-$BASE), the files the fixes touch"
git -C "$WORK" tag "$BASE_TAG"
commits=("$(git -C "$WORK" rev-parse HEAD)")
subjects=("")
for i in $(seq 1 "$k"); do
	p=${fixes[$((i - 1))]}
	if ! git -C "$WORK" "${GIT_ID[@]}" am -q --whitespace=error-all "$p" >"$LOGS/fixes-am.log" 2>&1; then
		cat "$LOGS/fixes-am.log"
		say "fix $i $(basename "$p"): does not apply to $BASE_VERSION with git am after fixes 1..$((i - 1))"
		exit 1
	fi
	commits+=("$(git -C "$WORK" rev-parse HEAD)")
	subjects+=("$(git -C "$WORK" log -1 --format=%s)")
	say "    fix $i: ${subjects[$i]}"
done
mapfile -t touched < <(git -C "$WORK" diff --name-only "$BASE_TAG" HEAD)

# The test of each fix, the harness/fixes/*.sh whose header names its
# subject in quotes (a test may name the subjects the fix has on several
# bases). A fix that no guest can show (it needs hardware) has a *.untested
# file instead: its subject in quotes and why, which the verdict prints in
# place of one.
tests=()
declare -A untested=()
bad=0
for i in $(seq 1 "$k"); do
	t=$(grep -lF "\"${subjects[$i]}\"" "$FIXES"/*.sh 2>/dev/null | LC_ALL=C sort | head -n1) || true
	u=$(grep -lF "\"${subjects[$i]}\"" "$FIXES"/*.untested 2>/dev/null | LC_ALL=C sort | head -n1) || true
	if [ -z "$t" ] && [ -n "$u" ]; then
		untested[$i]=$(grep -v '^#' "$u" | grep -v '^"' | tr '\n' ' ')
		tests+=("untested-$i")
		continue
	fi
	if [ -z "$t" ]; then
		say "fix $i ${subjects[$i]}: no test in harness/fixes/ names it"
		bad=1
	fi
	tests+=("$(basename "${t:-none}" .sh)")
done
[ $bad -eq 0 ] || exit 1
# Tests of fixes another base needs and this one does not: a test whose
# header has the line "# Moot on BASE: WHY" must pass on the pristine base
# (tree 0), which shows that the bug is not there.
moot=()
for t in "$FIXES"/*.sh; do
	grep -q "^# Moot on $BASE: " "$t" && moot+=("$(basename "$t" .sh)")
done

# build/src-fixes: a hardlinked copy of pristine, files replaced (never
# written through a link) only when their content changes.
if [ ! -f "$FSRC/.harness-src" ] || ! cmp -s "$FSRC/.harness-src" "$BUILD/pristine/.stamp"; then
	say "==> $FSRC: a hardlinked copy of pristine"
	rm -rf "$FSRC" "$FSRC.tmp"
	cp -al "$PRISTINE" "$FSRC.tmp"
	cp "$BUILD/pristine/.stamp" "$FSRC.tmp/.harness-src"
	mv "$FSRC.tmp" "$FSRC"
fi
# Files the rest of the series touches: pristine in every tree here (a
# build of the whole series in this folder may have left them behind).
declare -A in_work=()
for rel in "${touched[@]}"; do in_work[$rel]=1; done
others=()
for rel in $(sed -n 's#^diff --git a/\([^ ]*\) b/\([^ ]*\)$#\1\n\2#p' \
	"$SERIES"/[0-9][0-9][0-9][0-9]-*.patch | LC_ALL=C sort -u); do
	[ -n "${in_work[$rel]:-}" ] || others+=("$rel")
done

# set_tree I: build/src-fixes is tree I
set_tree() {
	local rel
	for rel in "${touched[@]}"; do
		set_from_git "$WORK" "${commits[$1]}" "$rel" "$FSRC"
	done
	for rel in "${others[@]}"; do
		if [ ! -f "$PRISTINE/$rel" ]; then
			rm -f "$FSRC/$rel"
		elif ! cmp -s "$PRISTINE/$rel" "$FSRC/$rel"; then
			rm -f "$FSRC/$rel"
			cp "$PRISTINE/$rel" "$FSRC/$rel" # a new mtime, so kbuild sees it
		fi
	done
}

# The files the tests' verdicts are made from.
declare -A result=() result_moot=()
build_s=() boot_s=()
export HARNESS_SRC=$FSRC HARNESS_NAME=$NAME
for i in $(seq 0 "$k"); do
	if [ "$i" = 0 ]; then
		say "==> tree 0: pristine $BASE_VERSION"
	else
		say "==> tree $i: pristine $BASE_VERSION + fixes 1..$i"
	fi
	set_tree "$i"
	t0=$(date +%s)
	if ! step "fixes-$i-build" "1-3 min; 20 min the first time" bash "$HARNESS/kernel.sh" debug build; then
		say "tree $i does not build"
		exit 1
	fi
	build_s[$i]=$(($(date +%s) - t0))
	if [ "$i" = 0 ] || [ ! -f "$BUILD/initramfs-$NAME.cpio.gz" ]; then
		step "fixes-initramfs" "20s" bash "$HARNESS/initramfs.sh" debug || exit 1
	fi
	t0=$(date +%s)
	step "fixes-$i-boot" "2-4 min (KASAN, kmemleak under TCG)" bash "$HARNESS/boot.sh" debug fixes || true
	boot_s[$i]=$(($(date +%s) - t0))
	mv -f "$LOGS/console-$NAME.log" "$LOGS/fixes-$i-console.log" 2>/dev/null || : >"$LOGS/fixes-$i-console.log"
	mv -f "$LOGS/results-$NAME.log" "$LOGS/fixes-$i-results.log" 2>/dev/null || : >"$LOGS/fixes-$i-results.log"
	python3 "$HARNESS/fixes-analyze.py" --console "$LOGS/fixes-$i-console.log" \
		--results "$LOGS/fixes-$i-results.log" "${tests[@]}" "${moot[@]}" \
		>"$LOGS/fixes-$i-analyze.log" 2>&1 || true
	if [ "$i" = 0 ]; then
		for m in "${moot[@]}"; do
			r=$(sed -n "s/^RESULT $m //p" "$LOGS/fixes-0-analyze.log")
			result_moot[$m]=${r:-FAIL the analysis gave no result}
			say "    $m (moot on $BASE) on tree 0: ${result_moot[$m]}"
		done
	fi
	for j in $(seq 1 "$k"); do
		if [ -n "${untested[$j]:-}" ]; then
			result[$i,$j]="UNTESTED"
			continue
		fi
		r=$(sed -n "s/^RESULT ${tests[$((j - 1))]} //p" "$LOGS/fixes-$i-analyze.log")
		result[$i,$j]=${r:-FAIL the analysis gave no result (see $LOGS/fixes-$i-analyze.log)}
		say "    test $j on tree $i: ${result[$i,$j]}"
	done
done

# The verdict.
say ""
say "==> fixes-check: each fix's test on the tree before it and on the tree with it"
bad=0
for j in $(seq 1 "$k"); do
	if [ -n "${untested[$j]:-}" ]; then
		say "fix $j ${subjects[$j]}: no guest test: ${untested[$j]}"
		continue
	fi
	before=${result[$((j - 1)),$j]%% *}
	after=${result[$j,$j]%% *}
	line="fix $j ${subjects[$j]}: $before before (tree $((j - 1))), $after after (tree $j)"
	if [ "$before" = FAIL ] && [ "$after" = PASS ]; then
		say "$line"
	else
		bad=1
		say "$line: WRONG"
		[ "$before" = PASS ] && say "    the test does not show the bug on the tree without the fix"
		[ "$after" = FAIL ] && say "    on tree $j: ${result[$j,$j]#FAIL }"
	fi
done
# all_pass TREE LABEL: whether every fix test passed on TREE; says which not
all_pass() {
	local j ok=0
	for j in $(seq 1 "$k"); do
		[ -n "${untested[$j]:-}" ] && continue
		if [ "${result[$1,$j]%% *}" != PASS ]; then
			ok=1
			say "fix $j's test fails on tree $2: ${result[$1,$j]#FAIL }"
		fi
	done
	return $ok
}
if all_pass "$k" "$k (all fixes)"; then
	say "fixes 1..$k apply to $BASE_VERSION with git am, build, and pass their tests"
else
	bad=1
fi
for m in "${moot[@]}"; do
	why=$(sed -n "s/^# Moot on $BASE: //p" "$FIXES/$m.sh")
	if [ "${result_moot[$m]%% *}" = PASS ]; then
		say "$m: PASS on pristine $BASE_VERSION: the bug is not there ($why)"
	else
		bad=1
		say "$m: ${result_moot[$m]} on pristine $BASE_VERSION, which should not have the bug: WRONG"
	fi
done
say ""
say "tree  build  boot   $(for j in $(seq 1 "$k"); do printf 'fix%-3s' "$j"; done)"
for i in $(seq 0 "$k"); do
	printf '%-5s %4ss  %4ss  ' "$i" "${build_s[$i]}" "${boot_s[$i]}"
	for j in $(seq 1 "$k"); do r=${result[$i,$j]%% *}; [ "$r" = UNTESTED ] && r=-; printf '%-6s' "$r"; done
	printf '\n'
done
say "==> fixes-check done in $(($(date +%s) - t_start))s; logs in $LOGS/fixes-*"
exit $bad
