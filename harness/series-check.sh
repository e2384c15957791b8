#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# `make series-check`: the series is bisectable.  For each patch the files
# the series touches are set in build/BASE/src to their version at that
# patch's commit in build/BASE/patchwork (make patch's git am; only files
# whose content changes are replaced, so each build is incremental), both
# kernels are built and linted, and the debug one boots: no splat, and the
# KUnit suite passes from the patch that adds it.  SERIES_FLAVOURS (release
# debug), SERIES_FROM=N, SERIES_TO=M (0: the base).
# `make fixes-check` (series-check.sh fixes): from the base to the last
# leading fix (Fixes: tag), debug only, each boot running harness/fixes/*.sh
# (a test names its fix's subject in quotes; analyze.py --fixes judges it):
# each fix's test fails just before it and passes with it and on the last
# tree; one marked "# Moot on BASE: WHY" passes on the base; a fix that
# needs hardware has a *.untested file (its subject in quotes, and why).
set -euo pipefail
. "$(dirname "$0")/lib.sh"
take_lock

WORK=$BUILD/patchwork
KUNIT_FILE=kernel/cgroup/tests/rdma_kunit.c
t_start=$(date +%s)
failed=0

step tree "5s; 1-2 min the first time" bash "$HARNESS/tree.sh" || exit 1
step patch "30s" env DRAFT=1 bash "$HARNESS/patch.sh" || exit 1
G=(git -C "$WORK")
base=$BASE_TAG
mapfile -t commits < <("${G[@]}" rev-list --reverse "$base..HEAD")
mapfile -t touched < <("${G[@]}" diff --name-only "$base" HEAD)
base=$("${G[@]}" rev-parse "$base")

