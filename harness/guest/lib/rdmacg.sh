# SPDX-License-Identifier: GPL-2.0
# The controller's counters, for the guest tests (busybox sh), sourced;
# variables prefixed with the helper's initials (no locals in sh).

# rdmacg_check ROOT DEV [SPEC]...: DEV's rdma.current and rdma.mr_mem.current
# in every cgroup under ROOT are as REL:HANDLES:OBJECTS and REL=BYTES say
# (REL "." for ROOT), zero elsewhere; a diagnostic for each that is not.
rdmacg_check() {
	ck_root=$1 ck_dev=$2
	shift 2
	ck_bad=0
	for ck_d in $(find "$ck_root" -type d 2>/dev/null); do
		ck_rel=${ck_d#"$ck_root"}
		ck_rel=${ck_rel#/}
		[ -n "$ck_rel" ] || ck_rel=.
		ck_cur="hca_handle=0 hca_object=0" ck_mem=0
		for ck_s in "$@"; do
			case "$ck_s" in
			"$ck_rel":*) ck_v=${ck_s#*:}; ck_cur="hca_handle=${ck_v%:*} hca_object=${ck_v#*:}" ;;
			"$ck_rel"=*) ck_mem=${ck_s#*=} ;;
			esac
		done
		rdmacg_line "$ck_d/rdma.current" "$ck_cur" || ck_bad=1
		rdmacg_line "$ck_d/rdma.mr_mem.current" "$ck_mem" || ck_bad=1
	done
	return $ck_bad
}

# rdmacg_line FILE VALUE: FILE has "$ck_dev VALUE", or a diagnostic.
rdmacg_line() {
	cl_line=
	while read -r cl_l; do
		case "$cl_l" in "$ck_dev "*) cl_line=$cl_l ;; esac
	done <"$1"
	[ "$cl_line" = "$ck_dev $2" ] && return 0
	echo "# $ck_rel/${1##*/}: \"$cl_line\", want $ck_dev $2"
	return 1
}

# rdmacg_no_splat MARK FILE: the TAP result "kernel log: no splat" since
# the line MARK (the test's own, in /dev/kmsg), the log kept in FILE.
rdmacg_no_splat() {
	dmesg | sed -n "/$1/,\$p" >"$2"
	if grep -E -f "$HLIB/splat.ere" "$2" >"$2.splat"; then
		fail "kernel log: no splat"
		head -n 40 "$2.splat" | diag
	else
		pass "kernel log: no splat"
	fi
}
