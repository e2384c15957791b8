# SPDX-License-Identifier: GPL-2.0
# Waiting for a state, sourced (`. "$HLIB/wait.sh"`) by the demo and
# the guest tests; not a test itself.

# wait_for SECONDS CMD...: run CMD every 0.1 s until it succeeds; return 1
# if it still fails after about SECONDS.  For states that a process reaches
# at its own pace: never sleep a fixed time and hope.
wait_for() {
	wf_left=$(($1 * 10))
	shift
	until "$@"; do
		[ "$wf_left" -gt 0 ] || return 1
		wf_left=$((wf_left - 1))
		sleep 0.1
	done
}

# wait_hold FILE: wait (at most 60 s) for the "hold:" line that
# verbs_worker writes to FILE once it holds what it got; the line is left
# in hold_line.  Without a fork per try: they cost much under TCG.  FILE
# must not exist before the worker starts: an older one's line would do.
wait_hold() {
	wh_left=600
	while [ "$wh_left" -gt 0 ]; do
		while read -r hold_line; do
			case "$hold_line" in hold:*) return 0 ;; esac
		done 2>/dev/null <"$1"
		wh_left=$((wh_left - 1))
		nap 0.1
	done
	return 1
}

# nap SECONDS: sleep without a fork (a read that times out on a fifo no
# one writes, in $TMP).
nap() {
	[ -p "$TMP/nap" ] || mkfifo "$TMP/nap"
	read -t "$1" _ <>"$TMP/nap"
}

# worker_stop: end the verbs_worker started in the background as $worker
# (its hold file is $TMP/hold) and wait for it; nothing if there is none.
worker_stop() {
	rm -f "$TMP/hold"
	[ -n "${worker:-}" ] && wait "$worker" 2>/dev/null
	worker=
}