# kunit_boot [--expect-kunit]: boot the step's kernel to a guest that runs
# nothing; KUnit has run at boot.
kunit_boot() {
	local log=$LOGS/series-kunit-console.log
	BOOT_TIMEOUT=${BOOT_TIMEOUT:-300} bash "$HARNESS/boot.sh" debug kunit || return 1
	mv -f "$LOGS/console-debug.log" "$log"
	python3 "$HARNESS/analyze.py" --console "$log" --results /dev/null \
		--src "$SRC" "$@" | tee "$LOGS/series-kunit.log"
	# No guest tests ran, so only the KUnit and splat verdicts count.
	{ [ $# -eq 0 ] || grep -q '^kunit: [1-9][0-9]* passed, 0 failed' "$LOGS/series-kunit.log"; } &&
		grep -qx 'splats: none' "$LOGS/series-kunit.log"
}

# make fixes-check: the leading fixes (1..k), the test of each, and the
# tests that must pass on the pristine base
fixes=0
if [ "${1:-}" = fixes ]; then
	fixes=1 k=0 bad=0
	for c in "${commits[@]}"; do
		"${G[@]}" log -1 --format=%b "$c" | grep -q '^Fixes: [0-9a-f]\{12,\} ("' || break
		k=$((k + 1))
	done
	[ $k -gt 0 ] || die "the series does not start with a fix (a patch with a Fixes: tag)"
	SERIES_FROM=0 SERIES_TO=$k SERIES_FLAVOURS=debug
	export BOOT_TIMEOUT=${FIXES_BOOT_TIMEOUT:-900}
	declare -A result=() untested=()
	tests=() moot=() subjects=("")
	for j in $(seq 1 $k); do
		subjects[j]=$("${G[@]}" log -1 --format=%s "${commits[$((j - 1))]}")
		t=$(grep -lF "\"${subjects[j]}\"" "$HARNESS"/fixes/*.sh | head -n1) || true
		u=$(grep -lF "\"${subjects[j]}\"" "$HARNESS"/fixes/*.untested | head -n1) || true
		if [ -z "$t" ] && [ -n "$u" ]; then
			untested[$j]=$(grep -v '^[#"]' "$u" | tr '\n' ' ')
		elif [ -z "$t" ]; then
			say "fix $j ${subjects[j]}: no test in harness/fixes/ names it"
			bad=1
		fi
		tests+=("$(basename "${t:-untested-$j}" .sh)")
	done
	[ $bad -eq 0 ] || exit 1
	for t in "$HARNESS"/fixes/*.sh; do
		grep -q "^# Moot on $BASE: " "$t" && moot+=("$(basename "$t" .sh)")
	done
fi

# fixes_boot N: boot tree N with the fixes' reproducers; result[N,J] the
# verdict of the test of fix J, result[N,NAME] that of a moot test
fixes_boot() {
	local n=$1 j t
	[ "$n" -gt 0 ] || bash "$HARNESS/guest.sh" debug || return 1
	bash "$HARNESS/boot.sh" debug fixes || true
	mv -f "$LOGS/console-debug.log" "$LOGS/fixes-$n-console.log" || : >"$LOGS/fixes-$n-console.log"
	mv -f "$LOGS/results-debug.log" "$LOGS/fixes-$n-results.log" || : >"$LOGS/fixes-$n-results.log"
	python3 "$HARNESS/analyze.py" --console "$LOGS/fixes-$n-console.log" \
		--results "$LOGS/fixes-$n-results.log" --fixes "${tests[@]}" "${moot[@]}" \
		>"$LOGS/fixes-$n-analyze.log" 2>&1 || true
	for j in $(seq 1 $k); do
		result[$n,$j]=$(fixes_result "$n" "${tests[$((j - 1))]}")
	done
	for t in "${moot[@]}"; do
		result[$n,$t]=$(fixes_result "$n" "$t")
	done
}

fixes_result() {
	local r
	r=$(sed -n "s/^RESULT $2 //p" "$LOGS/fixes-$1-analyze.log")
	echo "${r:-FAIL no result (see $LOGS/fixes-$1-analyze.log)}"
}

# fixes_verdict: one line per fix and per moot test; false if one is wrong
fixes_verdict() {
	local j before after ok=0 why
	for j in $(seq 1 $k); do
		if [ -n "${untested[$j]:-}" ]; then
			say "fix $j ${subjects[j]}: no guest test: ${untested[$j]}"
			continue
		fi
		before=${result[$((j - 1)),$j]%% *} after=${result[$j,$j]%% *}
		if [ "$before" = FAIL ] && [ "$after" = PASS ] && [ "${result[$k,$j]%% *}" = PASS ]; then
			say "fix $j ${subjects[j]}: FAIL before (tree $((j - 1))), PASS after (tree $j)"
		else
			ok=1
			say "fix $j ${subjects[j]}: WRONG: before: ${result[$((j - 1)),$j]}; after: ${result[$j,$j]}; with all fixes: ${result[$k,$j]}"
		fi
	done
	for j in "${moot[@]}"; do
		why=$(sed -n "s/^# Moot on $BASE: //p" "$HARNESS/fixes/$j.sh")
		if [ "${result[0,$j]%% *}" = PASS ]; then
			say "$j: PASS on pristine $BASE_VERSION: the bug is not there ($why)"
		else
			ok=1
			say "$j: WRONG: ${result[0,$j]} on pristine $BASE_VERSION, which should not have the bug"
		fi
	done
	return $ok
}

n=-1
for c in "$base" "${commits[@]}"; do
	n=$((n + 1))
	[ "$n" -le "${SERIES_TO:-$n}" ] || break
	subject=$("${G[@]}" log -1 --format=%s "$c")
	say "==> patch $n/${#commits[@]}: $subject"
	for rel in "${touched[@]}"; do
		set_from_git "$WORK" "$c" "$rel" "$SRC"
	done
	[ "$n" -ge "${SERIES_FROM:-1}" ] || continue
	for flavour in ${SERIES_FLAVOURS:-release debug}; do
		step "series-$n-$flavour" "1-3 min; 15 min the first time" \
			bash "$HARNESS/kernel.sh" "$flavour" build || failed=$((failed + 1))
	done
	# W=1, sparse and kernel-doc on our files as this patch has them; the
	# fixes keep upstream's own kernel-doc warnings, which are not counted
	[ $fixes -eq 1 ] || step "series-$n-lint" "30s" env LINT_NEW_ONLY=1 \
		bash -c "bash '$HARNESS/lint.sh' sparse && bash '$HARNESS/lint.sh' kerneldoc" ||
		failed=$((failed + 1))
	if [ $fixes -eq 1 ]; then
		step "fixes-$n-boot" "2-4 min (KASAN, kmemleak under TCG)" fixes_boot "$n" ||
			failed=$((failed + 1))
		for j in $(seq 1 $k); do
			[ -n "${untested[$j]:-}" ] || say "    test of fix $j on tree $n: ${result[$n,$j]}"
		done
	elif [[ " ${SERIES_FLAVOURS:-release debug} " == *" debug "* ]]; then
		expect=()
		"${G[@]}" cat-file -e "$c:$KUNIT_FILE" 2>/dev/null && expect=(--expect-kunit)
		step "series-$n-boot" "1 min (under TCG)" kunit_boot "${expect[@]}" || failed=$((failed + 1))
		cp "$LOGS/series-kunit.log" "$LOGS/series-$n-boot-result.log" 2>/dev/null || true
	fi
done

step tree "5s" bash "$HARNESS/tree.sh" || failed=$((failed + 1))
[ $fixes -eq 0 ] || fixes_verdict || failed=$((failed + 1))
say "==> series-check: ${#commits[@]} patches, $failed failed steps, $(($(date +%s) - t_start))s"
[ $failed -eq 0 ]
