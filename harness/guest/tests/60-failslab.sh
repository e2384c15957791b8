#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Fault injection into the rdma controller's allocations.  failslab's
# stacktrace filter aims at rdma.c's functions (their range in
# /proc/kallsyms): its pools (kzalloc) and their xarray's nodes (xa_insert
# retries a failed one once).  /proc/thread-self/fail-nth, armed with N
# before one operation, fails that task's N-th such allocation; N = 1, 2, ...
# until the operation goes through untouched fails each allocation in turn:
#   - an rdma.max write needing a new pool fails with ENOMEM, file unchanged;
#   - a context, object or MR whose charge needs new pools (fresh nested
#     cgroups) fails with ENOMEM, every rdma.current and rdma.mr_mem.current
#     unchanged; the step without a fault is charged exactly;
#   - then failslab aimed at ib_uverbs_reg_mr(): whatever allocation of the
#     registration fails, the counters are what the held objects cost.
# Then, injection off, everything works; no leak (kmemleak), no splat.
# Environment: DEV (default siw0).

DEV=${DEV:-siw0}
CGROOT=/sys/fs/cgroup
FI=$CGROOT/failslab
KML=/sys/kernel/debug/kmemleak
TMP=${TMPDIR:-/tmp}/60-failslab.$$
MIN_AGE=6	# kmemleak reports nothing younger than 5 s
MAX_NTH=12	# no operation here makes that many allocations in rdma.c
MAX_NTH_REG_MR=60	# nor ib_uverbs_reg_mr() (siw: some 10)

. "$HLIB/tap.sh"
. "$HLIB/kmemleak.sh"
. "$HLIB/rdmacg.sh"
. "$HLIB/failslab.sh"
. "$HLIB/wait.sh"

rxe_added=0
# shellcheck disable=SC2317 # called by the EXIT trap
cleanup() {
	[ -e "$TMP/hold" ] && rm -f "$TMP/hold" && wait
	failslab_restore
	[ -d "$FI" ] && find "$FI" -depth -type d -exec rmdir {} \; 2>/dev/null
	[ "$rxe_added" = 1 ] && rdma link del rxe0 2>/dev/null
	rm -rf "$TMP"
}
trap cleanup EXIT
mkdir -p "$TMP"

enable_rdma() { echo +rdma >"$1/cgroup.subtree_control"; }

PLAN=10
echo "TAP version 13"
echo "1..$PLAN"
echo "60-failslab: start" >/dev/kmsg

injected_total=0

# 1: setup; rstart and rend: rdma.c's range (hex: too large for the
# shell); why it failed as a diagnostic
fs_setup() {
	if [ ! -w "$FS/probability" ] || [ ! -e /proc/self/fail-nth ]; then
		echo "# no failslab in debugfs or no /proc/self/fail-nth (CONFIG_FAILSLAB, CONFIG_FAULT_INJECTION_DEBUG_FS)"
	elif [ ! -e "$FS/require-start" ]; then
		echo "# no $FS/require-start (CONFIG_FAULT_INJECTION_STACKTRACE_FILTER)"
	elif ! range=$(kallsyms_range '^(__)?rdmacg_'); then
		echo "# no rdmacg_ functions in /proc/kallsyms"
	else
		failslab_save
		# shellcheck disable=SC2086
		set -- $range
		rstart=0x$1 rend=0x$2
		find "$FI" -depth -type d -exec rmdir {} \; 2>/dev/null
		failslab_aim "$1" "$2" && mkdir "$FI" && enable_rdma "$FI" && return 0
		echo "# configuring failslab or creating $FI failed"
	fi
	return 1
}
setup "failslab limited to rdma.c's functions (rdmacg_*, __rdmacg_*)" fs_setup
echo "# rdma.c: [$rstart, $rend)"

# What kmemleak reports at the start of this test (kmemleak_start scans
# first) is not held against it.
kmemleak_start

# 2: rdma.max writes that need a new pool.
ok2=1 inj=0 absorbed=0
limit="$DEV hca_handle=7 hca_object=9"
for nth in $(seq "$MAX_NTH"); do
	cg=$FI/w$nth
	mkdir "$cg" || { ok2=0; break; }
	before=$(cat "$cg/rdma.max")
	out=$(cgtool write -F "$nth" "$cg/rdma.max" "$limit")
	after=$(cat "$cg/rdma.max")
	case "$out" in
	"write ENOMEM injected=1")
		inj=$((inj + 1))
		[ "$after" = "$before" ] ||
			{ echo "# nth=$nth: ENOMEM but rdma.max changed: \"$before\" -> \"$after\""; ok2=0; }
		;;
	"ok injected="[01])
		# injected=1: a fault that a retry absorbed (none expected)
		[ "$after" = "$limit" ] || { echo "# nth=$nth: $out, but rdma.max is \"$after\""; ok2=0; }
		[ "$out" = "ok injected=0" ] && break
		absorbed=$((absorbed + 1))
		;;
	*)
		echo "# nth=$nth: unexpected result \"$out\" (rdma.max \"$after\")"
		ok2=0
		break
		;;
	esac
