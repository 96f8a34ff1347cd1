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
#      them), on the evaluator, and on the JIT too with --jit. The copy is a
#      function that calls the imported one: the pass checks a call as the
#      body it calls, so both sides run the same ops, but the bodies differ,
#      so the pass does not take the pair for "the same program, op for op"
#      and skip the tests (as it does for a copy of the body itself).
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

# Runs the pass on $1 with options $2; prints the pass's wall time and the
# process's CPU time (user + system: steadier on a loaded machine) in
# seconds, "not-verified" when some function was not proven equivalent
# (e.g. a program that is not LAX), or "no-tests" when the pass found the
# two bodies identical and ran no test.
verify_seconds() {
  local log="$tmp/log"
  if ! /usr/bin/time -f "%U %S" -o "$tmp/cpu" "$opt" "$1" \
      --verify-equivalence="$2 f32-check=false" --mlir-timing \
      --mlir-print-op-on-diagnostic=false -o /dev/null >"$log" 2>&1 ||
      grep -q "error:" "$log"; then
    echo "not-verified not-verified"
    return
  fi
  if grep -q "the same program, op for op" "$log"; then
    echo "no-tests no-tests"
    return
  fi
  printf '%s %s\n' "$(awk '/VerifyEquivalence$/ { print $1 }' "$log")" \
    "$(awk '{ print $1 + $2 }' "$tmp/cpu")"
}

echo "== example μGraphs against their references (seconds: pass wall, process CPU) =="
printf '%-16s %10s %10s %10s %10s\n' example jit-wall jit-cpu eval-wall eval-cpu
for example in "$root"/examples/*.mlir; do
  name=$(basename "$example" .mlir)
  read -r jw jc < <(verify_seconds "$example" "engine=jit")
  read -r ew ec < <(verify_seconds "$example" "engine=evaluator")
  printf '%-16s %10s %10s %10s %10s\n' "$name" "$jw" "$jc" "$ew" "$ec"
done

echo
echo "== bench shapes: checks per second ($tests checks each, by CPU time) =="
printf '%-16s %-10s %10s %10s %10s\n' case engine wall cpu checks/s
for case in "$root"/bench/*.mlir; do
  name=$(basename "$case" .mlir)
  pair="$tmp/$name.mlir"
  "$opt" "$case" --convert-linalg-to-kernel -o "$tmp/imported.mlir"
  # The imported function and a copy that claims to equal it: a function
  # that calls it (see the header).
  python3 - "$tmp/imported.mlir" "$pair" <<'PY'
import re, sys
text = open(sys.argv[1]).read().splitlines()
start = next(i for i, l in enumerate(text) if l.startswith("  func.func @"))
end = next(i for i in range(start, len(text)) if text[i] == "  }")
m = re.match(r"  func\.func @([\w.]+)\((.*)\) -> (.*) \{$", text[start])
name, args, results = m.groups()
arg_names, arg_types = zip(*(a.split(": ", 1) for a in re.split(r", (?=%)", args)))
result_types = results[1:-1].split(", ") if results.startswith("(") else [results]
n = len(result_types)
values = ", ".join(f"%r#{i}" for i in range(n)) if n > 1 else "%r"
copy = [
    f"  func.func @{name}_copy({args}) -> {results} "
    f"attributes {{mlsopt.equivalent_to = @{name}}} {{",
    f"    %r{':' + str(n) if n > 1 else ''} = call @{name}({', '.join(arg_names)})"
    f" : ({', '.join(arg_types)}) -> {results}",
    f"    return {values} : {', '.join(result_types)}",
    "  }",
]
open(sys.argv[2], "w").write("\n".join(text[: end + 1] + copy + text[end + 1 :]) + "\n")
PY
  for engine in $bench_engines; do
    read -r wall cpu < <(verify_seconds "$pair" "engine=$engine tests=$tests")
    awk -v n="$name" -v e="$engine" -v t="$tests" -v w="$wall" -v c="$cpu" \
      'BEGIN { r = (c + 0 > 0) ? sprintf("%.2f", t / c) : "-";
               printf "%-16s %-10s %10s %10s %10s\n", n, e, w, c, r }'
  done
done
