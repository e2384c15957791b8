# SPDX-License-Identifier: GPL-2.0
# Common helpers for the harness scripts.  Sourced, never executed.
#
# The base: the upstream release the series applies to.  BASE=7.3 (Linux
# 7.3.4, mainline) or BASE=6.12 (6.12.117, the backport); the bases and the default
# are in harness/bases.  Each base has its own series (harness/series/BASE/)
# and its own build folder (build/BASE/); the files of ours at their in-tree
# paths are the tip of MAIN_BASE's series.
#
# Paths (all absolute):
#   REPO      repository root
#   BUILD     build output of this base (git-ignored): build/BASE
#   PRISTINE  unpacked linux-source-BASE, never modified
#   SRC       pristine + the series + our in-tree files (hardlinked copy of PRISTINE)
#   LOGS      full logs of every step

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
HARNESS=$REPO/harness
MAIN_BASE=$(awk '!/^#/ && NF { print $1; exit }' "$HARNESS/bases")
BASE=${BASE:-$MAIN_BASE}
BASE_VERSION=$(awk -v b="$BASE" '!/^#/ && $1 == b { print $2 }' "$HARNESS/bases")
if [ -z "$BASE_VERSION" ]; then
	printf 'harness: error: BASE must be one of harness/bases, not %s\n' "$BASE" >&2
	exit 2
fi
export BASE
BASE_TAG=v$BASE_VERSION-debian
BUILD_TOP=$REPO/build
BUILD=${BUILD:-$BUILD_TOP/$BASE}
TARBALL=${TARBALL:-/usr/src/linux-source-$BASE.tar.xz}
PRISTINE=$BUILD/pristine/linux-source-$BASE
SERIES=$HARNESS/series/$BASE
SRC=$BUILD/src
LOGS=$BUILD/logs
export CCACHE_DIR=${CCACHE_DIR:-$HOME/.cache/ccache}
# Paths under the repository are hashed relative to it, and the compiler's
# working folder not at all, so that a clone in another folder (CI) hits the
# entries this one made.
export CCACHE_BASEDIR=${CCACHE_BASEDIR:-$REPO} CCACHE_NOHASHDIR=${CCACHE_NOHASHDIR:-1}
export CCACHE_MAXSIZE=${CCACHE_MAXSIZE:-8G}
# Reproducible version strings help ccache and make logs comparable.
export KBUILD_BUILD_USER=harness KBUILD_BUILD_HOST=qemu
export KBUILD_BUILD_TIMESTAMP='Thu Jan  1 00:00:00 UTC 2026'
JOBS=${JOBS:-$(nproc)}

# libibverbs' providers of the soft devices (siw, rxe) live here
PROVIDERS=/usr/lib/x86_64-linux-gnu/libibverbs

# Folders of the repository that hold in-tree kernel files.
OVERLAY_DIRS=(kernel include drivers tools Documentation)

mkdir -p "$BUILD" "$LOGS"

say() { printf '%s\n' "$*"; }
die() { printf 'harness: error: %s\n' "$*" >&2; exit 1; }

# Take build/.lock for the rest of this process and its children.  Nested
# harness scripts see HARNESS_LOCKED and do not try again (a second flock on
# a new open file description of the same file would deadlock).
take_lock() {
	[ "${HARNESS_LOCKED:-}" = 1 ] && return 0
	exec 9>"$BUILD/.lock"
	if ! flock -n 9; then
		say "harness: waiting for $BUILD/.lock (another build or check is running)"
		flock 9
	fi
	export HARNESS_LOCKED=1
}

# step NAME EXPECTED CMD...: run CMD with its output in $LOGS/NAME.log, print
# one progress line, and on failure the tail of the log.  Returns CMD's status.
step() {
	local name=$1 expect=$2 t0 rc=0
	shift 2
	t0=$(date +%s)
	printf '==> %-28s (expected %s) ... ' "$name" "$expect"
	"$@" >"$LOGS/$name.log" 2>&1 || rc=$?
	if [ $rc -eq 0 ]; then
		printf 'ok (%ss)\n' $(($(date +%s) - t0))
	else
		printf 'FAILED (%ss, exit %s)\n' $(($(date +%s) - t0)) $rc
		say "---- last 40 lines of $LOGS/$name.log ----"
		tail -n 40 "$LOGS/$name.log"
		say "---- end of $LOGS/$name.log ----"
	fi
	return $rc
}

