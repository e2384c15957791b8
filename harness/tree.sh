#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Prepare the kernel trees:
#   build/pristine/linux-source-6.12  unpacked once from Debian's tarball and
#                                     never modified (checked by a stamp)
#   build/src                         hardlinked copy of pristine with our
#                                     in-tree files and the hunks applied
# A file in build/src is only replaced when its content changes, so that
# kbuild rebuilds only what changed.  Every replaced file is first removed so
# that nothing is ever written through a hardlink into the pristine tree.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
take_lock

STAMP=$BUILD/pristine/.stamp
MANIFEST=$BUILD/src.manifest

tarball_id() {
	stat -c '%s %Y' "$TARBALL"
}

pristine_ok() {
	[ -f "$STAMP" ] && [ -d "$PRISTINE" ] || return 1
	local want got
	want=$(cat "$STAMP")
	got="$(tarball_id) files=$(find "$PRISTINE" -type f | wc -l)"
	[ "$want" = "$got" ]
}

unpack_pristine() {
	[ -f "$TARBALL" ] || die "$TARBALL is missing: run harness/deps.sh (package linux-source-6.12)"
	if [ -e "$BUILD/pristine" ]; then
		say "tree: pristine tree missing, incomplete or changed; unpacking it again"
	fi
	rm -rf "$BUILD/pristine" "$SRC" "$MANIFEST"
	mkdir -p "$BUILD/pristine.tmp"
	say "tree: unpacking $TARBALL (about 1-2 minutes)"
	tar -C "$BUILD/pristine.tmp" -xf "$TARBALL"
	[ -f "$BUILD/pristine.tmp/linux-source-6.12/Makefile" ] ||
		die "$TARBALL did not contain linux-source-6.12/Makefile"
	echo "$(tarball_id) files=$(find "$BUILD/pristine.tmp/linux-source-6.12" -type f | wc -l)" \
		>"$BUILD/pristine.tmp/.stamp"
	mv "$BUILD/pristine.tmp" "$BUILD/pristine"
}

# replace_if_changed NEW DEST: put the content of NEW at DEST unless equal.
replace_if_changed() {
	local new=$1 dest=$2
	if [ -f "$dest" ] && cmp -s "$new" "$dest"; then
		return 0
	fi
	mkdir -p "$(dirname "$dest")"
	rm -f "$dest"
	cp "$new" "$dest"
	say "tree: updated ${dest#"$SRC"/}"
}

# A file we no longer provide: back to the pristine content, or gone if the
# pristine tree has no such file.  Copied, not linked, so that its mtime is new
# and kbuild notices the change.
restore() {
	local rel=$1
	if [ -f "$PRISTINE/$rel" ]; then
		if ! cmp -s "$PRISTINE/$rel" "$SRC/$rel"; then
			rm -f "$SRC/$rel"
			cp "$PRISTINE/$rel" "$SRC/$rel"
			say "tree: restored $rel from pristine"
		fi
	elif [ -e "$SRC/$rel" ]; then
		rm -f "$SRC/$rel"
		say "tree: removed $rel"
	fi
}

if ! pristine_ok; then
	rm -rf "$BUILD/pristine.tmp"
	unpack_pristine
	pristine_ok || die "pristine tree check failed right after unpacking"
fi

if [ ! -f "$SRC/.harness-src" ] || [ "$(cat "$SRC/.harness-src")" != "$(cat "$STAMP")" ]; then
	say "tree: creating $SRC as a hardlinked copy of pristine"
	rm -rf "$SRC" "$SRC.tmp" "$MANIFEST"
	cp -al "$PRISTINE" "$SRC.tmp"
	cp "$STAMP" "$SRC.tmp/.harness-src"
	mv "$SRC.tmp" "$SRC"
fi

STAGE=$BUILD/stage
rm -rf "$STAGE"
mkdir -p "$STAGE/over" "$STAGE/hunked"

mapfile -t files < <(overlay_files)
mapfile -t hunks < <(hunk_files)
targets=()
if [ ${#hunks[@]} -gt 0 ]; then
	mapfile -t targets < <(patch_targets "${hunks[@]}")
fi

# Hunks: start from what the file would be without them (ours if we ship it,
# else pristine, else absent) and apply every hunk in name order.
for rel in "${targets[@]}"; do
	mkdir -p "$STAGE/hunked/$(dirname "$rel")"
	if [ -f "$REPO/$rel" ]; then
		cp "$REPO/$rel" "$STAGE/hunked/$rel"
	elif [ -f "$PRISTINE/$rel" ]; then
		cp "$PRISTINE/$rel" "$STAGE/hunked/$rel"
	fi
done
for h in "${hunks[@]}"; do
	if ! out=$(patch -d "$STAGE/hunked" -p1 --batch --forward --no-backup-if-mismatch \
		-r - <"$h" 2>&1); then
		printf '%s\n' "$out" >&2
		die "hunk ${h#"$REPO"/} does not apply on top of pristine 6.12 and our files"
	fi
done

# Copy our files and the hunked files into the source tree.
declare -A now=()
for rel in "${files[@]}"; do
	now[$rel]=1
	if [ -f "$STAGE/hunked/$rel" ]; then
		continue
	fi
	replace_if_changed "$REPO/$rel" "$SRC/$rel"
done
for rel in "${targets[@]}"; do
	now[$rel]=1
	if [ -f "$STAGE/hunked/$rel" ]; then
		replace_if_changed "$STAGE/hunked/$rel" "$SRC/$rel"
	else
		restore "$rel" # a hunk deleted the file
	fi
done

# Whatever we provided last time and no longer do goes back to pristine.
if [ -f "$MANIFEST" ]; then
	while IFS= read -r rel; do
		[ -n "${now[$rel]:-}" ] || restore "$rel"
	done <"$MANIFEST"
fi
printf '%s\n' "${!now[@]}" | sed '/^$/d' | sort >"$MANIFEST.tmp"
mv "$MANIFEST.tmp" "$MANIFEST"
rm -rf "$STAGE"
say "tree: $SRC ready (${#files[@]} files of ours, ${#hunks[@]} hunks)"
