#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Fuzz the rdma.max parser, kernel/cgroup/rdma_parse.c, against a reference
# model, then against upstream Linux 7.3's own parsing code.
#
#   harness/fuzz/run.sh [SECONDS]        (default 60, split in two halves)
#
# 1. Installs clang-14 and libfuzzer-14-dev if missing (Debian, idempotent).
# 2. Builds kernel/cgroup/rdma_parse.c, the kernel's parser source as it
#    is, against the stand-ins for kernel headers in harness/fuzz/include.
#    Builds, with ASan and UBSan, a libFuzzer target and a plain checker.
# 3. Runs every seed of harness/fuzz/corpus through the plain checker (parser
#    and model must agree) and compares the results with
#    harness/fuzz/expected.txt, worked out by hand: a check of the model.
# 4. Fuzzes for SECONDS/2 on a copy of the corpus in build/fuzz/corpus.
# 5. The differential fuzzer, fuzz_diff.c: builds Linux 7.3's own
#    lib/parser.c, lib/kstrtox.c, lib/ctype.c and the simple_strto*() of
#    lib/vsprintf.c from an unpacked tree (never copied into the
#    repository), against the stand-ins of harness/fuzz/ref-include, with
#    ref_rdma.c, our re-writing of the loop of 7.3's rdma.max handler; runs
#    the seeds through its plain checker, then fuzzes for the other half.
#
# Exits non-zero on any crash, sanitizer report or disagreement; the last
# line is "fuzz: N execs in S s, C crashes" (both fuzzers summed).
#
# Environment: FUZZ_OUT (default build/fuzz), FUZZ_SEED (libFuzzer -seed),
# FUZZ_REF_TREE (an unpacked Linux 7.3 tree; default
# /work/main/build/7.3/pristine/linux-source-7.3 if there, else
# /work/ref/linux-source-7.3, else the files needed are extracted from
# FUZZ_REF_TARBALL, default /usr/src/linux-source-7.3.tar.xz, into
# FUZZ_OUT/ref/).
set -euo pipefail

DURATION=${1:-60}
case "$DURATION" in '' | *[!0-9]*) echo "usage: $0 [SECONDS]" >&2; exit 2 ;; esac

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)
OUT=${FUZZ_OUT:-$REPO/build/fuzz}
PARSER=$REPO/kernel/cgroup/rdma_parse.c
CLANG=clang-14
PKGS=(clang-14 libfuzzer-14-dev llvm-14)

. "$REPO/harness/lib.sh"
say() { printf 'fuzz: %s\n' "$*"; }
die() { printf 'fuzz: error: %s\n' "$*" >&2; exit 1; }

# --- 1. packages -----------------------------------------------------------
need_packages "${PKGS[@]}"
command -v $CLANG >/dev/null || die "$CLANG not found after install"

mkdir -p "$OUT"

# --- 2. build -----------------------------------------------------------------
[ -f "$PARSER" ] || die "$PARSER not found"
# The kernel builds with -funsigned-char (since 6.2), so do we.
CFLAGS=(-std=gnu11 -g -O1 -funsigned-char -fno-omit-frame-pointer
	-fsanitize=address,undefined -fno-sanitize-recover=all
	-Wall -Werror -I"$HERE/include" -I"$REPO/kernel/cgroup")
$CLANG "${CFLAGS[@]}" -fsanitize=fuzzer \
	-o "$OUT/fuzz_parse" "$HERE/fuzz_parse.c" "$HERE/model.c" "$PARSER" ||
	die "building the fuzzer failed"
$CLANG "${CFLAGS[@]}" -DFUZZ_STANDALONE \
	-o "$OUT/fuzz_check" "$HERE/fuzz_parse.c" "$HERE/model.c" "$PARSER" ||
	die "building the plain checker failed"
say "built $OUT/fuzz_parse and $OUT/fuzz_check"

SYMBOLIZER=/usr/lib/llvm-14/bin/llvm-symbolizer
[ -x "$SYMBOLIZER" ] && export ASAN_SYMBOLIZER_PATH=$SYMBOLIZER
export ASAN_OPTIONS=abort_on_error=1:halt_on_error=1:detect_leaks=1:strict_string_checks=1
export UBSAN_OPTIONS=halt_on_error=1:abort_on_error=1:print_stacktrace=1

