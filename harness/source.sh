#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Install the Linux source of a base the series can be built on, as
# /usr/src/linux-source-BASE.tar.xz:
#   harness/source.sh [BASE]        (make source BASE=7.3)
#
# The suite of each base is in harness/bases.  A base from the machine's
# own suites (6.12) is installed with apt-get; one from another suite (7.3
# from trixie-backports, which the machine's suites do not have) is
# fetched through a private sources list of build/apt-BASE (the machine's
# mirror, the machine's archive keyring), downloaded with apt-get download
# and installed with dpkg -i; the system's sources are never changed.
# Idempotent: does nothing when the tarball is there.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

base=${1:-$BASE}
pkg=linux-source-$base
suite=$(awk -v b="$base" '!/^#/ && $1 == b { print $3 }' "$HARNESS/bases")
[ -n "$suite" ] || die "usage: source.sh BASE, a base of harness/bases"
[ "$suite" != - ] || suite=
tarball=/usr/src/$pkg.tar.xz
if [ -f "$tarball" ]; then
	say "source: $tarball present"
	exit 0
fi
[ "$(id -u)" -eq 0 ] || die "not root; $pkg must be installed by root"
export DEBIAN_FRONTEND=noninteractive
if [ -z "$suite" ]; then
	apt-get -o DPkg::Lock::Timeout=600 install -y -q --no-install-recommends "$pkg"
	exit 0
fi

# The machine's Debian mirror, as its own sources name it.
mirror=$(cat /etc/apt/sources.list /etc/apt/sources.list.d/*.sources \
	/etc/apt/sources.list.d/*.list 2>/dev/null |
	awk '$1 ~ /^(URIs:|deb)$/ && $2 ~ /debian\.org\/debian\/?$/ { print $2; exit }' || true)
mirror=${mirror:-http://deb.debian.org/debian}
keyring=/usr/share/keyrings/debian-archive-keyring.gpg
[ -f "$keyring" ] || die "$keyring missing (package debian-archive-keyring)"

dir=$BUILD_TOP/apt-$base
mkdir -p "$dir/lists/partial" "$dir/cache/archives/partial" "$dir/deb"
echo "deb [signed-by=$keyring] ${mirror%/} $suite main" >"$dir/sources.list"
apt_opts=(-o Dir::Etc::sourcelist="$dir/sources.list" -o Dir::Etc::sourceparts=-
	-o Dir::State::Lists="$dir/lists" -o Dir::Cache="$dir/cache"
	-o APT::Get::List-Cleanup=0 -o APT::Sandbox::User=root)
say "source: $pkg from $suite (${mirror%/})"
apt-get "${apt_opts[@]}" update -q >"$BUILD_TOP/source-$base.log" 2>&1 ||
	die "apt-get update of $suite failed: see $BUILD_TOP/source-$base.log"
(cd "$dir/deb" && rm -f ./*.deb && apt-get "${apt_opts[@]}" download "$pkg") \
	>>"$BUILD_TOP/source-$base.log" 2>&1 ||
	die "apt-get download $pkg failed: see $BUILD_TOP/source-$base.log"
# Its dependencies (binutils, xz-utils) are on every machine the harness
# runs on: dpkg -i, not apt, so that no other suite is ever consulted.
dpkg -i "$dir"/deb/"$pkg"_*.deb >>"$BUILD_TOP/source-$base.log" 2>&1 ||
	die "dpkg -i $pkg failed: see $BUILD_TOP/source-$base.log"
[ -f "$tarball" ] || die "$pkg installed no $tarball"
say "source: $tarball installed ($(dpkg-query -W -f='${Version}' "$pkg"))"
