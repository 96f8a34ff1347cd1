#!/usr/bin/env bash
# The main job on a bundled example: parse and verify the hand-written RMSNorm +
# MatMul μGraph and print it in mlsopt's custom assembly.
set -euo pipefail
BUILD_DIR="${1:-build}"
EXAMPLE=examples/rmsnorm_matmul.mlir
echo "== mlsopt-opt $EXAMPLE"
"$BUILD_DIR/bin/mlsopt-opt" "$EXAMPLE"
