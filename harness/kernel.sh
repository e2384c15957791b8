#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Configure and build one kernel flavour from build/src:
#   harness/kernel.sh release|debug|kcsan|bench|nocg [config|build]
# The .config is tinyconfig + harness/config/release.config and the
# flavour's fragments (bench, nocg: harness/bench/build.sh's kernels),
# generated in build/cfg-FLAVOUR and copied to build/obj-FLAVOUR only when it
# changed, so that an unchanged configuration never triggers a rebuild.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
take_lock

flavour=${1:-}
what=${2:-build}
C=$HARNESS/config B=$HARNESS/bench
case "$flavour" in
release) frags=("$C/release.config" "$C/vng.config") ;;
debug) frags=("$C/release.config" "$C/vng.config" "$C/debug.config") ;;
kcsan) frags=("$C/release.config" "$C/vng.config" "$C/kcsan.config") ;;
bench) frags=("$C/release.config" "$B/bench.config") ;;
nocg) frags=("$C/release.config" "$B/bench.config" "$B/nocg.config") ;;
*) die "usage: kernel.sh release|debug|kcsan|bench|nocg [config|build]" ;;
esac
[ -f "$SRC/.harness-src" ] || die "$SRC is not prepared: run harness/tree.sh first"

OBJ=$BUILD/obj-$flavour
CFG=$BUILD/cfg-$flavour
MAKE=(make -C "$SRC" ARCH=x86_64 "CC=ccache gcc" "HOSTCC=ccache gcc")

# Does the kernel tree define this Kconfig symbol at all?
symbol_defined() {
	grep -rqsE --include='Kconfig*' "^[[:space:]]*(menu)?config[[:space:]]+$1[[:space:]]*$" "$SRC"
}

mkdir -p "$CFG" "$OBJ"
"${MAKE[@]}" O="$CFG" tinyconfig >/dev/null
"$SRC/scripts/kconfig/merge_config.sh" -m -O "$CFG" "$CFG/.config" "${frags[@]}" >/dev/null
"${MAKE[@]}" O="$CFG" olddefconfig >/dev/null

bad=0
while read -r sym val got; do
	if ! symbol_defined "${sym#CONFIG_}"; then
		say "config: note: $sym is not defined by this tree (yet); ignored"
		continue
	fi
	say "config: ERROR: $sym=$val requested but the result has: $got"
	bad=1
done < <(config_mismatches "$CFG/.config" "${frags[@]}")
[ $bad -eq 0 ] || die "$flavour config: requested options were dropped by olddefconfig (missing dependencies?)"
put "$CFG/.config" "$OBJ/.config"

if [ "$what" = build ]; then
	"${MAKE[@]}" O="$OBJ" -j"$JOBS" all
	say "kernel: $OBJ/arch/x86/boot/bzImage"
fi
