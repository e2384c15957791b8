# SPDX-License-Identifier: GPL-2.0
# Helpers for the guest tests that check the rdma controller's counters,
# sourced (`. "$HLIB/rdmacg.sh"`) by the guest tests, which busybox
# sh runs; not a test itself.  Variables of the helpers are
# prefixed with their initials: the shell has no local variables.

# rdmacg_check_lines ROOT DEV FILE DEFAULT [REL=VALUE]...: every cgroup
# under ROOT (REL relative to it, "." for ROOT itself) has the line
# "DEV VALUE" in FILE, "DEV DEFAULT" where none is listed.  Prints a TAP
# diagnostic for each cgroup that does not; returns 1 if any.
rdmacg_check_lines() {
	cl_root=$1
	cl_dev=$2
	cl_file=$3
	cl_default=$4
	shift 4
	cl_bad=0
	for cl_d in $(find "$cl_root" -type d 2>/dev/null); do
		cl_rel=${cl_d#"$cl_root"}
		cl_rel=${cl_rel#/}
		[ -n "$cl_rel" ] || cl_rel=.
		cl_want=$cl_default
		for cl_spec in "$@"; do
			case "$cl_spec" in "$cl_rel"=*) cl_want=${cl_spec#"$cl_rel"=} ;; esac
		done
		cl_line=
		while read -r cl_l; do
			case "$cl_l" in "$cl_dev "*) cl_line=$cl_l ;; esac
		done <"$cl_d/$cl_file"
		if [ "$cl_line" != "$cl_dev $cl_want" ]; then
			echo "# $cl_rel/$cl_file: \"$cl_line\", want $cl_dev $cl_want"
			cl_bad=1
		fi
	done
	return $cl_bad
}

# rdmacg_check_current ROOT DEV [REL:HANDLES:OBJECTS]...: every cgroup
# under ROOT shows DEV in rdma.current with the listed counts,
# "hca_handle=0 hca_object=0" where none is listed (rdmacg_check_lines).
rdmacg_check_current() {
	cc_root=$1
	cc_dev=$2
	shift 2
	cc_n=$#
	for cc_spec in "$@"; do
		cc_v=${cc_spec#*:}
		set -- "$@" "${cc_spec%%:*}=hca_handle=${cc_v%:*} hca_object=${cc_v#*:}"
	done
	shift "$cc_n"
	rdmacg_check_lines "$cc_root" "$cc_dev" rdma.current \
		"hca_handle=0 hca_object=0" "$@"
}

# rdmacg_check_mr_mem ROOT DEV [REL=BYTES]...: every cgroup under ROOT
# shows DEV in rdma.mr_mem.current with the listed bytes, 0 where none is
# listed (rdmacg_check_lines).
rdmacg_check_mr_mem() {
	cm_root=$1
	cm_dev=$2
	shift 2
	rdmacg_check_lines "$cm_root" "$cm_dev" rdma.mr_mem.current 0 "$@"
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

# rdmacg_no_splat MARK FILE: the TAP result "kernel log: no splat" for the
# kernel log since the line MARK (which the test wrote to /dev/kmsg at its
# start), kept in FILE; a failure shows its suspicious lines (splat.ere).
rdmacg_no_splat() {
	dmesg | sed -n "/$1/,\$p" >"$2"
	if grep -E -f "$HLIB/splat.ere" "$2" >"$2.splat"; then
		fail "kernel log: no splat"
		head -n 40 "$2.splat" | diag
	else
		pass "kernel log: no splat"
	fi
}
