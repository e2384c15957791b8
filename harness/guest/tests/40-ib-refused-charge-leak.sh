#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Regression test for issue 8: a refused rdma cgroup charge must not leak.
#
# In a cgroup limited to "siw0 hca_handle=1 hca_object=2", refuse_loop forks
# a few hundred processes that each hold one context, get a second context
# refused (through libibverbs and through a raw UVERBS_METHOD_GET_CONTEXT
# ioctl), get GET_CONTEXT refused on a file that already has a context, get
# objects beyond the limit refused, and exit.  Afterwards the charges must be
# back to zero and kmemleak must find nothing new.  Before the fix in
# patch 2 of the series ("RDMA/core: Drop the restrack task reference when
# GET_CONTEXT fails") every refused GET_CONTEXT
# ioctl left a task_struct reference behind, which kmemleak reports as an
# unreferenced task_struct once the process is gone.
#
# Environment: DEV (default siw0), REFUSE_ITERATIONS (default 150),
# REFUSE_STEPS (default orepc: every refusal, see refuse_loop -s).

DEV=${DEV:-siw0}
ITER=${REFUSE_ITERATIONS:-150}
STEPS=${REFUSE_STEPS:-orepc}
CGROOT=/sys/fs/cgroup
CG=$CGROOT/ib-refused-charge-leak
KML=/sys/kernel/debug/kmemleak
TMP=${TMPDIR:-/tmp}/40-ib-refused-charge-leak.$$
MIN_AGE=6	# kmemleak reports nothing younger than 5 s

. /lib/harness/tap.sh
. /lib/harness/kmemleak.sh

# shellcheck disable=SC2317 # called by the EXIT trap
cleanup() {
	rmdir "$CG" 2>/dev/null
	rm -rf "$TMP"
}
trap cleanup EXIT
mkdir -p "$TMP"

echo "TAP version 13"
echo "1..4"

# 1: the limit is in place.
setup_ok=0
if [ ! -d "/sys/class/infiniband/$DEV" ]; then
	fail "setup: rdma.max \"$DEV hca_handle=1 hca_object=2\" # no device $DEV"
elif ! grep -qw rdma "$CGROOT/cgroup.controllers" 2>/dev/null; then
	fail "setup: rdma.max \"$DEV hca_handle=1 hca_object=2\" # no rdma controller in $CGROOT"
else
	grep -qw rdma "$CGROOT/cgroup.subtree_control" ||
		echo +rdma >"$CGROOT/cgroup.subtree_control"
	rmdir "$CG" 2>/dev/null
	if mkdir "$CG" &&
	   echo "$DEV hca_handle=1 hca_object=2" >"$CG/rdma.max" &&
	   grep "^$DEV " "$CG/rdma.max" | grep -q "hca_handle=1 hca_object=2"; then
		setup_ok=1
		pass "setup: rdma.max \"$DEV hca_handle=1 hca_object=2\""
	else
		fail "setup: rdma.max \"$DEV hca_handle=1 hca_object=2\""
		diag <"$CG/rdma.max" 2>&1
	fi
fi

# Baseline of what kmemleak already suspects, so that only what this test
# adds is held against it (and nothing is hidden from the harness's own final
# kmemleak check, as "echo clear" would).
have_kmemleak=0
if [ -w "$KML" ] && kmemleak_scan; then
	have_kmemleak=1
	kmemleak_addrs >"$TMP/before"
	if [ -s "$TMP/before" ]; then
		echo "# kmemleak already suspects $(wc -l <"$TMP/before") objects before this test; they are not counted here"
	fi
fi

# 2: every refusal is EAGAIN (EINVAL for a second context on one file).
if [ "$setup_ok" = 1 ]; then
	if refuse_loop -d "$DEV" -n "$ITER" -s "$STEPS" -g "$CG" >"$TMP/loop" 2>&1; then
		pass "$ITER processes: second context and third object refused with EAGAIN"
	else
		fail "$ITER processes: second context and third object refused with EAGAIN"
	fi
	head -n 40 "$TMP/loop" | diag
else
	skip "$ITER processes: second context and third object refused with EAGAIN" "setup failed"
fi

# 3: every charge was given back once the processes are gone.
if [ "$setup_ok" = 1 ]; then
	cur=
	for _ in 1 2 3 4 5; do
		cur=$(grep "^$DEV " "$CG/rdma.current")
		case "$cur" in
		"" | *"hca_handle=0 hca_object=0"*) break ;;
		esac
		sleep 1
	done
	case "$cur" in
	"" | *"hca_handle=0 hca_object=0"*)
		pass "rdma.current back to hca_handle=0 hca_object=0" ;;
	*)
		fail "rdma.current back to hca_handle=0 hca_object=0"
		echo "rdma.current: $cur" | diag ;;
	esac
else
	skip "rdma.current back to hca_handle=0 hca_object=0" "setup failed"
fi

# 4: nothing leaked.
if [ "$have_kmemleak" != 1 ]; then
	skip "kmemleak: no new unreferenced objects" "$KML not available"
elif [ "$setup_ok" != 1 ]; then
	skip "kmemleak: no new unreferenced objects" "setup failed"
else
	kmemleak_tap "$TMP/before" "$TMP/new"
fi

exit "$failed"
