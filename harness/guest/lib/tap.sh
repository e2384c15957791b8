# SPDX-License-Identifier: GPL-2.0
# TAP helpers of the guest tests (busybox sh), sourced: the count in n,
# failed=1 on a failure for the caller's `exit "$failed"`.

n=0
failed=0
# pass NAME: "ok N NAME".
pass() { n=$((n + 1)); echo "ok $n $1"; }
# fail NAME: "not ok N NAME", and the test's exit status becomes 1.
# shellcheck disable=SC2034 # failed is read by the sourcing test
fail() { n=$((n + 1)); echo "not ok $n $1"; failed=1; }
# result OK NAME: pass NAME if OK is 1, else fail it.
result() { if [ "$1" = 1 ]; then pass "$2"; else fail "$2"; fi; }
# skip NAME REASON: "ok N NAME # SKIP REASON".
skip() { n=$((n + 1)); echo "ok $n $1 # SKIP $2"; }
# diag: standard input as TAP diagnostics, each line prefixed with "# ".
diag() { sed 's/^/# /'; }
# check NAME EXPECTED GOT: pass if equal, else fail, show both, return 1.
check() {
	[ "$3" = "$2" ] && pass "$1" && return 0
	fail "$1"
	printf 'want: %s\ngot:  %s\n' "$2" "$3" | diag
	return 1
}
# try NAME CMD...: pass if CMD succeeds, else fail and return 1.
try() {
	tr_what=$1
	shift
	"$@" && pass "$tr_what" && return 0
	fail "$tr_what"
	return 1
}
# rdma_ready DEV: DEV and the rdma controller are there, enabled for the
# root's children; or print why not.
rdma_ready() {
	if [ ! -d "/sys/class/infiniband/$1" ]; then
		echo "no device $1"
		return 1
	fi
	if ! grep -qw rdma /sys/fs/cgroup/cgroup.controllers 2>/dev/null; then
		echo "no rdma controller"
		return 1
	fi
	grep -qw rdma /sys/fs/cgroup/cgroup.subtree_control ||
		echo +rdma >/sys/fs/cgroup/cgroup.subtree_control ||
		{ echo "cannot enable rdma in the root's cgroup.subtree_control"; return 1; }
}
# setup WHAT CMD...: "setup: WHAT" passes if rdma_ready and CMD succeed;
# else the rest of the plan (PLAN) is skipped and the test exits 1.
setup() {
	su_what=$1
	shift
	if ! su_why=$(rdma_ready "$DEV"); then
		fail "setup: $su_what # $su_why"
	elif "$@"; then
		pass "setup: $su_what"
		return 0
	else
		fail "setup: $su_what"
	fi
	while [ "$n" -lt "$PLAN" ]; do skip "not run" "setup failed"; done
	exit 1
}
