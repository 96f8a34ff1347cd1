#!/usr/bin/env bash
# Runs each libFuzzer target of BUILD_DIR (configured by `make fuzz`) for
# SECONDS seconds, starting from the seed corpus in fuzz/corpus/<target>;
# new inputs go to BUILD_DIR/fuzz-corpus, crash inputs to
# BUILD_DIR/fuzz-artifacts. Prints one line per target: runs, seconds,
# corpus size, and whether it found something. Exits 1 if any target did.
set -uo pipefail

BUILD_DIR="${1:-build-fuzz}"
SECONDS_PER_TARGET="${2:-300}"
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
# Leaks are left to `make check-asan` (LeakSanitizer would run after every
# input); allow_user_poisoning=0 as in test/lit.cfg.py.
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=0:allow_user_poisoning=0}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1}"

status=0
summary=()
for target in parse superoptimize; do
  binary="$BUILD_DIR/bin/mlsopt-$target-fuzzer"
  corpus="$BUILD_DIR/fuzz-corpus/$target"
  artifacts="$BUILD_DIR/fuzz-artifacts/$target"
  log="$BUILD_DIR/fuzz-$target.log"
  mkdir -p "$corpus" "$artifacts"
  extra=()
  [ -f "$ROOT/fuzz/$target.dict" ] && extra+=("-dict=$ROOT/fuzz/$target.dict")
  # -timeout: a superoptimize input searches for 1 s, then JIT-compiles two
  # functions; anything near a minute is a hang.
  "$binary" "$corpus" "$ROOT/fuzz/corpus/$target" \
    -max_total_time="$SECONDS_PER_TARGET" -timeout=60 -rss_limit_mb=6144 \
    -print_final_stats=1 -artifact_prefix="$artifacts/" "${extra[@]}" \
    > "$log" 2>&1
  rc=$?
  runs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$')
  time=$(grep -o 'Done [0-9]* runs in [0-9]* second' "$log" | grep -o 'in [0-9]*' | grep -o '[0-9]*')
  found=$(ls "$artifacts" | wc -l)
  line="mlsopt-$target-fuzzer: ${runs:-?} runs in ${time:-?} s, corpus $(ls "$corpus" | wc -l) inputs, $found findings in $artifacts (log: $log)"
  summary+=("$line")
  if [ $rc -ne 0 ] || [ "$found" -ne 0 ]; then status=1; fi
done
printf '%s\n' "${summary[@]}"
exit $status