done
# The pool exists now: rewriting the limit allocates nothing.
out=$(cgtool write -F 1 "$cg/rdma.max" "$DEV hca_handle=1 hca_object=max")
[ "$out" = "ok injected=0" ] || { echo "# rewriting a limit of an existing pool: \"$out\""; ok2=0; }
injected_total=$((injected_total + inj + absorbed))
[ "$inj" -ge 1 ] || ok2=0
result "$ok2" "rdma.max write in a fresh cgroup: $inj faults failing it with ENOMEM, rdma.max unchanged; $absorbed absorbed; then written, and a rewrite allocates nothing"
find "$FI" -mindepth 1 -depth -type d -exec rmdir {} \;

# sweep_charge PREFIX REFUSED HELD START: the fail-nth sweep of one charge
# in fresh $FI/PREFIXn/leaf, n = 1, 2, ... (at most SW_MAX, or MAX_NTH);
# START DIR NTH runs verbs_worker hold in the background, output in
# $TMP/out.  REFUSED and HELD: case patterns of its "hold:" line when the
# charge failed and when it was made, then "|" and the rdmacg_check specs
# that must hold ("P" stands for PREFIXn).  Sets sw_ok (every step as
# expected, >= 2 failed, the last without a fault), sw_inj, sw_absorbed
# and sw_errs (the failed steps' mr_err=).
sweep_charge() {
	sw_ok=1 sw_inj=0 sw_absorbed=0 sw_errs='' sw_done=0
	sw_refused=${2%%|*} sw_held=${3%%|*}
	for sw_nth in $(seq "${SW_MAX:-$MAX_NTH}"); do
		sw_p=$1$sw_nth
		mkdir "$FI/$sw_p" && enable_rdma "$FI/$sw_p" &&
			mkdir "$FI/$sw_p/leaf" || { sw_ok=0; break; }
		touch "$TMP/hold"
		rm -f "$TMP/out"  # the last step's: wait_hold must not read it
		"$4" "$FI/$sw_p" "$sw_nth"
		if ! wait_hold "$TMP/out"; then
			echo "# nth=$sw_nth: the worker did not report"
			diag <"$TMP/out"
			sw_ok=0
			rm -f "$TMP/hold"
			wait
			break
		fi
		sw_out=$hold_line  # the line wait_hold read: complete
		sw_done=1
		# shellcheck disable=SC2254 # the patterns are the caller's
		case "$sw_out" in
		$sw_refused)
			sw_inj=$((sw_inj + 1))
			sw_done=0
			sw_e=${sw_out#* mr_err=}
			sw_errs="$sw_errs ${sw_e%% *}"
			sweep_check "${2#*|}" "after the failure" ;;
		$sw_held)
			sweep_check "${3#*|}" "charge held"
			case "$sw_out" in
			*injected=1) sw_done=0; sw_absorbed=$((sw_absorbed + 1)) ;;
			esac ;;
		*)
			echo "# nth=$sw_nth: unexpected: $sw_out"
			sw_ok=0 ;;
		esac
		rm -f "$TMP/hold"
		wait
		rdmacg_check "$FI" "$DEV" || { echo "# nth=$sw_nth: after exit"; sw_ok=0; }
		[ "$sw_done" = 1 ] && break
	done
	[ "$sw_done" = 1 ] || { echo "# no step without a fault up to nth=$sw_nth"; sw_ok=0; }
	[ "$sw_inj" -ge 2 ] || sw_ok=0
	injected_total=$((injected_total + sw_inj + sw_absorbed))
	find "$FI" -mindepth 1 -depth -type d -exec rmdir {} \;
}

# sweep_check SPECS WHEN: rdmacg_check of SPECS ("P" is $sw_p), or clear sw_ok.
sweep_check() {
	set -- "$2" $1
	sc_when=$1
	shift
	sc_specs=
	for sc_s in "$@"; do
		case "$sc_s" in P*) sc_s=$sw_p${sc_s#P} ;; esac
		sc_specs="$sc_specs $sc_s"
	done
	# shellcheck disable=SC2086 # one word per spec
	rdmacg_check "$FI" "$DEV" $sc_specs ||
		{ echo "# nth=$sw_nth: $sc_when"; sw_ok=0; }
}

