#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Install every Debian package the harness needs.  Idempotent: runs
# apt-get update and install only when something is missing.
set -euo pipefail

PKGS=(
	# kernel build (harness/source.sh installs the base's source)
	build-essential flex bison bc libelf-dev libssl-dev
	ccache sparse cpio xz-utils kmod rsync python3 perl git
	python3-docutils
	# guest and VM; virtme-ng comes from trixie (harness/source.sh), its
	# dependencies from here
	qemu-system-x86 busybox-static iproute2 runc udev
	python3-argcomplete python3-pkg-resources python3-requests file
	# a second OCI runtime, for guest/tests/84-crun.sh
	crun
	rdma-core ibverbs-utils ibverbs-providers libibverbs-dev librdmacm-dev perftest
	# the source of runc's libcontainer, for guest/src/runc_stats.go
	golang-go golang-github-opencontainers-runc-dev
)

mapfile -t missing < <(dpkg-query -W -f='${Status} ${Package}\n' "${PKGS[@]}" 2>&1 |
	sed -n -e 's/^dpkg-query: no packages found matching //p' -e '/^install ok installed /!s/.* //p')

if [ ${#missing[@]} -eq 0 ]; then
	echo "deps: all ${#PKGS[@]} packages present"
else
	echo "deps: installing ${missing[*]}"
	if [ "$(id -u)" -ne 0 ]; then
		echo "deps: not root; run as root: apt-get install ${missing[*]}" >&2
		exit 1
	fi
	export DEBIAN_FRONTEND=noninteractive
	apt-get -o DPkg::Lock::Timeout=600 update -q
	apt-get -o DPkg::Lock::Timeout=600 install -y -q --no-install-recommends "${missing[@]}"
	echo "deps: done"
fi

# The source of the base (BASE, else the default: source.sh reads lib.sh)
# and virtme-ng.
bash "$(dirname "$0")/source.sh"
