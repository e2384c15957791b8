# SPDX-License-Identifier: GPL-2.0
# runc helpers, sourced (`. "$HLIB/runc.sh"`) by the demo and the
# guest tests; not a test itself.
#
# The containers' root is $GUEST/ctr/rootfs, made by harness/guest.sh:
# busybox-static and verbs_probe with libibverbs and the siw and rxe
# providers, run with `runc run --no-pivot`.
#
# RUNTIME: the OCI runtime that runc_start and runc_cleanup run, runc
# unless set; crun (84-crun.sh) takes the same `run --no-pivot --bundle`
# and `delete --force`.

# uverbs_dev DEV: "NAME MAJOR MINOR" of the uverbs character device of
# RDMA device DEV, e.g. "uverbs1 231 193"; fails if there is none.
uverbs_dev() {
	for ud_u in /sys/class/infiniband_verbs/uverbs*; do
		[ "$(cat "$ud_u/ibdev" 2>/dev/null)" = "$1" ] || continue
		echo "${ud_u##*/} $(tr ':' ' ' <"$ud_u/dev")"
		return 0
	done
	return 1
}

# probe_summary FILE: the outcomes in verbs_probe's output FILE on one
# line, e.g. "ibv_open_device=ok ibv_alloc_pd=EAGAIN".
probe_summary() {
	awk '$1 == "verbs_probe:" && ($3 == "ok" || $3 == "refused:") {
		r = $3 == "ok" ? "ok" : $NF
		gsub(/[()]/, "", r)
		printf "%s%s=%s", sep, $2, r
		sep = " "
	}' "$1"
}

# runc_bundle DIR DEV HANDLES OBJECTS CGROUP ARG...: write DIR/config.json,
# an OCI config that runs ARG... (no quotes or backslashes in them) as root
# in new mount, PID and UTS namespaces, in cgroup CGROUP (relative to
# /sys/fs/cgroup, with a leading /), with the uverbs node of RDMA device
# DEV and linux.resources.rdma {DEV: HANDLES hcaHandles, OBJECTS
# hcaObjects}, or no linux.resources.rdma if HANDLES is "-".  With
# RB_UNIFIED set, also linux.resources.unified with its value as the
# members of the object, e.g. RB_UNIFIED='"rdma.mr_mem.max": "rxe0 64K"'.
# Fails if DEV has no uverbs node.
runc_bundle() {
	rb_dir=$1 rb_dev=$2 rb_handles=$3 rb_objects=$4 rb_cg=$5
	shift 5
	rb_uverbs=$(uverbs_dev "$rb_dev") || return 1
	read -r rb_node rb_major rb_minor <<EOF
$rb_uverbs
EOF
	rb_args=
	for rb_a in "$@"; do
		rb_args="$rb_args${rb_args:+, }\"$rb_a\""
	done
	rb_res=
	[ "$rb_handles" != - ] &&
		rb_res="\"rdma\": { \"$rb_dev\": { \"hcaHandles\": $rb_handles, \"hcaObjects\": $rb_objects } }"
	[ -n "${RB_UNIFIED:-}" ] &&
		rb_res="$rb_res${rb_res:+, }\"unified\": { $RB_UNIFIED }"
	mkdir -p "$rb_dir"
	cat >"$rb_dir/config.json" <<JSON
{
	"ociVersion": "1.0.2",
	"process": {
		"terminal": false,
		"user": { "uid": 0, "gid": 0 },
		"args": [ $rb_args ],
		"env": [ "PATH=/bin" ],
		"cwd": "/",
		"noNewPrivileges": true
	},
	"root": { "path": "$GUEST/ctr/rootfs", "readonly": true },
	"hostname": "ctr",
	"mounts": [
		{ "destination": "/proc", "type": "proc", "source": "proc" },
		{ "destination": "/dev", "type": "tmpfs", "source": "tmpfs",
		  "options": [ "nosuid", "mode=755" ] },
		{ "destination": "/sys", "type": "sysfs", "source": "sysfs",
		  "options": [ "nosuid", "noexec", "nodev", "ro" ] }
	],
	"linux": {
		"cgroupsPath": "$rb_cg",
		"namespaces": [ { "type": "mount" }, { "type": "pid" }, { "type": "uts" } ],
		"devices": [
			{ "path": "/dev/infiniband/$rb_node", "type": "c", "major": $rb_major, "minor": $rb_minor,
			  "fileMode": 438, "uid": 0, "gid": 0 }
		],
		"resources": {
			"devices": [
				{ "allow": false, "access": "rwm" },
				{ "allow": true, "type": "c", "major": $rb_major, "minor": $rb_minor, "access": "rw" }
			]${rb_res:+,
			$rb_res}
		}
	}
}
JSON
}

# runc_stat FIELD DEV FILE: the entry of DEV in list FIELD (rdma_limit or
# rdma_current) of the JSON that runc_stats wrote to FILE, e.g.
# {"device":"rxe0","hca_handles":1,"hca_objects":2}.
runc_stat() {
	grep -o "\"$1\":\[[^]]*\]" "$3" | grep -o "{\"device\":\"$2\"[^}]*}"
}

# runc_entries FIELD FILE: how many devices list FIELD of FILE has.
runc_entries() {
	grep -o "\"$1\":\[[^]]*\]" "$2" | grep -o '{"device"' | wc -l
}

