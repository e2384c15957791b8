#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Test of one fix of the series (make fixes-check):
# "RDMA/siw: Release the umem of an MR that got no memory object"
#
# siw_reg_user_mr() pins the pages (siw_umem_get(), through ib_umem_get(),
# which adds them to the process's pinned_vm), allocates the MR, then
# siw_mr_add_mem().  When siw_mr_add_mem() fails, the error path before the
# fix frees the MR but not the umem: the pages stay pinned (VmPin of the
# process does not go back to 0) and the umem is never freed (kmemleak).
#
# failslab aimed at siw_mr_add_mem() (its range in /proc/kallsyms) and
# fail-nth armed with 1 just before ibv_reg_mr() fail exactly its kzalloc
# of the siw_mem.  Only what pristine upstream has is used.
# Environment: DEV (default siw0).

DEV=${DEV:-siw0}
KML=/sys/kernel/debug/kmemleak
TMP=${TMPDIR:-/tmp}/fix01.$$
MIN_AGE=6	# kmemleak reports nothing younger than 5 s

. "$HLIB/tap.sh"
. "$HLIB/kmemleak.sh"
. "$HLIB/wait.sh"
. "$HLIB/failslab.sh"

worker=
# shellcheck disable=SC2317 # called by the EXIT trap
cleanup() {
	worker_stop
	failslab_restore
	rm -rf "$TMP"
}
trap cleanup EXIT
mkdir -p "$TMP"

echo "TAP version 13"
PLAN=4
echo "1..$PLAN"

# 1: failslab aimed at siw_mr_add_mem(); why not as a diagnostic
aim() {
	if [ ! -w "$FS/require-start" ] || [ ! -e /proc/self/fail-nth ]; then
		echo "# no failslab stacktrace filter or no fail-nth (CONFIG_FAILSLAB, CONFIG_FAULT_INJECTION_DEBUG_FS, CONFIG_FAULT_INJECTION_STACKTRACE_FILTER)"
	elif ! range=$(kallsyms_range '^siw_mr_add_mem$'); then
		echo "# no siw_mr_add_mem in /proc/kallsyms"
	else
		failslab_save
		# shellcheck disable=SC2086
		failslab_aim $range && return 0
		echo "# configuring $FS failed"
	fi
	return 1
}
setup "failslab aimed at siw_mr_add_mem()" aim

kmemleak_start

# 2: a context, a PD, then one MR (one page) whose registration gets the
# first allocation under siw_mr_add_mem() failed; the worker then holds
# what it has until $TMP/hold is gone.
touch "$TMP/hold"
verbs_worker -d "$DEV" hold -c 1 -p 1 -m 1 -F 1 -f mr -w "$TMP/hold" -T 120 \
	>"$TMP/out" 2>&1 &
worker=$!
if ! wait_hold "$TMP/out"; then
	fail "ibv_reg_mr fails with ENOMEM when siw_mr_add_mem() fails"
	echo "the worker did not report within 60 s:" | diag
	diag <"$TMP/out"
	while [ "$n" -lt "$PLAN" ]; do skip "not run" "no worker"; done
	exit 1
fi
case "$hold_line" in
*" ctx_ok=1 ctx_err=none pd_ok=1 pd_err=none "*" mr_ok=0 mr_err=ENOMEM "*" injected=1")
	pass "ibv_reg_mr fails with ENOMEM when siw_mr_add_mem() fails" ;;
*)
	fail "ibv_reg_mr fails with ENOMEM when siw_mr_add_mem() fails"
	echo "want ctx_ok=1 pd_ok=1 mr_ok=0 mr_err=ENOMEM injected=1, got: $hold_line" | diag ;;
esac

# 3: the pages of the failed MR are unpinned: the worker, which holds no MR,
# has nothing pinned.  Before the fix they stay pinned (VmPin: 4 kB).
pin=$(awk '$1 == "VmPin:" { print $2 " " $3 }' "/proc/$worker/status")
check "VmPin 0 kB after the failed ibv_reg_mr (pinned_vm of the worker)" "0 kB" "$pin"

worker_stop

# 4: nothing leaked once the worker is gone (before the fix: the siw_umem,
# its page chunk array and the ib_umem with its scatterlist).
kmemleak_end fail

exit "$failed"
