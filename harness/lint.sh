#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Static checks of our kernel files, one per call:
#   harness/lint.sh checkpatch   the generated series (harness/patch.sh)
#   harness/lint.sh sparse       make C=1 W=1 on our objects: warnings in
#                                our files fail
#   harness/lint.sh kerneldoc    scripts/kernel-doc -Wall -none on our .c/.h
#   harness/lint.sh originality  ../shared/tools/originality
#   harness/lint.sh docs         docutils on the .rst files we own or change
set -euo pipefail
. "$(dirname "$0")/lib.sh"
take_lock

[ -f "$SRC/.harness-src" ] || die "$SRC is not prepared: run harness/tree.sh first"
mapfile -t ours < <(overlay_files)
code=()
for f in "${ours[@]}"; do
	# series-check lints each patch's tree, which may not have the file yet
	[ -f "$SRC/$f" ] || continue
	case "$f" in
	kernel/*.[ch] | include/*.h | drivers/*.[ch]) code+=("$f") ;;
	esac
done

# sparse and W=1 on our .c files that are objects of their own (the KUnit
# suite is included by rdma.c), in build/BASE/obj-lint (debug .config).
sparse_check() {
	local LINT=$BUILD/obj-lint objs=() f out rc=0 pat bad
	for f in "${code[@]}"; do
		grep -qsw "$(basename "${f%.c}").o" "$SRC/$(dirname "$f")/Makefile" && objs+=("${f%.c}.o")
	done
	[ ${#objs[@]} -gt 0 ] || { say "sparse: no objects of ours to check"; return 0; }
	[ -f "$BUILD/obj-debug/.config" ] || die "debug .config missing: run harness/kernel.sh debug config"
	mkdir -p "$LINT"
	cmp -s "$BUILD/obj-debug/.config" "$LINT/.config" || cp "$BUILD/obj-debug/.config" "$LINT/.config"
	for f in "${objs[@]}"; do rm -f "$LINT/$f"; done
	say "sparse: make C=1 W=1 ${objs[*]}"
	out=$(make -C "$SRC" O="$LINT" ARCH=x86_64 "CC=ccache gcc" "HOSTCC=ccache gcc" -j"$JOBS" \
		C=1 W=1 "${objs[@]}" 2>&1) || rc=$?
	printf '%s\n' "$out"
	[ $rc -eq 0 ] || die "the build of ${objs[*]} failed"
	pat=$(printf '%s\n' "${code[@]}" | sed 's/[.]/\\./g' | paste -sd'|')
	bad=$(grep -E "(^|/)($pat):[0-9]+(:[0-9]+)?: (warning|error|note)" <<<"$out" || true)
	[ -z "$bad" ] || { say "sparse/W=1: problems in our files:"; printf '%s\n' "$bad"; return 1; }
	# 7.3's scripts/checker-valid.sh wants __typeof_unqual__, which no
	# packaged sparse (Debian's 0.6.4) knows: kbuild then drops C=1
	if grep -q 'is not available or not up to date' <<<"$out"; then
		say "W=1: no warnings in our files; sparse: not run on $BASE (kbuild finds it too old), make check BASE=6.12 runs it"
	else
		say "sparse/W=1: no warnings in our files"
	fi
}

kerneldoc_check() {
	if [ ${#code[@]} -eq 0 ]; then
		say "kernel-doc: no files of ours"
		return 0
	fi
	local out old f
	out=$(cd "$SRC" && ./scripts/kernel-doc -Wall -none "${code[@]}" 2>&1) || true
	# LINT_NEW_ONLY=1 (series-check): only warnings that the pristine
	# version of the same file does not have, line numbers aside (7.3's
	# kernel-doc writes "file:N desc", 6.12's "file:N: warning: desc")
	if [ "${LINT_NEW_ONLY:-}" = 1 ] && [ -n "$out" ]; then
		old=$(for f in "${code[@]}"; do
			[ -f "$PRISTINE/$f" ] && (cd "$PRISTINE" && ./scripts/kernel-doc -Wall -none "$f" 2>&1)
		done | sed -E 's/:[0-9]+([: ])/:\1/' || true)
		out=$(sed -E 's/:[0-9]+([: ])/:\1/' <<<"$out" | grep -vxF -f <(printf '%s\n' "$old") || true)
	fi
	if [ -n "$out" ]; then
		printf '%s\n' "$out"
		say "kernel-doc: $(grep -c . <<<"$out") problems"
		return 1
	fi
	say "kernel-doc -Wall: clean (${code[*]})"
}

originality_check() {
	local tool=$REPO/../shared/tools/originality
	[ -x "$tool" ] || [ -f "$tool" ] ||
		die "$tool not found: shared/ must be checked out beside the repository"
	(cd "$REPO" && python3 "$tool" --upstream "$PRISTINE")
}

# The documentation we own or change, as it stands in build/src.
docs_check() {
	# Debian's python3-docutils (deps.sh) belongs to the system python.
	(cd "$SRC" && /usr/bin/python3 "$HARNESS/rst.py" check \
		Documentation/admin-guide/cgroup-v2.rst "$REPO/docs/rdma-cgroup-guide.rst")
}

case "${1:-}" in
checkpatch) DRAFT=1 bash "$HARNESS/patch.sh" ;;
sparse) sparse_check ;;
kerneldoc) kerneldoc_check ;;
originality) originality_check ;;
docs) docs_check ;;
*) die "usage: lint.sh checkpatch|sparse|kerneldoc|originality|docs" ;;
esac