# --- 3. seeds and the model ----------------------------------------------------
seeds=("$HERE"/corpus/*)
[ -e "${seeds[0]}" ] || die "empty seed corpus $HERE/corpus"
if ! "$OUT/fuzz_check" "${seeds[@]}" > "$OUT/seeds.txt" 2> "$OUT/seeds.err"; then
	cat "$OUT/seeds.err" >&2
	say "FAILED on a seed of harness/fuzz/corpus (before fuzzing)"
	say "$(($(wc -l < "$OUT/seeds.txt") + 1)) execs in 0 s, 1 crashes"
	exit 1
fi
bad=0 listed=0
while IFS=$'\t' read -r name want; do
	case "$name" in '' | '#'*) continue ;; esac
	listed=$((listed + 1))
	got=$(awk -F'\t' -v n="$name" '$1 == n { sub(/^[^\t]*\t/, ""); print; exit }' "$OUT/seeds.txt")
	if [ -z "$got" ]; then
		echo "fuzz: seed $name listed in expected.txt but not in corpus/" >&2
		bad=$((bad + 1))
	elif [ "$got" != "$want" ]; then
		printf 'fuzz: seed %s: expected %s\nfuzz: seed %s: got      %s\n' \
			"$name" "$want" "$name" "$got" >&2
		bad=$((bad + 1))
	fi
done < "$HERE/expected.txt"
if [ $bad -ne 0 ]; then
	say "$bad of $listed seeds differ from expected.txt (model or expectation wrong)"
	say "${#seeds[@]} execs in 0 s, 0 crashes, $bad model errors"
	exit 1
fi
say "seeds: ${#seeds[@]} run, parser and model agree; $listed results as expected.txt"

MODEL_SECONDS=$(((DURATION + 1) / 2))
DIFF_SECONDS=$((DURATION - MODEL_SECONDS))

# --- 4. fuzz -------------------------------------------------------------------
rm -rf "$OUT/corpus" "$OUT/artifacts"
mkdir -p "$OUT/artifacts"
cp -r "$HERE/corpus" "$OUT/corpus"
# fuzz_args SECONDS ARTIFACTS: libFuzzer's options into args
fuzz_args() {
	args=(-max_total_time="$1" -dict="$HERE/rdma_max.dict" -max_len=512
	      -timeout=10 -use_value_profile=1 -print_final_stats=1
	      -artifact_prefix="$2/")
	[ -n "${FUZZ_SEED:-}" ] && args+=(-seed="$FUZZ_SEED")
	return 0
}
fuzz_args "$MODEL_SECONDS" "$OUT/artifacts"
say "fuzzing against the model for $MODEL_SECONDS s (log: $OUT/fuzz.log)"
start=$(date +%s)
rc=0
"$OUT/fuzz_parse" "${args[@]}" "$OUT/corpus" > "$OUT/fuzz.log" 2>&1 || rc=$?
elapsed=$(($(date +%s) - start))

execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$OUT/fuzz.log" | tail -n1)
[ -n "$execs" ] || execs=$(grep -Eo '^#[0-9]+' "$OUT/fuzz.log" | tail -n1 | tr -d '#')
execs=${execs:-0}
last=$(grep -E '^#[0-9]+[[:space:]]' "$OUT/fuzz.log" | tail -n1 || true)
cov=$(sed -n 's/.*cov: \([0-9]*\).*/\1/p' <<< "$last")
ft=$(sed -n 's/.* ft: \([0-9]*\).*/\1/p' <<< "$last")
corp=$(sed -n 's/.* corp: \([^ ]*\).*/\1/p' <<< "$last")
seed=$(sed -n 's/^INFO: Seed: *//p' "$OUT/fuzz.log" | head -n1)
say "seed ${seed:-?}; final coverage: ${cov:-?} edges, ${ft:-?} features, corpus ${corp:-?} (inputs/bytes)"

# Source coverage of the parser block by the final corpus (best effort).
rm -f "$OUT"/cov-*.profraw
if [ $rc -eq 0 ] &&
   $CLANG -std=gnu11 -O0 -funsigned-char -fprofile-instr-generate -fcoverage-mapping \
	-I"$HERE/include" -I"$REPO/kernel/cgroup" -DFUZZ_STANDALONE \
	-o "$OUT/fuzz_cov" "$HERE/fuzz_parse.c" "$HERE/model.c" "$PARSER" 2>/dev/null &&
   (cd "$OUT/corpus" && find . -type f -print0 |
	LLVM_PROFILE_FILE="$OUT/cov-%p.profraw" xargs -0 -r "$OUT/fuzz_cov") >/dev/null &&
   llvm-profdata-14 merge -o "$OUT/cov.profdata" "$OUT"/cov-*.profraw 2>/dev/null; then
	llvm-cov-14 report "$OUT/fuzz_cov" -instr-profile="$OUT/cov.profdata" "$PARSER" 2>/dev/null |
	awk -v p="$PARSER" '$1 == p {
		printf "fuzz: rdma_parse.c coverage by the final corpus: lines %d/%d, branches %d/%d, regions %d/%d\n",
			$8 - $9, $8, $11 - $12, $11, $2 - $3, $2 }' || true
fi

