# SPDX-License-Identifier: GPL-2.0
# Common helpers of the harness, sourced.  The base (BASE, default the
# first of harness/bases; 7.3 mainline, 6.12 the backport) has its series
# harness/series/BASE/ and its build folder build/BASE/; the in-tree files
# are the tip of the main base's series.  REPO, BUILD (build/BASE),
# PRISTINE (linux-source-BASE, never modified), SRC (pristine + series +
# in-tree files, hardlinked), LOGS: absolute paths.
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
# hashed relative to the repository: a clone elsewhere (CI) hits this one's entries
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

# take_lock: build/BASE/.lock for this process and its children (nested
# scripts see HARNESS_LOCKED: a second flock would deadlock).
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

# overlay_files: our in-tree files (under OVERLAY_DIRS), tracked and
# untracked not ignored, or with OVERLAY=tracked what a fresh clone has.
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

# put NEW DEST: DEST gets NEW's content unless it has it already; the old
# DEST is removed first, never written through a hardlink into a pristine
# tree, and the new one has the umask's mode and a new mtime for kbuild.
put() {
	cmp -s "$1" "$2" && return 0
	mkdir -p "$(dirname "$2")"
	rm -f "$2"
	cat "$1" >"$2"
	say "updated $2"
}

# set_from_git GITDIR COMMIT REL ROOT: ROOT/REL as GITDIR has it at COMMIT
# (removed if absent there), by put.
set_from_git() {
	local tmp
	tmp=$(mktemp)
	if git -C "$1" show "$2:$3" >"$tmp" 2>/dev/null; then
		put "$tmp" "$4/$3" >/dev/null
	else
		rm -f "$4/$3"
	fi
	rm -f "$tmp"
}

# config_mismatches CONFIG FRAGMENT...: "SYM VALUE WHAT-CONFIG-HAS" for each
# symbol the fragments set (the last wins) that CONFIG does not have.
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

# busybox_root ROOT: busybox and its applets in ROOT/bin
busybox_root() {
	local a
	mkdir -p "$1/bin"
	cp /bin/busybox "$1/bin/busybox"
	# busybox lists itself: a link there would replace the binary (ELOOP)
	for a in $(busybox --list | grep -vx busybox); do ln -s busybox "$1/bin/$a"; done
}

# copy_libs ROOT FILE...: the libraries ldd lists for the FILEs, under ROOT
copy_libs() {
	local root=$1 f
	shift
	for f in $(ldd "$@" 2>/dev/null | sort -u |
		sed -n -e 's/.*=> \(\/[^ ]*\) .*/\1/p' -e 's/^[[:space:]]*\(\/[^ ]*\) (.*/\1/p'); do
		mkdir -p "$root$(dirname "$f")"
		cp -L "$f" "$root$f"
	done
}