# 3: a context whose charge creates the pools of leaf and parent ($FI has
# one since 2: pools are created with their missing ancestors).
start_ctx() {
	verbs_worker -d "$DEV" -g "$1/leaf" hold -c 1 -F "$2" -f ctx \
		-w "$TMP/hold" -T 60 >"$TMP/out" 2>&1 &
}
sweep_charge c \
	'* ctx_ok=0 ctx_err=ENOMEM * injected=1|' \
	'* ctx_ok=1 ctx_err=none * injected=[01]|P/leaf:1:0 P:1:0 .:1:0' \
	start_ctx
result "$sw_ok" "context charge in fresh cgroups: $sw_inj faults failing it with ENOMEM (want >= 2: leaf, parent), rdma.current unchanged everywhere; $sw_absorbed absorbed; then charged at 3 levels"

# 4: a PD created after the task moved to fresh cgroups: the context stays
# charged to base, the PD's charge creates the pools of the new cgroups.
start_pd() {
	verbs_worker -d "$DEV" -g "$FI/base" hold -c 1 -p 1 -M "$1/leaf" \
		-F "$2" -f obj -w "$TMP/hold" -T 60 >"$TMP/out" 2>&1 &
}
sw_ok=0 sw_inj=0 sw_absorbed=0
mkdir "$FI/base" &&
	sweep_charge o \
		'* ctx_ok=1 ctx_err=none pd_ok=0 pd_err=ENOMEM * injected=1|base:1:0 .:1:0' \
		'* ctx_ok=1 ctx_err=none pd_ok=1 pd_err=none * injected=[01]|base:1:0 P/leaf:0:1 P:0:1 .:1:1' \
		start_pd
result "$sw_ok" "PD charge after migrating to fresh cgroups: $sw_inj faults failing it with ENOMEM (want >= 2: leaf, parent), rdma.current unchanged everywhere; $sw_absorbed absorbed; then charged exactly"

# 5: an MR registered after the task moved to fresh cgroups: the context,
# the PD and a first MR (4096 bytes at offset 100: 8192) stay charged to
# base; the second MR's hca_object charge creates the pools of the new
# cgroups, and its mr_mem goes with it.
# shellcheck disable=SC2317 # called by sweep_charge
start_mr() {
	verbs_worker -d "$DEV" -g "$FI/base" hold -c 1 -p 1 -E 1 -b 4096 -O 100 \
		-M "$1/leaf" -m 1 -F "$2" -f mr -w "$TMP/hold" -T 60 >"$TMP/out" 2>&1 &
}
sw_ok=0 sw_inj=0 sw_absorbed=0
mkdir "$FI/base" &&
	sweep_charge m \
		'* ctx_ok=1 ctx_err=none pd_ok=1 pd_err=none * mr_ok=1 mr_err=ENOMEM mr_bytes=8192 injected=1|base:1:2 .:1:2 base=8192 .=8192' \
		'* ctx_ok=1 ctx_err=none pd_ok=1 pd_err=none * mr_ok=2 mr_err=none mr_bytes=16384 injected=[01]|base:1:2 P/leaf:0:1 P:0:1 .:1:3 base=8192 P/leaf=8192 P=8192 .=16384' \
		start_mr
result "$sw_ok" "MR registration after migrating to fresh cgroups: $sw_inj faults failing it with ENOMEM (want >= 2: leaf, parent), rdma.current and rdma.mr_mem.current unchanged everywhere; $sw_absorbed absorbed; then charged exactly (8192 bytes)"

# 6: every allocation of the MR registration path failed in turn: failslab
# aimed at ib_uverbs_reg_mr() instead of rdma.c.  The worker holds a
# context, a PD and a first MR (10000 bytes at offset 4000: 16384) in
# P/leaf, then registers the second one with the fault armed; whatever
# fails (the uobject before the charge, the driver or the umem after it),
# the counters are exactly what the context, the PD and the first MR cost.
reg_why=
if ! rr=$(kallsyms_range '^ib_uverbs_reg_mr$'); then
	reg_why="no ib_uverbs_reg_mr in /proc/kallsyms"
fi
if [ -n "$reg_why" ]; then
	skip "MR registration path: every allocation under ib_uverbs_reg_mr() failed in turn, charges exact" "$reg_why"