crashes=$(find "$OUT/artifacts" -type f | wc -l)
if [ $rc -ne 0 ] || [ "$crashes" -ne 0 ] ||
   grep -Eq 'ERROR: (AddressSanitizer|LeakSanitizer|libFuzzer)|runtime error:|^FUZZ:' "$OUT/fuzz.log"; then
	[ "$crashes" -ne 0 ] || crashes=1
	echo "---- last lines of $OUT/fuzz.log ----" >&2
	grep -v -E '^#[0-9]+[[:space:]]+(NEW|REDUCE|pulse|INITED)' "$OUT/fuzz.log" | tail -n 60 >&2
	for a in "$OUT"/artifacts/*; do
		[ -f "$a" ] && echo "fuzz: reproduce with: $OUT/fuzz_check $a" >&2
	done
	say "FAILED (libFuzzer exit $rc)"
	say "$execs execs in $elapsed s, $crashes crashes"
	exit 1
fi
say "model: $execs execs in $elapsed s, 0 crashes"
model_execs=$execs model_elapsed=$elapsed

# --- 5. against Linux 7.3 itself -----------------------------------------------
REF_PATHS=(lib/parser.c lib/kstrtox.c lib/kstrtox.h lib/ctype.c lib/vsprintf.c
	   include/linux/parser.h include/linux/kstrtox.h
	   kernel/cgroup/rdma.c)
ref_complete() {
	local f
	for f in "${REF_PATHS[@]}"; do [ -f "$1/$f" ] || return 1; done
}
REF=${FUZZ_REF_TREE:-}
if [ -n "$REF" ]; then
	ref_complete "$REF" || die "FUZZ_REF_TREE=$REF lacks one of ${REF_PATHS[*]}"
else
	for t in /work/main/build/7.3/pristine/linux-source-7.3 /work/ref/linux-source-7.3; do
		if ref_complete "$t"; then REF=$t; break; fi
	done
fi
if [ -z "$REF" ]; then
	TARBALL73=${FUZZ_REF_TARBALL:-/usr/src/linux-source-7.3.tar.xz}
	REF=$OUT/ref/linux-source-7.3
	if ! ref_complete "$REF"; then
		[ -f "$TARBALL73" ] || die "no Linux 7.3 tree and no $TARBALL73"
		say "extracting ${#REF_PATHS[@]} files of $TARBALL73 into $OUT/ref"
		mkdir -p "$OUT/ref"
		tar -xJf "$TARBALL73" -C "$OUT/ref" "${REF_PATHS[@]/#/linux-source-7.3/}" ||
			die "extracting from $TARBALL73 failed"
	fi
fi
say "upstream: $REF"

# The five patterns of ref_rdma.c must be 7.3's: a tree of another grammar
# is refused rather than fuzzed against.
for pat in '"index=%u"' '"hca_handle=%d"' '"hca_handle=max"' '"hca_object=%d"' '"hca_object=max"'; do
	grep -qF "$pat" "$REF/kernel/cgroup/rdma.c" ||
		die "$REF/kernel/cgroup/rdma.c has no $pat: not the 7.3 grammar"
	grep -qF "$pat" "$HERE/ref_rdma.c" || die "ref_rdma.c lacks $pat"
done

RB=$OUT/ref/build
rm -rf "$RB"
mkdir -p "$RB/include/linux"
for h in parser.h kstrtox.h; do
	cp "$REF/include/linux/$h" "$RB/include/linux/$h"
done
# simple_strtoull() and its kin, which match_token() calls, live in
# lib/vsprintf.c with much else: take just them, as they are.
{
	printf '%s\n' '#include <linux/compiler.h>' '#include <linux/types.h>' \
		'#include <linux/limits.h>' '#include <linux/ctype.h>' \
		'#include <linux/export.h>' '#include <linux/kstrtox.h>' \
		'#include "kstrtox.h"' "#line 1 \"$REF/lib/vsprintf.c (simple_strto*)\""
	awk '/^static unsigned long long simple_strntoull\(/ { on = 1; print "noinline" }
	     on { print }
	     on && /^EXPORT_SYMBOL\(simple_strtoll\);/ { exit }' "$REF/lib/vsprintf.c"
} > "$RB/simple_strtox.c"
for fn in simple_strntoull simple_strtoull simple_strtoul simple_strtol simple_strtoll; do
	grep -q "^[a-z ]*$fn(" "$RB/simple_strtox.c" ||
		die "could not take $fn() out of $REF/lib/vsprintf.c"
done

REF_SRC=("$REF/lib/parser.c" "$REF/lib/kstrtox.c" "$REF/lib/ctype.c"
	 "$RB/simple_strtox.c" "$HERE/ref_rdma.c")
REF_CFLAGS=(-std=gnu11 -g -O1 -funsigned-char -fno-omit-frame-pointer
	    -fsanitize=address,undefined -fno-sanitize-recover=all
	    -Wall -Werror -I"$RB/include" -I"$HERE/ref-include" -iquote "$REF/lib")
build_ref() {	# build_ref OBJDIR EXTRA-CFLAG...
	local dir=$1 src o
	shift
	mkdir -p "$dir"
	for src in "${REF_SRC[@]}"; do
		o=$dir/$(basename "$src" .c).o
		$CLANG "${REF_CFLAGS[@]}" "$@" -c -o "$o" "$src" ||
			die "building $src in user space failed"
		printf '%s\n' "$o"
	done
}
mapfile -t ref_fuzz_objs < <(build_ref "$RB/fuzz" -fsanitize=fuzzer-no-link)
mapfile -t ref_plain_objs < <(build_ref "$RB/plain")
[ ${#ref_fuzz_objs[@]} -eq ${#REF_SRC[@]} ] && [ ${#ref_plain_objs[@]} -eq ${#REF_SRC[@]} ] ||
	die "building Linux 7.3's parser in user space failed"
$CLANG "${CFLAGS[@]}" -fsanitize=fuzzer -o "$OUT/fuzz_diff" \
	"$HERE/fuzz_diff.c" "$HERE/model.c" "$PARSER" "${ref_fuzz_objs[@]}" ||
	die "building the differential fuzzer failed"
$CLANG "${CFLAGS[@]}" -DFUZZ_STANDALONE -o "$OUT/fuzz_diff_check" \
	"$HERE/fuzz_diff.c" "$HERE/model.c" "$PARSER" "${ref_plain_objs[@]}" ||
	die "building the differential plain checker failed"
say "built $OUT/fuzz_diff and $OUT/fuzz_diff_check against $REF"

if ! "$OUT/fuzz_diff_check" "${seeds[@]}" > "$OUT/diff-seeds.txt" 2> "$OUT/diff-seeds.err"; then
	cat "$OUT/diff-seeds.err" >&2
	say "FAILED: a seed of harness/fuzz/corpus differs from Linux 7.3 (before fuzzing)"
	say "$((model_execs + $(wc -l < "$OUT/diff-seeds.txt") + 1)) execs in $model_elapsed s, 1 crashes"
	exit 1
fi
say "seeds: ${#seeds[@]} run, parser and Linux 7.3 agree"

rm -rf "$OUT/diff-corpus" "$OUT/diff-artifacts"
mkdir -p "$OUT/diff-artifacts"
cp -r "$OUT/corpus" "$OUT/diff-corpus"
fuzz_args "$DIFF_SECONDS" "$OUT/diff-artifacts"
say "fuzzing against Linux 7.3 for $DIFF_SECONDS s (log: $OUT/fuzz_diff.log)"
start=$(date +%s)
rc=0
if [ "$DIFF_SECONDS" -gt 0 ]; then
	"$OUT/fuzz_diff" "${args[@]}" "$OUT/diff-corpus" > "$OUT/fuzz_diff.log" 2>&1 || rc=$?
else
	: > "$OUT/fuzz_diff.log"
fi
elapsed=$(($(date +%s) - start))
execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$OUT/fuzz_diff.log" | tail -n1)
execs=${execs:-0}
last=$(grep -E '^#[0-9]+[[:space:]]' "$OUT/fuzz_diff.log" | tail -n1 || true)
say "differential: coverage $(sed -n 's/.*cov: \([0-9]*\).*/\1/p' <<< "$last") edges, corpus $(sed -n 's/.* corp: \([^ ]*\).*/\1/p' <<< "$last")"
crashes=$(find "$OUT/diff-artifacts" -type f | wc -l)
if [ $rc -ne 0 ] || [ "$crashes" -ne 0 ] ||
   grep -Eq 'ERROR: (AddressSanitizer|LeakSanitizer|libFuzzer)|runtime error:|^FUZZ:' "$OUT/fuzz_diff.log"; then
	[ "$crashes" -ne 0 ] || crashes=1
	echo "---- last lines of $OUT/fuzz_diff.log ----" >&2
	grep -v -E '^#[0-9]+[[:space:]]+(NEW|REDUCE|pulse|INITED)' "$OUT/fuzz_diff.log" | tail -n 60 >&2
	for a in "$OUT"/diff-artifacts/*; do
		[ -f "$a" ] && echo "fuzz: reproduce with: $OUT/fuzz_diff_check $a" >&2
	done
	say "FAILED against Linux 7.3 (libFuzzer exit $rc)"
	say "$((model_execs + execs)) execs in $((model_elapsed + elapsed)) s, $crashes crashes"
	exit 1
fi
say "differential: $execs execs in $elapsed s, 0 crashes"
say "$((model_execs + execs)) execs in $((model_elapsed + elapsed)) s, 0 crashes"
