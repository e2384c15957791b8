#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Fuzz the rdma.max parser, kernel/cgroup/rdma_parse.c, against a reference
# model.
#
#   harness/fuzz/run.sh [SECONDS]        (default 60)
#
# 1. Installs clang-14 and libfuzzer-14-dev if missing (Debian, idempotent).
# 2. Builds kernel/cgroup/rdma_parse.c, the kernel's parser source as it
#    is, against the stand-ins for kernel headers in harness/fuzz/include.
#    Builds, with ASan and UBSan, a libFuzzer target and a plain checker.
# 3. Runs every seed of harness/fuzz/corpus through the plain checker (parser
#    and model must agree) and compares the results with
#    harness/fuzz/expected.txt, worked out by hand: a check of the model.
# 4. Fuzzes for SECONDS on a copy of the corpus in build/fuzz/corpus.
#
# Exits non-zero on any crash, sanitizer report or disagreement; the last
# line is "fuzz: N execs in S s, C crashes".
#
# Environment: FUZZ_OUT (default build/fuzz), FUZZ_SEED (libFuzzer -seed).
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

# --- 4. fuzz -------------------------------------------------------------------
rm -rf "$OUT/corpus" "$OUT/artifacts"
mkdir -p "$OUT/artifacts"
cp -r "$HERE/corpus" "$OUT/corpus"
args=(-max_total_time="$DURATION" -dict="$HERE/rdma_max.dict" -max_len=512
      -timeout=10 -use_value_profile=1 -print_final_stats=1
      -artifact_prefix="$OUT/artifacts/")
[ -n "${FUZZ_SEED:-}" ] && args+=(-seed="$FUZZ_SEED")
say "fuzzing for $DURATION s (log: $OUT/fuzz.log)"
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
say "$execs execs in $elapsed s, 0 crashes"
