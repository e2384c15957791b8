# SPDX-License-Identifier: GPL-2.0
# Verbs helpers, sourced (`. "$HLIB/verbs.sh"`) by the demo and the
# guest tests; not a test itself.

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