# runc_start BUNDLE CTR OUT: run container CTR of BUNDLE with $RUNTIME in
# the background (runc_pid), its output in OUT, its standard input a fifo
# held open on file descriptor 3: closing 3 ends verbs_probe's wait.
# Returns 0 once verbs_probe in the container holds what it got, non-zero
# if it did not get there within 60 s or the runtime exited first.
runc_start() {
	rm -f "$3.stdin"
	mkfifo "$3.stdin"
	timeout 120 "${RUNTIME:-runc}" run --no-pivot --bundle "$1" "$2" <"$3.stdin" >"$3" 2>&1 &
	runc_pid=$!
	exec 3>"$3.stdin"
	wait_for 60 runc_started "$3"
	grep -q '^verbs_probe: holding' "$3"
}

# runc_started OUT: whether verbs_probe holds, or the runtime (runc_pid)
# has exited: gone, or a zombie until runc_stop waits for it.
runc_started() {
	grep -q '^verbs_probe: holding' "$1" && return 0
	rs_state=$(cut -d' ' -f3 "/proc/$runc_pid/stat" 2>/dev/null)
	[ -z "$rs_state" ] || [ "$rs_state" = Z ]
}

# runc_stop: close the container's stdin and wait for the runtime;
# returns its exit status.
runc_stop() {
	exec 3>&-
	wait "$runc_pid"
	rs_rc=$?
	runc_pid=
	return $rs_rc
}

# runc_cleanup CTR CG CONTROLLERS [PARENT]: after a test, whatever
# happened: stop the container, delete it and its cgroup CG (and the
# cgroup PARENT, if given, that CG was made in), and disable in the root's
# subtree_control the controllers enabled since (runc enables every
# available one, crun those it knows, a test itself rdma) that were not in
# CONTROLLERS, the root's list before the test.
runc_cleanup() {
	exec 3>&-
	[ -n "${runc_pid:-}" ] && wait "$runc_pid"
	runc_pid=
	"${RUNTIME:-runc}" delete --force "$1" 2>/dev/null
	[ -d "$2" ] && rmdir "$2"
	[ -n "${4:-}" ] && [ -d "$4" ] && rmdir "$4"
	for rc_c in $(cat /sys/fs/cgroup/cgroup.subtree_control); do
		echo " $3 " | grep -q " $rc_c " ||
			echo "-$rc_c" >/sys/fs/cgroup/cgroup.subtree_control
	done
}

# ctr_start NAME WHAT HANDLES OBJECTS CGROUP ARG...: the bundle $TMP/NAME
# for DEV (runc_bundle, with RB_UNIFIED as it is set) and its container CTR
# running ARG... (runc_start, output in $TMP/NAME.out) until verbs_probe
# holds what it got.  Passes WHAT; if the container does not get there,
# fails it, skips the rest of the plan (PLAN) and exits.  Needs tap.sh.
ctr_start() {
	cs_dir=$TMP/$1 cs_what=$2 cs_handles=$3 cs_objects=$4 cs_cg=$5
	shift 5
	cs_why=
	if ! runc_bundle "$cs_dir" "$DEV" "$cs_handles" "$cs_objects" "$cs_cg" "$@"; then
		cs_why="no uverbs node for $DEV"
	elif ! runc_start "$cs_dir" "$CTR" "$cs_dir.out"; then
		cs_why="verbs_probe in the container did not reach its wait (see the output below)"
	fi
	if [ -z "$cs_why" ]; then
		pass "$cs_what"
		diag <"$cs_dir.out"
		return 0
	fi
	fail "$cs_what # $cs_why"
	[ -f "$cs_dir.out" ] && diag <"$cs_dir.out"
	while [ "$n" -lt "$PLAN" ]; do skip "not run" "a container did not start"; done
	exit 1
}

# ctr_stop STATUS: close the container's stdin; check that the runtime
# exits with verbs_probe's STATUS and removes the container's cgroup CG.
ctr_stop() {
	runc_stop
	cs_rc=$?
	check "stdin closed: the container exits with verbs_probe's status $1, ${RUNTIME:-runc} removes its cgroup" \
		"$1 gone" "$cs_rc $([ -d "$CG" ] && echo still there || echo gone)"
}

# unified_mr_checks RUNTIME OUT: the four checks, while it holds, of a
# container in cgroup CG whose linux.resources.unified is
#   "rdma.mr_mem.max": "DEV 64K", "rdma.max": "DEV hca_handle=1 hca_object=3"
# and that runs `verbs_probe -k DEV pd mr=48K mr=32K wait`, its output in
# OUT: the limits RUNTIME wrote, the 32 KiB MR refused with EAGAIN, the
# usage and the refusal counted.  Needs tap.sh.
unified_mr_checks() {
	check "$1 wrote rdma.mr_mem.max and rdma.max" \
		"$DEV 65536|$DEV hca_handle=1 hca_object=3" \
		"$(rc_line "$DEV" "$CG/rdma.mr_mem.max")|$(rc_line "$DEV" "$CG/rdma.max")"
	check "in the container: the 48 KiB MR registered, the 32 KiB one refused with EAGAIN" \
		"ibv_open_device=ok ibv_alloc_pd=ok ibv_reg_mr(49152)=ok ibv_reg_mr(32768)=EAGAIN" \
		"$(probe_summary "$2")"
	check "the container's rdma.mr_mem.current and rdma.current while it holds" \
		"$DEV 49152|$DEV hca_handle=1 hca_object=2" \
		"$(rc_line "$DEV" "$CG/rdma.mr_mem.current")|$(rc_line "$DEV" "$CG/rdma.current")"
	check "the container's rdma.events: the MR refused by its mr_mem limit" \
		"$DEV hca_handle.max=0 hca_handle.alloc_fail=0 hca_object.max=0 hca_object.alloc_fail=0 mr_mem.max=1 mr_mem.alloc_fail=1" \
		"$(rc_line "$DEV" "$CG/rdma.events")"
}

# rc_line DEV FILE: the line of DEV in FILE.
rc_line() { grep "^$1 " "$2"; }
