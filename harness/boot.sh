#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Boot a built kernel with virtme-ng on the host's own root (TCG):
#   harness/boot.sh release|debug|kcsan check|fixes|kcsan|kunit|demo|shell [CMD]
# The guest runs harness/guest/init in the mode given (hmode=), or a shell
# (or CMD, from the repository's root, e.g. one kselftest: README.md).
# Console and results: build/BASE/logs/{console,results}-FLAVOUR.log (demo:
# shown, and saved to demo-console.log); killed after BOOT_TIMEOUT (900 s).
set -euo pipefail
. "$(dirname "$0")/lib.sh"

flavour=${1:-}
mode=${2:-check}
case "$flavour" in release | debug | kcsan) ;; *) die "usage: boot.sh release|debug|kcsan check|fixes|kcsan|kunit|demo|shell" ;; esac
OBJ=$BUILD/obj-$flavour
[ -f "$OBJ/arch/x86/boot/bzImage" ] || die "$OBJ has no kernel: run harness/kernel.sh $flavour"
[ -d "$BUILD/guest/bin" ] || [ "$mode" = kunit ] || die "no $BUILD/guest: run harness/guest.sh $flavour"
# guest CPUs; guest/tests/00-cpus.sh checks that the kernel brought them all up
CPUS=${CPUS:-2}
# root=/dev/root: Linux 7.3 mounts no 9p root without it.  cache=loose: the
# guest keeps what it read of the host's files (none changes while it
# runs): the guest starts its tests 50 s sooner, and they run up to 1.5x
# faster, than with virtme-ng's uncached root.
root="root=/dev/root rootflags=version=9p2000.L,trans=virtio,access=any,cache=loose"
vng=(vng --run "$OBJ" --disable-kvm --disable-microvm --force-9p --cpus "$CPUS" --memory 1G
	--append "$root oops=panic hmode=$mode htimeout=${TEST_TIMEOUT:-300} hcpus=$CPUS ${BOOT_APPEND:-}")
run=(timeout -k 10 "${BOOT_TIMEOUT:-900}" "${vng[@]}")
init="sh $HARNESS/guest/init $BUILD/guest $BUILD/selftests-$flavour"

cd "$REPO"
case "$mode" in
check | fixes | kcsan | kunit)
	rc=0
	"${run[@]}" --verbose --exec "$init" </dev/null >"$LOGS/results-$flavour.log" \
		2>"$LOGS/console-$flavour.log" || rc=$?
	[ $rc -ne 124 ] && [ $rc -ne 137 ] || say "boot: guest killed after ${BOOT_TIMEOUT:-900}s (BOOT_TIMEOUT)"
	exit $rc
	;;
demo) "${run[@]}" --exec "$init" </dev/null 2>&1 | tee "$LOGS/demo-console.log" ;;
shell) exec "${vng[@]}" ${3:+--exec "$3"} ;;
*) die "unknown mode $mode" ;;
esac
