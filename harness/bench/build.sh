#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Build the benchmark's kernels and guest (harness/bench/run.sh calls it):
#   harness/bench/build.sh ours|upstream|nocg|steps|initramfs...
# Each kernel is harness/tree.sh's tree and harness/kernel.sh's build with
# BUILD=build/BASE/bench/k/NAME, plus the benchmark (rdmacg_bench.c and its
# Makefile line in kernel/cgroup/); its image is k/NAME/bzImage:
#   ours      the series and our files (tree.sh as for make check), flavour
#             bench; its benchmark has the mr_mem case (-DRDMACG_BENCH_MR_MEM)
#   upstream  pristine BASE (TREE=pristine), flavour bench
#   nocg      ours' tree, flavour nocg (CONFIG_CGROUP_RDMA=n)
#   steps     the tree after each cgroup/rdma patch of the series (or each of
#             BENCH_STEPS_REVS of the git tree BENCH_STEPS_GIT), built in turn
#             in k/steps so that each step rebuilds only what it changes:
#             k/stepN/bzImage
# A kernel compared with ours must have ours' configuration: checked.  No
# tool builds a tree the series did not make; the guest is a busybox
# initramfs (no virtme-ng), so that the timings see nothing else.
set -euo pipefail
. "$(dirname "$0")/../lib.sh"
take_lock

BENCHDIR=$HARNESS/bench
K=$BUILD/bench/k
# every kernel sees its sources at ../src: ccache shares what is identical
export CCACHE_BASEDIR=$K

# add_bench SRC [LINE...]: the benchmark, its Makefile line and LINEs in SRC.
add_bench() {
	local src=$1 mk=$1/kernel/cgroup/Makefile tmp line
	shift
	put "$BENCHDIR/rdmacg_bench.c" "$src/kernel/cgroup/rdmacg_bench.c"
	tmp=$(mktemp)
	cat "$mk" >"$tmp"
	for line in 'obj-$(CONFIG_CGROUP_RDMA) += rdmacg_bench.o' "$@"; do
		grep -qxF "$line" "$tmp" || printf '%s\n' "$line" >>"$tmp"
	done
	put "$tmp" "$mk"
	rm -f "$tmp"
}

# tree NAME [TREE]: k/NAME/src by tree.sh, on the base's pristine tree.
tree() {
	mkdir -p "$K/$1"
	ln -sfn "$BUILD/pristine" "$K/$1/pristine"
	BUILD=$K/$1 TREE=${2:-} bash "$HARNESS/tree.sh"
}

# kernel NAME FLAVOUR: build k/NAME with kernel.sh; its image is k/NAME/bzImage.
kernel() {
	local obj=$K/$1/obj-$2
	BUILD=$K/$1 bash "$HARNESS/kernel.sh" "$2" build
	# mr_mem selects PAGE_COUNTER, a symbol without a prompt that
	# upstream's controller does not select: it adds mm/page_counter.o only
	if [ "$1" != ours ] && [ "$2" = bench ] && [ -f "$K/ours/obj-bench/.config" ]; then
		diff -u <(grep -v -e '^#' -e '^CONFIG_PAGE_COUNTER=' "$K/ours/obj-bench/.config" | sort) \
			<(grep -v -e '^#' -e '^CONFIG_PAGE_COUNTER=' "$obj/.config" | sort) ||
			die "bench: $1's configuration differs from ours' (see above)"
	fi
	[ "$2" = nocg ] || grep -q rdmacg_bench_init "$obj/System.map" ||
		die "bench: $1 has no rdmacg_bench"
	cp "$obj/arch/x86/boot/bzImage" "$K/$1/bzImage"
}

# The series' steps; a file a step does not have is pristine's or absent.
steps() {
	local work=${BENCH_STEPS_GIT:-$BUILD/patchwork} c subject n f files
	tree steps pristine
	files=$(git -C "$work" diff --name-only "$BASE_TAG" HEAD)
	rm -rf "$K"/step[0-9]*
	while read -r c subject; do
		n=$(git -C "$work" rev-list --count "$BASE_TAG..$c")
		say "bench: step $n: $subject"
		for f in $files; do
			set_from_git "$work" "$c" "$f" "$K/steps/src"
		done
		add_bench "$K/steps/src"
		kernel steps bench
		mkdir -p "$K/step$n"
		mv "$K/steps/bzImage" "$K/step$n/bzImage"
		echo "$subject" >"$K/step$n/subject"
	done < <(if [ -n "${BENCH_STEPS_REVS:-}" ]; then
		for c in $BENCH_STEPS_REVS; do git -C "$work" log -1 --format='%h %s' "$c"; done
	else
		git -C "$work" log --reverse --format='%h %s' "$BASE_TAG..HEAD" | grep ' cgroup/rdma: '
	fi)
}

# The guest's root: busybox, /bench/init, our helpers, iproute2's rdma and
# the siw and rxe providers, with the libraries ldd lists.
initramfs() {
	local root=$K/initramfs.d shared=$HARNESS/guest/src/lib
	rm -rf "$root"
	busybox_root "$root"
	mkdir -p "$root"/{bench,proc,sys,dev,tmp}
	install -m 755 "$BENCHDIR/guest/init" "$root/bench/init"
	gcc -O2 -Wall -Werror -static -I "$shared" -o "$root/bin/rcgbench" \
		"$BENCHDIR/guest/rcgbench.c" "$shared/util.c"
	gcc -O2 -Wall -Werror -o "$root/bin/rcgbench_pd" "$BENCHDIR/guest/rcgbench_pd.c" -libverbs
	cp -L --parents "$(command -v rdma)" /etc/libibverbs.d/{siw,rxe}.driver \
		"$PROVIDERS"/lib{siw,rxe}-rdmav34.so "$root"
	copy_libs "$root" "$root/bin/rcgbench_pd" "$(command -v rdma)" "$PROVIDERS"/lib{siw,rxe}-rdmav34.so
	(cd "$root" && find . -print0 | LC_ALL=C sort -z |
		cpio --null -o -H newc -R 0:0 --quiet) | gzip -6 >"$K/initramfs.cpio.gz"
}

[ $# -gt 0 ] || die "usage: build.sh ours|upstream|nocg|steps|initramfs..."
for what in "$@"; do
	case "$what" in
	ours)
		tree ours
		add_bench "$K/ours/src" 'CFLAGS_rdmacg_bench.o += -DRDMACG_BENCH_MR_MEM'
		kernel ours bench
		grep -q bench_loop_mr_mem "$K/ours/obj-bench/System.map" ||
			die "bench: ours has no mr_mem case (RDMACG_BENCH_MR_MEM)"
		;;
	upstream) tree upstream pristine && add_bench "$K/upstream/src" && kernel upstream bench ;;
	nocg)
		[ -f "$K/ours/src/.harness-src" ] || die "bench: build ours first"
		mkdir -p "$K/nocg" && ln -sfn ../ours/src "$K/nocg/src"
		kernel nocg nocg
		;;
	steps) steps ;;
	initramfs) initramfs ;;
	*) die "unknown target $what" ;;
	esac
done
