#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Build the guest initramfs for one kernel flavour:
#   harness/initramfs.sh release|debug|kcsan  ->  build/initramfs-FLAVOUR.cpio.gz
# Contents: busybox-static, iproute2's rdma, libibverbs with the siw and rxe
# providers, the verbs tools (ibv_*, perftest), runc and crun, our guest
# tests and helpers, the kselftest test_rdma, /init and /demo.sh; every
# binary with the shared libraries ldd lists.  /ctr/rootfs is the root of
# the containers that runc and crun run: busybox-static and verbs_probe
# with libibverbs and the providers.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
take_lock

flavour=${1:-}
case "$flavour" in release | debug | kcsan) ;; *) die "usage: initramfs.sh release|debug|kcsan" ;; esac
OBJ=$BUILD/obj-$flavour
[ -f "$OBJ/.config" ] || die "$OBJ is not configured: run harness/kernel.sh $flavour first"
ROOT=$BUILD/initramfs-$flavour.d
OUT=$BUILD/initramfs-$flavour.cpio.gz
MULTIARCH=/usr/lib/x86_64-linux-gnu

rm -rf "$ROOT"
mkdir -p "$ROOT"/{bin,sbin,usr/bin,usr/sbin,etc,proc,sys,dev,tmp,run,root,tests,fixes,lib/harness,selftests}

# copy_file PATH [DEST]: copy a host file to the same path under DEST (the
# guest's root by default), following symlinks, together with the libraries
# it needs.
copy_file() {
	local f=$1 dest=${2:-$ROOT}
	[ -e "$dest$f" ] && return 0
	mkdir -p "$dest$(dirname "$f")"
	cp -L "$f" "$dest$f"
	copy_libs "$f" "$dest"
}

# copy_libs FILE [DEST]: the libraries that FILE needs, under DEST.
copy_libs() {
	local lib
	# "libx.so => /path (0x..)" and "/lib64/ld-linux-x86-64.so.2 (0x..)"
	for lib in $(ldd "$1" 2>/dev/null | sed -n -e 's/.*=> \(\/[^ ]*\) .*/\1/p' -e 's/^[[:space:]]*\(\/[^ ]*\) (.*/\1/p'); do
		copy_file "$lib" "${2:-$ROOT}"
	done
}

# busybox_to DEST: busybox and its applets under DEST
busybox_to() {
	local applet
	cp /bin/busybox "$1/bin/busybox"
	for applet in $("$1/bin/busybox" --list-full); do
		[ -e "$1/$applet" ] || ln -s /bin/busybox "$1/$applet"
	done
}
busybox_to "$ROOT"

# RDMA user space, and the OCI runtimes runc and crun
for bin in runc crun rdma ibv_devinfo ibv_devices ibv_rc_pingpong ibv_srq_pingpong ibv_uc_pingpong \
	ib_write_bw ib_send_bw ib_read_bw ib_write_lat; do
	path=$(command -v "$bin") || die "$bin not found: run harness/deps.sh"
	rm -f "$ROOT$path" # a busybox applet of the same name must not win
	copy_file "$path"
done
for drv in siw rxe; do
	copy_file /etc/libibverbs.d/$drv.driver
	copy_file "$MULTIARCH/libibverbs/lib$drv-rdmav34.so"
done

# configuration files the tools expect
cat >"$ROOT/etc/hosts" <<'HOSTS'
127.0.0.1	localhost guest
HOSTS
echo 'root:x:0:0:root:/root:/bin/sh' >"$ROOT/etc/passwd"
echo 'root:x:0:' >"$ROOT/etc/group"
[ "$(id -u)" -eq 0 ] && mknod -m 600 "$ROOT/dev/console" c 5 1

