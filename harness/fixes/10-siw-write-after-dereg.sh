#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Test of one fix of the series (make fixes-check):
# "RDMA/siw: Unpin a memory region's pages in process context"
#
# siw's receive path runs in softirq context (the socket's data_ready) and
# holds a reference to the memory of an MR for a tagged RDMA WRITE from
# its first DDP segment to its last.  When the owner deregisters the MR
# in between, that reference is the last one, and the last segment drops
# it in softirq context: siw_free_mem() then releases the umem there, and
# unpinning writable pages locks them (folio_lock(), might_sleep()):
# "BUG: sleeping function called from invalid context" with
# CONFIG_DEBUG_ATOMIC_SLEEP.  With the fix the release goes to a work
# item.  siw_write_peer is the remote peer itself, on a plain TCP socket
# (see harness/guest/src/siw_write_peer.c); its device is siw on a dummy
# netdev with an address of its own, both made here and removed again.
# The kernel log since the test began must have no splat.

NETDEV=siwwp0
DEV=siwwp
ADDR=10.211.0.1
PORT=18515
MARK="fix10: start $$"
TMP=${TMPDIR:-/tmp}/fix10.$$

. "$HLIB/tap.sh"
. "$HLIB/rdmacg.sh"

# shellcheck disable=SC2317 # called by the EXIT trap
cleanup() {
	rdma link delete "$DEV" 2>/dev/null
	ip link delete "$NETDEV" 2>/dev/null
	rm -rf "$TMP"
}
trap cleanup EXIT
mkdir -p "$TMP"

echo "TAP version 13"
echo "$MARK" >/dev/kmsg
if ! ip link add "$NETDEV" type dummy 2>/dev/null ||
   ! ip addr add "$ADDR/24" dev "$NETDEV" || ! ip link set "$NETDEV" up; then
	echo "1..0 # SKIP no dummy netdev (CONFIG_DUMMY)"
	exit 0
fi
if ! rdma link add "$DEV" type siw netdev "$NETDEV" 2>/dev/null; then
	echo "1..0 # SKIP no siw device on $NETDEV (CONFIG_RDMA_SIW)"
	exit 0
fi
echo "1..5"
timeout 60 siw_write_peer "$ADDR" "$PORT" >"$TMP/out" 2>&1
while read -r line; do
	case $line in
	1..4) ;;
	"ok "*) pass "${line#ok [0-9] }" ;;
	"not ok "*) fail "${line#not ok [0-9] }" ;;
	*) echo "$line" ;;
	esac
done <"$TMP/out"
while [ "$n" -lt 4 ]; do
	fail "siw_write_peer's check $((n + 1)) # it did not report it"
done
rdmacg_no_splat "$MARK" "$TMP/dmesg"
exit "$failed"
