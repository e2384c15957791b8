#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The concurrency tests (KUnit's concurrent workers, 50-stress, test_rdma)
# mean something only if the guest runs on more than one CPU. boot.sh passes
# the number of vCPUs it gave QEMU as hcpus=N; every one must be online.
# Without ACPI in the kernel config the guest silently brings up one CPU.

want=
for arg in $(cat /proc/cmdline); do
	case "$arg" in
	hcpus=*) want=${arg#hcpus=} ;;
	esac
done

echo "1..1"
online=$(cat /sys/devices/system/cpu/online)
n=$(grep -c '^processor' /proc/cpuinfo)
if [ -z "$want" ]; then
	echo "not ok 1 cpus online # hcpus= missing from the kernel command line"
	exit 1
elif [ "$n" -eq "$want" ] && [ "$want" -ge 2 ]; then
	echo "ok 1 cpus online: $n of $want (online $online)"
else
	echo "not ok 1 cpus online: $n of $want (online $online)"
	exit 1
fi
