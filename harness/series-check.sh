#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# `make series-check`: check that the series of `make patch` is bisectable.
# For each patch in turn, build/BASE/src is set to pristine BASE plus the patches
# up to it, and the release and the debug kernels are built from it in their
# usual object folders, so every step is an incremental build.  The debug
# kernel is booted at every patch: no splat may show, and from the patch
# that adds the KUnit suite on (it runs built in) the suite must pass.  At
# the end build/src is the whole
# series again (harness/tree.sh), which is what the last step built.
# Logs: build/logs/series-*.log; one line per step, as in make check.
# Knobs: SERIES_FLAVOURS (default "release debug"), SERIES_FROM=N and SERIES_TO=M
# (check patches N to M only); nothing is built before patch N (the files
# still come from the series).
set -euo pipefail
. "$(dirname "$0")/lib.sh"
take_lock

WORK=$BUILD/patchwork
KUNIT_FILE=kernel/cgroup/tests/rdma_kunit.c
t_start=$(date +%s)
failed=0

step patch "30s" env DRAFT=1 bash "$HARNESS/patch.sh" || exit 1
G=(git -C "$WORK")
base=$BASE_TAG
mapfile -t commits < <("${G[@]}" rev-list --reverse "$base..HEAD")
mapfile -t touched < <("${G[@]}" diff --name-only "$base" HEAD)

# A guest whose /init only powers off: KUnit has run by then.
kunit_initramfs() {
	local root=$BUILD/series-initramfs.d
	rm -rf "$root"
	mkdir -p "$root/bin"
	cp /bin/busybox "$root/bin/busybox"
	printf '#!/bin/busybox sh\n/bin/busybox reboot -f\n' >"$root/init"
	chmod 755 "$root/init"
	(cd "$root" && find . | cpio -o -H newc -R 0:0 --quiet) | gzip >"$BUILD/series-initramfs.cpio.gz"
}

# kunit_boot [--expect-kunit]
kunit_boot() {
	local log=$LOGS/series-kunit-console.log
	kunit_initramfs
	timeout -k 10 "${BOOT_TIMEOUT:-300}" qemu-system-x86_64 -accel "${ACCEL:-tcg,thread=multi}" \
		-m 1G -smp 2 -no-reboot -nic none -display none -monitor none \
		-kernel "$BUILD/obj-debug/arch/x86/boot/bzImage" \
		-initrd "$BUILD/series-initramfs.cpio.gz" \
		-append "console=ttyS0 panic=-1 oops=panic" \
		-serial "file:$log" </dev/null || true
	python3 "$HARNESS/analyze.py" --console "$log" --results /dev/null \
		--src "$SRC" "$@" | tee "$LOGS/series-kunit.log"
	# No guest tests ran, so only the KUnit and splat verdicts count.
	{ [ $# -eq 0 ] || grep -q '^kunit: [1-9][0-9]* passed, 0 failed' "$LOGS/series-kunit.log"; } &&
		grep -qx 'splats: none' "$LOGS/series-kunit.log" &&
		grep -q 'reboot: Restarting system' "$log"
}

n=0
for c in "${commits[@]}"; do
	n=$((n + 1))
	subject=$("${G[@]}" log -1 --format=%s "$c")
	say "==> patch $n/${#commits[@]}: $subject"
	for rel in "${touched[@]}"; do
		set_from_git "$WORK" "$c" "$rel" "$SRC"
	done
	[ "$n" -ge "${SERIES_FROM:-1}" ] || continue
	[ "$n" -le "${SERIES_TO:-$n}" ] || break
	for flavour in ${SERIES_FLAVOURS:-release debug}; do
		step "series-$n-$flavour" "1-3 min; 15 min the first time" \
			bash "$HARNESS/kernel.sh" "$flavour" build || failed=$((failed + 1))
	done
	# W=1, sparse and kernel-doc on our files as this patch has them; the
	# fixes keep upstream's own kernel-doc warnings, which are not counted
	step "series-$n-lint" "30s" env LINT_NEW_ONLY=1 \
		bash -c "bash '$HARNESS/lint.sh' sparse && bash '$HARNESS/lint.sh' kerneldoc" ||
		failed=$((failed + 1))
	if [[ " ${SERIES_FLAVOURS:-release debug} " == *" debug "* ]]; then
		expect=()
		"${G[@]}" cat-file -e "$c:$KUNIT_FILE" 2>/dev/null && expect=(--expect-kunit)
		step "series-$n-boot" "1 min (under TCG)" kunit_boot "${expect[@]}" || failed=$((failed + 1))
		cp "$LOGS/series-kunit.log" "$LOGS/series-$n-boot-result.log" 2>/dev/null || true
	fi
done

step tree "5s" bash "$HARNESS/tree.sh" || failed=$((failed + 1))
say "==> series-check: ${#commits[@]} patches, $failed failed steps, $(($(date +%s) - t_start))s"
[ $failed -eq 0 ]
