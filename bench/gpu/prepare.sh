#!/usr/bin/env bash
# Builds what bench/gpu/run.sh needs, on a machine with the project built (the
# GPU machine has no LLVM): for every case, the program imported and
# superoptimized for sm_90, lowered with --mlsopt-gpu-pipeline, its PTX, its
# launch plan and what the search estimated. Also the unfused program, lowered
# the same way (one default block graph per kernel op), as a baseline.
#
#   bash bench/gpu/prepare.sh [BUILD_DIR] [OUT_DIR] [case.mlir ...]
#
# OUT_DIR (default BUILD_DIR/bench/gpu) is what travels to the GPU machine.
set -euo pipefail
BUILD_DIR="${1:-build}"
OUT="${2:-$BUILD_DIR/bench/gpu}"
shift $(( $# > 2 ? 2 : $# )) || true
OPT="$BUILD_DIR/bin/mlsopt-opt"
TRANSLATE="$BUILD_DIR/bin/mlsopt-translate"
TIMEOUT="${MLSOPT_BENCH_TIMEOUT:-60}"
# (Not `| grep -q`: grep's early exit would fail the pipeline under pipefail.)
if ! "$OPT" --help | grep -c -- --mlsopt-gpu-pipeline > /dev/null; then
  echo "error: $OPT has no --mlsopt-gpu-pipeline" >&2
  exit 1
fi
cases=("$@")
if [ ${#cases[@]} -eq 0 ]; then
  cases=(bench/*_b*.mlir)
fi
mkdir -p "$OUT"
for case in "${cases[@]}"; do
  stem="$(basename "$case" .mlir)"
  name="${stem%_b*}"
  batch="${stem##*_b}"
  dir="$OUT/$stem"
  mkdir -p "$dir"
  "$OPT" "$case" --convert-linalg-to-kernel -o "$dir/imported.mlir"
  # The cache holds `make bench`'s searches, if it ran: then this only
  # verifies them again.
  "$OPT" "$dir/imported.mlir" --superoptimize="target=sm_90 timeout=$TIMEOUT cache-dir=$BUILD_DIR/bench/cache" \
    --mlir-print-op-on-diagnostic=false -o "$dir/searched.mlir" 2> "$dir/search.log"
  # The same search ranking with the latency term (docs/cost-model.md,
  # "Latency"), which the GPU run times beside the default's result.
  "$OPT" "$dir/imported.mlir" --superoptimize="target=sm_90 timeout=$TIMEOUT cache-dir=$BUILD_DIR/bench/cache latency-model=true" \
    --mlir-print-op-on-diagnostic=false -o "$dir/latency.mlir" 2> "$dir/search-latency.log"
  # And with the roofline alone (no latency veto), what the default was
  # when the GPU last ran.
  "$OPT" "$dir/imported.mlir" --superoptimize="target=sm_90 timeout=$TIMEOUT cache-dir=$BUILD_DIR/bench/cache latency-veto=false" \
    --mlir-print-op-on-diagnostic=false -o "$dir/roofline.mlir" 2> "$dir/search-roofline.log"
  for variant in searched latency roofline imported; do
    "$OPT" "$dir/$variant.mlir" --mlsopt-gpu-pipeline=chip=sm_90 -o "$dir/$variant.gpu.mlir"
    "$TRANSLATE" --emit-ptx "$dir/$variant.gpu.mlir" -o "$dir/$variant.ptx"
    "$TRANSLATE" --emit-launch-plan "$dir/$variant.gpu.mlir" -o "$dir/$variant.plan.json"
  done
  # The cost model's estimates, from the search's remarks, and with the
  # latency term (docs/cost-model.md, "Latency") from the Python package.
  PYTHONPATH="$BUILD_DIR/python" python3 - "$dir" "$name" "$batch" > "$dir/meta.json" <<'PY'
import json, pathlib, sys
sys.path.insert(0, "bench")
from search import estimated_us
import mlsopt as mi
case = pathlib.Path(sys.argv[1])
before, after = estimated_us((case / "search.log").read_text())
latency = {variant: mi.from_mlir((case / f"{variant}.mlir").read_text())
           .cost("sm_90", latency=True).total_us
           for variant in ("imported", "searched", "latency", "roofline")}
print(json.dumps({"name": sys.argv[2], "batch": int(sys.argv[3]),
                  "function": sys.argv[2], "est_us_before": before,
                  "est_us_after": after,
                  "est_latency_us_before": latency["imported"],
                  "est_latency_us_after": latency["searched"],
                  "est_latency_us_latency_searched": latency["latency"],
                  "est_latency_us_roofline": latency["roofline"]}))
PY
  echo "prepared $stem: $(grep -c '"kernel"' "$dir/searched.plan.json") launches (with latency: $(grep -c '"kernel"' "$dir/latency.plan.json"), roofline: $(grep -c '"kernel"' "$dir/roofline.plan.json"), unfused: $(grep -c '"kernel"' "$dir/imported.plan.json"))"
done
