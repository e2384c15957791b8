#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# `make check`: install dependencies, lint, build the debug kernel and the
# initramfs, boot under QEMU, and judge the run: KUnit (kunit.py parse),
# the guest tests' TAP lines, and kernel splats in the console log.
# The last line is "N passed, N failed, N skipped"; the exit status is
# non-zero if anything failed.  Full logs: build/logs/.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

passed=0 failed=0 skipped=0
t_start=$(date +%s)

finish() {
	say "==> done in $(($(date +%s) - t_start))s; logs in $LOGS/"
	say "$passed passed, $failed failed, $skipped skipped"
	[ $failed -eq 0 ] && exit 0
	exit 1
}

# check NAME EXPECTED CMD...: a step that counts as one test.
check() {
	if step "$@"; then
		passed=$((passed + 1))
	else
		failed=$((failed + 1))
	fi
}

# must NAME EXPECTED CMD...: a step without which nothing else can run.
must() {
	if ! step "$@"; then
		failed=$((failed + 1))
		finish
	fi
}

must deps "1s; 5-10 min on a fresh machine" bash "$HARNESS/deps.sh"
take_lock
must tree "5s; 1 min the first time" bash "$HARNESS/tree.sh"
must config-debug "15s" bash "$HARNESS/kernel.sh" debug config

check lint-checkpatch "1-2 min" bash "$HARNESS/lint.sh" checkpatch
check lint-sparse "20s; 3 min the first time" bash "$HARNESS/lint.sh" sparse
check lint-kerneldoc "2s" bash "$HARNESS/lint.sh" kerneldoc
check lint-originality "2s" bash "$HARNESS/lint.sh" originality
check lint-docs "3s" bash "$HARNESS/lint.sh" docs
# make mutations takes half an hour and runs nowhere else: that each of its
# texts still matches the file it mutates is checked here.
check mutations-stale "1s" python3 "$HARNESS/mutate.py" --stale
# The backport is made from the mainline series, never by hand: its
# patches must be what harness/backport.py derives today.
[ "$BASE" = 6.12 ] && check backport "3s; 2 min without 7.3's tree" python3 "$HARNESS/backport.py" --check
must build-debug "1-2 min; 13-30 min the first time" bash "$HARNESS/kernel.sh" debug build
must initramfs-debug "20s" bash "$HARNESS/initramfs.sh" debug
boot_ok=1
step boot-debug "9-12 min (KASAN and lockdep under TCG)" bash "$HARNESS/boot.sh" debug check || boot_ok=0

expect=()
grep -qx 'CONFIG_CGROUP_RDMA_KUNIT_TEST=y' "$BUILD/obj-debug/.config" && expect=(--expect-kunit)
python3 "$HARNESS/analyze.py" --console "$LOGS/console-debug.log" \
	--results "$LOGS/results-debug.log" --src "$SRC" "${expect[@]}" >"$LOGS/analyze.log" 2>&1 ||
	echo "COUNTS 0 1 0" >>"$LOGS/analyze.log"
grep -v '^COUNTS ' "$LOGS/analyze.log" | grep -E '^(kunit: [0-9]|kunit: FAIL|kunit: no|guest|splat|FAIL)' || true
read -r _ p f s < <(grep '^COUNTS ' "$LOGS/analyze.log" | tail -n1)
passed=$((passed + p)) failed=$((failed + f)) skipped=$((skipped + s))
if [ $boot_ok -eq 0 ]; then
	failed=$((failed + 1))
fi
if [ $f -gt 0 ] || [ $boot_ok -eq 0 ]; then
	say "---- last 40 lines of $LOGS/console-debug.log ----"
	tail -n 40 "$LOGS/console-debug.log" 2>/dev/null || true
	say "---- guest results: $LOGS/results-debug.log, analysis: $LOGS/analyze.log ----"
fi
finish
