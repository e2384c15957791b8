#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The documentation's recipes work as typed: every block of README.md and
# docs/*.md fenced "```sh runnable" runs, in order, under bash -eu -o
# pipefail from the root of a scratch copy (a clone of the repository with
# the working tree's changes to tracked files).  It runs dry: `make` is
# make -n (the Makefile where the recipe stands has the targets), and what
# the long targets would leave is there beforehand, as stand-ins:
#   build/BASE/series-git  a clone of the copy, tagged as the base;
#   build/MAIN/patches/    per submission, a cover letter and one patch by
#                          git format-patch, which apply on /path/to/linux-7.3;
#   build/MAIN/            what make check leaves for the one-test recipes: a
#                          kernel for boot.sh, whose vng (on PATH) runs CMD
#                          here but, for the guest's init, only checks that
#                          honly= names a guest test; kunit.py and test_rdma,
#                          which check that the suite.case, the test exist.
# Placeholders: <the patch it belongs to> is HEAD, <the mainline commit>
# FETCH_HEAD.  Last line "recipes: N run, N failed".  make check: lint-recipes.
set -euo pipefail
unset BASE BUILD BOOT_APPEND
REPO=$(cd "$(dirname "$0")/.." && pwd)
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
S=$T/repo B=$T/bin
mkdir -p "$T/r" "$B"
export PATH=$B:$PATH EDITOR=$B/edit GIT_EDITOR=true GIT_SEQUENCE_EDITOR=true
export GIT_AUTHOR_NAME=recipes GIT_AUTHOR_EMAIL=recipes@example.invalid
export GIT_COMMITTER_NAME=recipes GIT_COMMITTER_EMAIL=recipes@example.invalid
git clone -q "$REPO" "$S"
git -C "$REPO" diff --binary HEAD | git -C "$S" apply --allow-empty
cd "$S"
bases=$(awk '!/^#/ && NF { print $1 }' harness/bases)
main=${bases%%$'\n'*} M=$S/build/$main

# the stand-ins
printf '#!/bin/sh\nexec %s -n "$@" >/dev/null\n' "$(command -v make)" >"$B/make"
printf '#!/bin/sh\necho "/* edited */" >>"$1"\n' >"$B/edit"
cat >"$B/vng" <<'EOF'
#!/bin/bash
while [ $# -gt 0 ]; do
	case $1 in --append) app=$2 && shift ;; --exec) cmd=$2 && shift ;; esac
	shift
done
case $cmd in
*/guest/init*)
	t=$(sed -n 's/.*honly=\([^ ]*\).*/\1/p' <<<"$app")
	# shellcheck disable=SC2086 # honly= is a pattern
	ls harness/guest/tests/$t.sh harness/fixes/$t.sh 2>/dev/null | grep -q . ||
		{ echo "vng: no guest test $t" >&2 && exit 1; }
	echo "ok 1 $t" ;;
*) bash -c "$cmd" ;;
esac
EOF
mkdir -p "$M"/{src/tools/testing/kunit,obj-debug/arch/x86/boot,guest/bin,selftests-debug}
touch "$M/obj-debug/arch/x86/boot/bzImage"
ln -s "$S/kernel" "$M/src/kernel"
cat >"$M/src/tools/testing/kunit/kunit.py" <<'EOF'
#!/bin/bash
f=${!#} d=kernel/cgroup/tests
[[ " $* " == *" --kunitconfig=$d "* ]] && grep -q "\.name = \"${f%%.*}\"" $d/*.c &&
	grep -q "KUNIT_CASE[A-Z_]*(${f#*.}[,)]" $d/*.c || { echo "kunit.py: no case $f in $d" >&2 && exit 1; }
EOF
printf '#!/bin/sh\n[ "$1" = -t ] && grep -q "^TEST_F[A-Z_]*(rdma, $2[,)]" %s || ! echo "test_rdma: no test $2"\n' \
	"$S/tools/testing/selftests/cgroup/test_rdma.c" >"$M/selftests-debug/test_rdma"
chmod +x "$B"/* "$M/src/tools/testing/kunit/kunit.py" "$M/selftests-debug/test_rdma"
for b in $bases; do
	git clone -q . "build/$b/series-git"
	git -C "build/$b/series-git" tag "v$(awk -v b="$b" '$1 == b { print $2 }' harness/bases)-debian"
done
git init -q "$T/up" && git -C "$T/up" commit -q --allow-empty -m base && git clone -q "$T/up" "$T/linux"
for s in $(awk '!/^#/ && NF { print $1 }' "harness/series/$main/submissions"); do
	echo "$s" >"$T/up/$s" && git -C "$T/up" add "$s" && git -C "$T/up" commit -qm "$s"
	git -C "$T/up" format-patch -q --cover-letter -o "$M/patches/$s" -1
done

# the recipes, a file each, its first line "# FILE:LINE"
(cd "$REPO" && awk -v d="$T/r" '
	in_b && /^```/ { in_b = 0; close(out); next }
	in_b { print >out; next }
	/^```sh runnable$/ { in_b = 1; out = sprintf("%s/%03d", d, ++n); print "# " FILENAME ":" FNR >out }
' README.md docs/*.md)
run=0 failed=0
for r in "$T"/r/*; do
	[ -f "$r" ] || continue
	run=$((run + 1))
	script=$(sed -e 's|<the patch it belongs to>|HEAD|g' -e 's|<the mainline commit>|FETCH_HEAD|g' \
		-e "s|/path/to/linux-7.3|$T/linux|g" "$r")
	if out=$(cd "$S" && bash -euo pipefail -c "$script" 2>&1 </dev/null); then
		echo "ok: $(head -n1 "$r" | cut -c3-)"
	else
		failed=$((failed + 1))
		echo "FAILED: $(head -n1 "$r" | cut -c3-):"
		sed 's/^/    /' <<<"$out"
	fi
done
echo "recipes: $run run, $failed failed"
[ $failed -eq 0 ] && [ $run -gt 0 ]
