#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Build the benchmark kernels and their guest:
#   harness/bench/build.sh KERNEL...     KERNEL: ours, upstream, nocg, steps,
#                                        initramfs
#
# Source trees, hardlinked copies of build/pristine (never modified):
#   build/bench/k/ours/src      made by harness/tree.sh (BUILD=build/bench/k/ours):
#                               the series and our files, exactly as for make check,
#                               plus the benchmark
#   build/bench/k/upstream/src  pristine base plus the benchmark only
# The benchmark is harness/bench/rdmacg_bench.c, copied to
# kernel/cgroup/rdmacg_bench.c with "obj-$(CONFIG_CGROUP_RDMA) += rdmacg_bench.o"
# appended to kernel/cgroup/Makefile (both replaced, never written through a
# hardlink); in ours also "CFLAGS_rdmacg_bench.o += -DRDMACG_BENCH_MR_MEM",
# which adds the mr_mem case (upstream has no mr_mem API).
#
# Kernels, one object folder each, all with tinyconfig + release.config +
# bench.config (ours and upstream must come out identical, this is checked):
#   build/bench/k/ours/obj-release
#   build/bench/k/upstream/obj-release
#   build/bench/k/nocg/obj-release      ours/src, + nocg.config (CGROUP_RDMA=n)
#   build/bench/k/stepN/obj-release/arch/x86/boot/bzImage
#                                       "steps": the tree after patch N of the
#                                       series, for each cgroup/rdma patch
#                                       (or BENCH_STEPS_REVS), built
#                                       one after the other in one source and
#                                       object folder (build/bench/k/steps/),
#                                       so that each rebuilds only what the
#                                       step changes; only the bzImage is kept
#
# Guest: an initramfs with /bench/init and the helpers (build_initramfs):
#   build/bench/k/initramfs.cpio.gz
#
# Build steps hold build/.lock (take_lock); run from harness/bench/run.sh.
set -euo pipefail
. "$(dirname "$0")/../lib.sh"
take_lock

BENCHDIR=$HARNESS/bench
K=$BUILD/bench/k
mkdir -p "$K"
# ours and upstream objects see their sources at the same relative path
# (../src), so with this base folder ccache can share what is identical.
export CCACHE_BASEDIR=$K
MAKE=(make ARCH=x86_64 "CC=ccache gcc" "HOSTCC=ccache gcc")
BENCH_LINE='obj-$(CONFIG_CGROUP_RDMA) += rdmacg_bench.o'
BENCH_MR_MEM_LINE='CFLAGS_rdmacg_bench.o += -DRDMACG_BENCH_MR_MEM'

# put NEW at DEST if the content differs (unlink first: DEST may be a
# hardlink into the pristine tree).
put() {
	local new=$1 dest=$2
	if [ -f "$dest" ] && cmp -s "$new" "$dest"; then
		return 0
	fi
	rm -f "$dest"
	mkdir -p "$(dirname "$dest")"
	cp "$new" "$dest"
	say "bench: updated $dest"
}

# add_bench SRC [LINE...]: the benchmark and its Makefile line in SRC,
# and the other Makefile LINEs given.
add_bench() {
	local src=$1 mk=$1/kernel/cgroup/Makefile tmp line
	shift
	put "$BENCHDIR/rdmacg_bench.c" "$src/kernel/cgroup/rdmacg_bench.c"
	for line in "$BENCH_LINE" "$@"; do
		grep -qxF "$line" "$mk" && continue
		tmp=$(mktemp)
		cat "$mk" >"$tmp"
		printf '%s\n' "$line" >>"$tmp"
		put "$tmp" "$mk"
		rm -f "$tmp"
	done
}

tree_ours() {
	mkdir -p "$K/ours"
	[ -L "$K/ours/pristine" ] || ln -sfn "$BUILD/pristine" "$K/ours/pristine"
	# Same overlay logic as make check; its lock is already ours.
	BUILD=$K/ours bash "$HARNESS/tree.sh"
	add_bench "$K/ours/src" "$BENCH_MR_MEM_LINE"
}

# pristine_copy NAME: build/bench/k/NAME/src, a hardlinked copy of
# pristine, made again when pristine changed.
pristine_copy() {
	local src=$K/$1/src stamp
	stamp=$(cat "$BUILD/pristine/.stamp")
	if [ ! -f "$src/.bench-src" ] || [ "$(cat "$src/.bench-src")" != "$stamp" ]; then
		say "bench: creating $src as a hardlinked copy of pristine"
		rm -rf "$src" "$src.tmp"
		mkdir -p "$K/$1"
		cp -al "$PRISTINE" "$src.tmp"
		echo "$stamp" >"$src.tmp/.bench-src"
		mv "$src.tmp" "$src"
	fi
}

tree_upstream() {
	pristine_copy upstream
	add_bench "$K/upstream/src"
}

