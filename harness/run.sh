#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The other entry points of the Makefile:
#   run.sh demo    build the release kernel and the guest, boot, run the demo,
#                  and judge it from the guest's closing line
#   run.sh shell   the same guest with an interactive shell
#   run.sh patch   write and verify the patch series (build/patches/)
#   run.sh kernel  build the release and debug kernels
#   run.sh clean   remove build output, keeping the pristine tree and ccache
set -euo pipefail
. "$(dirname "$0")/lib.sh"

release_guest() {
	step tree "5s; 1 min the first time" bash "$HARNESS/tree.sh"
	step build-release "30s; 15 min the first time" bash "$HARNESS/kernel.sh" release build
	step guest-release "30s" bash "$HARNESS/guest.sh" release
}

# demo_verdict LOG QEMU_STATUS TIMEOUT: judge the demo from its console log.
# It passed only if the guest printed its closing line "demo: N passed,
# 0 failed" with N its plan ("1..N": a demo that skipped some checks, or
# counted wrong, does not pass) and the console shows no kernel splat (the
# guest checks dmesg too: the console is quiet); otherwise say what went
# wrong and return 1.
demo_verdict() {
	local log=$1 rc=$2 t=$3 text verdict last plan
	local splat
	splat="^\[ *[0-9.]+\] .*($(cat "$HARNESS/guest/lib/splat.ere"))"
	text=$(tr -d '\r' <"$log" 2>/dev/null || true)
	verdict=$(grep -E '^demo: [0-9]+ passed, [0-9]+ failed$' <<<"$text" | tail -n1 || true)
	last=$(grep -E '^=== ' <<<"$text" | tail -n1 || true)
	plan=$(sed -n 's/^1\.\.\([0-9]*\)$/\1/p' <<<"$text" | head -n1)
	say ""
	if grep -qE "$splat" <<<"$text"; then
		say "make demo: FAILED: kernel splat in $log:"
		grep -E "$splat" <<<"$text" | head -n5
		return 1
	fi
	if [ -z "$verdict" ]; then
		if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then
			say "make demo: FAILED: the guest did not finish within ${t}s (DEMO_TIMEOUT) and was killed"
		else
			say "make demo: FAILED: the guest ended (QEMU exit status $rc) without the demo's closing line"
		fi
		say "make demo: last step reached: ${last:-none (the demo did not start)}"
		return 1
	fi
	if [ "$verdict" = "demo: ${plan:-?} passed, 0 failed" ]; then
		say "make demo: passed ($verdict)"
		return 0
	fi
	if [ "$verdict" != "${verdict%, 0 failed}" ]; then
		say "make demo: FAILED ($verdict): its plan was ${plan:-not printed}"
		return 1
	fi
	say "make demo: FAILED ($verdict):"
	grep -E '^not ok ' <<<"$text"
	return 1
}

case "${1:-}" in
demo)
	take_lock
	release_guest
	t=${DEMO_TIMEOUT:-300}
	say "==> booting the release kernel (TCG, about 1-2 minutes, at most ${t}s); console saved to $LOGS/demo-console.log"
	rc=0
	BOOT_TIMEOUT=$t bash "$HARNESS/boot.sh" release demo || rc=$?
	demo_verdict "$LOGS/demo-console.log" "$rc" "$t"
	;;
shell)
	take_lock
	release_guest
	# An interactive session must not hold the lock that builds and checks wait for.
	exec 9>&-
	unset HARNESS_LOCKED
	say "==> the guest's root is this machine's; make a device with: rdma link add siw0 type siw netdev lo"
	bash "$HARNESS/boot.sh" release shell
	;;
patch)
	take_lock
	step tree "5s; 1 min the first time" bash "$HARNESS/tree.sh"
	bash "$HARNESS/patch.sh"
	;;
kernel)
	take_lock
	step tree "5s; 1 min the first time" bash "$HARNESS/tree.sh"
	step build-release "30s; 15 min the first time" bash "$HARNESS/kernel.sh" release build
	step build-debug "1-2 min; 13-30 min the first time" bash "$HARNESS/kernel.sh" debug build
	;;
clean)
	take_lock
	rm -rf "$BUILD"/obj-* "$BUILD"/cfg-* "$BUILD"/src "$BUILD"/src.manifest "$BUILD"/guest \
		"$BUILD"/selftests-* "$BUILD"/patches "$BUILD"/patchwork "$BUILD"/logs
	say "clean: kept $BUILD/pristine and the ccache in $CCACHE_DIR"
	;;
*) die "usage: run.sh demo|shell|patch|kernel|clean" ;;
esac
