#!/usr/bin/env bash
# The GPU benchmark, one prepared script for the lent GPU machine (which has
# PyTorch, Triton and CuPy or cuda-python, and neither LLVM nor the build):
#
#   here:        bash bench/gpu/prepare.sh build            # PTX + launch plans
#   GPU machine: bash bench/gpu/run.sh                      # writes $OUT
#   anywhere:    bash bench/gpu/run.sh --dry-run            # checks the inputs
#
# The prepared artifacts (build/bench/gpu, a few MiB) travel with the command
# (the device tool's `carry`). Results: results.json and results.md under
# $OUT (default build/bench/gpu-results).
set -euo pipefail
cd "$(dirname "$0")/../.."
ARTIFACTS="${MLSOPT_GPU_ARTIFACTS:-build/bench/gpu}"
exec python3 bench/gpu/run.py --artifacts "$ARTIFACTS" \
  --out "${OUT:-build/bench/gpu-results}" "$@"
