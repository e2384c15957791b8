#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Prepare the kernel trees of a base (BASE=7.3 or 6.12, see lib.sh):
#   build/BASE/pristine/linux-source-BASE  unpacked once from Debian's
#                                     tarball and never modified (checked by
#                                     a stamp)
#   build/BASE/src                    hardlinked copy of pristine with the
#                                     series (harness/series/BASE/) applied
#                                     and, on the main base, our in-tree
#                                     files over it (lib.sh's put: only a
#                                     changed file is replaced)
set -euo pipefail
. "$(dirname "$0")/lib.sh"
take_lock

STAMP=$BUILD/pristine/.stamp
TOP=linux-source-$BASE
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
	[ -f "$TARBALL" ] || die "$TARBALL is missing: run harness/source.sh $BASE (package linux-source-$BASE)"
	if [ -e "$BUILD/pristine" ]; then
		say "tree: pristine tree missing, incomplete or changed; unpacking it again"
	fi
	rm -rf "$BUILD/pristine" "$SRC" "$MANIFEST"
	mkdir -p "$BUILD/pristine.tmp"
	say "tree: unpacking $TARBALL (about 1-2 minutes)"
	tar -C "$BUILD/pristine.tmp" -xf "$TARBALL"
	[ -f "$BUILD/pristine.tmp/$TOP/Makefile" ] ||
		die "$TARBALL did not contain $TOP/Makefile"
	echo "$(tarball_id) files=$(find "$BUILD/pristine.tmp/$TOP" -type f | wc -l)" \
		>"$BUILD/pristine.tmp/.stamp"
	mv "$BUILD/pristine.tmp" "$BUILD/pristine"
}

# A file we no longer provide: back to pristine, or gone if pristine has none.
restore() {
	if [ -f "$PRISTINE/$1" ]; then
		put "$PRISTINE/$1" "$SRC/$1"
	else
		rm -f "$SRC/$1"
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

# The series' tip for every file it touches (series.sh work), then our
# in-tree files over it: they equal the tip once a change has landed in its
# patch (make check's lint-checkpatch says where they do not), and an edit in
# progress builds before it has.  Our in-tree files are the tip of the main
# base's series only; another base's tree is its series alone.  TREE=pristine
# (the bench's upstream kernel): neither.
STAGE=$BUILD/stage
rm -rf "$STAGE"
mkdir -p "$STAGE"
files=() staged=()
if [ "${TREE:-}" != pristine ]; then
	bash "$HARNESS/series.sh" work
	git -C "$BUILD/patchwork" archive HEAD | tar -x -C "$STAGE"
	[ "$BASE" != "$MAIN_BASE" ] || mapfile -t files < <(overlay_files)
	mapfile -t staged < <(cd "$STAGE" && find . -type f | sed 's#^\./##' | LC_ALL=C sort)
fi

declare -A now=()
for rel in "${files[@]}"; do
	now[$rel]=1
	put "$REPO/$rel" "$SRC/$rel"
done
for rel in "${staged[@]}"; do
	[ -n "${now[$rel]:-}" ] && continue
	now[$rel]=1
	put "$STAGE/$rel" "$SRC/$rel"
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
say "tree: $SRC ready (${#staged[@]} files from the series, ${#files[@]} of them in-tree)"
