#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The other entry points of the Makefile:
#   run.sh demo    build the release kernel and initramfs, boot, run the demo
#   run.sh shell   the same guest with an interactive shell
#   run.sh patch   write and verify the patch series (build/patches/)
#   run.sh kernel  build the release and debug kernels
#   run.sh clean   remove build output, keeping the pristine tree and ccache
set -euo pipefail
. "$(dirname "$0")/lib.sh"

release_guest() {
	step tree "5s; 1 min the first time" bash "$HARNESS/tree.sh"
	step build-release "30s; 5 min the first time" bash "$HARNESS/kernel.sh" release build
	step initramfs-release "20s" bash "$HARNESS/initramfs.sh" release
}

case "${1:-}" in
demo)
	take_lock
	release_guest
	say "==> booting the release kernel (TCG, about 1-2 minutes); console saved to $LOGS/demo-console.log"
	bash "$HARNESS/boot.sh" release demo
	;;
shell)
	take_lock
	release_guest
	# QEMU has read the kernel and initramfs when it starts; an interactive
	# session must not hold the lock that builds and checks wait for.
	exec 9>&-
	unset HARNESS_LOCKED
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
	step build-release "30s; 5 min the first time" bash "$HARNESS/kernel.sh" release build
	step build-debug "1-2 min; 15 min the first time" bash "$HARNESS/kernel.sh" debug build
	;;
clean)
	take_lock
	rm -rf "$BUILD"/obj-* "$BUILD"/cfg-* "$BUILD"/src "$BUILD"/src.manifest "$BUILD"/initramfs-* \
		"$BUILD"/selftests-* "$BUILD"/patches "$BUILD"/patchwork "$BUILD"/logs
	say "clean: kept $BUILD/pristine and the ccache in $CCACHE_DIR"
	;;
*) die "usage: run.sh demo|shell|patch|kernel|clean" ;;
esac
