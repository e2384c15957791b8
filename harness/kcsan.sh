#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# `make kcsan`: the controller's concurrent tests under KCSAN, the kernel's
# data race detector. Builds the kcsan flavour (tinyconfig + release.config
# + kcsan.config, in build/obj-kcsan), boots it with 2 vCPUs: the KUnit
# suite cgroup_rdma runs built in (threads charging one pool among its
# cases), then /init in hmode=kcsan runs 00-cpus, 50-stress and test_rdma.
# Every KCSAN report is a splat and fails the run, as in make check.
# The last line is "N passed, N failed, N skipped".
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

must() {
	if ! step "$@"; then
		failed=$((failed + 1))
		finish
	fi
}

# KCSAN slows everything down several times: more time per guest test and
# for the whole guest than make check gives.
export TEST_TIMEOUT=${TEST_TIMEOUT:-900} BOOT_TIMEOUT=${BOOT_TIMEOUT:-2700}

must deps "1s; 5-10 min on a fresh machine" bash "$HARNESS/deps.sh"
take_lock
must tree "5s; 1 min the first time" bash "$HARNESS/tree.sh"
must build-kcsan "1-3 min; 20-35 min the first time" bash "$HARNESS/kernel.sh" kcsan build
must initramfs-kcsan "20s" bash "$HARNESS/initramfs.sh" kcsan
boot_ok=1
step boot-kcsan "1.5-2 min" bash "$HARNESS/boot.sh" kcsan kcsan || boot_ok=0

python3 "$HARNESS/analyze.py" --console "$LOGS/console-kcsan.log" \
	--results "$LOGS/results-kcsan.log" --src "$SRC" --expect-kunit >"$LOGS/analyze-kcsan.log" 2>&1 ||
	echo "COUNTS 0 1 0" >>"$LOGS/analyze-kcsan.log"
grep -v '^COUNTS ' "$LOGS/analyze-kcsan.log" | grep -E '^(kunit: [0-9]|kunit: FAIL|kunit: no|guest|splat|FAIL)' || true
read -r _ p f s < <(grep '^COUNTS ' "$LOGS/analyze-kcsan.log" | tail -n1)

# A KCSAN report names the two functions that raced. One in the
# controller, its ib_core glue or ib_umem fails the run like any splat;
# one between functions of other subsystems only (the network stack, siw,
# rxe) is listed and not held against the run: it is not ours to fix here.
ours='rdmacg_|ib_rdmacg_|ib_umem_|__ib_umem_'
all=$(grep -c 'BUG: KCSAN:' "$LOGS/console-kcsan.log" || true)
mine=$(grep 'BUG: KCSAN:' "$LOGS/console-kcsan.log" | grep -cE "$ours" || true)
splats=$(grep -c '^splat: ' "$LOGS/analyze-kcsan.log" || true)
say "kcsan: $all reports, $mine in our code"
grep -h 'BUG: KCSAN:' "$LOGS/console-kcsan.log" | sed 's/^\[[^]]*\] //' | sort | uniq -c || true
if [ "$all" -gt 0 ] && [ "$mine" -eq 0 ] && [ "$splats" -eq "$all" ]; then
	say "kcsan: every report is between other subsystems' functions; not counted as a failure"
	f=$((f - 1))
fi
passed=$((passed + p)) failed=$((failed + f)) skipped=$((skipped + s))
[ $boot_ok -eq 1 ] || failed=$((failed + 1))
finish
