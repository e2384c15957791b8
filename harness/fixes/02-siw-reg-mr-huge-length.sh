#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Test of one fix of the series (make fixes-check):
# "RDMA/siw: Check the range with ib_umem_get() before sizing the page list"
# (on 7.3: "RDMA/siw: Pin the range before sizing the page chunks")
#
# siw_umem_get() sized its array of page chunks from the length user space
# asked for before ib_umem_get() checked the range: registering 2 TiB made
# kcalloc() ask for 8 MiB, beyond the page allocator's largest order, and
# __alloc_pages() warned. With the fix the pin fails first (the buffer is
# one page, the next one unmapped: EFAULT) and nothing is allocated for
# the rest. reg_len registers the length; the kernel log since the test
# began must have no splat. 64 GiB (a 256 KiB array, allocated and freed
# before the fix) and a length whose end wraps around are refused too.
# Environment: DEV (default siw0).

DEV=${DEV:-siw0}
TMP=${TMPDIR:-/tmp}/fix02.$$
MARK="fix02: start $$"

. "$HLIB/tap.sh"
. "$HLIB/rdmacg.sh"

# shellcheck disable=SC2317 # called by the EXIT trap
cleanup() { rm -rf "$TMP"; }
trap cleanup EXIT
mkdir -p "$TMP"

echo "TAP version 13"
echo "1..4"
echo "$MARK" >/dev/kmsg

if [ ! -d "/sys/class/infiniband/$DEV" ]; then
	for t in "2T" "64G" "wrap"; do
		fail "ibv_reg_mr of $t on $DEV # no device $DEV"
	done
	fail "kernel log: no splat # no device"
	exit 1
fi

# reg_len LENGTH: the registration must fail, and cleanly
refused() {
	out=$(reg_len "$DEV" "$1" 2>&1)
	case "$out" in
	"reg_len: $1=EFAULT" | "reg_len: $1=EINVAL" | "reg_len: $1=ENOMEM")
		pass "ibv_reg_mr of $1 bytes over one page refused ($out)" ;;
	*)
		fail "ibv_reg_mr of $1 bytes over one page refused"
		echo "$out" | diag ;;
	esac
}

refused 2T
refused 64G
refused 18446744073709551615

rdmacg_no_splat "$MARK" "$TMP/dmesg"
exit "$failed"
