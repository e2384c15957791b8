#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The steps of the rework, one "COMMIT SUBJECT" line each, in order: every
# patch that harness/backport/6.12/FOLD lists (folded into one patch on
# 6.12), then the patch that carries them, as commits of build/BASE/patchwork
# (make patch, or series.sh work). Used by build.sh steps.
#   harness/bench/rework-steps.sh
set -euo pipefail
. "$(dirname "$0")/../lib.sh"
WORK=$BUILD/patchwork
FOLD=$HARNESS/backport/6.12/FOLD
[ -d "$WORK/.git" ] || die "no $WORK: run make patch first"
mapfile -t subjects < <(grep -v '^#' "$FOLD" | sed '/^$/d')
take=0 n=0
while read -r c s; do
	if printf '%s\n' "${subjects[@]}" | grep -qxF "$s"; then
		take=1
	elif [ $take = 1 ]; then
		take=2
	else
		continue
	fi
	echo "$c $s"
	n=$((n + 1))
	[ $take = 2 ] && break
done < <(git -C "$WORK" log --reverse --format='%h %s' "$BASE_TAG..HEAD")
[ $n -gt 1 ] || die "no rework steps found in $WORK"
