#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Build what the test guest runs besides the host's own programs:
#   harness/guest.sh release|debug|kcsan  ->  build/BASE/guest/, build/BASE/selftests-FLAVOUR/
# The guest boots on the host's root (virtme-ng) and finds there busybox's
# applets in guest/bb (the tests' shell, first in PATH), our helpers in
# guest/bin, the documentation's examples in guest/docex, test_rdma in
# selftests-FLAVOUR.  No tool makes guest/ctr/rootfs, the containers' root
# (busybox, verbs_probe, its libraries and the siw and rxe providers).
set -euo pipefail
. "$(dirname "$0")/lib.sh"
take_lock

flavour=${1:-}
case "$flavour" in release | debug | kcsan) ;; *) die "usage: guest.sh release|debug|kcsan" ;; esac
OBJ=$BUILD/obj-$flavour
[ -f "$OBJ/.config" ] || die "$OBJ is not configured: run harness/kernel.sh $flavour first"
G=$BUILD/guest
rm -rf "$G"
mkdir -p "$G/bin" "$G/bb"
busybox --install -s "$G/bb"
/usr/bin/python3 "$HARNESS/rst.py" examples "$G/docex" "$SRC"

# every C tool is built with the helpers it shares with the others
GUEST_LIB=$HARNESS/guest/src/lib
for c in "$HARNESS"/guest/src/*.c "$HARNESS"/guest/demo/*.c; do
	name=$(basename "$c" .c)
	flags=()
	[ -f "${c%.c}.flags" ] && read -r -a flags <"${c%.c}.flags"
	gcc -O2 -Wall -Werror -I "$GUEST_LIB" -o "$G/bin/$name" "$c" "$GUEST_LIB/util.c" "${flags[@]}"
done
# Go helpers, against the Go sources Debian packages (runc's libcontainer:
# golang-github-opencontainers-runc-dev), without modules or network
for g in "$HARNESS"/guest/src/*.go; do
	GOPATH=/usr/share/gocode GO111MODULE=off GOFLAGS= CGO_ENABLED=0 GOCACHE=$BUILD/gocache \
		go build -o "$G/bin/$(basename "$g" .go)" "$g"
done

# the containers' root
CTR=$G/ctr/rootfs
busybox_root "$CTR"
mkdir -p "$CTR"/{proc,sys,dev,tmp}
cp "$G/bin/verbs_probe" "$CTR/bin/"
cp -L --parents /etc/libibverbs.d/{siw,rxe}.driver "$PROVIDERS"/lib{siw,rxe}-rdmav34.so "$CTR"
copy_libs "$CTR" "$CTR/bin/verbs_probe" "$PROVIDERS"/lib{siw,rxe}-rdmav34.so

# kselftest test_rdma, built with the kernel's own selftests Makefile
# (where the tree has it: make fixes-check boots the trees before it)
out=$BUILD/selftests-$flavour
mkdir -p "$out"
if [ -f "$SRC/tools/testing/selftests/cgroup/test_rdma.c" ]; then
	make -C "$SRC" O="$OBJ" ARCH=x86_64 headers_install >/dev/null
	make -C "$SRC/tools/testing/selftests/cgroup" OUTPUT="$out" \
		KHDR_INCLUDES="-isystem $OBJ/usr/include" "$out/test_rdma"
else
	rm -f "$out/test_rdma"
fi
say "guest: $G, $out"
