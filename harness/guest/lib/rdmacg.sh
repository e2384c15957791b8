# SPDX-License-Identifier: GPL-2.0
# Helpers for the guest tests that check the rdma controller's counters,
# sourced (". /lib/harness/rdmacg.sh") by the guest tests in /tests, which
# busybox sh runs; not a test itself.  Variables of the helpers are
# prefixed with their initials: the shell has no local variables.

# rdmacg_check_current ROOT DEV [REL:HANDLES:OBJECTS]...: every cgroup
# under ROOT (REL relative to it, "." for ROOT itself) shows DEV in
# rdma.current with the listed counts, "hca_handle=0 hca_object=0" where
# none is listed.  Prints a TAP diagnostic for each cgroup that does not;
# returns 1 if any.
rdmacg_check_current() {
	cc_root=$1
	cc_dev=$2
	shift 2
	cc_bad=0
	for cc_d in $(find "$cc_root" -type d 2>/dev/null); do
		cc_rel=${cc_d#"$cc_root"}
		cc_rel=${cc_rel#/}
		[ -n "$cc_rel" ] || cc_rel=.
		cc_want="hca_handle=0 hca_object=0"
		for cc_spec in "$@"; do
			case "$cc_spec" in
			"$cc_rel":*)
				cc_want=${cc_spec#"$cc_rel":}
				cc_want="hca_handle=${cc_want%:*} hca_object=${cc_want#*:}" ;;
			esac
		done
		cc_line=
		while read -r cc_l; do
			case "$cc_l" in "$cc_dev "*) cc_line=$cc_l ;; esac
		done <"$cc_d/rdma.current"
		if [ "$cc_line" != "$cc_dev $cc_want" ]; then
			echo "# $cc_rel/rdma.current: \"$cc_line\", want $cc_dev $cc_want"
			cc_bad=1
		fi
	done
	return $cc_bad
}

# rdmacg_check_mr_mem ROOT DEV [REL=BYTES]...: every cgroup under ROOT
# (REL relative to it, "." for ROOT itself) shows DEV in
# rdma.mr_mem.current with the listed bytes, 0 where none is listed.
# Prints a TAP diagnostic for each cgroup that does not; returns 1 if any.
rdmacg_check_mr_mem() {
	cm_root=$1
	cm_dev=$2
	shift 2
	cm_bad=0
	for cm_d in $(find "$cm_root" -type d 2>/dev/null); do
		cm_rel=${cm_d#"$cm_root"}
		cm_rel=${cm_rel#/}
		[ -n "$cm_rel" ] || cm_rel=.
		cm_want=0
		for cm_spec in "$@"; do
			case "$cm_spec" in "$cm_rel"=*) cm_want=${cm_spec#"$cm_rel"=} ;; esac
		done
		cm_line=
		while read -r cm_l; do
			case "$cm_l" in "$cm_dev "*) cm_line=$cm_l ;; esac
		done <"$cm_d/rdma.mr_mem.current"
		if [ "$cm_line" != "$cm_dev $cm_want" ]; then
			echo "# $cm_rel/rdma.mr_mem.current: \"$cm_line\", want $cm_dev $cm_want"
			cm_bad=1
		fi
	done
	return $cm_bad
}

# rdmacg_check ROOT DEV [SPEC]...: rdmacg_check_current with the specs
# REL:HANDLES:OBJECTS and rdmacg_check_mr_mem with the specs REL=BYTES,
# both always (the diagnostics of both); returns 1 if either fails.
rdmacg_check() {
	ck_root=$1
	ck_dev=$2
	shift 2
	ck_cur=
	ck_mr=
	for ck_s in "$@"; do
		case "$ck_s" in
		*=*) ck_mr="$ck_mr $ck_s" ;;
		*) ck_cur="$ck_cur $ck_s" ;;
		esac
	done
	ck_bad=0
	# shellcheck disable=SC2086 # one word per spec
	rdmacg_check_current "$ck_root" "$ck_dev" $ck_cur || ck_bad=1
	# shellcheck disable=SC2086
	rdmacg_check_mr_mem "$ck_root" "$ck_dev" $ck_mr || ck_bad=1
	return $ck_bad
}

# rdmacg_splats MARK FILE: writes the kernel log since the line MARK (which
# the test wrote to /dev/kmsg at its start) to FILE and its suspicious
# lines (WARNING, BUG, KASAN, lockdep, ...) to FILE.splat; returns 0 if
# there are any.
rdmacg_splats() {
	dmesg | sed -n "/$1/,\$p" >"$2"
	grep -E 'WARNING:|BUG:|Oops|KASAN|UBSAN|unreferenced object|general protection|possible (recursive|circular) locking|inconsistent lock state|suspicious RCU usage|list_(add|del) corruption|blocked for more than' \
		"$2" >"$2.splat"
}