# The series' steps: build/bench/k/steps/src is a hardlinked copy of
# pristine whose files the series touches are, in turn, each step's
# (from build/BASE/patchwork; a file the step does not have yet is
# removed), plus the benchmark.  BENCH_STEPS_GIT=DIR BENCH_STEPS_REVS="REV..."
# takes the steps from another kernel git tree on BASE_TAG instead, such
# as a branch of make series-git.
build_steps() {
	local src=$K/steps/src obj=$K/steps/obj-release c subject n f tmp
	local work=${BENCH_STEPS_GIT:-$BUILD/patchwork}
	pristine_copy steps
	rm -rf "$K"/step[0-9]*
	tmp=$(mktemp)
	while read -r c subject; do
		n=$(git -C "$work" log --format=%h "$BASE_TAG..$c" | wc -l)
		say "bench: step $n: $subject"
		while IFS= read -r f; do
			if git -C "$work" cat-file -e "$c:$f" 2>/dev/null; then
				git -C "$work" show "$c:$f" >"$tmp"
				put "$tmp" "$src/$f"
			elif [ -f "$PRISTINE/$f" ]; then
				put "$PRISTINE/$f" "$src/$f"
			else
				rm -f "$src/$f"
			fi
		done < <(git -C "$work" diff --name-only "$BASE_TAG" HEAD)
		add_bench "$src"
		configure "$src" "$obj" "${FRAGS[@]}"
		same_config "$K/ours/obj-release/.config" "$obj" "step $n"
		"${MAKE[@]}" -C "$src" O="$obj" -j"$JOBS" bzImage
		grep -q rdmacg_bench_init "$obj/System.map" ||
			die "bench: step $n kernel has no rdmacg_bench"
		mkdir -p "$K/step$n/obj-release/arch/x86/boot"
		cp "$obj/arch/x86/boot/bzImage" "$K/step$n/obj-release/arch/x86/boot/bzImage"
		echo "$subject" >"$K/step$n/subject"
		say "bench: $K/step$n/obj-release/arch/x86/boot/bzImage"
	done < <(if [ -n "${BENCH_STEPS_REVS:-}" ]; then
		for c in $BENCH_STEPS_REVS; do
			git -C "$work" log -1 --format='%h %s' "$c"
		done
	else
		# the controller's patches of the series, the new steps of a pool
		git -C "$work" log --reverse --format='%h %s' "$BASE_TAG..HEAD" |
			grep ' cgroup/rdma: '
	fi)
	rm -f "$tmp"
}

# configure SRC OBJ FRAGMENT...: tinyconfig + fragments, checked as
# harness/kernel.sh does; OBJ/.config only replaced when it changed.
configure() {
	local src=$1 obj=$2
	shift 2
	local cfg=$obj.cfg sym val got bad=0
	mkdir -p "$cfg" "$obj"
	"${MAKE[@]}" -C "$src" O="$cfg" tinyconfig >/dev/null
	"$src/scripts/kconfig/merge_config.sh" -m -O "$cfg" "$cfg/.config" "$@" >/dev/null
	"${MAKE[@]}" -C "$src" O="$cfg" olddefconfig >/dev/null
	while read -r sym val got; do
		say "bench: config $obj: $sym=$val requested, got: $got"
		bad=1
	done < <(config_mismatches "$cfg/.config" "$@")
	[ $bad -eq 0 ] || die "bench: $obj: requested options were dropped"
	install_config "$cfg/.config" "$obj" "bench: $obj"
}

# same_config REF OBJ NAME: a kernel compared with ours must have ours'
# configuration (REF, where built already), or the comparison means nothing.
same_config() {
	local ref=$1 obj=$2
	[ -f "$ref" ] || return 0
	diff -u <(grep -v '^#' "$ref" | sort) <(grep -v '^#' "$obj/.config" | sort) ||
		die "bench: $3's configuration differs from $ref (see above)"
}

FRAGS=("$HARNESS/config/release.config" "$BENCHDIR/bench.config")

build_kernel() {
	local name=$1 src obj frags=("${FRAGS[@]}")
	case "$name" in
	ours) tree_ours; src=$K/ours/src ;;
	upstream) tree_upstream; src=$K/upstream/src ;;
	nocg)
		[ -f "$K/ours/src/.harness-src" ] || tree_ours
		src=$K/ours/src
		frags+=("$BENCHDIR/nocg.config")
		;;
	esac
	obj=$K/$name/obj-release
	configure "$src" "$obj" "${frags[@]}"
	[ "$name" != upstream ] || same_config "$K/ours/obj-release/.config" "$obj" "$name"
	"${MAKE[@]}" -C "$src" O="$obj" -j"$JOBS" bzImage
	if [ "$name" != nocg ] && ! grep -q rdmacg_bench_init "$obj/System.map"; then
		die "bench: $name kernel has no rdmacg_bench"
	fi
	if [ "$name" = ours ] && ! grep -q bench_loop_mr_mem "$obj/System.map"; then
		die "bench: ours has no mr_mem case (RDMACG_BENCH_MR_MEM)"
	fi
	say "bench: $obj/arch/x86/boot/bzImage"
}

# The guest's root: busybox, /bench/init, our helpers, iproute2's rdma and
# the libibverbs providers, with the libraries ldd lists.  (The tests' guest
# boots with virtme-ng on the host's root; this one is kept minimal and
# booted without it, so that TCG timings and -icount see nothing else.)
build_initramfs() {
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
	say "bench: $K/initramfs.cpio.gz ($(du -h "$K/initramfs.cpio.gz" | cut -f1))"
}

[ $# -gt 0 ] || die "usage: build.sh ours|upstream|nocg|steps|initramfs..."
[ -f "$BUILD/pristine/.stamp" ] || die "no pristine tree: run harness/tree.sh first"
for what in "$@"; do
	case "$what" in
	ours | upstream | nocg) build_kernel "$what" ;;
	steps) build_steps ;;
	initramfs) build_initramfs ;;
	*) die "unknown target $what" ;;
	esac
done