else
	# shellcheck disable=SC2086
	set -- $rr
	fs_set require-start "0x$1" && fs_set require-end "0x$2"
	echo "# failing the allocations under ib_uverbs_reg_mr [0x$1, 0x$2)"
	# shellcheck disable=SC2317 # called by sweep_charge
	start_reg() {
		verbs_worker -d "$DEV" -g "$1/leaf" hold -c 1 -p 1 -E 1 -b 10000 -O 4000 \
			-m 1 -F "$2" -f mr -w "$TMP/hold" -T 60 >"$TMP/out" 2>&1 &
	}
	SW_MAX=$MAX_NTH_REG_MR
	sweep_charge r \
		'* ctx_ok=1 ctx_err=none pd_ok=1 pd_err=none * mr_ok=1 mr_err=E* mr_bytes=16384 injected=1|P/leaf:1:2 P:1:2 .:1:2 P/leaf=16384 P=16384 .=16384' \
		'* ctx_ok=1 ctx_err=none pd_ok=1 pd_err=none * mr_ok=2 mr_err=none mr_bytes=32768 injected=[01]|P/leaf:1:3 P:1:3 .:1:3 P/leaf=32768 P=32768 .=32768' \
		start_reg
	SW_MAX=
	fs_set require-start "$rstart" && fs_set require-end "$rend"
	# the errno of each failed registration, counted
	reg_errs=$(echo "$sw_errs" | tr ' ' '\n' | grep . | sort | uniq -c | awk '{ printf "%s%s x%s", s, $2, $1; s = ", " }')
	result "$sw_ok" "MR registration path: $sw_inj allocations under ib_uverbs_reg_mr() failed in turn (${reg_errs:-none}), rdma.current and rdma.mr_mem.current exactly what the held objects and MR cost at every level after each; $sw_absorbed absorbed; then charged exactly (16384 bytes more)"
fi

# A second device, for the checks after injection.
rdma link add rxe0 type rxe netdev lo >/dev/null 2>&1 && rxe_added=1

# 7: injection off: limits, contexts and objects work in fresh cgroups.
failslab_restore
ok7=1
mkdir "$FI/after" && enable_rdma "$FI/after" && mkdir "$FI/after/leaf" || ok7=0
out=$(cgtool write "$FI/after/rdma.max" "$DEV hca_handle=2 hca_object=4")
[ "$out" = ok ] || { echo "# rdma.max write: $out"; ok7=0; }
touch "$TMP/hold"
rm -f "$TMP/out"
verbs_worker -d "$DEV" -g "$FI/after/leaf" hold -c 3 -p 2 -q 2 -m 1 \
	-w "$TMP/hold" -T 60 >"$TMP/out" 2>&1 &
if wait_hold "$TMP/out"; then
	echo "# $hold_line"
	case "$hold_line" in
	*" ctx_ok=2 ctx_err=EAGAIN pd_ok=2 pd_err=none cq_ok=2 cq_err=none mr_ok=0 mr_err=EAGAIN "*) ;;
	*) ok7=0 ;;
	esac
	rdmacg_check "$FI" "$DEV" "after:2:4" "after/leaf:2:4" ".:2:4" || ok7=0
	if [ -d /sys/class/infiniband/rxe0 ]; then
		rdmacg_check "$FI" rxe0 || ok7=0
	fi
else
	ok7=0
	diag <"$TMP/out"
fi
rm -f "$TMP/hold"
wait
result "$ok7" "injection off: limit written, 2 contexts and 4 objects charged up to the limit, then EAGAIN"

# 8: nothing is charged any more.
ok=0
rdmacg_check "$FI" "$DEV" && { [ ! -d /sys/class/infiniband/rxe0 ] || rdmacg_check "$FI" rxe0; } && ok=1
result "$ok" "every rdma.current and rdma.mr_mem.current under $FI is 0 once the workers are gone"
[ "$rxe_added" = 1 ] && rdma link del rxe0 && rxe_added=0

# 9: kmemleak
find "$FI" -mindepth 1 -depth -type d -exec rmdir {} \;
kmemleak_end skip

# 10: the kernel log since the start of this test has no splat (the
# injected faults print "FAULT_INJECTION: forcing a failure").
rdmacg_no_splat "60-failslab: start" "$TMP/dmesg"
echo "$(grep -c 'FAULT_INJECTION: forcing a failure' "$TMP/dmesg") injected-fault notices" | diag

echo "# figures: $injected_total faults injected in rdma.c allocations"
exit "$failed"
