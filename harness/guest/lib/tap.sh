# SPDX-License-Identifier: GPL-2.0
# TAP helpers, sourced (`. "$HLIB/tap.sh"`) by the guest tests,
# which busybox sh runs; not a test itself.  They count the tests
# in n and set failed to 1 on a failure, for the caller's `exit "$failed"`.

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
# check NAME EXPECTED GOT: pass if the two strings are equal, else fail
# and show both as diagnostics.
check() {
	if [ "$3" = "$2" ]; then
		pass "$1"
	else
		fail "$1"
		printf 'want: %s\ngot:  %s\n' "$2" "$3" | diag
	fi
}
# rdma_ready DEV: whether DEV and the rdma controller are there, with the
# controller enabled for the root's children; if not, prints why.
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
# setup WHAT CMD...: the test "setup: WHAT", which passes if DEV and the
# rdma controller are there (rdma_ready) and CMD succeeds.  If it fails,
# the rest of the plan (PLAN tests) is skipped and the test exits 1.
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
