#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Boot a built kernel and its initramfs under QEMU (TCG by default):
#   harness/boot.sh release|debug|kcsan check|fixes|kcsan|demo|shell
# fixes: as check, but the guest runs only the fixes' reproducers (harness/fixes/).
# kcsan: as check, but the guest runs only the concurrent tests (make kcsan).
# check: no terminal; the console goes to build/logs/console-FLAVOUR.log and
#        the guest's test results (ttyS1) to build/logs/results-FLAVOUR.log.
# demo:  the console is shown and saved to build/logs/demo-console.log.
# shell: interactive serial console (Ctrl-a x quits QEMU).
# check and demo are killed after BOOT_TIMEOUT seconds (default 900; check.sh
# sets 1800 for make check's guest, run.sh
# sets it to DEMO_TIMEOUT, default 300, for the demo).
# ACCEL=kvm is an opt-in; KVM is known to hang on these machines.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

flavour=${1:-}
mode=${2:-check}
case "$flavour" in release | debug | kcsan) ;; *) die "usage: boot.sh release|debug|kcsan check|fixes|kcsan|demo|shell" ;; esac
OBJ=$BUILD/obj-$flavour
kernel=$OBJ/arch/x86/boot/bzImage
initrd=$BUILD/initramfs-$flavour.cpio.gz
[ -f "$kernel" ] || die "$kernel missing: run harness/kernel.sh $flavour"
[ -f "$initrd" ] || die "$initrd missing: run harness/initramfs.sh $flavour"
timeout_s=${BOOT_TIMEOUT:-900}
# per-test limit inside the guest
test_timeout=${TEST_TIMEOUT:-300}

# guest CPUs; guest/tests/00-cpus.sh checks that the kernel brought them all up
CPUS=${CPUS:-2}
append="console=ttyS0 panic=-1 oops=panic hmode=$mode htimeout=$test_timeout hcpus=$CPUS ${BOOT_APPEND:-}"
qemu=(qemu-system-x86_64 -accel "${ACCEL:-tcg,thread=multi}" -m 1G -smp "$CPUS" -no-reboot -nic none
	-kernel "$kernel" -initrd "$initrd")

case "$mode" in
check | fixes | kcsan)
	console=$LOGS/console-$flavour.log
	results=$LOGS/results-$flavour.log
	rm -f "$console" "$results"
	rc=0
	timeout -k 10 "$timeout_s" "${qemu[@]}" -append "$append" -display none -monitor none \
		-serial "file:$console" -serial "file:$results" </dev/null || rc=$?
	if [ $rc -eq 124 ] || [ $rc -eq 137 ]; then
		say "boot: guest killed after ${timeout_s}s (BOOT_TIMEOUT)"
	fi
	exit $rc
	;;
demo)
	log=$LOGS/demo-console.log
	rc=0
	timeout -k 10 "$timeout_s" "${qemu[@]}" -append "$append quiet" -display none -monitor none \
		-serial stdio -serial null </dev/null | tee "$log" || rc=$?
	exit $rc
	;;
shell)
	exec "${qemu[@]}" -append "$append" -nographic
	;;
*) die "unknown mode $mode" ;;
esac
