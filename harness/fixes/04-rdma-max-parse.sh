#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Test of one fix of the series (make fixes-check):
# "cgroup/rdma: Refuse prefixes of "max", empty values and trailing garbage"
# Moot on 7.3: match_token() (5bbb3453e8f3) refuses these prefixes and garbage
#
# Before the fix rdma.max takes "m", "ma" and "" as max, and "5abc" and
# "08" as 5 and 0.  After it these writes fail with EINVAL and change
# nothing, while "max", decimal, "0x10" and "010" set what they always
# did, and "+5" and "-1" stay refused.  Lines are compared word by word:
# whether they end with a space is the trailing-space fix's business.
# Environment: DEV (default siw0).

DEV=${DEV:-siw0}
CGROOT=/sys/fs/cgroup
CG=$CGROOT/fix04
START="$DEV hca_handle=7 hca_object=9"

. "$HLIB/tap.sh"

# shellcheck disable=SC2317 # called by the EXIT trap
cleanup() { rmdir "$CG" 2>/dev/null; }
trap cleanup EXIT

# DEV's line of rdma.max, its words separated by single spaces.
line() { grep "^$DEV " "$CG/rdma.max" | xargs; }

BAD="hca_handle=m hca_handle=ma hca_handle= hca_object=5abc hca_object=08 hca_object=+5 hca_handle=-1"
# value written -> line expected, one pair per line
GOOD="hca_handle=max|$DEV hca_handle=max hca_object=9
hca_object=12|$DEV hca_handle=7 hca_object=12
hca_object=0x10|$DEV hca_handle=7 hca_object=16
hca_handle=010|$DEV hca_handle=8 hca_object=9
hca_handle=max hca_object=max|$DEV hca_handle=max hca_object=max"

echo "TAP version 13"
PLAN=13
echo "1..$PLAN"

# 1: a cgroup with a limit
limit() {
	rmdir "$CG" 2>/dev/null
	mkdir "$CG" && [ "$(cgtool write "$CG/rdma.max" "$START")" = ok ] &&
		[ "$(line)" = "$START" ] || { diag <"$CG/rdma.max"; return 1; }
}
setup "rdma.max \"$START\"" limit

# 2..8: refused with EINVAL, rdma.max unchanged
for v in $BAD; do
	what="\"$DEV $v\" refused with EINVAL, rdma.max unchanged"
	out=$(cgtool write "$CG/rdma.max" "$DEV $v")
	after=$(line)
	# on a failure, back to the start for the next one
	check "$what" "write EINVAL|$START" "$out|$after" ||
		cgtool write "$CG/rdma.max" "$START" >/dev/null
done

# 9..13: accepted, with the value they always had
echo "$GOOD" | {
	while IFS='|' read -r v want; do
		what="\"$DEV $v\" sets \"$want\""
		cgtool write "$CG/rdma.max" "$START" >/dev/null
		out=$(cgtool write "$CG/rdma.max" "$DEV $v")
		after=$(line)
		check "$what" "ok|$want" "$out|$after"
	done
	exit "$failed"
} || failed=1

exit "$failed"
