#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The Linux source of a base (/usr/src/linux-source-BASE.tar.xz) and
# virtme-ng: harness/source.sh [BASE].  A package of the machine's own
# suites through apt-get; one of another suite (harness/bases) with apt-get
# download through a private sources list in build/apt-SUITE (the machine's
# mirror and keyring) and dpkg -i; the system's sources never change.
# The Linux source is the version harness/bases names, whatever newer one
# the suite has since (Debian's security updates move 6.12 on).
set -euo pipefail
. "$(dirname "$0")/lib.sh"

# pick VERSION: the first Debian version of apt-cache madison (stdin) that
# is VERSION, a Debian revision after it; empty if none
pick() {
	awk -v v="$1" '$3 ~ "^" v "-" { print $3; exit }'
}

# install_deb PKG SUITE [VERSION]: PKG from SUITE ("-": the machine's own
# suites), at upstream VERSION if given
install_deb() {
	local pkg=$1 suite=$2 want=${3:-} ver mirror dir log=$BUILD_TOP/apt-$2.log
	[ "$(id -u)" -eq 0 ] || die "not root; $pkg must be installed by root"
	export DEBIAN_FRONTEND=noninteractive
	if [ "$suite" = - ]; then
		ver=$([ -z "$want" ] || apt-cache madison "$pkg" | pick "$want")
		[ -z "$want" ] || [ -n "$ver" ] || die "no $pkg $want in the machine's suites"
		apt-get -o DPkg::Lock::Timeout=600 install -y -q --no-install-recommends \
			--allow-downgrades "$pkg${ver:+=$ver}"
		return
	fi
	# the machine's Debian mirror, as its own sources name it
	mirror=$(cat /etc/apt/sources.list /etc/apt/sources.list.d/*.sources \
		/etc/apt/sources.list.d/*.list 2>/dev/null |
		awk '$1 ~ /^(URIs:|deb)$/ && $2 ~ /debian\.org\/debian\/?$/ { print $2; exit }' || true)
	mirror=${mirror:-http://deb.debian.org/debian}
	local keyring=/usr/share/keyrings/debian-archive-keyring.gpg
	[ -f "$keyring" ] || die "$keyring missing (package debian-archive-keyring)"
	dir=$BUILD_TOP/apt-$suite
	mkdir -p "$dir/lists/partial" "$dir/cache/archives/partial" "$dir/deb"
	echo "deb [signed-by=$keyring] ${mirror%/} $suite main" >"$dir/sources.list"
	local opts=(-o Dir::Etc::sourcelist="$dir/sources.list" -o Dir::Etc::sourceparts=-
		-o Dir::State::Lists="$dir/lists" -o Dir::Cache="$dir/cache"
		-o APT::Get::List-Cleanup=0 -o APT::Sandbox::User=root)
	say "source: $pkg from $suite (${mirror%/})"
	apt-get "${opts[@]}" update -q >"$log" 2>&1 || die "apt-get update of $suite failed: see $log"
	ver=$([ -z "$want" ] || apt-cache "${opts[@]}" madison "$pkg" | pick "$want")
	[ -z "$want" ] || [ -n "$ver" ] || die "no $pkg $want in $suite: see $log"
	(cd "$dir/deb" && rm -f ./"$pkg"_*.deb &&
		apt-get "${opts[@]}" download "$pkg${ver:+=$ver}") >>"$log" 2>&1 ||
		die "apt-get download $pkg failed: see $log"
	dpkg -i "$dir"/deb/"$pkg"_*.deb >>"$log" 2>&1 || die "dpkg -i $pkg failed: see $log"
	say "source: $pkg $(dpkg-query -W -f='${Version}' "$pkg") installed"
}

base=${1:-$BASE}
suite=$(awk -v b="$base" '!/^#/ && $1 == b { print $3 }' "$HARNESS/bases")
version=$(awk -v b="$base" '!/^#/ && $1 == b { print $2 }' "$HARNESS/bases")
[ -n "$suite" ] || die "usage: source.sh BASE, a base of harness/bases"
have=$(dpkg-query -W -f='${Version}' "linux-source-$base" 2>/dev/null || true)
if [ ! -f "/usr/src/linux-source-$base.tar.xz" ] || [ "${have%%-*}" != "$version" ]; then
	install_deb "linux-source-$base" "$suite" "$version"
fi
[ -f "/usr/src/linux-source-$base.tar.xz" ] || die "linux-source-$base installed no tarball"
command -v vng >/dev/null || install_deb virtme-ng trixie