# Files of the repository under OVERLAY_DIRS that exist in the work tree,
# relative paths, sorted: tracked files and untracked ones that are not
# ignored, or with OVERLAY=tracked only what git tracks (what a fresh clone
# has; handy while others have work in progress).
overlay_files() {
	local ls=(--cached --others --exclude-standard)
	case "${OVERLAY:-all}" in
	all) ;;
	tracked) ls=(--cached) ;;
	*) die "OVERLAY must be all or tracked" ;;
	esac
	(cd "$REPO" && git ls-files -z "${ls[@]}" -- "${OVERLAY_DIRS[@]}" |
		while IFS= read -r -d '' f; do [ -f "$f" ] && printf '%s\n' "$f"; done | sort -u)
}

# set_from_git GITDIR COMMIT REL ROOT: ROOT/REL as GITDIR has it at COMMIT
# (removed if absent there).  Replaced only when the content changes, so
# kbuild rebuilds only what changed, and never written through a hardlink
# into the pristine tree.
set_from_git() {
	local git=$1 commit=$2 rel=$3 root=$4 tmp
	tmp=$(mktemp)
	if git -C "$git" cat-file -e "$commit:$rel" 2>/dev/null; then
		git -C "$git" show "$commit:$rel" >"$tmp"
		if ! cmp -s "$tmp" "$root/$rel"; then
			mkdir -p "$(dirname "$root/$rel")"
			rm -f "$root/$rel"
			cat "$tmp" >"$root/$rel"  # a new file, with the umask's mode
		fi
	else
		rm -f "$root/$rel"
	fi
	rm -f "$tmp"
}

# config_mismatches CONFIG FRAGMENT...: for every symbol the fragments set
# (the last fragment that names one wins, as in merge_config.sh) that the
# generated CONFIG does not have, print "SYM VALUE WHAT-CONFIG-HAS".
config_mismatches() {
	local config=$1 line sym val f
	shift
	declare -A want=()
	for f in "$@"; do
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
			grep -q "^$sym=" "$config" || continue
		else
			grep -qxF "$sym=$val" "$config" && continue
		fi
		echo "$sym $val $(grep -E "^(# )?$sym[= ]" "$config" || echo nothing)"
	done
}

# busybox_root ROOT: busybox and its applets in ROOT/bin, for a guest or
# container root of our own
busybox_root() {
	local a
	mkdir -p "$1/bin"
	cp /bin/busybox "$1/bin/busybox"
	# busybox lists itself: a link there would replace the binary (ELOOP)
	for a in $(busybox --list | grep -vx busybox); do ln -s busybox "$1/bin/$a"; done
}

# copy_libs ROOT FILE...: the libraries ldd lists for the FILEs (every
# one they need, and the loader), at their own paths under ROOT
copy_libs() {
	local root=$1 f
	shift
	for f in $(ldd "$@" 2>/dev/null | sort -u |
		sed -n -e 's/.*=> \(\/[^ ]*\) .*/\1/p' -e 's/^[[:space:]]*\(\/[^ ]*\) (.*/\1/p'); do
		mkdir -p "$root$(dirname "$f")"
		cp -L "$f" "$root$f"
	done
}

# install_config NEW OBJDIR LABEL: copy NEW to OBJDIR/.config only if it
# changed, so that an unchanged configuration never triggers a rebuild.
install_config() {
	if [ -f "$2/.config" ] && cmp -s "$1" "$2/.config"; then
		say "$3 .config unchanged"
	else
		cp "$1" "$2/.config"
		say "$3 .config updated"
	fi
}
