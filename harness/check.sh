#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# `make check`: dependencies, lints, the debug kernel and the guest's
# helpers, a boot under virtme-ng, and the verdict (analyze.py: KUnit, the
# guest tests' TAP, splats).  `make kcsan` (check.sh kcsan): the concurrent
# tests on the KCSAN kernel, no lints.  Last line "N passed, N failed, N
# skipped"; full logs in build/BASE/logs/.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

passed=0 failed=0 skipped=0
t_start=$(date +%s)

finish() {
	say "==> done in $(($(date +%s) - t_start))s; logs in $LOGS/"
	say "$passed passed, $failed failed, $skipped skipped"
	exit $((failed > 0))
}

# check NAME EXPECTED CMD...: a step that counts as one test; must: one
# without which nothing else can run.
check() { if step "$@"; then passed=$((passed + 1)); else failed=$((failed + 1)); fi; }
must() { step "$@" || { failed=$((failed + 1)); finish; }; }

# The backport's controller files are the main base's but for
# kzalloc_obj(), which 6.12 lacks.
backport_drift() {
	local f bad=0
	for f in kernel/cgroup/rdma.c include/linux/cgroup_rdma.h \
		kernel/cgroup/tests/rdma_kunit.c drivers/infiniband/core/cgroup.c \
		tools/testing/selftests/cgroup/test_rdma.c; do
		sed -e 's/kzalloc_obj(\([^(),]*\))/kzalloc(sizeof(\1), GFP_KERNEL)/g' \
			-e 's/kzalloc_obj(\([^(),]*\), /kzalloc(sizeof(\1), /g' \
			-e 's/kmalloc_objs(\([^(),]*\), \([^(),]*\), /kmalloc_array(\2, sizeof(\1), /g' \
			"$REPO/$f" |
			diff -u --label "$MAIN_BASE: $f" --label "$BASE: $f" - "$SRC/$f" || bad=1
	done
	return $bad
}

FLAVOUR=${1:-debug}
if [ "$FLAVOUR" = kcsan ]; then
	# KCSAN slows everything several times over
	export TEST_TIMEOUT=${TEST_TIMEOUT:-900} BOOT_TIMEOUT=${BOOT_TIMEOUT:-2700}
	mode=kcsan boot_expect="1.5-2 min"
else
	# the guest tests and the fixes' reproducers: 6 min alone, twice
	# that with other work on the cores
	export BOOT_TIMEOUT=${BOOT_TIMEOUT:-1800}
	mode=check boot_expect="6-12 min (KASAN and lockdep under TCG)"
fi

must deps "1s; 5-10 min on a fresh machine" bash "$HARNESS/deps.sh"
take_lock
must tree "5s; 1 min the first time" bash "$HARNESS/tree.sh"
if [ "$FLAVOUR" = debug ]; then
	must config-debug "15s" bash "$HARNESS/kernel.sh" debug config
	check lint-checkpatch "1-2 min" bash "$HARNESS/lint.sh" checkpatch
	check lint-sparse "20s; 3 min the first time" bash "$HARNESS/lint.sh" sparse
	check lint-kerneldoc "2s" bash "$HARNESS/lint.sh" kerneldoc
	check lint-originality "2s" bash "$HARNESS/lint.sh" originality
	check lint-docs "3s" bash "$HARNESS/lint.sh" docs
	check lint-recipes "2s" bash "$HARNESS/recipes.sh"
	# make mutations takes half an hour and runs nowhere else: that each
	# of its texts still matches the file it mutates is checked here.
	check mutations-stale "1s" python3 "$HARNESS/mutate.py" --stale
	[ "$BASE" = "$MAIN_BASE" ] || check backport-drift "1s" backport_drift
fi
must "build-$FLAVOUR" "1-3 min; 13-35 min the first time" bash "$HARNESS/kernel.sh" "$FLAVOUR" build
must "guest-$FLAVOUR" "30s" bash "$HARNESS/guest.sh" "$FLAVOUR"
boot_ok=1
step "boot-$FLAVOUR" "$boot_expect" bash "$HARNESS/boot.sh" "$FLAVOUR" "$mode" || boot_ok=0

console=$LOGS/console-$FLAVOUR.log analysis=$LOGS/analyze-$FLAVOUR.log
expect=()
{ [ "$FLAVOUR" = kcsan ] || grep -qx 'CONFIG_CGROUP_RDMA_KUNIT_TEST=y' "$BUILD/obj-debug/.config"; } &&
	expect=(--expect-kunit)
python3 "$HARNESS/analyze.py" --console "$console" \
	--results "$LOGS/results-$FLAVOUR.log" --src "$SRC" "${expect[@]}" >"$analysis" 2>&1 ||
	echo "COUNTS 0 1 0" >>"$analysis"
grep -v '^COUNTS ' "$analysis" | grep -E '^(kunit: [0-9]|kunit: FAIL|kunit: no|guest|splat|FAIL)' || true
read -r _ p f s < <(grep '^COUNTS ' "$analysis" | tail -n1)

# A KCSAN report in the controller, its ib_core glue or ib_umem fails the
# run; one between other subsystems' functions only is listed, not counted.
if [ "$FLAVOUR" = kcsan ]; then
	ours='rdmacg_|ib_rdmacg_|ib_umem_|__ib_umem_'
	all=$(grep -c 'BUG: KCSAN:' "$console" || true)
	mine=$(grep 'BUG: KCSAN:' "$console" | grep -cE "$ours" || true)
	splats=$(grep -c '^splat: ' "$analysis" || true)
	say "kcsan: $all reports, $mine in our code"
	grep -h 'BUG: KCSAN:' "$console" | sed 's/^\[[^]]*\] //' | sort | uniq -c || true
	if [ "$all" -gt 0 ] && [ "$mine" -eq 0 ] && [ "$splats" -eq "$all" ]; then
		say "kcsan: every report is between other subsystems' functions; not counted as a failure"
		f=$((f - 1))
	fi
fi
passed=$((passed + p)) failed=$((failed + f)) skipped=$((skipped + s))
[ $boot_ok -eq 1 ] || failed=$((failed + 1))
if [ "$f" -gt 0 ] || [ $boot_ok -eq 0 ]; then
	say "---- last 40 lines of $console ----"
	tail -n 40 "$console" 2>/dev/null || true
	say "---- guest results: $LOGS/results-$FLAVOUR.log, analysis: $analysis ----"
fi
finish
