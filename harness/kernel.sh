#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Configure and build one kernel flavour from build/src:
#   harness/kernel.sh release|debug|kcsan [config|build]
# The .config is tinyconfig + harness/config/release.config (+ debug.config
# or kcsan.config),
# generated in build/cfg-FLAVOUR and copied to build/obj-FLAVOUR only when it
# changed, so that an unchanged configuration never triggers a rebuild.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
take_lock

flavour=${1:-}
what=${2:-build}
case "$flavour" in
release) frags=("$HARNESS/config/release.config" "$HARNESS/config/vng.config") ;;
debug) frags=("$HARNESS/config/release.config" "$HARNESS/config/vng.config" "$HARNESS/config/debug.config") ;;
kcsan) frags=("$HARNESS/config/release.config" "$HARNESS/config/vng.config" "$HARNESS/config/kcsan.config") ;;
*) die "usage: kernel.sh release|debug|kcsan [config|build]" ;;
esac
[ -f "$SRC/.harness-src" ] || die "$SRC is not prepared: run harness/tree.sh first"

OBJ=$BUILD/obj-$flavour
CFG=$BUILD/cfg-$flavour
MAKE=(make -C "$SRC" ARCH=x86_64 "CC=ccache gcc" "HOSTCC=ccache gcc")

# Does the kernel tree define this Kconfig symbol at all?
symbol_defined() {
	grep -rqsE --include='Kconfig*' "^[[:space:]]*(menu)?config[[:space:]]+$1[[:space:]]*$" "$SRC"
}

make_config() {
	mkdir -p "$CFG" "$OBJ"
	"${MAKE[@]}" O="$CFG" tinyconfig >/dev/null
	"$SRC/scripts/kconfig/merge_config.sh" -m -O "$CFG" "$CFG/.config" "${frags[@]}" >/dev/null
	"${MAKE[@]}" O="$CFG" olddefconfig >/dev/null

	local sym val got bad=0
	while read -r sym val got; do
		if ! symbol_defined "${sym#CONFIG_}"; then
			say "config: note: $sym is not defined by this tree (yet); ignored"
			continue
		fi
		say "config: ERROR: $sym=$val requested but the result has: $got"
		bad=1
	done < <(config_mismatches "$CFG/.config" "${frags[@]}")
	[ $bad -eq 0 ] || die "$flavour config: requested options were dropped by olddefconfig (missing dependencies?)"
	install_config "$CFG/.config" "$OBJ" "config: $flavour"
}

make_config
if [ "$what" = build ]; then
	"${MAKE[@]}" O="$OBJ" -j"$JOBS" all
	say "kernel: $OBJ/arch/x86/boot/bzImage"
fi
