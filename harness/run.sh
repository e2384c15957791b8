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

# demo_verdict LOG QEMU_STATUS TIMEOUT: the demo passed if its last line
# is "demo: N passed, 0 failed" with N its plan ("1..N") and the console
# shows no kernel splat; else say what went wrong and return 1.
demo_verdict() {
	local text plan verdict splat
	splat="^\[ *[0-9.]+\] .*($(cat "$HARNESS/guest/lib/splat.ere"))"
	text=$(tr -d '\r' <"$1" 2>/dev/null || true)
	plan=$(sed -n 's/^1\.\.\([0-9]*\)$/\1/p' <<<"$text" | head -n1)
	verdict=$(grep -E '^demo: [0-9]+ passed, [0-9]+ failed$' <<<"$text" | tail -n1 || true)
	say ""
	if grep -E "$splat" <<<"$text" | head -n5 | grep .; then
		say "make demo: FAILED: kernel splat in $1 (above)"
	elif [ -z "$verdict" ]; then
		[ "$2" -ne 124 ] && [ "$2" -ne 137 ] || say "make demo: killed after ${3}s (DEMO_TIMEOUT)"
		say "make demo: FAILED: no closing line (QEMU exit status $2); last step reached:" \
			"$(grep -E '^=== ' <<<"$text" | tail -n1 || echo none)"
	elif [ "$verdict" != "demo: ${plan:-?} passed, 0 failed" ]; then
		say "make demo: FAILED ($verdict, plan ${plan:-not printed}):"
		grep -E '^not ok ' <<<"$text" || true
	else
		say "make demo: passed ($verdict)"
		return 0
	fi
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
