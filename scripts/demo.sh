#!/usr/bin/env bash
# The main job on a bundled example, end to end on the CPU:
#   1. import a front end's linalg program (RMSNorm + MatMul) into the kernel
#      dialect;
#   2. superoptimize it: the search finds a fused μGraph on its own and
#      prints it;
#   3. prove the result equivalent to the original by random tests over
#      finite fields (--verify-equivalence);
#   4. lower the original and the found program to LLVM, JIT-run both on the
#      same inputs and print how far apart their results are.
set -euo pipefail
BUILD_DIR="${1:-build}"
OPT="$BUILD_DIR/bin/mlsopt-opt"
LLVM_BIN=/usr/lib/llvm-22/bin
LLVM_LIB=/usr/lib/llvm-22/lib
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT

echo "== 1. linalg from a front end, imported: mlsopt-opt examples/linalg/rmsnorm_matmul.mlir --convert-linalg-to-kernel"
"$OPT" examples/linalg/rmsnorm_matmul.mlir --convert-linalg-to-kernel -o "$WORK/imported.mlir"
cat "$WORK/imported.mlir"

echo
echo "== 2. searched: mlsopt-opt --superoptimize=\"target=sm_90 timeout=20 keep-reference=true\""
"$OPT" "$WORK/imported.mlir" --superoptimize="target=sm_90 timeout=20 keep-reference=true" \
  --mlir-print-op-on-diagnostic=false -o "$WORK/found.mlir"
cat "$WORK/found.mlir"

echo
echo "== 3. proven equivalent: mlsopt-opt --verify-equivalence"
"$OPT" "$WORK/found.mlir" --verify-equivalence -o /dev/null \
  --mlir-print-op-on-diagnostic=false 2>&1

echo
echo "== 4. both on the CPU, the μGraph following its block schedule: relative error of the found program against the original"
# The module's functions, renamed to what the comparison calls.
sed -e '/^module {$/d' -e '/^}$/d' -e 's/@rmsnorm_matmul_reference/@reference/g' \
    -e 's/@rmsnorm_matmul(/@fused(/' -e 's/func.func private @reference/func.func @reference/' \
    -e 's/ attributes {mlsopt.equivalent_to = @reference}//' "$WORK/found.mlir" \
  | cat - test/Examples/Inputs/compare.mlir test/Examples/run-rmsnorm_matmul.mlir \
  | sed -e 's/f16/f32/g' -e '/^\/\/ RUN/d' \
  | "$OPT" --mlsopt-cpu-pipeline \
  | "$LLVM_BIN/mlir-runner" -e main -entry-point-result=void \
      -shared-libs="$LLVM_LIB/libmlir_c_runner_utils.so,$LLVM_LIB/libmlir_runner_utils.so"