# /init, the demo, the tests, and the shell helpers the tests source, in
# /lib/harness (not in /tests: /init runs every /tests/*.sh as a test)
install -m 755 "$HARNESS/guest/init" "$ROOT/init"
install -m 755 "$HARNESS/guest/demo.sh" "$ROOT/demo.sh"
for t in "$HARNESS"/guest/tests/*.sh; do
	[ -f "$t" ] && install -m 755 "$t" "$ROOT/tests/"
done
# the fixes' reproducers: /init runs them after the tests, or alone (hmode=fixes)
for t in "$HARNESS"/fixes/*.sh; do
	[ -f "$t" ] && install -m 755 "$t" "$ROOT/fixes/"
done
for l in "$HARNESS"/guest/lib/*.sh "$HARNESS"/guest/lib/splat.ere; do
	[ -f "$l" ] && install -m 644 "$l" "$ROOT/lib/harness/"
done
# the documentation's shell examples, as scripts for guest/tests/86-doc-examples.sh
python3 "$HARNESS/docexamples.py" "$ROOT/lib/harness/docex" "$SRC"
GUEST_LIB=$HARNESS/guest/src/lib
for c in "$HARNESS"/guest/src/*.c "$HARNESS"/guest/demo/*.c; do
	[ -f "$c" ] || continue
	name=$(basename "$c" .c)
	flags=()
	[ -f "${c%.c}.flags" ] && read -r -a flags <"${c%.c}.flags"
	say "initramfs: gcc $name"
	# every C tool is built with the helpers it shares with the others
	gcc -O2 -Wall -Werror -I "$GUEST_LIB" -o "$ROOT/bin/$name" "$c" "$GUEST_LIB/util.c" "${flags[@]}"
	copy_libs "$ROOT/bin/$name"
done

# Go helpers: harness/guest/src/NAME.go -> /bin/NAME, built against the Go
# sources that Debian packages (runc's libcontainer: golang-github-
# opencontainers-runc-dev), without modules and without network
for g in "$HARNESS"/guest/src/*.go; do
	[ -f "$g" ] || continue
	name=$(basename "$g" .go)
	say "initramfs: go build $name"
	GOPATH=/usr/share/gocode GO111MODULE=off GOFLAGS= CGO_ENABLED=0 GOCACHE=$BUILD/gocache \
		go build -o "$ROOT/bin/$name" "$g"
done

# the containers' root: busybox, verbs_probe, libibverbs and its providers;
# the mount points of config.json (guest/lib/runc.sh) exist, as runc mounts
# the root read-only
CTR=$ROOT/ctr/rootfs
mkdir -p "$CTR"/{bin,usr/bin,sbin,usr/sbin,proc,sys,dev,tmp,etc}
busybox_to "$CTR"
install -m 755 "$ROOT/bin/verbs_probe" "$CTR/bin/verbs_probe"
copy_libs "$CTR/bin/verbs_probe" "$CTR"
for drv in siw rxe; do
	copy_file /etc/libibverbs.d/$drv.driver "$CTR"
	copy_file "$MULTIARCH/libibverbs/lib$drv-rdmav34.so" "$CTR"
done

# kselftest test_rdma, built with the kernel's own selftests Makefile
KSFT=$SRC/tools/testing/selftests/cgroup
if [ -f "$KSFT/test_rdma.c" ]; then
	make -C "$SRC" O="$OBJ" ARCH=x86_64 headers_install >/dev/null
	out=$BUILD/selftests-$flavour
	mkdir -p "$out"
	make -C "$KSFT" OUTPUT="$out" KHDR_INCLUDES="-isystem $OBJ/usr/include" "$out/test_rdma"
	install -m 755 "$out/test_rdma" "$ROOT/selftests/test_rdma"
	copy_libs "$ROOT/selftests/test_rdma"
else
	say "initramfs: tools/testing/selftests/cgroup/test_rdma.c does not exist yet; no /selftests/test_rdma"
fi

(cd "$ROOT" && find . -print0 | LC_ALL=C sort -z |
	cpio --null -o -H newc -R 0:0 --quiet) | gzip -6 >"$OUT.tmp"
mv "$OUT.tmp" "$OUT"
say "initramfs: $OUT ($(du -h "$OUT" | cut -f1))"
