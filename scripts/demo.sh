#!/usr/bin/env bash
# The main job on a bundled example, end to end on the CPU:
#   1. import a front end's linalg program into the kernel dialect;
#   2. show the fused μGraph mlsopt targets for it (one custom kernel);
#   3. prove the two equivalent by random tests over finite fields;
#   4. lower the unfused and the fused program to LLVM, JIT-run both on the
#      same inputs and print how far apart their results are.
set -euo pipefail
BUILD_DIR="${1:-build}"
OPT="$BUILD_DIR/bin/mlsopt-opt"
LLVM_BIN=/usr/lib/llvm-22/bin
LLVM_LIB=/usr/lib/llvm-22/lib

echo "== 1. linalg from a front end, imported: mlsopt-opt examples/linalg/rmsnorm_matmul.mlir --convert-linalg-to-kernel"
"$OPT" examples/linalg/rmsnorm_matmul.mlir --convert-linalg-to-kernel

echo
echo "== 2. the μGraph for it: one kernel whose for-loop accumulates X W and the sum of squares (examples/rmsnorm_matmul.mlir)"
"$OPT" examples/rmsnorm_matmul.mlir

echo
echo "== 3. proven equivalent: mlsopt-opt examples/rmsnorm_matmul.mlir --verify-equivalence"
"$OPT" examples/rmsnorm_matmul.mlir --verify-equivalence -o /dev/null \
  --mlir-print-op-on-diagnostic=false 2>&1

echo
echo "== 4. both on the CPU (f32), the μGraph following its block schedule: relative error of @fused against @reference"
cat examples/rmsnorm_matmul.mlir test/Examples/Inputs/compare.mlir test/Examples/run-rmsnorm_matmul.mlir \
  | sed -e 's/f16/f32/g' -e '/^\/\/ RUN/d' \
  | "$OPT" --mlsopt-cpu-pipeline \
  | "$LLVM_BIN/mlir-runner" -e main -entry-point-result=void \
      -shared-libs="$LLVM_LIB/libmlir_c_runner_utils.so,$LLVM_LIB/libmlir_runner_utils.so"
