#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Configure and build one kernel flavour from build/src:
#   harness/kernel.sh release|debug [config|build]
# The .config is tinyconfig + harness/config/release.config (+ debug.config),
# generated in build/cfg-FLAVOUR and copied to build/obj-FLAVOUR only when it
# changed, so that an unchanged configuration never triggers a rebuild.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
take_lock

flavour=${1:-}
what=${2:-build}
case "$flavour" in
release) frags=("$HARNESS/config/release.config") ;;
debug) frags=("$HARNESS/config/release.config" "$HARNESS/config/debug.config") ;;
*) die "usage: kernel.sh release|debug [config|build]" ;;
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

	# The last fragment that names a symbol wins, as in merge_config.sh.
	declare -A want=()
	local line sym val bad=0 f
	for f in "${frags[@]}"; do
		while IFS= read -r line; do
			if [[ $line =~ ^(CONFIG_[A-Za-z0-9_]+)=(.*)$ ]]; then
				want[${BASH_REMATCH[1]}]=${BASH_REMATCH[2]}
			elif [[ $line =~ ^#\ (CONFIG_[A-Za-z0-9_]+)\ is\ not\ set$ ]]; then
				want[${BASH_REMATCH[1]}]=n
			fi
		done <"$f"
	done
	for sym in $(printf '%s\n' "${!want[@]}" | sort); do
		val=${want[$sym]}
		if [ "$val" = n ]; then
			grep -q "^$sym=" "$CFG/.config" || continue
		else
			grep -qxF "$sym=$val" "$CFG/.config" && continue
		fi
		if ! symbol_defined "${sym#CONFIG_}"; then
			say "config: note: $sym is not defined by this tree (yet); ignored"
			continue
		fi
		say "config: ERROR: $sym=$val requested but the result has: $(grep -E "^(# )?$sym[= ]" "$CFG/.config" || echo nothing)"
		bad=1
	done
	[ $bad -eq 0 ] || die "$flavour config: requested options were dropped by olddefconfig (missing dependencies?)"

	if [ -f "$OBJ/.config" ] && cmp -s "$CFG/.config" "$OBJ/.config"; then
		say "config: $flavour .config unchanged"
	else
		cp "$CFG/.config" "$OBJ/.config"
		say "config: $flavour .config updated"
	fi
}

make_config
if [ "$what" = build ]; then
	"${MAKE[@]}" O="$OBJ" -j"$JOBS" all
	say "kernel: $OBJ/arch/x86/boot/bzImage"
fi
