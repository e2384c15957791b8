# SPDX-License-Identifier: GPL-2.0
# OCI runtime helpers of the demo and 84-crun.sh, sourced.  RUNTIME: runc
# unless set (crun takes the same `run --no-pivot --bundle` and `delete
# --force`).  The containers' root is $GUEST/ctr/rootfs (harness/guest.sh).

# uverbs_dev DEV: "uverbsN MAJOR MINOR" of RDMA device DEV, or fail.
uverbs_dev() {
	for ud_u in /sys/class/infiniband_verbs/uverbs*; do
		[ "$(cat "$ud_u/ibdev" 2>/dev/null)" = "$1" ] || continue
		echo "${ud_u##*/} $(tr ':' ' ' <"$ud_u/dev")"
		return 0
	done
	return 1
}

# probe_summary FILE: verbs_probe's outcomes, "ibv_open_device=ok ibv_alloc_pd=EAGAIN".
probe_summary() {
	awk '$1 == "verbs_probe:" && ($3 == "ok" || $3 == "refused:") {
		r = $3 == "ok" ? "ok" : $NF
		gsub(/[()]/, "", r)
		printf "%s%s=%s", sep, $2, r
		sep = " "
	}' "$1"
}

# runc_bundle DIR DEV HANDLES OBJECTS CGROUP ARG...: DIR/config.json runs
# ARG... (no quotes) in cgroup CGROUP (/name) with DEV's uverbs node and
# linux.resources.rdma {DEV: HANDLES, OBJECTS} (none if HANDLES is "-") and,
# with RB_UNIFIED='"rdma.mr_mem.max": "rxe0 64K"' say, linux.resources.unified.
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

# runc_stat FIELD DEV FILE: DEV's entry in list FIELD (rdma_limit,
# rdma_current) of runc_stats' JSON in FILE.
runc_stat() {
	grep -o "\"$1\":\[[^]]*\]" "$3" | grep -o "{\"device\":\"$2\"[^}]*}"
}

# runc_entries FIELD FILE: how many devices list FIELD of FILE has.
runc_entries() {
	grep -o "\"$1\":\[[^]]*\]" "$2" | grep -o '{"device"' | wc -l
}

# runc_start BUNDLE CTR OUT: run CTR in the background (runc_pid), output in
# OUT, stdin a fifo held on fd 3 (closing it ends verbs_probe's wait); true
# once verbs_probe holds, false if the runtime exits first or after 60 s.
runc_start() {
	rm -f "$3.stdin"
	mkfifo "$3.stdin"
	timeout 120 "${RUNTIME:-runc}" run --no-pivot --bundle "$1" "$2" <"$3.stdin" >"$3" 2>&1 &
	runc_pid=$!
	exec 3>"$3.stdin"
	wait_for 60 runc_started "$3"
	grep -q '^verbs_probe: holding' "$3"
}

# runc_started OUT: verbs_probe holds, or the runtime is gone (or a zombie).
runc_started() {
	grep -q '^verbs_probe: holding' "$1" && return 0
	rs_state=$(cut -d' ' -f3 "/proc/$runc_pid/stat" 2>/dev/null)
	[ -z "$rs_state" ] || [ "$rs_state" = Z ]
}

# runc_stop: close the container's stdin; the runtime's exit status.
runc_stop() {
	exec 3>&-
	wait "$runc_pid"
	rs_rc=$?
	runc_pid=
	return $rs_rc
}

# runc_cleanup CTR CG CONTROLLERS [PARENT]: whatever happened, stop and
# delete CTR, remove CG (and PARENT), and disable in the root what is not in
# CONTROLLERS, its subtree_control before the test (runtimes enable some).
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
