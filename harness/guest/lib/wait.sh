# SPDX-License-Identifier: GPL-2.0
# Waiting for a state, with a bound (never a fixed sleep), sourced.

# wait_for SECONDS CMD...: CMD every 0.1 s until it succeeds, or return 1.
wait_for() {
	wf_left=$(($1 * 10))
	shift
	until "$@"; do
		[ "$wf_left" -gt 0 ] || return 1
		wf_left=$((wf_left - 1))
		sleep 0.1
	done
}

# wait_hold FILE: at most 60 s, without forks, for verbs_worker's "hold:"
# line in FILE (then in hold_line).  FILE must not exist before the worker
# starts: an older one's line would do.
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

# nap SECONDS: sleep without a fork (a read timing out on the fifo $TMP/nap).
nap() {
	[ -p "$TMP/nap" ] || mkfifo "$TMP/nap"
	read -t "$1" _ <>"$TMP/nap"
}

# worker_stop: end the verbs_worker $worker (hold file $TMP/hold), if any.
worker_stop() {
	rm -f "$TMP/hold"
	[ -n "${worker:-}" ] && wait "$worker" 2>/dev/null
	worker=
}
