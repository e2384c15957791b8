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

# worker_stop: end the verbs_worker started in the background as $worker
# (its hold file is $TMP/hold) and wait for it; nothing if there is none.
worker_stop() {
	rm -f "$TMP/hold"
	[ -n "${worker:-}" ] && wait "$worker" 2>/dev/null
	worker=
}
