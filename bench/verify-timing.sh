#!/usr/bin/env bash
# The verifier's figures in docs/verification.md, measured with --mlir-timing
# (the wall time of the VerifyEquivalence pass: field programs built, JIT
# compiled where the engine is the JIT, run and compared; parsing excluded):
#
#   1. each example μGraph against its reference, on the JIT engine and on the
#      in-process evaluator, with the test count the default bound (1e-9)
#      needs and no f32 check;
#   2. checks per second on the bench shapes: each bench/*.mlir, imported with
#      --convert-linalg-to-kernel, compared with a copy of itself, TESTS
#      times (a check runs both functions on one draw of inputs and compares
#      them), on the evaluator, and on the JIT too with --jit.
#
# Usage: bench/verify-timing.sh [--jit]   (after `make build`)
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
opt=${MLSOPT_OPT:-$root/build/bin/mlsopt-opt}
tests=${TESTS:-2}
bench_engines="evaluator"
[[ "${1:-}" == "--jit" ]] && bench_engines="evaluator jit"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# Runs the pass on $1 with options $2; prints its wall time in seconds, or
# fails when a function was not proven equivalent.
verify_seconds() {
  local log="$tmp/log"
  "$opt" "$1" --verify-equivalence="$2 f32-check=false" --mlir-timing \
    --mlir-print-op-on-diagnostic=false -o /dev/null >"$log" 2>&1 || {
    cat "$log" >&2
    return 1
  }
  if grep -q "error:" "$log"; then cat "$log" >&2; return 1; fi
  awk '/VerifyEquivalence$/ { print $1 }' "$log"
}

echo "== example μGraphs against their references (seconds) =="
printf '%-20s %10s %10s\n' example jit evaluator
for example in "$root"/examples/*.mlir; do
  name=$(basename "$example" .mlir)
  jit=$(verify_seconds "$example" "engine=jit")
  evaluator=$(verify_seconds "$example" "engine=evaluator")
  printf '%-20s %10s %10s\n' "$name" "$jit" "$evaluator"
done

echo
echo "== bench shapes: checks per second ($tests checks each) =="
printf '%-16s %-10s %10s %10s\n' case engine seconds checks/s
for case in "$root"/bench/*.mlir; do
  name=$(basename "$case" .mlir)
  pair="$tmp/$name.mlir"
  "$opt" "$case" --convert-linalg-to-kernel -o "$tmp/imported.mlir"
  # The imported function and a copy that claims to equal it.
  python3 - "$tmp/imported.mlir" "$pair" <<'PY'
import re, sys
text = open(sys.argv[1]).read().splitlines()
start = next(i for i, l in enumerate(text) if l.startswith("  func.func @"))
end = next(i for i in range(start, len(text)) if text[i] == "  }")
name = re.match(r"  func.func @([\w.]+)", text[start]).group(1)
copy = text[start:end + 1]
copy[0] = copy[0].replace("@" + name, "@" + name + "_copy", 1)
copy[0] = copy[0][: -len(" {")] + " attributes {mlsopt.equivalent_to = @" + name + "} {"
open(sys.argv[2], "w").write("\n".join(text[: end + 1] + copy + text[end + 1 :]) + "\n")
PY
  for engine in $bench_engines; do
    seconds=$(verify_seconds "$pair" "engine=$engine tests=$tests")
    awk -v n="$name" -v e="$engine" -v t="$tests" -v s="$seconds" \
      'BEGIN { printf "%-16s %-10s %10s %10.2f\n", n, e, s, t / s }'
  done
done
